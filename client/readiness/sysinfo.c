/* The probes outside the cgroup tree: the kernel command line, the running
 * and every installed kernel's configuration, and the installed systemd's
 * version. Each reads files under the check's root only. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cgfb/buf.h"
#include "cgfb/readfile.h"
#include "log/input.h"
#include "readiness/check.h"
#include "readiness/version.h"

#define CMDLINE_MAX   4096            /* COMMAND_LINE_SIZE of x86 is 2048 */
#define KCONFIG_MAX   (8u << 20)      /* a distribution's config is ~300 KiB */
#define STATUS_MAX    (64u << 20)     /* dpkg's status file of a big install */

/* --- the kernel command line --------------------------------------------- */

static bool cmdline_matches(const struct cgfb_rule *r, const char *tok, size_t len)
{
	size_t pl = strlen(r->param);
	const char *v;
	size_t vl;

	if (len < pl || strncmp(tok, r->param, pl) != 0 || (len > pl && tok[pl] != '='))
		return false;
	if (!r->n_values)
		return true;
	if (len == pl)
		return false;
	v = tok + pl + 1;
	vl = len - pl - 1;
	if (vl >= 2 && v[0] == '"' && v[vl - 1] == '"')
		v++, vl -= 2;
	for (unsigned i = 0; i < r->n_values; i++)
		if (strlen(r->values[i]) == vl && strncasecmp(v, r->values[i], vl) == 0)
			return true;
	return false;
}

/* The next parameter of a command line: white space separates, double
 * quotes keep it together (as the kernel's next_arg), "--" ends what the
 * kernel and systemd read. */
static const char *next_param(const char *p, size_t *len)
{
	bool quoted = false;
	size_t n = 0;

	while (isspace((unsigned char)*p))
		p++;
	while (p[n] && (quoted || !isspace((unsigned char)p[n])))
		quoted ^= p[n++] == '"';
	*len = n;
	return n && !(n == 2 && p[0] == '-' && p[1] == '-') ? p : NULL;
}

int cgfb_probe_cmdline(const struct cgfb_rules *rs, const struct cgfb_check_opts *o,
		       struct cgfb_check *c)
{
	char path[4096], buf[CMDLINE_MAX];
	ssize_t n;
	size_t len;
	int rc = cgfb_check_path(o, "/proc/cmdline", path, sizeof(path));

	if (rc)
		return rc;
	if ((n = cgfb_read_at(AT_FDCWD, path, buf, sizeof(buf))) < 0)
		return cgfb_check_unreadable(c, path, (int)n);
	c->sources++;
	for (const char *p = buf; !rc && (p = next_param(p, &len)); p += len)
		for (size_t i = 0; i < rs->n && !rc; i++)
			if (rs->r[i].probe == CGFB_PROBE_CMDLINE && cmdline_matches(&rs->r[i], p, len))
				rc = cgfb_check_found(c, &rs->r[i], "%s: %.*s", path, (int)len, p);
	return rc;
}

/* --- kernel configurations ----------------------------------------------- */

/* A configuration file, plain or compressed (/proc/config.gz), whole. */
static int read_config(const char *path, struct cgfb_buf *b)
{
	struct cgfb_input *in = NULL;
	char chunk[65536];
	ssize_t n;
	int rc, fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	b->len = 0;
	if ((rc = cgfb_input_open(fd, &in)))
		goto out;
	while ((n = cgfb_input_read(in, chunk, sizeof(chunk))) > 0) {
		if (b->len + (size_t)n > KCONFIG_MAX) {
			rc = -EFBIG;
			goto out;
		}
		if ((rc = cgfb_buf_add(b, chunk, (size_t)n)))
			goto out;
	}
	rc = n < 0 ? (int)n : 0;
out:
	cgfb_input_close(in);
	close(fd);
	return rc;
}

/* How option is set in a configuration: 'y', 'm', 'n' (said not set or
 * absent), or 0 when the text is no kernel configuration at all (no line
 * of CONFIG_ or "# CONFIG_"; an option of "CONFIG_" only asks that). */
