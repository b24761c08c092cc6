/* The environment facts (env.h), each read as the program that decides
 * reads it; every file is under the check's root. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/magic.h>

#include "cgfb/buf.h"
#include "cgfb/readfile.h"
#include "readiness/check.h"
#include "readiness/env.h"

#define OSRELEASE_MAX (64u << 10)
#define ENVIRON_MAX   (64u << 10)

static bool exists(const struct cgfb_check_opts *o, const char *path)
{
	char p[4096];

	return cgfb_check_path(o, path, p, sizeof(p)) == 0 && access(p, F_OK) == 0;
}

/* A small file's first line into buf; false when it cannot be read. */
static bool first_line(const struct cgfb_check_opts *o, const char *path, char *buf, size_t sz)
{
	char p[4096];
	ssize_t n;

	if (cgfb_check_path(o, path, p, sizeof(p)) || (n = cgfb_read_at(AT_FDCWD, p, buf, sz)) < 0)
		return false;
	buf[strcspn(buf, "\n")] = '\0';
	return true;
}

/* --- the mode ------------------------------------------------------------ */

/* The line after l's, or NULL at the end. */
static const char *next_line(const char *l)
{
	const char *nl = strchr(l, '\n');

	return nl ? nl + 1 : NULL;
}

struct mount_line {
	char root[512], point[512], type[64];
};

/* A mountinfo line's root, mount point and file system type; false for a
 * line that is none. */
static bool mount_line(const char *l, struct mount_line *m)
{
	char skip[3][512];
	const char *sep = strstr(l, " - ");

	return sep && (size_t)(sep - l) <= strcspn(l, "\n") &&
	       sscanf(l, "%511s %511s %511s %511s %511s", skip[0], skip[1], skip[2], m->root,
		      m->point) == 5 &&
	       sscanf(sep + 3, "%63s", m->type) == 1;
}

/* The file system type of the top mount at point (the last line naming it:
 * a later mount hides an earlier one), "" none. */
static void fstype_at(const char *mi, const char *point, char *type, size_t sz)
{
	struct mount_line m;

	type[0] = '\0';
	for (const char *l = mi; l && *l; l = next_line(l))
		if (mount_line(l, &m) && strcmp(m.point, point) == 0)
			snprintf(type, sz, "%s", m.type);
}

enum cgfb_cgroup_mode cgfb_env_mode_of(const char *mi, const char *root, char *why, size_t whysz)
{
	char type[64];

	/* mountinfo names mount points as the machine sees them, without
	 * the root a fixture stands under. */
	(void)root;
	fstype_at(mi, "/sys/fs/cgroup", type, sizeof(type));
	if (strcmp(type, "cgroup2") == 0) {
		snprintf(why, whysz, "/sys/fs/cgroup is cgroup2");
		return CGFB_MODE_UNIFIED;
	}
	if (strcmp(type, "tmpfs") != 0) {
		snprintf(why, whysz, type[0] ? "/sys/fs/cgroup is %s, not cgroup2 or tmpfs"
			 : "nothing is mounted at /sys/fs/cgroup", type);
		return CGFB_MODE_NONE;
	}
	fstype_at(mi, "/sys/fs/cgroup/unified", type, sizeof(type));
	if (strcmp(type, "cgroup2") == 0) {
		snprintf(why, whysz, "/sys/fs/cgroup is tmpfs, /sys/fs/cgroup/unified cgroup2");
		return CGFB_MODE_HYBRID;
	}
	snprintf(why, whysz, "/sys/fs/cgroup is tmpfs with cgroup v1 hierarchies");
	return CGFB_MODE_LEGACY;
}

/* This machine: statfs, as cg_unified_cached() and runc do. */
static enum cgfb_cgroup_mode mode_statfs(char *why, size_t whysz)
{
	struct statfs fs;

	if (statfs("/sys/fs/cgroup", &fs) < 0) {
		snprintf(why, whysz, "/sys/fs/cgroup: %s", strerror(errno));
		return CGFB_MODE_NONE;
	}
	if (fs.f_type == CGROUP2_SUPER_MAGIC) {
		snprintf(why, whysz, "/sys/fs/cgroup is cgroup2");
		return CGFB_MODE_UNIFIED;
	}
	if (fs.f_type != TMPFS_MAGIC) {
		snprintf(why, whysz, "/sys/fs/cgroup is neither cgroup2 nor tmpfs");
		return CGFB_MODE_NONE;
	}
	if (statfs("/sys/fs/cgroup/unified", &fs) == 0 && fs.f_type == CGROUP2_SUPER_MAGIC) {
		snprintf(why, whysz, "/sys/fs/cgroup is tmpfs, /sys/fs/cgroup/unified cgroup2");
		return CGFB_MODE_HYBRID;
	}
	snprintf(why, whysz, "/sys/fs/cgroup is tmpfs with cgroup v1 hierarchies");
	return CGFB_MODE_LEGACY;
}

/* --- container, WSL, PID 1 ----------------------------------------------- */

