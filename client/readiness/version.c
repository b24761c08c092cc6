/* Versions and the --target they are compared with (version.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readiness/releases.h"
#include "readiness/version.h"

void cgfb_version_prefix(const char *s, char *buf, size_t sz)
{
	size_t n = 0;

	while (n < sz - 1 && (isdigit((unsigned char)s[n]) ||
			      (s[n] == '.' && n && isdigit((unsigned char)s[n + 1]))))
		n++;
	memcpy(buf, s, n);
	buf[n] = '\0';
}

/* The next dotted component of *s, advancing it; -1 when none is left. */
static long component(const char **s)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)**s))
		return -1;
	v = strtol(*s, &end, 10);
	*s = end;
	if (**s == '.' && isdigit((unsigned char)(*s)[1]))
		(*s)++;
	else
		*s = "";
	return v;
}

int cgfb_version_cmp(const char *a, const char *b)
{
	bool va = isdigit((unsigned char)*a), vb = isdigit((unsigned char)*b);

	if (!va || !vb)
		return va - vb;
	while (*a || *b) {
		long x = component(&a), y = component(&b);

		x = x < 0 ? 0 : x;
		y = y < 0 ? 0 : y;
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

static const char *const distro_keys[][2] = {
	{ "debian", "debian" }, { "ubuntu", "ubuntu" }, { "rhel", "rhel" }, { "centos", "rhel" },
	{ "rocky", "rhel" }, { "almalinux", "rhel" },
};

static int set_release(struct cgfb_target *t, const char *part, size_t len, char *err, size_t errsz)
{
	const char *eq = memchr(part, '=', len);
	char version[32];

	for (size_t i = 0; eq && i < sizeof(distro_keys) / sizeof(*distro_keys); i++) {
		size_t kl = (size_t)(eq - part), vl = len - kl - 1;

		if (kl != strlen(distro_keys[i][0]) || strncmp(part, distro_keys[i][0], kl))
			continue;
		if (t->release) {
			snprintf(err, errsz, "--target names a distribution twice");
			return -EINVAL;
		}
		snprintf(version, sizeof(version), "%.*s", (int)(vl < sizeof(version) ? vl : 0), eq + 1);
		if (!(t->release = cgfb_release_find(distro_keys[i][1], version))) {
			char known[256] = "";
			size_t n = 0;

			for (const struct cgfb_release *r = cgfb_release_next(distro_keys[i][1], NULL); r;
			     r = cgfb_release_next(distro_keys[i][1], r))
				n += (size_t)snprintf(known + n, sizeof(known) - n, "%s%s", n ? ", " : "", r->version);
			snprintf(err, errsz, "--target: %.*s is no release known here (%s: %s)", (int)len, part,
				 distro_keys[i][0], known);
			return -EINVAL;
		}
		return 0;
	}
	return 1;
}

static int set_part(struct cgfb_target *t, const char *part, size_t len, char *err, size_t errsz)
{
	static const char *const names[] = { "kernel", "systemd", "kubelet" };
	char *slots[] = { t->kernel, t->systemd, t->kubelet };
	const char *eq = memchr(part, '=', len);
	char version[32];
	int rc = set_release(t, part, len, err, errsz);

	if (rc <= 0)
		return rc;
	for (unsigned i = 0; eq && i < 3; i++) {
		size_t vl = len - (size_t)(eq - part) - 1;

		if ((size_t)(eq - part) != strlen(names[i]) || strncmp(part, names[i], strlen(names[i])))
			continue;
		if (slots[i][0]) {
			snprintf(err, errsz, "--target names %s twice", names[i]);
			return -EINVAL;
		}
		if (vl == 0 || vl >= sizeof(version))
			break;
		memcpy(version, eq + 1, vl);
		version[vl] = '\0';
		cgfb_version_prefix(version, slots[i], sizeof(t->kernel));
		if (strcmp(slots[i], version) != 0)
			break;
		return 0;
	}
	snprintf(err, errsz, "--target: '%.*s' is not kernel=, systemd=, kubelet= with a version "
		 "such as 6.12, 258 or 1.35, nor a release such as debian=13, ubuntu=22.04 or rhel=9",
		 (int)len, part);
	return -EINVAL;
}

int cgfb_target_parse(const char *spec, struct cgfb_target *t, char *err, size_t errsz)
{
	memset(t, 0, sizeof(*t));
	if (!*spec) {
		snprintf(err, errsz, "--target wants kernel=, systemd=, kubelet= or a release "
			 "(e.g. kernel=6.12,systemd=258 or rhel=9)");
		return -EINVAL;
	}
	for (const char *p = spec;; p++) {
		size_t len = strcspn(p, ",");
		int rc = set_part(t, p, len, err, errsz);   /* an empty part is refused too */

		if (rc)
			return rc;
		p += len;
		if (!*p)
			break;
	}
	t->any = true;
	return 0;
}

void cgfb_target_text(const struct cgfb_target *t, char *buf, size_t sz)
{
	const char *names[] = { "kernel", "systemd", "kubelet" };
	const char *vals[] = { t->kernel, t->systemd, t->kubelet };
	size_t len = 0;

	buf[0] = '\0';
	if (t->release)
		len += (size_t)snprintf(buf, sz, "%s=%s", t->release->family, t->release->version);
	for (unsigned i = 0; i < 3 && len < sz; i++)
		if (vals[i][0])
			len += (size_t)snprintf(buf + len, sz - len, "%s%s=%s", len ? "," : "",
						names[i], vals[i]);
}