static char config_value(const char *text, const char *option)
{
	size_t ol = strlen(option);
	bool any = false;

	for (const char *l = text, *nl; l && *l; l = (nl = strchr(l, '\n')) ? nl + 1 : NULL) {
		if (strncmp(l, "CONFIG_", 7) == 0 || strncmp(l, "# CONFIG_", 9) == 0)
			any = true;
		if (strncmp(l, option, ol) == 0 && l[ol] == '=')
			return l[ol + 1] == 'y' || l[ol + 1] == 'm' ? l[ol + 1] : 'n';
	}
	return any ? 'n' : 0;
}

static bool is_kconfig(const char *text)
{
	return config_value(text, "CONFIG_") != 0;
}

static bool uses_controller(const struct cgfb_mounts *ms, const char *controller)
{
	for (unsigned i = 0; i < ms->n; i++)
		if (cgfb_mount_has(&ms->m[i], controller))
			return true;
	return false;
}

static int judge_config(const struct cgfb_rules *rs, const struct cgfb_mounts *ms,
			const char *path, const char *release, struct cgfb_check *c)
{
	struct cgfb_buf b = { 0 };
	char where[4608];
	int rc = read_config(path, &b);

	if (rc == -ENOMEM)
		goto out;
	if (rc < 0) {
		rc = cgfb_check_unreadable(c, path, rc);
		goto out;
	}
	if (!is_kconfig(b.data ? b.data : "")) {
		rc = cgfb_check_unreadable_why(c, path, "not a kernel configuration (no CONFIG_ line)");
		goto out;
	}
	c->sources++;
	for (size_t i = 0; i < rs->n && !rc; i++) {
		const struct cgfb_rule *r = &rs->r[i];

		if (r->probe != CGFB_PROBE_KCONFIG || !uses_controller(ms, r->controller) ||
		    cgfb_version_cmp(release, r->since) < 0 || config_value(b.data, r->option) == 'y')
			continue;
		snprintf(where, sizeof(where), "%s: %s is not set (kernel %s)", path, r->option, release);
		rc = cgfb_check_found_kernel(c, r, release, where);
	}
out:
	cgfb_buf_free(&b);
	return rc;
}

static void running_release(const struct cgfb_check_opts *o, struct cgfb_check *c)
{
	char path[4096];
	struct utsname u;

	if (!o->root || !*o->root) {
		if (uname(&u) == 0)
			snprintf(c->kernel, sizeof(c->kernel), "%s", u.release);
		return;
	}
	if (cgfb_check_path(o, "/proc/sys/kernel/osrelease", path, sizeof(path)) == 0 &&
	    cgfb_read_at(AT_FDCWD, path, c->kernel, sizeof(c->kernel)) > 0)
		c->kernel[strcspn(c->kernel, "\n")] = '\0';
	else
		c->kernel[0] = '\0';
}

static int config_names(const void *a, const void *b)
{
	return -cgfb_version_cmp(*(char *const *)a + 7, *(char *const *)b + 7);
}

/* Every /boot/config-RELEASE, the newest first, and the running kernel's
 * /proc/config.gz when /boot has no file for it. */
int cgfb_probe_kconfig(const struct cgfb_rules *rs, const struct cgfb_mounts *ms,
		       const struct cgfb_check_opts *o, struct cgfb_check *c)
{
	char boot[4096], path[8192];
	struct dirent **names = NULL;
	bool running_seen = false;
	int n, rc = 0;

	running_release(o, c);
	if ((rc = cgfb_check_path(o, "/boot", boot, sizeof(boot))))
		return rc;
	n = scandir(boot, &names, NULL, NULL);
	if (n < 0 && errno != ENOENT && (rc = cgfb_check_unreadable(c, boot, errno)))
		return rc;
	if (n > 0) {
		int k = 0;

		for (int i = 0; i < n; i++) {
			if (strncmp(names[i]->d_name, "config-", 7) == 0)
				names[k++] = names[i];
			else
				free(names[i]);
		}
		qsort(names, (size_t)k, sizeof(*names), config_names);
		for (int i = 0; i < k; i++) {
			snprintf(path, sizeof(path), "%s/%s", boot, names[i]->d_name);
			running_seen |= strcmp(names[i]->d_name + 7, c->kernel) == 0;
			if (!rc)
				rc = judge_config(rs, ms, path, names[i]->d_name + 7, c);
			free(names[i]);
		}
	}
	free(names);
	if (!rc && !running_seen && c->kernel[0] &&
	    !(rc = cgfb_check_path(o, "/proc/config.gz", path, sizeof(path))) && access(path, F_OK) == 0)
		rc = judge_config(rs, ms, path, c->kernel, c);
	return rc;
}

