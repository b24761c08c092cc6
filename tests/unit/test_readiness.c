/* The readiness check's parts: versions and targets, the rules loader's
 * refusals, and the probes on a small tree made here (the fixture roots of
 * tests/integration/check.sh plant every rule end to end). */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "readiness/check.h"
#include "readiness/cmdline.h"
#include "readiness/env.h"
#include "readiness/decide.h"
#include "readiness/output.h"
#include "readiness/rules.h"
#include "readiness/version.h"
#include "privacy/allowlist.h"
#include "privacy/anon.h"
#include "snapshot/topology.h"

static void versions(void **state)
{
	char buf[32];

	assert_int_equal(cgfb_version_cmp("6.12", "6.12.0"), 0);
	assert_true(cgfb_version_cmp("6.9", "6.12") < 0);
	assert_true(cgfb_version_cmp("6.12.48+deb13-amd64", "6.12") > 0);
	assert_true(cgfb_version_cmp("252.39", "252") > 0);
	assert_true(cgfb_version_cmp("257", "258") < 0);
	assert_true(cgfb_version_cmp("", "1") < 0);
	assert_true(cgfb_version_cmp("1.35", "1.9") > 0);
	cgfb_version_prefix("252.39-1~deb12u2", buf, sizeof(buf));
	assert_string_equal(buf, "252.39");
	cgfb_version_prefix("6.12.48+deb13-amd64", buf, sizeof(buf));
	assert_string_equal(buf, "6.12.48");
	cgfb_version_prefix("v6", buf, sizeof(buf));
	assert_string_equal(buf, "");
	cgfb_version_prefix("6.", buf, sizeof(buf));
	assert_string_equal(buf, "6");
}

static void targets(void **state)
{
	struct cgfb_target t;
	char err[256];

	assert_int_equal(cgfb_target_parse("kernel=6.12,systemd=258,kubelet=1.35", &t, err, sizeof(err)), 0);
	assert_true(t.any);
	assert_string_equal(t.kernel, "6.12");
	assert_string_equal(t.systemd, "258");
	assert_string_equal(t.kubelet, "1.35");
	assert_int_equal(cgfb_target_parse("systemd=258", &t, err, sizeof(err)), 0);
	assert_string_equal(t.kernel, "");
	static const char *const bad[] = {
		"", "kernel=", "kernel=6.x", "os=13", "kernel=6.1,kernel=6.2", "kernel", "=6.12",
		"kernel=6.12,", "kernel=6.12,,systemd=258", "kernelx=6.12",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		err[0] = '\0';
		if (cgfb_target_parse(bad[i], &t, err, sizeof(err)) != -EINVAL)
			fail_msg("--target '%s' was taken", bad[i]);
		assert_non_null(strstr(err, "--target"));
	}
}

/* A release stands for its kernel, systemd and default hierarchy; kernel=
 * and systemd= may be given beside it; an unknown release is refused with
 * the known ones named. */
