#include "testutil.h"

#include <errno.h>

#include "snapshot/attrs.h"
#include "privacy/bucket.h"

static void sizes(void **state)
{
	char b[CGFB_BUCKET_MAX];

	assert_string_equal(cgfb_bucket_size(0, b), "0");
	assert_string_equal(cgfb_bucket_size(1, b), "1");
	assert_string_equal(cgfb_bucket_size(3, b), "4");
	assert_string_equal(cgfb_bucket_size(512, b), "512");
	assert_string_equal(cgfb_bucket_size(513, b), "1K");
	assert_string_equal(cgfb_bucket_size(1024, b), "1K");
	assert_string_equal(cgfb_bucket_size(768u << 20, b), "1G");
	assert_string_equal(cgfb_bucket_size(512u << 20, b), "512M");
	assert_string_equal(cgfb_bucket_size((uint64_t)15 << 30, b), "16G");
	assert_string_equal(cgfb_bucket_size(UINT64_C(1) << 62, b), "4E");
	assert_string_equal(cgfb_bucket_size(CGFB_UNLIMITED, b), "max");
}

static void counts(void **state)
{
	char b[CGFB_BUCKET_MAX];

	assert_string_equal(cgfb_bucket_count(0, b), "0");
	assert_string_equal(cgfb_bucket_count(1, b), "1");
	assert_string_equal(cgfb_bucket_count(2, b), "2-3");
	assert_string_equal(cgfb_bucket_count(3, b), "2-3");
	assert_string_equal(cgfb_bucket_count(4, b), "4-7");
	assert_string_equal(cgfb_bucket_count(100, b), "64-127");
	assert_string_equal(cgfb_bucket_count(524287, b), "262144-524287");
	assert_string_equal(cgfb_bucket_count(524288, b), "524288+");
	assert_string_equal(cgfb_bucket_count(UINT64_MAX, b), "524288+");
}

static uint64_t parse(enum cgfb_attr a, const char *text, int want_rc)
{
	uint64_t v = 12345;

	assert_int_equal(cgfb_attr_parse(a, text, strlen(text), &v), want_rc);
	return v;
}

/* File contents as kernels print them. */
static void attr_values(void **state)
{
	/* page_counter (3.19+) and res_counter (2.6/3.x) "unlimited" */
	assert_true(parse(CGFB_A_LIMIT, "9223372036854771712\n", 0) == CGFB_UNLIMITED);
	assert_true(parse(CGFB_A_LIMIT, "9223372036854775807\n", 0) == CGFB_UNLIMITED);
	assert_true(parse(CGFB_A_LIMIT, "18446744073709551615\n", 0) == CGFB_UNLIMITED);
	assert_true(parse(CGFB_A_LIMIT, "536870912\n", 0) == 536870912);
	parse(CGFB_A_LIMIT, "\n", -EINVAL);
	parse(CGFB_A_LIMIT, "-1\n", -EINVAL);
	parse(CGFB_A_LIMIT, "12ab\n", -EINVAL);
	/* Found by fuzz/attrs.c: the digits before a NUL byte were taken for
	 * the whole file. */
	{
		uint64_t v = 12345;

		assert_int_equal(cgfb_attr_parse(CGFB_A_SCHED_LOAD_BALANCE, S("0\0"), &v), -EINVAL);
		assert_int_equal(cgfb_attr_parse(CGFB_A_LIMIT, S("512\0\n99\n"), &v), -EINVAL);
		assert_int_equal(cgfb_attr_parse(CGFB_A_OOM_KILL_DISABLE,
						 S("oom_kill_disable 1\0x\nunder_oom 0\n"), &v), -EINVAL);
	}
	assert_true(parse(CGFB_A_V2_MAX, "max\n", 0) == CGFB_UNLIMITED);
	assert_true(parse(CGFB_A_V2_LOW, "0\n", 0) == 0);
	assert_true(parse(CGFB_A_V2_HIGH, "1073741824\n", 0) == 1073741824);
	parse(CGFB_A_V2_MAX, "maximum\n", -EINVAL);
	assert_true(parse(CGFB_A_OOM_KILL_DISABLE, "oom_kill_disable 1\nunder_oom 0\noom_kill 0\n", 0) == 1);
	assert_true(parse(CGFB_A_OOM_KILL_DISABLE, "oom_kill_disable 0\nunder_oom 0\n", 0) == 0);
	parse(CGFB_A_OOM_KILL_DISABLE, "under_oom 0\n", -EINVAL);
	assert_true(parse(CGFB_A_USE_HIERARCHY, "0\n", 0) == 0);
	parse(CGFB_A_USE_HIERARCHY, "2\n", -EINVAL);
	assert_true(parse(CGFB_A_SWAPPINESS, "200\n", 0) == 200);
	parse(CGFB_A_SWAPPINESS, "201\n", -EINVAL);
	assert_true(parse(CGFB_A_MOVE_CHARGE, "3\n", 0) == 3);
	assert_true(parse(CGFB_A_FREEZER_STATE, "FROZEN\n", 0) == 2);
	parse(CGFB_A_FREEZER_STATE, "frozen\n", -EINVAL);
	assert_true(parse(CGFB_A_V2_SUBTREE, "cpu io memory pids bogus\n", 0) ==
		    ((1u << CGFB_C_CPU) | (1u << CGFB_C_IO) | (1u << CGFB_C_MEMORY) |
		     (1u << CGFB_C_PIDS)));
}

static void knobs_and_defaults(void **state)
{
	assert_int_equal(cgfb_attr_for_knob("memory.soft_limit_in_bytes"), CGFB_A_SOFT_LIMIT);
	assert_int_equal(cgfb_attr_for_knob("memory.use_hierarchy"), CGFB_A_USE_HIERARCHY);
	assert_int_equal(cgfb_attr_for_knob("swapaccount=0"), CGFB_A_MEMSW_LIMIT);
	assert_int_equal(cgfb_attr_for_knob("cpuset.sched_load_balance"), CGFB_A_SCHED_LOAD_BALANCE);
	assert_int_equal(cgfb_attr_for_knob("freezer.state"), CGFB_A_FREEZER_STATE);
	/* Not deprecated, and not readable. */
	assert_int_equal(cgfb_attr_for_knob("memory.limit_in_bytes"), -1);
	assert_int_equal(cgfb_attr_for_knob("cgroup.event_control"), -1);
	assert_true(cgfb_attr_is_default(CGFB_A_SWAPPINESS, 60, 3));
	assert_false(cgfb_attr_is_default(CGFB_A_SWAPPINESS, 10, 3));
	/* The root cpuset is always mem_exclusive: nobody chose that. */
	assert_true(cgfb_attr_is_default(CGFB_A_MEM_EXCLUSIVE, 1, 0));
	assert_false(cgfb_attr_is_default(CGFB_A_MEM_EXCLUSIVE, 1, 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sizes),
		cmocka_unit_test(counts),
		cmocka_unit_test(attr_values),
		cmocka_unit_test(knobs_and_defaults),
	};

	return cmocka_run_group_tests_name("bucket", tests, NULL, NULL);
}
