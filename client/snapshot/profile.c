#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "snapshot/profile.h"
#include "cgfb/readfile.h"

#define SMALL_FILE_MAX (64u << 10)

/* The schema's list: only these leave the machine, and only in the shape
 * ^[A-Za-z0-9_.,:+-]{0,64}$. */
static const char *const cmdline_keys[CGFB_CMDLINE_KEYS] = {
	"swapaccount", "cgroup_no_v1", "cgroup_enable", "cgroup_disable", "cgroup.memory",
	"cgroup_memory", "cgroup_favordynmods", "systemd.unified_cgroup_hierarchy",
	"systemd.legacy_systemd_cgroup_controller", "psi",
};

const char *const *cgfb_cmdline_keys(void)
{
	return cmdline_keys;
}

static bool in_set(char c, const char *extra)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr(extra, c));
}

/* Copy the leading run of s that the schema allows; stop at anything else. */
static void copy_shape(char *dst, size_t dstsz, const char *s, size_t len, const char *extra,
		       bool lower)
{
	size_t n = 0;

	while (n < len && n + 1 < dstsz && in_set(s[n], extra) && (!lower || s[n] < 'A' ||
								   s[n] > 'Z')) {
		dst[n] = s[n];
		n++;
	}
	dst[n] = '\0';
}

void cgfb_kernel_release(const char *r, char release[65], char series[8])
{
	unsigned major = 0, minor = 0;

	if (r[0] >= '0' && r[0] <= '9')
		copy_shape(release, 65, r, strlen(r), "._+~-", false);
	else
		snprintf(release, 65, "0");
	if (sscanf(release, "%u.%u", &major, &minor) != 2 || major > 99 || minor > 999)
		major = minor = 0;
	snprintf(series, 8, "%u.%u", major, minor);
}

/* os-release values: unquoted, or in "..." / '...' with \-escapes. */
static void unquote(const char *v, size_t len, char *out, size_t outsz)
{
	const char q = len && (v[0] == '"' || v[0] == '\'') ? v[0] : 0;
	size_t n = 0;

	if (q) {
		v++;
		len--;
	}
	for (size_t i = 0; i < len && n + 1 < outsz; i++) {
		if (q && v[i] == q)
			break;
		if (v[i] == '\\' && i + 1 < len)
			i++;
		out[n++] = v[i];
	}
	out[n] = '\0';
}

void cgfb_os_release_parse(const char *buf, size_t len, char id[33], char version[33])
{
	const char *p = buf, *end = buf + len;
	char raw[128];

	snprintf(id, 33, "linux");      /* os-release(5): the default ID */
	version[0] = '\0';
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		if (le - p > 3 && memcmp(p, "ID=", 3) == 0) {
			unquote(p + 3, (size_t)(le - p - 3), raw, sizeof(raw));
			copy_shape(id, 33, raw, strlen(raw), "._-", true);
			if (!id[0])
				snprintf(id, 33, "linux");
		} else if (le - p > 11 && memcmp(p, "VERSION_ID=", 11) == 0) {
			unquote(p + 11, (size_t)(le - p - 11), raw, sizeof(raw));
			copy_shape(version, 33, raw, strlen(raw), "._-", false);
		}
		p = le + 1;
	}
}

static int cmdline_key(const char *w, size_t len)
{
	for (int i = 0; i < CGFB_CMDLINE_KEYS; i++)
		if (strlen(cmdline_keys[i]) == len && memcmp(cmdline_keys[i], w, len) == 0)
			return i;
	return -1;
}

static bool value_ok(const char *v, size_t len)
{
	if (len > CGFB_CMDVALUE_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!in_set(v[i], "_.,:+-"))
			return false;
	return true;
}

/* Append value to slot k, joining repeats with ','. A value outside the
 * schema's shape is dropped rather than cut. */
