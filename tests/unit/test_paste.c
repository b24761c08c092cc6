/* Unquoting and joining re-wrapped records (detect/paste.c, log/logfmt.c). */
#include "testutil.h"

#include <errno.h>
#include <stdio.h>

#include "detect/paste.h"
#include "log/logfmt.h"

static struct cgfb_catalog *cat;

static int setup(void **state)
{
	cat = test_catalog();
	return 0;
}

static int teardown(void **state)
{
	cgfb_catalog_free(cat);
	return 0;
}

static const char M3[] = "soft_limit_in_bytes is deprecated and will be removed. Please report "
			 "your usecase to linux-mm@kvack.org if you depend on this functionality.";
static const char M4[] = "oom_control is deprecated and will be removed. Please report your "
			 "usecase to linux-mm@kvack.org if you depend on this functionality.";

struct got {
	int rc;
	unsigned lines;
	size_t used;          /* bytes up to where the next record starts */
	char text[1024];
};

/* The first record of log, read as a paste of format fmt. */
static struct got first(enum cgfb_logfmt fmt, const char *log, bool eof)
{
	static char buf[CGFB_RECORD_TEXT_MAX];
	struct cgfb_record rec;
	const char *next = NULL;
	struct got g = { 0 };

	g.rc = cgfb_paste_record(cat, fmt, true, log, log + strlen(log), eof, buf, sizeof(buf),
				 &rec, &next, &g.lines);
	if (g.rc == 1) {
		assert_true(rec.len < sizeof(g.text));
		memcpy(g.text, rec.text, rec.len);
		g.used = (size_t)(next - log);
	}
	return g;
}

static void expect_unquoted(const char *line, const char *rest)
{
	const char *u = cgfb_logfmt_unquote(line, strlen(line));

	assert_string_equal(u, rest);
}

static void unquotes(void **state)
{
	expect_unquoted("> [    1.5] text", "[    1.5] text");
	expect_unquoted(">> text", "text");
	expect_unquoted("> > text", "text");
	expect_unquoted(">>>text", "text");
	expect_unquoted("\t  > \ttext", "text");
	expect_unquoted("    [ 1.0] a > b", "[ 1.0] a > b");
	expect_unquoted(">", "");
	expect_unquoted("", "");
	/* What the kernel printed is left alone: only the front is skipped. */
	expect_unquoted("text > more", "text > more");
	expect_unquoted("<4>[ 1.0] x", "<4>[ 1.0] x");
}

static void record_prefixes(void **state)
{
	assert_true(cgfb_logfmt_starts_record(CGFB_FMT_DMESG, "[   12.345678] x", 16));
	assert_true(cgfb_logfmt_starts_record(CGFB_FMT_DMESG, "> <4>[ 1.0] x", 13));
	assert_true(cgfb_logfmt_starts_record(CGFB_FMT_DMESG, "kern  :warn  : x", 16));
	assert_false(cgfb_logfmt_starts_record(CGFB_FMT_DMESG, "your usecase to", 15));
	assert_false(cgfb_logfmt_starts_record(CGFB_FMT_DMESG, "[drm] not a time", 16));
	assert_true(cgfb_logfmt_starts_record(CGFB_FMT_SYSLOG, "Aug 10 18:00:07 h kernel: x", 27));
	assert_false(cgfb_logfmt_starts_record(CGFB_FMT_SYSLOG, "> report your usecase", 21));
}

