#include "testutil.h"

#include <errno.h>
#include <stdio.h>

#include "log/journal_export.h"

struct sink {
	unsigned n;
	char text[4][128];
	unsigned long line[4];
	int level[4];
};

static void collect(const struct cgfb_record *r, void *arg)
{
	struct sink *s = arg;

	if (s->n < 4) {
		snprintf(s->text[s->n], sizeof(s->text[0]), "%.*s", (int)r->len, r->text);
		s->line[s->n] = r->line;
		s->level[s->n] = r->level;
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
		cmocka_unit_test(partial_entries_wait),
		cmocka_unit_test(truncated_binary_field),
		cmocka_unit_test(last_line_without_newline),
	};

	return cmocka_run_group_tests_name("journal_export", tests, NULL, NULL);
}