static int cmdline_put(struct cgfb_cmdline *c, int k, const char *v, size_t len)
{
	const size_t old = c->value[k] ? strlen(c->value[k]) : 0;
	char *nv;

	if (!value_ok(v, len) || old + 1 + len > CGFB_CMDVALUE_MAX)
		return 0;
	nv = realloc(c->value[k], old + len + 2);
	if (!nv)
		return -ENOMEM;
	if (old)
		nv[old] = ',';
	memcpy(nv + old + (old ? 1 : 0), v, len);
	nv[old + (old ? 1 : 0) + len] = '\0';
	c->value[k] = nv;
	return 0;
}

/* Words separated by white space; "..." groups (the kernel's next_arg()).
 * Parameters after "--" are init's, not the kernel's. */
int cgfb_cmdline_parse(const char *buf, size_t len, struct cgfb_cmdline *c)
{
	const char *p = buf, *end = buf + len;
	int rc = 0;

	memset(c, 0, sizeof(*c));
	while (p < end && rc == 0) {
		const char *w, *eq = NULL;
		bool quoted = false;
		int k;

		while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\0'))
			p++;
		w = p;
		while (p < end && (quoted || (*p != ' ' && *p != '\n' && *p != '\t' && *p))) {
			if (*p == '"')
				quoted = !quoted;
			if (*p == '=' && !eq)
				eq = p;
			p++;
		}
		if (p - w == 2 && memcmp(w, "--", 2) == 0)
			break;
		k = cmdline_key(w, (size_t)((eq ? eq : p) - w));
		if (k < 0 || p == w)
			continue;
		if (!eq)
			rc = c->value[k] ? 0 : cmdline_put(c, k, "", 0);
		else
			rc = cmdline_put(c, k, eq + 1, (size_t)(p - eq - 1));
	}
	if (rc < 0)
		cgfb_cmdline_free(c);
	return rc;
}

void cgfb_cmdline_free(struct cgfb_cmdline *c)
{
	for (int i = 0; i < CGFB_CMDLINE_KEYS; i++)
		free(c->value[i]);
	memset(c, 0, sizeof(*c));
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* What sd_booted(3) checks, then what the other inits leave behind. */
static const char *init_system(void)
{
	struct cgfb_buf b = { 0 };
	const char *init = "other";

	if (is_dir("/run/systemd/system"))
		return "systemd";
	if (cgfb_read_file("/proc/1/comm", 64, 0, &b) == 0) {
		if (strncmp(b.data, "systemd", 7) == 0)
			init = "systemd";
		else if (strncmp(b.data, "openrc-init", 11) == 0 || is_dir("/run/openrc"))
			init = "openrc";
		else if (strcmp(b.data, "init\n") == 0 &&
			 (exists("/run/initctl") || exists("/dev/initctl")))
			init = "sysvinit";
		else if (strcmp(b.data, "init\n") == 0 && exists("/sbin/initctl") &&
			 is_dir("/etc/init"))
			init = "upstart";
	}
	cgfb_buf_free(&b);
	return init;
}

static void distribution(const char *path, struct cgfb_profile *p)
{
	struct cgfb_buf b = { 0 };
	int rc;

	if (path)
		rc = cgfb_read_file(path, SMALL_FILE_MAX, 0, &b);
	else if ((rc = cgfb_read_file("/etc/os-release", SMALL_FILE_MAX, 0, &b)) < 0)
		rc = cgfb_read_file("/usr/lib/os-release", SMALL_FILE_MAX, 0, &b);
	cgfb_os_release_parse(rc == 0 ? b.data : "", rc == 0 ? b.len : 0, p->distro_id,
			      p->distro_version);
	cgfb_buf_free(&b);
}

static int command_line(const char *path, struct cgfb_profile *p)
{
	struct cgfb_buf b = { 0 };
	int rc;

	rc = cgfb_read_file(path ? path : "/proc/cmdline", SMALL_FILE_MAX, 0, &b);
	if (rc < 0) {
		memset(&p->cmdline, 0, sizeof(p->cmdline));
		cgfb_buf_free(&b);
		return 0;            /* nothing to tell is not an error */
	}
	rc = cgfb_cmdline_parse(b.data, b.len, &p->cmdline);
	cgfb_buf_free(&b);
	return rc;
}

int cgfb_profile_collect(const struct cgfb_profile_opts *o, struct cgfb_profile *p)
{
	struct utsname u;

	memset(p, 0, sizeof(*p));
	if (uname(&u) < 0)
		memset(&u, 0, sizeof(u));
	cgfb_kernel_release(u.release, p->release, p->series);
	copy_shape(p->arch, sizeof(p->arch), u.machine, strlen(u.machine), "_", true);
	if (!p->arch[0])
		snprintf(p->arch, sizeof(p->arch), "unknown");
	distribution(o->os_release, p);
	cgfb_hw_collect(&p->hw);
	p->init = init_system();
	return command_line(o->cmdline, p);
}

void cgfb_arch_of_release(const char *r, char arch[17])
{
	static const struct { const char *suffix, *arch; } names[] = {
		{ ".x86_64", "x86_64" }, { ".aarch64", "aarch64" }, { ".ppc64le", "ppc64le" },
		{ ".s390x", "s390x" }, { "-amd64", "x86_64" }, { "-arm64", "aarch64" },
		{ "-powerpc64le", "ppc64le" }, { "-s390x", "s390x" }, { "-riscv64", "riscv64" },
	};
	const size_t len = strlen(r);

	snprintf(arch, 17, "unknown");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const size_t n = strlen(names[i].suffix);

		if (len > n && strcmp(r + len - n, names[i].suffix) == 0) {
			snprintf(arch, 17, "%s", names[i].arch);
			return;
		}
	}
}