static void looks_pasted(void **state)
{
	static const char clean[] = "[    1.0] a\n[    2.0] b\n";
	static const char quoted[] = "[    1.0] a\n> [    2.0] b\n";
	static const char wrapped[] = "[    1.0] a b\nc d\n[    2.0] e\n";
	static const char bare[] = "a\nb\n";
	static const char kmsg[] = "4,1,1,-;a\n SUBSYSTEM=acpi\n4,2,2,-;b\n";

	assert_false(cgfb_logfmt_looks_pasted(CGFB_FMT_DMESG, clean, strlen(clean)));
	assert_true(cgfb_logfmt_looks_pasted(CGFB_FMT_DMESG, quoted, strlen(quoted)));
	assert_true(cgfb_logfmt_looks_pasted(CGFB_FMT_DMESG, wrapped, strlen(wrapped)));
	assert_true(cgfb_logfmt_looks_pasted(CGFB_FMT_DMESG, bare, strlen(bare)));
	assert_false(cgfb_logfmt_looks_pasted(CGFB_FMT_KMSG, kmsg, strlen(kmsg)));
	/* A quoted syslog paste is still syslog. */
	assert_int_equal(cgfb_logfmt_detect("> Aug 10 18:00:07 h kernel: x\n> report\n", 38),
			 CGFB_FMT_SYSLOG);
}

static void joins_wrapped_at_spaces(void **state)
{
	static const char log[] =
		"> [ 4455.004106] soft_limit_in_bytes is deprecated and will be removed.\n"
		"> Please report your usecase to linux-mm@kvack.org if you depend on\n"
		">    this functionality.  \n"
		"> [ 4456.000000] next\n";
	struct got g = first(CGFB_FMT_DMESG, log, true);

	assert_int_equal(g.rc, 1);
	assert_int_equal(g.lines, 3);
	assert_string_equal(g.text, M3);
	assert_memory_equal(log + g.used, "> [ 4456", 8);
}

static void joins_cut_inside_words(void **state)
{
	/* A terminal's wrap at 40 columns: the breaks fall inside words. */
	static const char log[] =
		"oom_control is deprecated and will be re\n"
		"moved. Please report your usecase to lin\n"
		"ux-mm@kvack.org if you depend on this fu\n"
		"nctionality.\n";
	struct got g = first(CGFB_FMT_DMESG, log, true);

	assert_int_equal(g.rc, 1);
	assert_int_equal(g.lines, 4);
	assert_string_equal(g.text, M4);
}

static void cut_field_takes_no_space(void **state)
{
	/* Both joins match C1's regex; only one is what the kernel printed. */
	static const char log[] =
		"cgroup: runc (77) created nested cgroup for controller \"\n"
		"devices\" which has incomplete hierarchy support. Nested cgroups may change behavi\n"
		"or in the future.\n";
	struct got g = first(CGFB_FMT_DMESG, log, true);

	assert_int_equal(g.rc, 1);
	assert_int_equal(g.lines, 3);
	assert_non_null(strstr(g.text, "controller \"devices\" which"));
}

static void complete_records_stay_apart(void **state)
{
	char log[512];
	struct got g;

	/* Two complete records, no time stamps: each is one. */
	snprintf(log, sizeof(log), "%s\n%s\n", M3, M4);
	g = first(CGFB_FMT_DMESG, log, true);
	assert_int_equal(g.lines, 1);
	assert_string_equal(g.text, M3);
	/* A complete record and a line that a join would still match with
	 * (V1 takes any replacement): not joined. */
	g = first(CGFB_FMT_DMESG, "cpuset.memory_migrate is deprecated\nor not\n", true);
	assert_int_equal(g.lines, 1);
	assert_string_equal(g.text, "cpuset.memory_migrate is deprecated");
	/* A complete record and an unrelated line. */
	snprintf(log, sizeof(log), "%s\nThanks,\n", M4);
	g = first(CGFB_FMT_DMESG, log, true);
	assert_int_equal(g.lines, 1);
	assert_string_equal(g.text, M4);
}