/* A cgroup mount whose root is not "/" shows a part of the host's
 * hierarchy: the container was given its own cgroup, not a namespace. */
static bool subtree_mount(const char *mi, char *what, size_t sz)
{
	struct mount_line m;

	for (const char *l = mi; l && *l; l = next_line(l))
		if (mount_line(l, &m) && (strcmp(m.type, "cgroup") == 0 || strcmp(m.type, "cgroup2") == 0) &&
		    strcmp(m.root, "/") != 0) {
			snprintf(what, sz, "the cgroup mount at %.200s shows the host's %.80s", m.point, m.root);
			return true;
		}
	return false;
}

/* container= in PID 1's environment (readable by root only). */
static bool environ_container(const struct cgfb_check_opts *o, char *name, size_t sz)
{
	struct cgfb_buf b = { 0 };
	char p[4096];
	bool found = false;

	if (cgfb_check_path(o, "/proc/1/environ", p, sizeof(p)) ||
	    cgfb_read_file(p, ENVIRON_MAX, 0, &b) || !b.data)
		goto out;
	for (size_t i = 0; i < b.len; i += strnlen(b.data + i, b.len - i) + 1)
		if (strncmp(b.data + i, "container=", 10) == 0 && b.data[i + 10]) {
			snprintf(name, sz, "%.*s", (int)strnlen(b.data + i + 10, b.len - i - 10), b.data + i + 10);
			found = true;
		}
out:
	cgfb_buf_free(&b);
	return found;
}

/* The container's manager and the signal that named it. */
static void set_container(struct cgfb_env *e, const char *name, const char *why)
{
	snprintf(e->container, sizeof(e->container), "%.31s", name);
	snprintf(e->container_why, sizeof(e->container_why), "%.600s", why);
}

/* The signals of systemd's detect_container() (src/basic/virt.c), in its
 * order, and a cgroup mount of the host's tree. */
static void container(const struct cgfb_check_opts *o, const char *mi, struct cgfb_env *e)
{
	char v[512], why[640];

	if (first_line(o, "/proc/sys/kernel/osrelease", v, sizeof(v)) &&
	    (strcasestr(v, "microsoft") || strstr(v, "WSL"))) {
		e->wsl = true;
		snprintf(why, sizeof(why), "/proc/sys/kernel/osrelease: %.200s", v);
		set_container(e, "wsl", why);
	} else if (exists(o, "/proc/vz") && !exists(o, "/proc/bc")) {
		set_container(e, "openvz", "/proc/vz without /proc/bc");
	} else if (first_line(o, "/run/systemd/container", v, sizeof(v)) && v[0]) {
		snprintf(why, sizeof(why), "/run/systemd/container: %.200s", v);
		set_container(e, v, why);
	} else if (environ_container(o, v, sizeof(v))) {
		snprintf(why, sizeof(why), "container=%.200s in PID 1's environment", v);
		set_container(e, v, why);
	} else if (exists(o, "/run/.containerenv")) {
		set_container(e, "podman", "/run/.containerenv");
	} else if (exists(o, "/.dockerenv")) {
		set_container(e, "docker", "/.dockerenv");
	} else if (mi && subtree_mount(mi, v, sizeof(v))) {
		set_container(e, "container", v);
	}
}

static void pid1(const struct cgfb_check_opts *o, struct cgfb_env *e)
{
	static const char *const inits[] = { "/sbin/init", "/usr/sbin/init", "/usr/lib/systemd/systemd",
					     "/lib/systemd/systemd" };
	char p[4096], link[4096];
	ssize_t n;

	if (!e->copy) {
		if (first_line(o, "/proc/1/comm", e->pid1, sizeof(e->pid1)))
			e->systemd_init = strcmp(e->pid1, "systemd") == 0;
		return;
	}
	/* A copy: what the kernel would start. */
	for (size_t i = 0; i < sizeof(inits) / sizeof(*inits); i++) {
		if (cgfb_check_path(o, inits[i], p, sizeof(p)))
			continue;
		if ((n = readlink(p, link, sizeof(link) - 1)) > 0) {
			link[n] = '\0';
			e->systemd_init = strstr(link, "systemd") != NULL;
			snprintf(e->pid1, sizeof(e->pid1), "%s", e->systemd_init ? "systemd" : "init");
			return;
		}
		if (i >= 2 && access(p, F_OK) == 0) {
			e->systemd_init = true;
			snprintf(e->pid1, sizeof(e->pid1), "systemd");
			return;
		}
	}
}

/* --- the distribution ------------------------------------------------------ */

static void os_value(const char *text, const char *key, char *out, size_t sz)
{
	size_t kl = strlen(key);

	for (const char *l = text; l && *l; l = next_line(l)) {
		const char *v;
		size_t vl;

		if (strncmp(l, key, kl) != 0 || l[kl] != '=')
			continue;
		v = l + kl + 1;
		vl = strcspn(v, "\n");
		if (vl >= 2 && (v[0] == '"' || v[0] == '\'') && v[vl - 1] == v[0])
			v++, vl -= 2;
		snprintf(out, sz, "%.*s", (int)vl, v);
	}
}

