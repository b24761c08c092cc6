/* Versions and the --target they are compared with (version.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int set_part(struct cgfb_target *t, const char *part, size_t len, char *err, size_t errsz)
{
	static const char *const names[] = { "kernel", "systemd", "kubelet" };
	char *slots[] = { t->kernel, t->systemd, t->kubelet };
	const char *eq = memchr(part, '=', len);
	char version[32];

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
	snprintf(err, errsz, "--target: '%.*s' is not kernel=, systemd= or kubelet= with a version "
		 "such as 6.12, 258 or 1.35", (int)len, part);
	return -EINVAL;
}

int cgfb_target_parse(const char *spec, struct cgfb_target *t, char *err, size_t errsz)
{
	memset(t, 0, sizeof(*t));
	if (!*spec) {
		snprintf(err, errsz, "--target wants kernel=, systemd= or kubelet= (e.g. kernel=6.12,systemd=258)");
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

/* A component breaks on the target when the target names it at or past
 * the version it breaks in, compared at the target's precision: an
 * installed 6.12.48 is in the target kernel=6.12. */
static bool at_or_past(const char *target, const char *breaks)
{
	char cut[32];
	size_t n = 0;
	unsigned dots = 0, want = 0;

	if (!target[0] || !breaks)
		return false;
	for (const char *p = target; *p; p++)
		want += *p == '.';
	while (breaks[n] && n < sizeof(cut) - 1 && !(breaks[n] == '.' && dots++ == want))
		n++;
	memcpy(cut, breaks, n);
	cut[n] = '\0';
	return cgfb_version_cmp(target, cut) >= 0;
}

bool cgfb_target_breaks(const struct cgfb_target *t, const struct cgfb_breaks_in *b,
			const char *kernel)
{
	if (!t || !t->any)
		return true;
	return at_or_past(t->kernel, kernel ? kernel : b->kernel) ||
	       at_or_past(t->systemd, b->systemd) || at_or_past(t->kubelet, b->kubelet);
}