static void no_join_across_records(void **state)
{
	struct got g;

	/* The next line has a time stamp: a record of its own. */
	g = first(CGFB_FMT_DMESG, "[ 1.0] soft_limit_in_bytes is deprecated and will be removed.\n"
		  "[ 1.1] Please report your usecase to linux-mm@kvack.org if you depend on this "
		  "functionality.\n", true);
	assert_int_equal(g.lines, 1);
	assert_string_equal(g.text, "soft_limit_in_bytes is deprecated and will be removed.");
	/* A blank line between. */
	g = first(CGFB_FMT_DMESG, "soft_limit_in_bytes is deprecated and will be removed.\n>\n"
		  "Please report your usecase to linux-mm@kvack.org if you depend on this "
		  "functionality.\n", true);
	assert_int_equal(g.lines, 1);
	/* No catalog message comes of it: the line stays itself. */
	g = first(CGFB_FMT_DMESG, "soft_limit_in_bytes is deprecated and will be removed.\n"
		  "Please report bugs to your distribution.\n", true);
	assert_int_equal(g.lines, 1);
	/* More lines than a record is ever wrapped over. */
	g = first(CGFB_FMT_DMESG, "soft_limit_in_bytes is\ndeprecated and\nwill be removed.\n"
		  "Please report your usecase to linux-mm@kvack.org if you depend on\n"
		  "this functionality.\n", true);
	assert_int_equal(g.lines, 1);
	/* As many as that is fine. */
	g = first(CGFB_FMT_DMESG, "soft_limit_in_bytes is deprecated and\nwill be removed.\n"
		  "Please report your usecase to linux-mm@kvack.org if you depend on\n"
		  "this functionality.\n", true);
	assert_int_equal(g.lines, CGFB_PASTE_JOIN_MAX);
	assert_string_equal(g.text, M3);
}

static void join_off_and_kmsg(void **state)
{
	static char buf[CGFB_RECORD_TEXT_MAX];
	static const char log[] = "soft_limit_in_bytes is deprecated and will be removed.\n"
				  "Please report your usecase to linux-mm@kvack.org if you depend "
				  "on this functionality.\n";
	struct cgfb_record rec;
	const char *next;
	unsigned lines;

	assert_int_equal(cgfb_paste_record(cat, CGFB_FMT_DMESG, false, log, log + strlen(log),
					   true, buf, sizeof(buf), &rec, &next, &lines), 1);
	assert_int_equal(lines, 1);
	assert_ptr_equal(next, strchr(log, '\n') + 1);
}

static void waits_for_more_bytes(void **state)
{
	/* The wrap may go on past the end of what was read so far. */
	static const char part[] = "soft_limit_in_bytes is deprecated and will be removed.\n"
				   "Please report your usecase to linux-mm@kvack.org if you";
	struct got g = first(CGFB_FMT_DMESG, part, false);

	assert_int_equal(g.rc, -EAGAIN);
	g = first(CGFB_FMT_DMESG, part, true);
	assert_int_equal(g.rc, 1);
	assert_int_equal(g.lines, 1);
}

static void syslog_paste(void **state)
{
	static const char log[] =
		"> Aug 10 18:00:07 node07 kernel: [ 4455.004106] soft_limit_in_bytes is deprecated\n"
		"> and will be removed. Please report your usecase to linux-mm@kvack.org if\n"
		"> you depend on this functionality.\n";
	struct got g = first(CGFB_FMT_SYSLOG, log, true);

	assert_int_equal(g.rc, 1);
	assert_int_equal(g.lines, 3);
	assert_string_equal(g.text, M3);
}

static void specific_is_not_generic(void **state)
{
	static const char g1[] = "tell linux-mm@kvack.org";

	assert_true(cgfb_paste_is_specific(cat, M3, strlen(M3)));
	assert_false(cgfb_paste_is_specific(cat, g1, strlen(g1)));
	assert_false(cgfb_paste_is_specific(cat, "hello", 5));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unquotes),
		cmocka_unit_test(record_prefixes),
		cmocka_unit_test(looks_pasted),
		cmocka_unit_test(joins_wrapped_at_spaces),
		cmocka_unit_test(joins_cut_inside_words),
		cmocka_unit_test(cut_field_takes_no_space),
		cmocka_unit_test(complete_records_stay_apart),
		cmocka_unit_test(no_join_across_records),
		cmocka_unit_test(join_off_and_kmsg),
		cmocka_unit_test(waits_for_more_bytes),
		cmocka_unit_test(syslog_paste),
		cmocka_unit_test(specific_is_not_generic),
	};

	return cmocka_run_group_tests_name("paste", tests, setup, teardown);
}