/* --- systemd --------------------------------------------------------------- */

/* dpkg's status: the Version of the installed package systemd. */
static bool dpkg_version(const char *text, char *out, size_t sz)
{
	const char *p = text;

	while ((p = strstr(p, "Package: systemd\n"))) {
		const char *end = strstr(p, "\n\n"), *v = strstr(p, "\nVersion: "),
			   *st = strstr(p, "\nStatus: install ok installed\n");

		if ((p == text || p[-1] == '\n') && v && st && (!end || (v < end && st < end))) {
			cgfb_version_prefix(v + 10, out, sz);
			return out[0] != '\0';
		}
		p += 17;
	}
	return false;
}

/* The shared library every systemd since 231 ships, named by version:
 * libsystemd-shared-252.so (Debian), -255.4-1.fc40.so (Fedora). */
static bool library_version(const struct cgfb_check_opts *o, char *out, size_t sz, char *from,
			    size_t fromsz)
{
	static const char *const pats[] = {
		"/usr/lib/systemd/libsystemd-shared-*.so", "/usr/lib/*/systemd/libsystemd-shared-*.so",
		"/usr/lib64/systemd/libsystemd-shared-*.so", "/lib/systemd/libsystemd-shared-*.so",
	};
	char pat[4096];
	bool ok = false;

	for (size_t i = 0; i < sizeof(pats) / sizeof(*pats) && !ok; i++) {
		glob_t g;

		if (cgfb_check_path(o, pats[i], pat, sizeof(pat)) || glob(pat, 0, NULL, &g))
			continue;
		if (g.gl_pathc) {
			const char *v = strstr(g.gl_pathv[0], "libsystemd-shared-") + 18;

			cgfb_version_prefix(v, out, sz);
			snprintf(from, fromsz, "%s", g.gl_pathv[0]);
			ok = out[0] != '\0';
		}
		globfree(&g);
	}
	return ok;
}

int cgfb_probe_systemd(const struct cgfb_rules *rs, const struct cgfb_check_opts *o,
		       struct cgfb_check *c)
{
	struct cgfb_buf b = { 0 };
	char from[4096];
	const char *mode = cgfb_cgroup_mode_name(c->mode);
	int rc = cgfb_check_path(o, "/var/lib/dpkg/status", from, sizeof(from));

	if (rc)
		return rc;
	rc = cgfb_read_file(from, STATUS_MAX, 0, &b);
	if (rc == -ENOMEM)
		goto out;
	rc = 0;
	if (!b.data || !dpkg_version(b.data, c->systemd, sizeof(c->systemd)))
		library_version(o, c->systemd, sizeof(c->systemd), from, sizeof(from));
	if (!c->systemd[0])
		goto out;
	c->sources++;
	for (size_t i = 0; i < rs->n && !rc; i++) {
		const struct cgfb_rule *r = &rs->r[i];

		if (r->probe != CGFB_PROBE_SYSTEMD || cgfb_version_cmp(c->systemd, r->from) < 0)
			continue;
		for (unsigned k = 0; k < r->n_values && !rc; k++)
			if (strcmp(r->values[k], mode) == 0)
				rc = cgfb_check_found(c, r, "systemd %s (%s) on a host in %s mode",
						      c->systemd, from, mode);
	}
out:
	cgfb_buf_free(&b);
	return rc;
}