static void release_targets(void **state)
{
	struct cgfb_target t;
	char err[256], text[128];

	assert_int_equal(cgfb_target_parse("debian=13", &t, err, sizeof(err)), 0);
	assert_non_null(t.release);
	assert_string_equal(t.release->kernel, "6.12");
	assert_string_equal(t.release->systemd, "257");
	assert_int_equal(t.release->memcg_v1, 'n');
	assert_int_equal(cgfb_target_parse("rocky=9,kernel=6.13", &t, err, sizeof(err)), 0);
	assert_string_equal(t.release->family, "rhel");
	assert_int_equal(t.release->hierarchy, CGFB_MODE_UNIFIED);
	cgfb_target_text(&t, text, sizeof(text));
	assert_string_equal(text, "rhel=9,kernel=6.13");
	assert_int_equal(cgfb_target_parse("rhel=8", &t, err, sizeof(err)), 0);
	assert_int_equal(t.release->hierarchy, CGFB_MODE_LEGACY);
	assert_int_equal(cgfb_target_parse("debian=14", &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no release known here (debian: 10, 11, 12, 13)"));
	assert_int_equal(cgfb_target_parse("debian=12,ubuntu=22.04", &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "a distribution twice"));
}

/* The built-in rules load, and each catalog id they name is the catalog's. */
static void builtin_rules(void **state)
{
	struct cgfb_catalog *cat = test_catalog();
	struct cgfb_rules rs;
	char err[256] = "";
	unsigned probes = 0;

	if (cgfb_rules_load_builtin(&rs, err, sizeof(err)))
		fail_msg("built-in rules: %s", err);
	assert_true(rs.n >= 30);
	for (size_t i = 0; i < rs.n; i++) {
		bool found = !rs.r[i].catalog;

		probes |= 1u << rs.r[i].probe;
		for (size_t k = 0; !found && k < cat->n; k++)
			found = strcmp(cat->entries[k].id, rs.r[i].catalog) == 0;
		if (!found)
			fail_msg("rule %s names catalog entry %s, which is not in the catalog",
				 rs.r[i].id, rs.r[i].catalog);
	}
	assert_int_equal(probes, (1u << CGFB_PROBE_N) - 1);       /* every probe has a rule */
	cgfb_rules_free(&rs);
	cgfb_catalog_free(cat);
}

#define RULE_HEAD "{\"rules\": [{\"id\": \"r1\", \"title\": \"t\", \"effect\": \"e\", " \
	"\"replacement\": \"none\", \"source\": \"s\", "

static void refused_rules(void **state)
{
	static const struct { const char *json, *why; } bad[] = {
		{ "{\"rules\": []}", "no array of rules" },
		{ "[1", "not JSON" },
		{ "{\"rules\": [{\"id\": \"Mode legacy\"}]}", "is not lower-case letters" },
		{ RULE_HEAD "\"probe\": \"mode\", \"modes\": [\"legacy\"], \"severity\": \"breaks\", "
		  "\"decided_by\": {}}]}", "names who decides" },
		{ RULE_HEAD "\"probe\": \"knob\", \"controller\": \"memory\", \"file\": \"x\", "
		  "\"test\": \"ne\", \"value\": \"0\", \"nonroot\": true, \"non_root\": true, "
		  "\"severity\": \"info\", \"decided_by\": {}}]}", "unknown member 'non_root'" },
		{ RULE_HEAD "\"probe\": \"sysctl\", \"severity\": \"info\", \"decided_by\": {}}]}",
		  "probe is none of" },
		{ RULE_HEAD "\"probe\": \"cmdline\", \"param\": \"x\", \"severity\": \"fatal\", "
		  "\"decided_by\": {}}]}", "severity is none of" },
		{ RULE_HEAD "\"probe\": \"knob\", \"controller\": \"memory\", \"severity\": \"info\", "
		  "\"decided_by\": {}}]}", "knob wants controller and file" },
		{ RULE_HEAD "\"probe\": \"knob\", \"controller\": \"memory\", \"file\": \"f\", "
		  "\"test\": \"line\", \"value\": \"0\", \"severity\": \"info\", \"decided_by\": {}}]}",
		  "test line wants key" },
		{ RULE_HEAD "\"probe\": \"knob\", \"controller\": \"memory\", \"file\": \"f\", "
		  "\"test\": \"bigger\", \"severity\": \"info\", \"decided_by\": {}}]}", "wrong type" },
		{ RULE_HEAD "\"probe\": \"cmdline\", \"param\": \"x\", \"severity\": \"breaks\", "
		  "\"decided_by\": {\"kernel\": [\"six\"]}}]}", "decided_by is not" },
		{ RULE_HEAD "\"probe\": \"cmdline\", \"param\": \"x\", \"severity\": \"breaks\", "
		  "\"decided_by\": {\"glibc\": [\"2.40\"]}}]}", "decided_by is not" },
		{ RULE_HEAD "\"probe\": \"kconfig\", \"option\": \"CONFIG_X\", \"controller\": \"memory\", "
		  "\"severity\": \"info\", \"decided_by\": {}}]}", "kconfig wants" },
		{ RULE_HEAD "\"probe\": \"cmdline\", \"param\": \"x\", \"severity\": \"info\", "
		  "\"decided_by\": {}}, {\"id\": \"r1\", \"title\": \"t\", \"effect\": \"e\", "
		  "\"replacement\": \"none\", \"source\": \"s\", \"probe\": \"cmdline\", \"param\": \"y\", "
		  "\"severity\": \"info\", \"decided_by\": {}}]}", "used twice" },
		{ RULE_HEAD "\"probe\": \"cmdline\", \"param\": \"x\", \"severity\": \"breaks\", "
		  "\"decided_by\": {\"systemd\": [\"memcg_v1\"]}}]}", "decided_by is not" },
		{ RULE_HEAD "\"probe\": \"cmdline\", \"param\": \"x\", \"severity\": \"breaks\", "
		  "\"decided_by\": {\"kernel\": []}}]}", "decided_by is not" },
		{ RULE_HEAD "\"probe\": \"kubelet\", \"values\": [\"x\"], \"severity\": \"info\", "
		  "\"decided_by\": {}}]}", "kubelet wants values" },
		{ RULE_HEAD "\"probe\": \"cmdline\", \"param\": \"x\", \"severity\": \"info\", "
		  "\"decided_by\": {}}], \"owners\": [{\"id\": \"o\", \"title\": \"t\", \"match\": \"[\", "
		  "\"translates\": [\"r1\"], \"source\": \"s\"}]}", "owner o: match is not" },
		{ RULE_HEAD "\"probe\": \"cmdline\", \"param\": \"x\", \"severity\": \"info\", "
		  "\"decided_by\": {}}], \"owners\": [{\"id\": \"o\", \"title\": \"t\", \"match\": \"x\", "
		  "\"translates\": [\"r2\"], \"source\": \"s\"}]}", "translates 'r2', which is no rule" },
		{ RULE_HEAD "\"probe\": \"cmdline\", \"param\": \"x\", \"severity\": \"info\", "
		  "\"decided_by\": {}}], \"owners\": [{\"id\": \"o\", \"title\": \"t\", \"match\": \"x\", "
		  "\"translates\": [\"r1\"], \"source\": \"s\", \"except\": \"y\"}]}", "unknown member 'except'" },
		{ RULE_HEAD "\"probe\": \"config\", \"paths\": [\"/etc/x\"], \"match\": \"(\", "
		  "\"severity\": \"info\", \"decided_by\": {}}]}", "not a POSIX extended regex" },
		{ RULE_HEAD "\"probe\": \"config\", \"paths\": [\"etc/x\"], \"match\": \"x\", "
		  "\"severity\": \"info\", \"decided_by\": {}}]}", "a path is absolute" },
		{ "{\"rules\": [{\"id\": \"r1\", \"probe\": \"cmdline\", \"param\": \"x\", "
		  "\"severity\": \"info\", \"decided_by\": {}}]}", "wants title" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct cgfb_rules rs;
		char err[256] = "";
		int rc = cgfb_rules_load_buffer(&rs, bad[i].json, strlen(bad[i].json), err, sizeof(err));

		if (rc != -EINVAL || !strstr(err, bad[i].why))
			fail_msg("case %zu: rc %d, '%s' does not say '%s'", i, rc, err, bad[i].why);
		assert_null(rs.r);
	}
}

/* --- the probes on a tree made here -------------------------------------- */

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[512], dir[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(dir), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static const struct cgfb_finding *finding(const struct cgfb_check *c, const char *id)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->f[i].rule->id, id) == 0)
			return &c->f[i];
	return NULL;
}

static void run_check(struct cgfb_rules *rs, struct cgfb_check *c)
{
	struct cgfb_check_opts o = { .root = root };
	char err[256] = "";

	if (cgfb_rules_load_builtin(rs, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(cgfb_check_run(rs, &o, c), 0);
}

static int make_tree(void **state)
{
	snprintf(root, sizeof(root), "/tmp/cgfb-readiness.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	put("proc/self/mountinfo",
	    "29 23 0:25 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755\n"
	    "30 23 0:26 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
	    "31 23 0:27 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw,nsdelegate\n");
	put("sys/fs/cgroup/memory/memory.swappiness", "60\n");
	put("sys/fs/cgroup/memory/memory.soft_limit_in_bytes", "9223372036854771712\n");
	put("sys/fs/cgroup/memory/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\n");
	put("sys/fs/cgroup/memory/cgroup.procs", "1\n2\n");           /* the root's: not counted */
	put("sys/fs/cgroup/memory/a/memory.swappiness", "60\n");
	put("sys/fs/cgroup/memory/a/memory.soft_limit_in_bytes", "9223372036854771712\n");
	put("sys/fs/cgroup/memory/a/memory.oom_control", "oom_kill_disable 1\nunder_oom 0\n");
	put("sys/fs/cgroup/memory/a/cgroup.procs", "10\n11\n12\n");
	put("sys/fs/cgroup/memory/a/b/memory.swappiness", "10\n");
	put("sys/fs/cgroup/memory/a/b/memory.soft_limit_in_bytes", "1073741824\n");
	put("sys/fs/cgroup/memory/a/b/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\n");
	put("sys/fs/cgroup/memory/a/b/cgroup.procs", "");
	put("proc/cmdline", "BOOT_IMAGE=/vmlinuz foo=\"a b systemd.unified_cgroup_hierarchy=0\" "
	    "systemd.unified_cgroup_hierarchy=false swapaccount=1 -- SYSTEMD_CGROUP_ENABLE_LEGACY_FORCE=1\n");
	put("proc/sys/kernel/osrelease", "6.13.1-test\n");
	put("boot/config-6.12.48+deb13-amd64", "CONFIG_MEMCG=y\n# CONFIG_MEMCG_V1 is not set\n");
	put("boot/config-6.1.0-18-amd64", "CONFIG_MEMCG=y\n");             /* before the option */
	put("boot/config-6.11.2", "CONFIG_MEMCG=y\nCONFIG_MEMCG_V1=y\n");
	put("boot/config-6.13.1-test", "garbage\n");
	put("etc/containerd/config.toml", "# SystemdCgroup = false\n[x]\n\tSystemdCgroup=false\n");
	put("var/lib/dpkg/status", "Package: systemd-sysv\nStatus: install ok installed\nVersion: 999\n\n"
	    "Package: systemd\nStatus: deinstall ok config-files\nVersion: 200\n\n"
	    "Package: systemd\nStatus: install ok installed\nVersion: 256.7-1\n\n");
	return 0;
}

static int remove_tree(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

static void probes(void **state)
{
	const struct cgfb_finding *f;
	struct cgfb_rules rs;
	struct cgfb_check c;
	static char buf[1 << 18];
	FILE *mem;

	run_check(&rs, &c);
	assert_int_equal(cgfb_decide(&c, NULL), 0);
	assert_int_equal(c.env->mode, CGFB_MODE_HYBRID);
	assert_int_equal(c.cgroups, 3);
	assert_string_equal(c.env->systemd, "256.7");   /* the installed package, not the others */
	assert_string_equal(c.env->running, "6.13.1-test");
	/* Knobs: one away from its default each, the root's values the kernel's. */
	assert_non_null(f = finding(&c, "knob-soft-limit"));
	assert_int_equal(f->count, 1);
	assert_non_null(strstr(f->where[0], "/memory/a/b: memory.soft_limit_in_bytes = 1073741824"));
	assert_non_null(f = finding(&c, "knob-oom-kill-disable"));
	assert_int_equal(f->count, 1);
	assert_non_null(strstr(f->where[0], "/memory/a: memory.oom_control = oom_kill_disable 1 ..."));
	assert_non_null(f = finding(&c, "knob-swappiness"));
	assert_int_equal(f->count, 1);
	assert_non_null(strstr(f->where[0], "/memory/a/b: memory.swappiness = 10"));
	/* Processes of non-root cgroups, the root's left out. */
	assert_non_null(f = finding(&c, "v1-processes"));
	assert_non_null(strstr(f->where[0], ": 3 processes in 1 cgroup (first: "));
	/* The command line: quoted text and what follows "--" are not the kernel's. */
	assert_non_null(f = finding(&c, "cmdline-legacy"));
	assert_int_equal(f->count, 1);
	assert_non_null(strstr(f->where[0], "systemd.unified_cgroup_hierarchy=false"));
	assert_null(finding(&c, "cmdline-legacy-force"));
	assert_null(finding(&c, "cmdline-swapaccount-0"));             /* swapaccount=1 */
	/* Kernels: only the installed one at or past 6.11 without the option. */
	assert_non_null(f = finding(&c, "kernel-no-memcg-v1"));
	assert_string_equal(f->kernel, "6.12.48+deb13-amd64");
	for (size_t i = 0; i < c.n; i++)
		if (c.f[i].kernel)
			assert_ptr_equal(&c.f[i], f);
	assert_null(finding(&c, "kernel-no-cpusets-v1"));              /* no v1 cpuset here */
	assert_int_equal(c.unreadable, 1);                             /* the garbage config */
	assert_non_null(strstr(c.unreadable_what[0], "config-6.13.1-test: not a kernel configuration"));
	assert_non_null(finding(&c, "systemd-refuses-v1"));
	/* A runtime's file: the commented line is no setting. */
	assert_non_null(f = finding(&c, "runtime-containerd-cgroupfs"));
	assert_int_equal(f->count, 1);
	assert_non_null(strstr(f->where[0], "/etc/containerd/config.toml:3: SystemdCgroup=false"));
	/* The verdict, for people and for programs. */
	assert_non_null(mem = fmemopen(buf, sizeof(buf), "w"));
	assert_int_equal(cgfb_check_print(mem, &c, &(struct cgfb_target){ 0 }, root), 0);
	fclose(mem);
	assert_non_null(strstr(buf, "NOT READY for the removal of cgroup v1:"));
	assert_non_null(strstr(buf, "Could not read 1 place"));
	assert_non_null(mem = fmemopen(buf, sizeof(buf), "w"));
	assert_int_equal(cgfb_check_print_json(mem, &c, &(struct cgfb_target){ 0 }, root), 0);
	fclose(mem);
	assert_non_null(strstr(buf, "\"rule\":\"kernel-no-memcg-v1\""));
	assert_non_null(strstr(buf, "\"kernel\":\"6.12.48+deb13-amd64\""));
	cgfb_check_free(&c);
	cgfb_rules_free(&rs);
}

/* A cgroup removed between the listing and the walk's entering it (what a
 * busy host does all the time): counted as vanished, no error, the rest
 * walked. */
static void vanish(void *arg, int dirfd, const char *name)
{
	char path[600];

	if (strcmp(name, "a") != 0)
		return;
	snprintf(path, sizeof(path), "rm -rf '%s/sys/fs/cgroup/memory/a'", root);
	assert_int_equal(system(path), 0);
	(*(int *)arg)++;
}

static void tree_changes_while_walked(void **state)
{
	int calls = 0;
	struct cgfb_check_opts o = { .root = root, .enter_hook = vanish, .hook_arg = &calls };
	struct cgfb_rules rs;
	struct cgfb_check c;
	char err[256];

	assert_int_equal(cgfb_rules_load_builtin(&rs, err, sizeof(err)), 0);
	assert_int_equal(cgfb_check_run(&rs, &o, &c), 0);
	assert_int_equal(calls, 1);
	assert_int_equal(c.vanished, 1);
	assert_int_equal(c.cgroups, 1);                 /* the root; a and a/b went */
	assert_int_equal(c.unreadable, 1);              /* the garbage kernel config only */
	assert_null(finding(&c, "knob-soft-limit"));    /* it was in a/b */
	assert_non_null(finding(&c, "cmdline-legacy"));
	cgfb_check_free(&c);
	cgfb_rules_free(&rs);
}

/* A check that could read nothing says so: the caller exits 2. */
static void nothing_readable(void **state)
{
	struct cgfb_check_opts o = { .root = "/nonexistent/cgfb" };
	struct cgfb_rules rs;
	struct cgfb_check c;
	char err[256];

	assert_int_equal(cgfb_rules_load_builtin(&rs, err, sizeof(err)), 0);
	assert_int_equal(cgfb_check_run(&rs, &o, &c), 0);
	assert_int_equal(c.sources, 0);
	assert_int_equal(c.n, 0);
	assert_true(c.unreadable >= 1);
	assert_non_null(strstr(c.unreadable_what[0], "/nonexistent/cgfb: No such file or directory"));
	cgfb_check_free(&c);
	cgfb_rules_free(&rs);
}

/* --- a tree deeper than the walk goes ---------------------------------------- */

#define DEEP (CGFB_CHECK_DEPTH + 1)     /* levels below the mount point */

/* A memory v1 hierarchy at /run/mem on a unified host (the target keeps
 * memory v1), DEEP levels of cgroups "d" below it, made by name from each
 * parent's descriptor as the walk reads them. A knob set at the deepest
 * level the walk reads, and one set below it. */
static int make_deep(void **state)
{
	char path[600];
	int fd;

	snprintf(root, sizeof(root), "/tmp/cgfb-readiness.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	put("proc/self/mountinfo",
	    "29 23 0:25 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
	    "30 23 0:26 / /run/mem rw,relatime - cgroup cgroup rw,memory\n");
	put("proc/sys/kernel/osrelease", "6.1.0-18-amd64\n");
	put("proc/cmdline", "BOOT_IMAGE=/vmlinuz ro\n");
	put("run/mem/memory.soft_limit_in_bytes", "9223372036854771712\n");
	snprintf(path, sizeof(path), "%s/run/mem", root);
	if ((fd = open(path, O_RDONLY | O_DIRECTORY)) < 0)
		return -1;
	for (int depth = 1; depth <= DEEP; depth++) {
		int next;

		if (mkdirat(fd, "d", 0755) || (next = openat(fd, "d", O_RDONLY | O_DIRECTORY)) < 0) {
			close(fd);
			return -1;
		}
		close(fd);
		fd = next;
		if (depth >= CGFB_CHECK_DEPTH) {
			int k = openat(fd, "memory.soft_limit_in_bytes", O_WRONLY | O_CREAT, 0644);

			if (k < 0 || write(k, depth == DEEP ? "2048\n" : "1024\n", 5) != 5)
				return -1;
			close(k);
		}
	}
	close(fd);
	return 0;
}

/* The walk stops CGFB_CHECK_DEPTH levels below the mount point, as the
 * snapshot does, and says so: where (text, --json) and in the verdict,
 * which cannot be READY when a knob below could be what breaks. The report
 * --report makes carries the snapshot's cut, "depth_cap": the same tree cut
 * at the same level (closed vocabulary, no path). */
static void deeper_than_the_walk(void **state)
{
	const struct cgfb_target t = { 0 };
	struct cgfb_target deb12;
	const struct cgfb_finding *f;
	struct cgfb_rules rs;
	struct cgfb_check c;
	static char buf[1 << 18];
	char err[256], first[600], *p = first;
	json_object *doc, *sys, *cut, *v;
	FILE *mem;

	assert_int_equal(cgfb_target_parse("debian=12", &deb12, err, sizeof(err)), 0);
	run_check(&rs, &c);
	assert_int_equal(cgfb_decide(&c, &deb12), 0);
	assert_int_equal(c.cgroups, CGFB_CHECK_DEPTH + 1);           /* the root and 256 below */
	p += snprintf(first, sizeof(first), "%s/run/mem", root);
	for (int i = 0; i < CGFB_CHECK_DEPTH; i++)
		p += snprintf(p, sizeof(first) - (size_t)(p - first), "/d");
	assert_int_equal(c.depth_cut, 1);
	assert_string_equal(c.depth_cut_first, first);
	/* The knob at the last level read is found, the one below is not. */
	assert_non_null(f = finding(&c, "knob-soft-limit"));
	assert_int_equal(f->count, 1);
	assert_non_null(strstr(f->where[0], "/d/d: memory.soft_limit_in_bytes = 1024"));
	/* Nothing read breaks on the target: what is below decides. */
	assert_int_equal(cgfb_check_breaking(&c, &deb12), 0);
	assert_int_equal(cgfb_check_verdict(&c, &deb12), CGFB_CANNOT_TELL);
	assert_non_null(mem = fmemopen(buf, sizeof(buf), "w"));
	assert_int_equal(cgfb_check_print(mem, &c, &deb12, root), 0);
	fclose(mem);
	snprintf(err, sizeof(err), "\nStopped %d levels deep: the cgroups below 1 cgroup at that "
		 "depth were not read; a knob set there is not known:\n  first: %s/run/mem/d/d/",
		 CGFB_CHECK_DEPTH, root);
	assert_non_null(strstr(buf, err));
	assert_non_null(strstr(buf, "CANNOT TELL for debian=12: cgroups below the depth limit were not read"));
	assert_null(strstr(buf, "READY for"));
	assert_non_null(mem = fmemopen(buf, sizeof(buf), "w"));
	assert_int_equal(cgfb_check_print_json(mem, &c, &deb12, root), 0);
	fclose(mem);
	assert_non_null(doc = json_tokener_parse(buf));
	assert_true(json_object_object_get_ex(doc, "check_version", &v));
	assert_int_equal(json_object_get_int(v), 3);
	assert_true(json_object_object_get_ex(doc, "verdict", &v));
	assert_string_equal(json_object_get_string(v), "cannot_tell");
	assert_true(json_object_object_get_ex(doc, "system", &sys));
	assert_true(json_object_object_get_ex(sys, "depth_cut", &cut));
	assert_true(json_object_object_get_ex(cut, "levels", &v));
	assert_int_equal(json_object_get_int(v), CGFB_CHECK_DEPTH);
	assert_true(json_object_object_get_ex(cut, "count", &v));
	assert_int_equal(json_object_get_int(v), 1);
	assert_true(json_object_object_get_ex(cut, "first", &v));
	assert_string_equal(json_object_get_string(v), first);
	json_object_put(doc);
	/* Without a target the knobs break at the kernel: NOT READY still wins. */
	assert_int_equal(cgfb_decide(&c, &t), 0);
	assert_int_equal(cgfb_check_verdict(&c, &t), CGFB_NOT_READY);
	cgfb_check_free(&c);
	cgfb_rules_free(&rs);
}

/* What --report carries of it: the report writer's snapshot of the same
 * hierarchy is cut at the same level ("cut": {"reason": "depth_cap"}). */
static void deeper_than_the_snapshot(void **state)
{
	static const uint8_t key[CGFB_SECRET_LEN] = { 1 };
	struct cgfb_allowlist *al = NULL;
	struct cgfb_anon *anon = NULL;
	struct cgfb_mounts ms = { 0 };
	struct cgfb_topology tp;
	struct cgfb_rules rs;
	struct cgfb_check c;
	char mi[256], err[256];

	run_check(&rs, &c);
	snprintf(mi, sizeof(mi), "30 23 0:26 / /run/mem rw,relatime - cgroup cgroup rw,memory\n");
	assert_int_equal(cgfb_mountinfo_parse(mi, strlen(mi), root, &ms), 0);
	assert_true(cgfb_allowlist_load(&al, NULL, err, sizeof(err)) >= 0);
	assert_int_equal(cgfb_anon_new(key, al, &anon), 0);
	assert_int_equal(cgfb_topology_walk(&ms, anon, NULL, &tp), 0);
	assert_int_equal(tp.n, 1);
	assert_true(tp.h[0].depth_capped);
	assert_int_equal(tp.h[0].depth_omitted, 1);
	assert_int_equal(tp.h[0].max_depth, CGFB_CHECK_DEPTH);
	assert_int_equal(tp.h[0].total, c.cgroups);
	assert_int_equal(c.depth_cut, 1);
	cgfb_topology_free(&tp);
	cgfb_anon_free(anon);
	cgfb_allowlist_free(al);
	cgfb_mounts_free(&ms);
	cgfb_check_free(&c);
	cgfb_rules_free(&rs);
}

/* --- what the deciders read, read as their programs read it --------------- */

static void unput(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(unlink(path), 0);
}

static void kubelet(struct cgfb_kubelet *k)
{
	struct cgfb_check_opts o = { .root = root };
	struct cgfb_check c = { 0 };
	struct cgfb_buf status = { 0 };

	assert_int_equal(cgfb_dpkg_read(&o, &status), 0);
	assert_int_equal(cgfb_kubelet_read(&o, status.data, k, &c), 0);
	cgfb_buf_free(&status);
	cgfb_check_free(&c);
}

/* The kubelet: defaults < --config file < --config-dir drop-ins (in name
 * order) < flags (kubeadm's drop-in wires kubeadm-flags.env, then
 * /etc/default/kubelet); a bool flag takes no next word (pflag); k3s's
 * kubelet-arg lists, a later file replacing, "kubelet-arg+" adding. */
static void kubelet_configuration(void **state)
{
	struct cgfb_kubelet k;

	put("var/lib/dpkg/status", "Package: kubelet\nStatus: install ok installed\nVersion: 1.34.1-1.1\n\n");
	put("var/lib/kubelet/config.yaml", "apiVersion: kubelet.config.k8s.io/v1beta1\n"
	    "kind: KubeletConfiguration\n# failCgroupV1: false\nfailCgroupV1: true\n");
	kubelet(&k);
	assert_true(k.present);
	assert_string_equal(k.version, "1.34.1");
	assert_int_equal(k.fail_v1, 1);
	assert_non_null(strstr(k.fail_v1_where, "config.yaml:4: failCgroupV1: true"));
	put("var/lib/kubelet/kubeadm-flags.env", "KUBELET_KUBEADM_ARGS=\"--container-runtime-endpoint="
	    "unix:///run/containerd/containerd.sock --config-dir=/etc/kubernetes/kubelet.conf.d\"\n");
	put("etc/kubernetes/kubelet.conf.d/10-opt-out.conf", "apiVersion: kubelet.config.k8s.io/v1beta1\n"
	    "kind: KubeletConfiguration\nfailCgroupV1: false\n");
	put("etc/kubernetes/kubelet.conf.d/20-other.conf", "{\"kind\": \"KubeletConfiguration\", "
	    "\"maxPods\": 200}\n");
	kubelet(&k);
	assert_int_equal(k.fail_v1, 0);             /* the drop-in over the file */
	assert_non_null(strstr(k.fail_v1_where, "10-opt-out.conf:3: failCgroupV1: false"));
	put("etc/default/kubelet", "KUBELET_EXTRA_ARGS='--node-ip=10.0.0.5 --fail_cgroupv1=true'\n");
	kubelet(&k);
	assert_int_equal(k.fail_v1, 1);             /* the flag over the drop-ins, '_' as '-' */
	assert_string_equal(k.bad_flag, "");
	put("etc/default/kubelet", "KUBELET_EXTRA_ARGS='--node-ip=10.0.0.5 --fail-cgroup-v1=false'\n");
	kubelet(&k);
	assert_int_equal(k.fail_v1, 0);             /* an unknown flag: the drop-in again */
	assert_true(k.bad_flag_unknown);            /* ... and the kubelet does not start */
	assert_non_null(strstr(k.bad_flag, "kubelet:1: --fail-cgroup-v1=false"));
	put("etc/default/kubelet", "KUBELET_EXTRA_ARGS=\"--fail-cgroupv1 false\"\n");
	kubelet(&k);
	assert_int_equal(k.fail_v1, 1);
	assert_non_null(strstr(k.bad_flag, "etc/default/kubelet:1: --fail-cgroupv1 false"));
	unput("etc/default/kubelet");
	unput("var/lib/kubelet/kubeadm-flags.env");
	unput("var/lib/kubelet/config.yaml");
	unput("etc/kubernetes/kubelet.conf.d/10-opt-out.conf");
	/* k3s: block and flow lists, a later file replacing, "+" adding. */
	put("etc/rancher/k3s/config.yaml", "write-kubeconfig-mode: \"0644\"\nkubelet-arg:\n"
	    "  - \"max-pods=200\"\n  - \"fail-cgroupv1=false\"\n");
	kubelet(&k);
	assert_int_equal(k.fail_v1, 0);
	assert_non_null(strstr(k.fail_v1_where, "k3s/config.yaml:4: --fail-cgroupv1=false"));
	put("etc/rancher/k3s/config.yaml.d/50-pods.yaml", "kubelet-arg: [\"max-pods=300\"]\n");
	kubelet(&k);
	assert_int_equal(k.fail_v1, -1);            /* the list replaced */
	put("etc/rancher/k3s/config.yaml.d/60-more.yaml", "kubelet-arg+: [\"fail-cgroupv1\"]\n");
	kubelet(&k);
	assert_int_equal(k.fail_v1, 1);             /* no '=': true */
	put("etc/rancher/k3s/config.yaml.d/60-more.yaml", "kubelet-arg+: [oops\n");
	kubelet(&k);
	assert_int_equal(k.fail_v1, -1);            /* no YAML: said, nothing taken */
}

/* A copy's boot configuration: /etc/kernel/cmdline, each BLS entry (options
 * lines add up, $kernelopts from grubenv), /etc/default/grub then
 * grub.d (GRUB_CMDLINE_LINUX, then _DEFAULT, $VAR expanded). */
static void boot_configuration(void **state)
{
	struct cgfb_bootlines ls;
	struct cgfb_switches s;

	put("boot/grub2/grubenv", "# GRUB Environment Block\nkernelopts=root=/dev/vda1 ro "
	    "systemd.unified_cgroup_hierarchy=0\n##########\n");
	put("boot/loader/entries/abc-4.18.0.conf", "title RHEL 8\nlinux /vmlinuz-4.18.0\n"
	    "options $kernelopts\noptions crashkernel=auto\n");
	put("etc/default/grub", "GRUB_CMDLINE_LINUX=\"quiet\"\nGRUB_CMDLINE_LINUX_DEFAULT='splash'\n");
	put("etc/default/grub.d/50-cgroup.cfg", "GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX "
	    "systemd.legacy_systemd_cgroup_controller=1\"  # v1 for the batch system\n");
	assert_int_equal(cgfb_boot_cmdlines(root, &ls), 0);
	assert_int_equal(ls.n, 2);
	assert_non_null(strstr(ls.l[0].from, "/boot/loader/entries/abc-4.18.0.conf"));
	assert_non_null(strstr(ls.l[0].text, "root=/dev/vda1 ro systemd.unified_cgroup_hierarchy=0 crashkernel=auto"));
	cgfb_switches_read(ls.l[0].text, &s);
	assert_int_equal(s.unified, 0);
	assert_non_null(strstr(ls.l[1].from, "/etc/default/grub"));
	assert_string_equal(ls.l[1].text, "quiet systemd.legacy_systemd_cgroup_controller=1 splash");
	put("etc/kernel/cmdline", "root=UUID=1 rw\n");
	assert_int_equal(cgfb_boot_cmdlines(root, &ls), 0);
	assert_int_equal(ls.n, 3);
	assert_string_equal(ls.l[0].text, "root=UUID=1 rw");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(versions),
		cmocka_unit_test(targets),
		cmocka_unit_test(release_targets),
		cmocka_unit_test(builtin_rules),
		cmocka_unit_test(refused_rules),
		cmocka_unit_test_setup_teardown(probes, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(tree_changes_while_walked, make_tree, remove_tree),
		cmocka_unit_test(nothing_readable),
		cmocka_unit_test_setup_teardown(deeper_than_the_walk, make_deep, remove_tree),
		cmocka_unit_test_setup_teardown(deeper_than_the_snapshot, make_deep, remove_tree),
		cmocka_unit_test_setup_teardown(kubelet_configuration, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(boot_configuration, make_tree, remove_tree),
	};

	return cmocka_run_group_tests_name("readiness", tests, NULL, NULL);
}
