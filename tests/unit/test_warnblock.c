#include "testutil.h"

#include "detect/warnblock.h"

static void feed_all(struct cgfb_warn *w, const char *const *lines)
{
	cgfb_warn_begin(w);
	for (; *lines; lines++)
		cgfb_warn_feed(w, *lines, strlen(*lines));
}

static void expect(const struct cgfb_warn *w, const char *name, const char *value)
{
	const char *got = cgfb_fields_get(&w->fields, name);

	if (!got || strcmp(got, value) != 0)
		fail_msg("%s: got '%s', want '%s'", name, got ? got : "(unset)", value);
}

static void suse_3_0(void **state)
{
	static const char *const lines[] = {
		"WARNING: at /usr/src/packages/BUILD/kernel-default-3.0.101/linux-3.0/mm/memcontrol.c:5007 mem_cgroup_create+0x3ac/0x510()",
		"Hardware name: ProLiant DL380 G7",
		"Creating hierarchies with use_hierarchy==0 ...",
		"Modules linked in: af_packet",
		"Supported: Yes, External",
		"Pid: 4321, comm: libvirtd Tainted: G          X 3.0.101-84-default #1",
		NULL,
	};
	struct cgfb_warn w;

	feed_all(&w, lines);
	expect(&w, "kernel_file", "mm/memcontrol.c");
	expect(&w, "kernel_line", "5007");
	expect(&w, "function", "mem_cgroup_create");
	expect(&w, "pid", "4321");
	expect(&w, "comm", "libvirtd");
	expect(&w, "taint", "GX");
	expect(&w, "release", "3.0.101-84-default");
}

static void rhel6(void **state)
{
	static const char *const lines[] = {
		"WARNING: at mm/memcontrol.c:3110 mem_cgroup_create+0x1c/0x3b0() (Not tainted)",
		"Pid: 77, comm: java Not tainted 2.6.32-279.el6.x86_64 #1",
		NULL,
	};
	struct cgfb_warn w;

	feed_all(&w, lines);
	expect(&w, "kernel_file", "mm/memcontrol.c");
	expect(&w, "function", "mem_cgroup_create");
	expect(&w, "comm", "java");
	expect(&w, "taint", "none");
	expect(&w, "release", "2.6.32-279.el6.x86_64");
}

static void modern(void **state)
{
	static const char *const lines[] = {
		"WARNING: CPU: 1 PID: 999 at mm/memcontrol.c:123 foo_bar+0x10/0x20 [mod]",
		"Modules linked in: x",
		"CPU: 1 UID: 0 PID: 999 Comm: kworker/u8:2 Tainted: G        W          6.12.0 #1",
		NULL,
	};
	struct cgfb_warn w;

	feed_all(&w, lines);
	expect(&w, "cpu", "1");
	expect(&w, "pid", "999");
	expect(&w, "kernel_file", "mm/memcontrol.c");
	expect(&w, "kernel_line", "123");
	expect(&w, "function", "foo_bar");
	expect(&w, "comm", "kworker/u8:2");
	expect(&w, "taint", "GW");
	expect(&w, "release", "6.12.0");
}

static void v6_19(void **state)
{
	static const char *const a[] = {
		"WARNING: mm/memcontrol-v1.c:42 at mem_cgroup_x+0x1/0x2, CPU#3: my comm/31337", NULL,
	};
	static const char *const b[] = { "WARNING: at some_sym+0x1/0x2, CPU#0: init/1", NULL };
	struct cgfb_warn w;

	feed_all(&w, a);
	expect(&w, "kernel_file", "mm/memcontrol-v1.c");
	expect(&w, "kernel_line", "42");
	expect(&w, "function", "mem_cgroup_x");
	expect(&w, "cpu", "3");
	expect(&w, "comm", "my comm");
	expect(&w, "pid", "31337");
	feed_all(&w, b);
	expect(&w, "function", "some_sym");
	expect(&w, "comm", "init");
	expect(&w, "pid", "1");
}

static void markers(void **state)
{
	assert_true(cgfb_warn_is_start(S("------------[ cut here ]------------")));
	assert_false(cgfb_warn_is_start(S("cut here")));
	assert_true(cgfb_warn_is_start(S("  ------------[ cut here ]------------ \r")));
	assert_true(cgfb_warn_is_start(S("-[ cut here ]-")));
	/* What a local user makes the kernel echo (a mount option, a module
	 * parameter) quotes the line: no block. */
	assert_false(cgfb_warn_is_start(S("tmpfs: Unknown parameter '------------[ cut here ]------------'")));
	assert_false(cgfb_warn_is_start(S("------------[ cut here ]------------ and more")));
	assert_false(cgfb_warn_is_start(S("[ cut here ]------------")));
	assert_false(cgfb_warn_is_start(S("------------[ cut here ]")));
	assert_true(cgfb_warn_is_end(S("---[ end trace a6c54db610fd5bb5 ]---")));
	assert_true(cgfb_warn_is_end(S("---[ end trace 0000000000000000 ]---")));
	assert_false(cgfb_warn_is_end(S("end trace")));
}

static bool banner(const char *s)
{
	return cgfb_warn_is_banner(s, strlen(s));
}

/* The banners of every era open a block when "[ cut here ]" was lost, also
 * when a re-wrapped paste cut them short; other "WARNING: " lines do not. */
static void banners(void **state)
{
	assert_true(banner("WARNING: CPU: 3 PID: 4242 at mm/memcontrol.c:5007 f+0x3/0x5"));
	assert_true(banner("WARNING: CPU: 3 PID: 4242 at"));
	assert_true(banner("WARNING: at mm/memcontrol.c:5007 mem_cgroup_create+0x3ac/0x510()"));
	assert_true(banner("WARNING: at"));
	assert_true(banner("WARNING: mm/memcontrol.c:1 at f+0x1/0x2, CPU#0: bash/1701"));
	assert_true(banner("WARNING: at f+0x1/0x2, CPU#0: bash/1701"));
	assert_false(banner("WARNING: Spectre v2 mitigation leaves CPU vulnerable"));
	assert_false(banner("WARNING: at least one CPU is offline"));
	assert_false(banner("WARNING: CPU: 3 is hot"));
	assert_false(banner("WARNING:"));
	assert_false(banner("Hardware name: WARNING: CPU: 3 PID: 1 at x:1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(suse_3_0),
		cmocka_unit_test(rhel6),
		cmocka_unit_test(modern),
		cmocka_unit_test(v6_19),
		cmocka_unit_test(markers),
		cmocka_unit_test(banners),
	};

	return cmocka_run_group_tests_name("warnblock", tests, NULL, NULL);
}
