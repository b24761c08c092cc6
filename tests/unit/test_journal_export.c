#include "testutil.h"

#include <errno.h>
#include <stdio.h>

#include "log/journal_export.h"

struct sink {
	unsigned n;
	char text[4][128];
	unsigned long line[4];
	int level[4];
	bool kernel[4];          /* cgfb_record_from_kernel */
};

static void collect(const struct cgfb_record *r, void *arg)
{
	struct sink *s = arg;

	if (s->n < 4) {
		snprintf(s->text[s->n], sizeof(s->text[0]), "%.*s", (int)r->len, r->text);
		s->line[s->n] = r->line;
		s->level[s->n] = r->level;
		s->kernel[s->n] = cgfb_record_from_kernel(r) && !r->unproven;
	}
	s->n++;
}

static void text_and_binary_fields(void **state)
{
	/* A binary MESSAGE (it holds a newline): name, LE64 size, data, newline. */
	static const char data[] =
		"__CURSOR=s=1\n_TRANSPORT=kernel\nPRIORITY=4\nMESSAGE=first\n\n"
		"__CURSOR=s=2\n_TRANSPORT=syslog\nSYSLOG_IDENTIFIER=kernel\nMESSAGE=fake\n\n"
		"__CURSOR=s=3\nMESSAGE\n\x06\0\0\0\0\0\0\0a\nb c \n_TRANSPORT=kernel\nPRIORITY=6\n\n";
	struct sink s = { 0 };
	unsigned long line = 0;

	assert_int_equal(cgfb_journal_export_parse(data, sizeof(data) - 1, true, &line, collect, &s),
			 (long)(sizeof(data) - 1));
	assert_int_equal(s.n, 2);
	assert_string_equal(s.text[0], "first");
	assert_int_equal(s.level[0], 4);
	assert_int_equal(s.line[0], 1);
	assert_string_equal(s.text[1], "a\nb c ");
	assert_int_equal(s.level[1], 6);
	assert_int_equal(s.line[1], 11);
}

/* Only journald's own _TRANSPORT=kernel is the kernel's (a client cannot
 * send a '_' field): logger -t kernel is _TRANSPORT=syslog with
 * SYSLOG_IDENTIFIER=kernel; a write to /dev/kmsg is _TRANSPORT=kernel with
 * a facility other than kern; an entry naming two transports is none
 * journald wrote, in either order (journal.c reads them the same way). */
static void transport_is_proof(void **state)
{
	static const char data[] =
		"_TRANSPORT=syslog\nSYSLOG_IDENTIFIER=kernel\nSYSLOG_FACILITY=0\nMESSAGE=logger\n\n"
		"_TRANSPORT=kernel\nSYSLOG_IDENTIFIER=kernel\nMESSAGE=kernel\n\n"
		"_TRANSPORT=kernel\nSYSLOG_FACILITY=1\nSYSLOG_IDENTIFIER=kernel\nMESSAGE=kmsg\n\n"
		"_TRANSPORT=syslog\n_TRANSPORT=kernel\nMESSAGE=two a\n\n"
		"_TRANSPORT=kernel\n_TRANSPORT=syslog\nMESSAGE=two b\n\n";
	struct sink s = { 0 };
	unsigned long line = 0;

	cgfb_journal_export_parse(data, sizeof(data) - 1, true, &line, collect, &s);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.text[0], "kernel");
	assert_true(s.kernel[0]);
	assert_string_equal(s.text[1], "kmsg");
	assert_false(s.kernel[1]);
}

static void partial_entries_wait(void **state)
{
	static const char data[] = "_TRANSPORT=kernel\nMESSAGE=one\n\n_TRANSPORT=kernel\nMESS";
	struct sink s = { 0 };
	unsigned long line = 0;

	/* Only the complete entry is consumed; the rest waits for more bytes. */
	assert_int_equal(cgfb_journal_export_parse(data, sizeof(data) - 1, false, &line, collect,
						   &s), 31);
	assert_int_equal(s.n, 1);
	assert_int_equal(line, 3);
}

static void truncated_binary_field(void **state)
{
	static const char data[] = "_TRANSPORT=kernel\nMESSAGE\n\xff\0\0\0\0\0\0\0abc";
	struct sink s = { 0 };
	unsigned long line = 0;

	assert_int_equal(cgfb_journal_export_parse(data, sizeof(data) - 1, true, &line, collect, &s),
			 -EBADMSG);
	assert_int_equal(s.n, 0);
}

static void last_line_without_newline(void **state)
{
	static const char data[] = "_TRANSPORT=kernel\nMESSAGE=tail";
	struct sink s = { 0 };
	unsigned long line = 0;

	assert_int_equal(cgfb_journal_export_parse(data, sizeof(data) - 1, true, &line, collect, &s),
			 (long)(sizeof(data) - 1));
	assert_int_equal(s.n, 1);
	assert_string_equal(s.text[0], "tail");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(text_and_binary_fields),
		cmocka_unit_test(transport_is_proof),
		cmocka_unit_test(partial_entries_wait),
		cmocka_unit_test(truncated_binary_field),
		cmocka_unit_test(last_line_without_newline),
	};

	return cmocka_run_group_tests_name("journal_export", tests, NULL, NULL);
}