static void distro(const struct cgfb_check_opts *o, struct cgfb_env *e)
{
	static const char *const files[] = { "/etc/os-release", "/usr/lib/os-release" };
	struct cgfb_buf b = { 0 };
	char p[4096];

	for (size_t i = 0; i < 2; i++) {
		if (cgfb_check_path(o, files[i], p, sizeof(p)) ||
		    cgfb_read_file(p, OSRELEASE_MAX, 0, &b) || !b.data)
			continue;
		os_value(b.data, "ID", e->distro_id, sizeof(e->distro_id));
		os_value(b.data, "ID_LIKE", e->distro_like, sizeof(e->distro_like));
		os_value(b.data, "VERSION_ID", e->distro_version, sizeof(e->distro_version));
		os_value(b.data, "PRETTY_NAME", e->distro_name, sizeof(e->distro_name));
		break;
	}
	cgfb_buf_free(&b);
}

const char *cgfb_env_family(const struct cgfb_env *e)
{
	static const char *const rhel[] = { "rhel", "centos", "rocky", "almalinux", "ol", "circle",
					    "eurolinux", "navy", NULL };

	for (size_t i = 0; rhel[i]; i++)
		if (strcmp(e->distro_id, rhel[i]) == 0)
			return "rhel";
	return e->distro_id;
}

/* --- the command line systemd reads ------------------------------------------ */

/* The command line systemd reads: /proc/cmdline, or in a container (WSL
 * included, detect_container() names it one) PID 1's argv after the
 * program's name, as proc_cmdline() reads it there. */
static int live_cmdline(const struct cgfb_check_opts *o, bool pid1, struct cgfb_bootline *l,
			struct cgfb_check *c)
{
	char p[4096];
	ssize_t n;

	if (cgfb_check_path(o, pid1 ? "/proc/1/cmdline" : "/proc/cmdline", p, sizeof(p)))
		return 0;
	snprintf(l->from, sizeof(l->from), "%s", p);
	if ((n = cgfb_read_at(AT_FDCWD, p, l->text, sizeof(l->text))) < 0) {
		l->text[0] = '\0';
		return cgfb_check_unreadable(c, p, (int)n);
	}
	c->sources++;
	if (!pid1) {
		l->text[strcspn(l->text, "\n")] = '\0';
		return 0;
	}
	/* argv: NUL-separated, the program first. */
	{
		size_t start = strnlen(l->text, (size_t)n) + 1;

		start = start > (size_t)n ? (size_t)n : start;
		memmove(l->text, l->text + start, (size_t)n - start);
		n -= (ssize_t)start;
		l->text[n] = '\0';
		for (ssize_t i = 0; i < n; i++)
			if (l->text[i] == '\0')
				l->text[i] = ' ';
	}
	return 0;
}

static int cmdlines(const struct cgfb_check_opts *o, struct cgfb_env *e, struct cgfb_check *c)
{
	int rc;

	if (e->copy) {
		if ((rc = cgfb_boot_cmdlines(o->root, &e->cmdlines)))
			return rc;
		c->sources += e->cmdlines.n;
	} else {
		e->cmdlines.n = 1;
		if ((rc = live_cmdline(o, e->container[0] != '\0', &e->cmdlines.l[0], c)))
			return rc;
	}
	cgfb_switches_read("", &e->sw);
	for (unsigned i = 0; i < e->cmdlines.n; i++) {
		struct cgfb_switches s;

		cgfb_switches_read(e->cmdlines.l[i].text, &s);
		/* A copy boots any of its entries: one asking for v1 counts. */
		if (i == 0 || (cgfb_switches_want_v1(&s) && !cgfb_switches_want_v1(&e->sw))) {
			e->sw = s;
			snprintf(e->sw_from, sizeof(e->sw_from), "%s", e->cmdlines.l[i].from);
		}
	}
	return 0;
}

bool cgfb_env_is_copy(const struct cgfb_check_opts *o)
{
	return o->root && *o->root && !o->mountinfo && !exists(o, "/proc/self/mountinfo") &&
	       !exists(o, "/proc/cmdline");
}

int cgfb_env_read(const struct cgfb_check_opts *o, const char *mi, struct cgfb_env *e,
		  struct cgfb_check *c)
{
	const bool rooted = o->root && *o->root;

	e->copy = cgfb_env_is_copy(o);
	if (e->copy) {
		e->mode = CGFB_MODE_NONE;
		snprintf(e->mode_why, sizeof(e->mode_why), "a copy of a machine: nothing is mounted");
	} else if (!rooted && !o->mountinfo) {
		e->mode = mode_statfs(e->mode_why, sizeof(e->mode_why));
	} else {
		e->mode = mi ? cgfb_env_mode_of(mi, o->root, e->mode_why, sizeof(e->mode_why))
			     : CGFB_MODE_NONE;
	}
	if (!e->copy)
		container(o, mi, e);
	pid1(o, e);
	distro(o, e);
	return cmdlines(o, e, c);
}
