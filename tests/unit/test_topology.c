#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "snapshot/topology.h"

#define UNLIMITED "9223372036854771712\n"

static char dir[64];
static struct cgfb_allowlist *al;
static struct cgfb_anon *anon;

static int setup(void **state)
{
	uint8_t key[CGFB_SECRET_LEN] = { 7 };
	char err[256];

	snprintf(dir, sizeof(dir), "/tmp/cgfb-topo.XXXXXX");
	if (!mkdtemp(dir) || cgfb_allowlist_load(&al, NULL, err, sizeof(err)) < 0)
		return -1;
	return cgfb_anon_new(key, al, &anon);
}

static int teardown(void **state)
{
	char cmd[128];

	cgfb_anon_free(anon);
	cgfb_allowlist_free(al);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void put(const char *d, const char *name, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", d, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A memory v1 cgroup as the kernel shows it, below parent. */
static void memcg(char *path, size_t sz, const char *parent, const char *name, const char *limit,
		  const char *use_hierarchy, const char *procs)
{
	snprintf(path, sz, "%s/%s", parent, name);
	assert_int_equal(mkdir(path, 0755), 0);
	put(path, "memory.limit_in_bytes", limit);
	put(path, "memory.soft_limit_in_bytes", UNLIMITED);
	put(path, "memory.memsw.limit_in_bytes", UNLIMITED);
	put(path, "memory.use_hierarchy", use_hierarchy);
	put(path, "memory.swappiness", "60\n");
	put(path, "memory.move_charge_at_immigrate", "0\n");
	put(path, "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n");
	put(path, "cgroup.procs", procs);
	put(path, "tasks", procs);
}

static void one_mount(struct cgfb_mounts *ms, const char *path, int version, uint32_t ctrl)
{
	memset(ms, 0, sizeof(*ms));
	ms->n = 1;
	ms->m[0].version = version;
	ms->m[0].controllers = ctrl;
	ms->m[0].path = strdup(path);
}

static const struct cgfb_node *find(const struct cgfb_hier *h, const char *raw)
{
	char tok[CGFB_ANON_MAX];

	cgfb_anon_name(anon, raw, strlen(raw), tok);
	for (size_t i = 0; i < h->n; i++)
		if (strcmp(h->nodes[i].name, tok) == 0)
			return &h->nodes[i];
	return NULL;
}

/*  root ── A (use_hierarchy=0, 1G, 3 tasks) ── B (512M), C
 *       └─ system.slice */
static void build_abc(char *root, size_t sz, const char *top)
{
	char a[4096], x[4096];

	snprintf(root, sz, "%s/%s", dir, top);
	assert_int_equal(mkdir(root, 0755), 0);
	put(root, "memory.limit_in_bytes", UNLIMITED);
	put(root, "memory.use_hierarchy", "1\n");
	put(root, "cgroup.procs", "1\n2\n3\n4\n5");    /* no final newline: still 5 */
	memcg(a, sizeof(a), root, "A", "1073741824\n", "0\n", "10\n11\n12\n");
	memcg(x, sizeof(x), a, "B", "536870912\n", "0\n", "13\n");
	memcg(x, sizeof(x), a, "C", UNLIMITED, "0\n", "");
	memcg(x, sizeof(x), root, "system.slice", UNLIMITED, "1\n", "");
}

/* Build the A/B/C tree as "top" and walk it as one memory v1 hierarchy. */
static void walk_abc(const char *top, const struct cgfb_topo_opts *o, struct cgfb_topology *t)
{
	struct cgfb_mounts ms;
	char root[4096];

	build_abc(root, sizeof(root), top);
	one_mount(&ms, root, 1, 1u << CGFB_C_MEMORY);
	assert_int_equal(cgfb_topology_walk(&ms, anon, o, t), 0);
	cgfb_mounts_free(&ms);
}

static void shape_and_values(void **state)
{
	struct cgfb_topology t;
	const struct cgfb_node *a, *b, *c;

	walk_abc("abc", NULL, &t);
	assert_int_equal(t.n, 1);
	assert_int_equal(t.mode, CGFB_MODE_LEGACY);
	assert_int_equal(t.h[0].n, 5);
	assert_int_equal(t.h[0].total, 5);
	assert_int_equal(t.h[0].max_depth, 2);
	assert_string_equal(t.h[0].nodes[0].name, "/");
	assert_int_equal(t.h[0].nodes[0].parent, CGFB_NO_PARENT);
	assert_int_equal(t.h[0].nodes[0].tasks, 5);
	assert_int_equal(t.h[0].nodes[0].children, 2);
	a = find(&t.h[0], "A");
	b = find(&t.h[0], "B");
	c = find(&t.h[0], "C");
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	assert_non_null(find(&t.h[0], "system.slice"));
	assert_string_equal(find(&t.h[0], "system.slice")->name, "system.slice");
	assert_int_equal(a->depth, 1);
	assert_int_equal(a->children, 2);
	assert_int_equal(a->tasks, 3);
	assert_true(cgfb_node_has(a, CGFB_A_USE_HIERARCHY));
	assert_int_equal(a->v[CGFB_A_USE_HIERARCHY], 0);
	assert_true(a->v[CGFB_A_LIMIT] == 1073741824);
	assert_true(c->v[CGFB_A_LIMIT] == CGFB_UNLIMITED);
	assert_true(cgfb_node_has(a, CGFB_A_OOM_KILL_DISABLE));
	/* No kmem files on this "kernel": not read, not invented. */
	assert_false(cgfb_node_has(a, CGFB_A_KMEM_LIMIT));
	/* Pre-order: every parent before its children. */
	for (size_t i = 1; i < t.h[0].n; i++)
		assert_true(t.h[0].nodes[i].parent < i);
	assert_int_equal(b->parent, (uint32_t)(a - t.h[0].nodes));
	assert_int_equal(t.trouble.vanished + t.trouble.unreadable, 0);
	cgfb_topology_free(&t);
}

/* Siblings a report names alike (user-N.slice) come in the order of keyed
 * tokens of their raw names, not of the names: user-1000 before user-1001
 * would say which subtree is whose. Each user-(1000+k).slice has k
 * children, so the children counts in the walk show the order. */
static void siblings_by_token(void **state)
{
	struct cgfb_topology t;
	struct cgfb_mounts ms;
	char root[4096], s[4096], x[4096], name[64], tok[10][CGFB_ANON_MAX], want[10];
	size_t got = 0;

	snprintf(root, sizeof(root), "%s/users", dir);
	assert_int_equal(mkdir(root, 0755), 0);
	for (int k = 0; k < 10; k++) {
		snprintf(name, sizeof(name), "user-%d.slice", 1000 + k);
		memcg(s, sizeof(s), root, name, UNLIMITED, "1\n", "");
		for (int i = 0; i < k; i++) {
			snprintf(name, sizeof(name), "c%d", i);
			memcg(x, sizeof(x), s, name, UNLIMITED, "1\n", "");
		}
		snprintf(name, sizeof(name), "user-%d.slice", 1000 + k);
		cgfb_anon_token(anon, name, strlen(name), tok[k]);
		want[k] = (char)k;
	}
	/* The expected order: k sorted by its token. */
	for (int i = 1; i < 10; i++)
		for (int j = i; j > 0 && strcmp(tok[(int)want[j - 1]], tok[(int)want[j]]) > 0; j--) {
			const char tmp = want[j];

			want[j] = want[j - 1];
			want[j - 1] = tmp;
		}
	one_mount(&ms, root, 1, 1u << CGFB_C_MEMORY);
	assert_int_equal(cgfb_topology_walk(&ms, anon, NULL, &t), 0);
	cgfb_mounts_free(&ms);
	for (size_t i = 0; i < t.h[0].n; i++) {
		if (strcmp(t.h[0].nodes[i].name, "user-N.slice") != 0)
			continue;
		assert_true(got < 10);
		assert_int_equal(t.h[0].nodes[i].children, (int)want[got]);
		got++;
	}
	assert_int_equal(got, 10);
	cgfb_topology_free(&t);
}

/* A cgroup removed between the listing of its parent and its own visit:
 * the hook moves B out of the tree as rmdir would take it away. */
static void vanish(void *arg, int dirfd, uint32_t depth)
{
	char to[4096];

	if (depth != 1)
		return;
	snprintf(to, sizeof(to), "%s/gone-%d", dir, *(int *)arg);
	renameat(dirfd, "B", AT_FDCWD, to);
}

static void vanished_cgroup(void **state)
{
	int n = 1;
	const struct cgfb_topo_opts o = { .listed_hook = vanish, .hook_arg = &n };
	struct cgfb_topology t;

	walk_abc("vanish", &o, &t);
	assert_int_equal(t.h[0].n, 4);
	assert_int_equal(t.h[0].total, 4);
	assert_null(find(&t.h[0], "B"));
	assert_int_equal(find(&t.h[0], "A")->children, 1);
	assert_int_equal(t.trouble.vanished, 1);
	assert_int_equal(t.trouble.unreadable, 0);
	cgfb_topology_free(&t);
}

/* Past the node cap cgroups are counted, not listed; the listed ones are
 * the first in pre-order, so each one's parent is listed too. */
static void node_cap(void **state)
{
	const struct cgfb_topo_opts o = { .max_nodes = 3 };
	struct cgfb_topology t;

	walk_abc("cap", &o, &t);
	assert_int_equal(t.max_nodes, 3);
	assert_int_equal(t.h[0].n, 3);
	assert_int_equal(t.h[0].total, 5);
	for (size_t i = 1; i < t.h[0].n; i++)
		assert_true(t.h[0].nodes[i].parent < i);
	cgfb_topology_free(&t);
}

/* Odd things in a tree: a FIFO where a value should be (it must not block),
 * a directory named like a knob file, a symlink to elsewhere (not followed),
 * garbage values (left out). */
static void odd_entries(void **state)
{
	struct cgfb_topology t;
	struct cgfb_mounts ms;
	const struct cgfb_node *a;
	char root[4096], path[4200];

	build_abc(root, sizeof(root), "odd");
	snprintf(path, sizeof(path), "%s/A/memory.swappiness", root);
	unlink(path);
	assert_int_equal(mkfifo(path, 0644), 0);
	put(root, "A/memory.soft_limit_in_bytes", "lots\n");
	snprintf(path, sizeof(path), "%s/elsewhere", root);
	assert_int_equal(symlink("/", path), 0);
	one_mount(&ms, root, 1, 1u << CGFB_C_MEMORY);
	assert_int_equal(cgfb_topology_walk(&ms, anon, NULL, &t), 0);
	assert_int_equal(t.h[0].n, 5);
	a = find(&t.h[0], "A");
	assert_false(cgfb_node_has(a, CGFB_A_SWAPPINESS));
	assert_false(cgfb_node_has(a, CGFB_A_SOFT_LIMIT));
	assert_true(cgfb_node_has(a, CGFB_A_LIMIT));
	cgfb_topology_free(&t);
	cgfb_mounts_free(&ms);
}

/* Deeper than CGFB_TOPO_MAX_DEPTH: counted down to the cap, flagged. */
static void depth_cap(void **state)
{
	struct cgfb_topology t;
	struct cgfb_mounts ms;
	char root[4096];
	int fd, d;

	snprintf(root, sizeof(root), "%s/deep", dir);
	assert_int_equal(mkdir(root, 0755), 0);
	fd = open(root, O_RDONLY | O_DIRECTORY);
	for (d = 0; d < CGFB_TOPO_MAX_DEPTH + 4; d++) {
		int next;

		assert_int_equal(mkdirat(fd, "d", 0755), 0);
		next = openat(fd, "d", O_RDONLY | O_DIRECTORY);
		close(fd);
		fd = next;
	}
	close(fd);
	one_mount(&ms, root, 1, 0);
	assert_int_equal(cgfb_topology_walk(&ms, anon, NULL, &t), 0);
	assert_true(t.h[0].depth_capped);
	assert_int_equal(t.h[0].max_depth, CGFB_TOPO_MAX_DEPTH);
	assert_int_equal(t.h[0].total, CGFB_TOPO_MAX_DEPTH + 1);
	assert_int_equal(t.h[0].depth_omitted, 1);      /* the "d" below the cap */
	cgfb_topology_free(&t);
	cgfb_mounts_free(&ms);
}

static void v2_and_noprefix(void **state)
{
	struct cgfb_topology t;
	struct cgfb_mounts ms;
	char root[4096], path[4200];

	snprintf(root, sizeof(root), "%s/v2", dir);
	assert_int_equal(mkdir(root, 0755), 0);
	put(root, "cgroup.controllers", "cpuset cpu io memory pids\n");
	put(root, "cgroup.subtree_control", "memory pids\n");
	snprintf(path, sizeof(path), "%s/job.slice", root);
	assert_int_equal(mkdir(path, 0755), 0);
	put(path, "memory.max", "1073741824\n");
	put(path, "memory.high", "max\n");
	put(path, "memory.low", "0\n");
	put(path, "cgroup.procs", "7\n");
	one_mount(&ms, root, 2, 0);
	assert_int_equal(cgfb_topology_walk(&ms, anon, NULL, &t), 0);
	assert_int_equal(t.mode, CGFB_MODE_UNIFIED);
	assert_int_equal(t.h[0].controllers, (1u << CGFB_C_CPUSET) | (1u << CGFB_C_CPU) |
			 (1u << CGFB_C_IO) | (1u << CGFB_C_MEMORY) | (1u << CGFB_C_PIDS));
	assert_int_equal(t.h[0].nodes[0].v[CGFB_A_V2_SUBTREE],
			 (1u << CGFB_C_MEMORY) | (1u << CGFB_C_PIDS));
	assert_true(t.h[0].nodes[1].v[CGFB_A_V2_MAX] == 1073741824);
	assert_true(t.h[0].nodes[1].v[CGFB_A_V2_HIGH] == CGFB_UNLIMITED);
	assert_false(cgfb_node_has(&t.h[0].nodes[1], CGFB_A_V2_MIN));
	cgfb_topology_free(&t);
	cgfb_mounts_free(&ms);

	/* cpuset mounted with noprefix: "sched_load_balance", not "cpuset.…". */
	snprintf(root, sizeof(root), "%s/cpuset", dir);
	assert_int_equal(mkdir(root, 0755), 0);
	snprintf(path, sizeof(path), "%s/rt", root);
	assert_int_equal(mkdir(path, 0755), 0);
	put(path, "sched_load_balance", "0\n");
	put(path, "mem_exclusive", "0\n");
	one_mount(&ms, root, 1, 1u << CGFB_C_CPUSET);
	ms.m[0].noprefix = true;
	assert_int_equal(cgfb_topology_walk(&ms, anon, NULL, &t), 0);
	assert_true(cgfb_node_has(&t.h[0].nodes[1], CGFB_A_SCHED_LOAD_BALANCE));
	assert_int_equal(t.h[0].nodes[1].v[CGFB_A_SCHED_LOAD_BALANCE], 0);
	cgfb_topology_free(&t);
	cgfb_mounts_free(&ms);
}

static void missing_mount_point(void **state)
{
	struct cgfb_topology t;
	struct cgfb_mounts ms;

	one_mount(&ms, "/nonexistent/cgroup", 1, 1u << CGFB_C_MEMORY);
	assert_int_equal(cgfb_topology_walk(&ms, anon, NULL, &t), 0);
	assert_int_equal(t.h[0].error, -ENOENT);
	assert_int_equal(t.h[0].n, 0);
	assert_int_equal(t.trouble.unreadable, 1);
	assert_string_equal(t.trouble.first, "/nonexistent/cgroup");
	cgfb_topology_free(&t);
	cgfb_mounts_free(&ms);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shape_and_values),
		cmocka_unit_test(siblings_by_token),
		cmocka_unit_test(vanished_cgroup),
		cmocka_unit_test(node_cap),
		cmocka_unit_test(odd_entries),
		cmocka_unit_test(depth_cap),
		cmocka_unit_test(v2_and_noprefix),
		cmocka_unit_test(missing_mount_point),
	};

	return cmocka_run_group_tests_name("topology", tests, setup, teardown);
}