int cgfb_profile_from_log(const char *release, const char *cmdline, struct cgfb_profile *p)
{
	memset(p, 0, sizeof(*p));
	p->facts = CGFB_FACTS_LOG;
	if (release && release[0]) {
		cgfb_kernel_release(release, p->release, p->series);
		cgfb_arch_of_release(p->release, p->arch);
	} else {
		snprintf(p->arch, sizeof(p->arch), "unknown");
	}
	return cmdline && cmdline[0] ? cgfb_cmdline_parse(cmdline, strlen(cmdline), &p->cmdline) : 0;
}

int cgfb_profile_from_copy(const char *root, const struct cgfb_profile_opts *o,
			   struct cgfb_profile *p)
{
	struct cgfb_buf b = { 0 };
	char path[4096];
	int rc = -ENOENT;

	memset(p, 0, sizeof(*p));
	p->facts = CGFB_FACTS_COPY;
	snprintf(p->arch, sizeof(p->arch), "unknown");
	if (o->os_release) {
		rc = cgfb_read_file(o->os_release, SMALL_FILE_MAX, 0, &b);
	} else {
		snprintf(path, sizeof(path), "%s/etc/os-release", root);
		rc = cgfb_read_file(path, SMALL_FILE_MAX, 0, &b);
		if (rc < 0) {
			snprintf(path, sizeof(path), "%s/usr/lib/os-release", root);
			rc = cgfb_read_file(path, SMALL_FILE_MAX, 0, &b);
		}
	}
	/* No os-release in the copy: the distribution is unknown, not the
	 * "linux" os-release(5) gives a file without ID. */
	if (rc == 0)
		cgfb_os_release_parse(b.data, b.len, p->distro_id, p->distro_version);
	cgfb_buf_free(&b);
	/* The kernel it ran, when the copy kept its proc/sys/kernel/osrelease. */
	snprintf(path, sizeof(path), "%s/proc/sys/kernel/osrelease", root);
	if (cgfb_read_file(path, SMALL_FILE_MAX, 0, &b) == 0 && b.len) {
		b.data[strcspn(b.data, "\n")] = '\0';
		cgfb_kernel_release(b.data, p->release, p->series);
		cgfb_arch_of_release(p->release, p->arch);
	}
	cgfb_buf_free(&b);
	if (o->cmdline)
		return command_line(o->cmdline, p);
	snprintf(path, sizeof(path), "%s/proc/cmdline", root);
	return command_line(path, p);
}

void cgfb_profile_free(struct cgfb_profile *p)
{
	cgfb_cmdline_free(&p->cmdline);
}
