/* The detection the watcher hands to the report writer arrives as it left,
 * whatever bytes the kernel record held; malformed hand-offs are refused. */
#include "testutil.h"

#include <errno.h>
#include <stdio.h>

#include "detect/handoff.h"

static void round_trip(void **state)
{
	struct cgfb_catalog *cat = test_catalog();
	struct cgfb_detection d = { 0 }, back;
	struct cgfb_buf b = { 0 };
	char source[16], err[256];
	/* comm cut inside a UTF-8 sequence, with ESC and a quote and NUL-free
	 * binary: JSON would choke on it raw. */
	static const char comm[] = "acme\xc3\x1b\"\\\xff";

	d.entry = cgfb_catalog_find(cat, "C1");
	d.occurrence = 1;
	d.level = 4;
	d.in_warn_block = true;
	snprintf(d.text, sizeof(d.text), "cgroup: %s (42) created nested cgroup for controller \"memory\"",
		 comm);
	d.text_len = strlen(d.text);
	cgfb_fields_set(&d.fields, "comm", comm, sizeof(comm) - 1);
	cgfb_fields_set(&d.fields, "pid", "42", 2);
	/* The boot as the log showed it travels too (report/snapshot.h). */
	snprintf(d.boot.release, sizeof(d.boot.release), "6.15.4-200.fc42.x86_64");
	snprintf(d.boot.cmdline, sizeof(d.boot.cmdline), "ro \"quoted\" systemd.unified_cgroup_hierarchy=0");
	assert_int_equal(cgfb_handoff_encode(&d, "kmsg", &b), 0);
	assert_non_null(strchr(b.data, '\n'));
	assert_null(memchr(b.data, 0x1b, b.len));
	assert_int_equal(cgfb_handoff_decode(cat, b.data, b.len, &back, source, err, sizeof(err)), 0);
	assert_ptr_equal(back.entry, d.entry);
	assert_string_equal(source, "kmsg");
	assert_int_equal(back.occurrence, 1);
	assert_int_equal(back.level, 4);
	assert_true(back.in_warn_block);
	assert_int_equal(back.text_len, d.text_len);
	assert_memory_equal(back.text, d.text, d.text_len);
	assert_string_equal(cgfb_fields_get(&back.fields, "comm"), comm);
	assert_string_equal(cgfb_fields_get(&back.fields, "pid"), "42");
	assert_string_equal(back.boot.release, d.boot.release);
	assert_string_equal(back.boot.cmdline, d.boot.cmdline);
	cgfb_buf_free(&b);
	cgfb_catalog_free(cat);
}

/* check --report's detection: no record, no text, no fields; every source
 * the writer knows travels. */
static void sources(void **state)
{
	static const char *const known[] = { "kmsg", "klogctl", "file", "journal", "check" };
	struct cgfb_catalog *cat = test_catalog();
	struct cgfb_detection d = { 0 }, back;
	char source[16], err[256];

	d.entry = cgfb_catalog_find(cat, "M3");
	d.occurrence = 1;
	d.level = -1;
	for (size_t i = 0; i < sizeof(known) / sizeof(*known); i++) {
		struct cgfb_buf b = { 0 };

		assert_int_equal(cgfb_handoff_encode(&d, known[i], &b), 0);
		assert_int_equal(cgfb_handoff_decode(cat, b.data, b.len, &back, source, err, sizeof(err)), 0);
		assert_string_equal(source, known[i]);
		assert_int_equal(back.text_len, 0);
		assert_ptr_equal(back.entry, d.entry);
		cgfb_buf_free(&b);
	}
	cgfb_catalog_free(cat);
}

static void refuses_malformed(void **state)
{
	static const char *const bad[] = {
		"",
		"[]",
		"{\"id\":\"NOPE\",\"source\":\"kmsg\",\"text\":\"\",\"fields\":{}}",
		"{\"id\":\"M8\",\"source\":\"tcp\",\"text\":\"\",\"fields\":{}}",
		"{\"id\":\"M8\",\"source\":\"kmsg\",\"text\":\"4g\",\"fields\":{}}",
		"{\"id\":\"M8\",\"source\":\"kmsg\",\"text\":\"414\",\"fields\":{}}",
		"{\"id\":\"M8\",\"source\":\"kmsg\",\"text\":\"41\",\"fields\":{\"comm\":5}}",
		"{\"id\":\"M8\",\"source\":\"kmsg\",\"text\":\"41\"}",
	};
	struct cgfb_catalog *cat = test_catalog();
	struct cgfb_detection d;
	char source[16], err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (cgfb_handoff_decode(cat, bad[i], strlen(bad[i]), &d, source, err, sizeof(err)) !=
		    -EINVAL)
			fail_msg("accepted: %s", bad[i]);
	assert_non_null(strstr(err, "handoff from the watcher"));
	cgfb_catalog_free(cat);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(sources),
		cmocka_unit_test(refuses_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
