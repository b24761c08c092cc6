#include "testutil.h"

#include <errno.h>

#include "log/kmsg_record.h"

static void parses_header_and_text(void **state)
{
	struct cgfb_record r;
	char buf[256];
	const char line[] = "4,1234,3018562,-;Non-hierarchical mode is deprecated.";

	assert_int_equal(cgfb_kmsg_parse(S(line), buf, sizeof(buf), &r), 0);
	assert_int_equal(r.level, 4);
	assert_int_equal(r.facility, 0);
	assert_true(r.has_seq);
	assert_int_equal(r.seq, 1234);
	assert_int_equal(r.usec, 3018562);
	assert_false(r.fragment);
	assert_int_equal(r.len, strlen("Non-hierarchical mode is deprecated."));
	assert_memory_equal(r.text, "Non-hierarchical mode is deprecated.", r.len);
}

static void userspace_facility(void **state)
{
	struct cgfb_record r;
	char buf[64];

	/* echo "<4>x" > /dev/kmsg from userspace: facility 1 (LOG_USER). */
	assert_int_equal(cgfb_kmsg_parse(S("12,7,100,-;x"), buf, sizeof(buf), &r), 0);
	assert_int_equal(r.facility, 1);
	assert_int_equal(r.level, 4);
	assert_false(cgfb_record_from_kernel(&r));
}

static void caller_and_unknown_fields(void **state)
{
	struct cgfb_record r;
	char buf[64];

	assert_int_equal(cgfb_kmsg_parse(S("6,9,10,-,caller=T4242,future=1;hello"), buf,
					 sizeof(buf), &r), 0);
	assert_string_equal(r.caller, "T4242");
	assert_memory_equal(r.text, "hello", 5);
	/* A field we do not know before caller=, as the ABI allows. */
	assert_int_equal(cgfb_kmsg_parse(S("6,9,10,-,cpu=1,caller=C0;x"), buf, sizeof(buf), &r), 0);
	assert_string_equal(r.caller, "C0");
}

static void unescapes(void **state)
{
	struct cgfb_record r;
	char buf[128];

	assert_int_equal(cgfb_kmsg_parse(S("6,1,1,-;there\\x0a a\\x5cb \\xZZ \\x4"), buf,
					 sizeof(buf), &r), 0);
	assert_string_equal(buf, "there\n a\\b \\xZZ \\x4");
}

static void fragments(void **state)
{
	struct cgfb_record r;
	char buf[64];

	assert_int_equal(cgfb_kmsg_parse(S("4,1,1,c;Modules linked in:"), buf, sizeof(buf), &r), 0);
	assert_true(r.fragment);
	assert_true(r.frag_start);
	assert_int_equal(cgfb_kmsg_parse(S("4,2,1,+; foo"), buf, sizeof(buf), &r), 0);
	assert_true(r.fragment);
	assert_false(r.frag_start);
}

static void rejects_malformed(void **state)
{
	static const char *const bad[] = {
		"", ";", "4;text", "4,1;text", "4,1,2;text", "x,1,2,-;t", "4,1,2,;t",
		"4,-1,2,-;t", "4,99999999999999999999999,2,-;t", "2000,1,2,-;t", "4,1,2,-",
		"[    1.000000] text",
	};
	struct cgfb_record r;
	char buf[64];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (cgfb_kmsg_parse(bad[i], strlen(bad[i]), buf, sizeof(buf), &r) != -EBADMSG)
			fail_msg("accepted malformed record '%s'", bad[i]);
	}
}

static void truncates_to_buffer(void **state)
{
	struct cgfb_record r;
	char buf[8];

	assert_int_equal(cgfb_kmsg_parse(S("4,1,1,-;0123456789"), buf, sizeof(buf), &r), 0);
	assert_int_equal(r.len, 7);
	assert_string_equal(buf, "0123456");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parses_header_and_text),
		cmocka_unit_test(userspace_facility),
		cmocka_unit_test(caller_and_unknown_fields),
		cmocka_unit_test(unescapes),
		cmocka_unit_test(fragments),
		cmocka_unit_test(rejects_malformed),
		cmocka_unit_test(truncates_to_buffer),
	};

	return cmocka_run_group_tests_name("kmsg_record", tests, NULL, NULL);
}
