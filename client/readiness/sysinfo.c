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
#include "readiness/decide.h"
#include "readiness/version.h"

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

/* The command lines the environment read: this machine's (in a container,
 * PID 1's, which is what systemd there reads), or a copy's boot entries. */
int cgfb_probe_cmdline(const struct cgfb_rules *rs, const struct cgfb_check_opts *o,
		       struct cgfb_check *c)
{
	const struct cgfb_bootlines *ls = &c->env->cmdlines;
	size_t len;
	int rc = 0;

	(void)o;
	for (unsigned k = 0; k < ls->n && !rc; k++)
		for (const char *p = ls->l[k].text; !rc && (p = cgfb_cmdline_next(p, &len)); p += len)
			for (size_t i = 0; i < rs->n && !rc; i++)
				if (rs->r[i].probe == CGFB_PROBE_CMDLINE && cmdline_matches(&rs->r[i], p, len))
					rc = cgfb_check_found(c, &rs->r[i], "%s: %.*s", ls->l[k].from,
							      (int)len, p);
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

/* Whether this host uses a controller on v1: a hierarchy of it, or in a
 * copy, a boot that would mount v1 at all. */
static bool uses_controller(const struct cgfb_mounts *ms, const char *controller,
			    const struct cgfb_env *e)
{
	for (unsigned i = 0; i < ms->n; i++)
		if (cgfb_mount_has(&ms->m[i], controller))
			return true;
	return e->copy && (e->effective == CGFB_MODE_LEGACY || e->effective == CGFB_MODE_HYBRID);
}

/* One configuration: said unreadable, or noted in the environment and
 * judged by the kconfig rules for this host's controllers. */
static int judge_config(const struct cgfb_rules *rs, const struct cgfb_mounts *ms,
			const char *path, const char *release, struct cgfb_check *c)
{
	struct cgfb_env *e = c->env;
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
	if (e->n_kernels < CGFB_KERNELS_MAX) {
		struct cgfb_kernel *k = &e->kernels[e->n_kernels++];

		snprintf(k->release, sizeof(k->release), "%s", release);
		snprintf(k->config, sizeof(k->config), "%s", path);
		k->memcg_v1 = config_value(b.data, "CONFIG_MEMCG_V1") == 'y' ? 'y' : 'n';
		k->cpusets_v1 = config_value(b.data, "CONFIG_CPUSETS_V1") == 'y' ? 'y' : 'n';
	}
	for (size_t i = 0; i < rs->n && !rc; i++) {
		const struct cgfb_rule *r = &rs->r[i];

		if (r->probe != CGFB_PROBE_KCONFIG || !uses_controller(ms, r->controller, e) ||
		    cgfb_version_cmp(release, r->since) < 0 || config_value(b.data, r->option) == 'y')
			continue;
		snprintf(where, sizeof(where), "%s: %s is not set (kernel %s)", path, r->option, release);
		rc = cgfb_check_found_kernel(c, r, release, where);
	}
out:
	cgfb_buf_free(&b);
	return rc;
}

static void running_release(const struct cgfb_check_opts *o, struct cgfb_env *e)
{
	char path[4096];
	struct utsname u;

	e->running[0] = '\0';
	if (!o->root || !*o->root) {
		if (uname(&u) == 0)
			snprintf(e->running, sizeof(e->running), "%s", u.release);
	} else if (!e->copy && cgfb_check_path(o, "/proc/sys/kernel/osrelease", path, sizeof(path)) == 0 &&
		   cgfb_read_at(AT_FDCWD, path, e->running, sizeof(e->running)) > 0) {
		e->running[strcspn(e->running, "\n")] = '\0';
	}
}

/* Where kernels keep their configuration, in the order Kubernetes'
 * system-validators looks (validators/kernel_validator.go 192-202): the
 * first file found for a release counts. PAT has one '*', the release. */
static const char *const config_pats[] = {
	"/boot/config-*", "/usr/lib/modules/*/config", "/usr/lib/ostree-boot/config-*",
	"/usr/lib/kernel/config-*", "/lib/modules/*/config",
};

struct kfile {
	char release[96];
	char path[4096];
};

static int kfile_cmp(const void *a, const void *b)
{
	return -cgfb_version_cmp(((const struct kfile *)a)->release, ((const struct kfile *)b)->release);
}

/* The release a matched path names: what the '*' of its pattern took. */
static void release_of(const char *pat, const char *path, char *out, size_t sz)
{
	const char *star = strchr(pat, '*');
	size_t pre = (size_t)(star - pat), post = strlen(star + 1), len = strlen(path);

	if (len < pre + post) {
		out[0] = '\0';
		return;
	}
	snprintf(out, sz, "%.*s", (int)(len - pre - post), path + pre);
}

static int collect(const struct cgfb_check_opts *o, struct kfile *fs, size_t max, size_t *n)
{
	char pat[4096];
	const size_t rootlen = o->root ? strlen(o->root) : 0;

	for (size_t i = 0; i < sizeof(config_pats) / sizeof(*config_pats); i++) {
		glob_t g;
		int gr;

		if (cgfb_check_path(o, config_pats[i], pat, sizeof(pat)))
			continue;
		gr = glob(pat, 0, NULL, &g);
		if (gr == GLOB_NOSPACE)
			return -ENOMEM;
		for (size_t k = 0; gr == 0 && k < g.gl_pathc; k++) {
			char rel[96];
			bool seen = false;

			release_of(config_pats[i], g.gl_pathv[k] + rootlen, rel, sizeof(rel));
			for (size_t j = 0; j < *n && !seen; j++)
				seen = strcmp(fs[j].release, rel) == 0;
			if (seen || !rel[0] || *n == max)
				continue;
			snprintf(fs[*n].release, sizeof(fs[*n].release), "%s", rel);
			snprintf(fs[*n].path, sizeof(fs[*n].path), "%s", g.gl_pathv[k]);
			(*n)++;
		}
		if (gr == 0)
			globfree(&g);
	}
	return 0;
}

/* Every installed kernel's configuration, the newest first, and the
 * running kernel's /proc/config.gz when no file was found for it. */
int cgfb_probe_kconfig(const struct cgfb_rules *rs, const struct cgfb_mounts *ms,
		       const struct cgfb_check_opts *o, struct cgfb_check *c)
{
	struct kfile *fs = calloc(CGFB_KERNELS_MAX * 2, sizeof(*fs));
	bool running_seen = false;
	char path[4096];
	size_t n = 0;
	int rc;

	if (!fs)
		return -ENOMEM;
	running_release(o, c->env);
	if ((rc = collect(o, fs, CGFB_KERNELS_MAX * 2, &n)))
		goto out;
	qsort(fs, n, sizeof(*fs), kfile_cmp);
	for (size_t i = 0; i < n && !rc; i++) {
		running_seen |= strcmp(fs[i].release, c->env->running) == 0;
		rc = judge_config(rs, ms, fs[i].path, fs[i].release, c);
	}
	if (!rc && !running_seen && c->env->running[0] && !c->env->copy &&
	    !(rc = cgfb_check_path(o, "/proc/config.gz", path, sizeof(path))) && access(path, F_OK) == 0)
		rc = judge_config(rs, ms, path, c->env->running, c);
out:
	free(fs);
	return rc;
}

/* --- systemd --------------------------------------------------------------- */

bool cgfb_dpkg_version(const char *status, const char *pkg, char *out, size_t sz)
{
	char head[128];
	const int hl = snprintf(head, sizeof(head), "Package: %s\n", pkg);

	out[0] = '\0';
	if (!status || hl <= 0 || (size_t)hl >= sizeof(head))
		return false;
	for (const char *p = status; (p = strstr(p, head)); p += hl) {
		const char *end = strstr(p, "\n\n"), *v = strstr(p, "\nVersion: "),
			   *st = strstr(p, "\nStatus: install ok installed\n");

		if ((p == status || p[-1] == '\n') && v && st && (!end || (v < end && st < end))) {
			cgfb_version_prefix(v + 10, out, sz);
			return out[0] != '\0';
		}
	}
	return false;
}

int cgfb_dpkg_read(const struct cgfb_check_opts *o, struct cgfb_buf *b)
{
	char path[4096];
	int rc = cgfb_check_path(o, "/var/lib/dpkg/status", path, sizeof(path));

	if (rc)
		return rc;
	rc = cgfb_read_file(path, STATUS_MAX, 0, b);
	return rc == -ENOMEM ? rc : 0;      /* no dpkg: nothing to read there */
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

void cgfb_systemd_read(const struct cgfb_check_opts *o, const char *status, struct cgfb_check *c)
{
	struct cgfb_env *e = c->env;

	snprintf(e->systemd_from, sizeof(e->systemd_from), "%s/var/lib/dpkg/status", o->root ? o->root : "");
	if (!cgfb_dpkg_version(status, "systemd", e->systemd, sizeof(e->systemd)))
		library_version(o, e->systemd, sizeof(e->systemd), e->systemd_from, sizeof(e->systemd_from));
	if (e->systemd[0])
		c->sources++;
}

/* The installed systemd on a host in (or a copy booting) a v1 mode. */
int cgfb_probe_systemd(const struct cgfb_rules *rs, struct cgfb_check *c)
{
	const struct cgfb_env *e = c->env;
	const char *mode = cgfb_cgroup_mode_name(e->effective);
	int rc = 0;

	if (!e->systemd[0])
		return 0;
	for (size_t i = 0; i < rs->n && !rc; i++) {
		const struct cgfb_rule *r = &rs->r[i];

		if (r->probe != CGFB_PROBE_SYSTEMD || cgfb_version_cmp(e->systemd, r->from) < 0)
			continue;
		for (unsigned k = 0; k < r->n_values && !rc; k++)
			if (strcmp(r->values[k], mode) == 0)
				rc = cgfb_check_found(c, r, "systemd %s (%s) on a host in %s mode",
						      e->systemd, e->systemd_from, mode);
	}
	return rc;
}
