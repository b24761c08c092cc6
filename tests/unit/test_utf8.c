#include "testutil.h"

#include "cgfb/utf8.h"

static void validates(void **state)
{
	assert_true(cgfb_utf8_valid(S("plain ascii")));
	assert_true(cgfb_utf8_valid(S("gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80")));
	assert_false(cgfb_utf8_valid(S("\xc0\xaf")));          /* overlong '/' */
	assert_false(cgfb_utf8_valid(S("\xed\xa0\x80")));      /* surrogate */
	assert_false(cgfb_utf8_valid(S("\xf4\x90\x80\x80")));  /* > U+10FFFF */
	assert_false(cgfb_utf8_valid(S("\xe2\x82")));          /* truncated */
	assert_false(cgfb_utf8_valid(S("\xff")));
}

static void sanitizes(void **state)
{
	char out[64];

	cgfb_utf8_sanitize(out, sizeof(out), S("a\xff" "b\x01" "c\td \xc3\xbc"));
	assert_string_equal(out, "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c\td \xc3\xbc");
	assert_true(cgfb_utf8_valid(out, strlen(out)));
	/* Never cut a sequence in half at the end of the buffer. */
	assert_int_equal(cgfb_utf8_sanitize(out, 3, S("\xc3\xbc\xc3\xbc")), 2);
	assert_int_equal(cgfb_utf8_sanitize(out, 2, S("\xc3\xbc")), 0);
	assert_string_equal(out, "");
}

static void escapes_for_logs(void **state)
{
	char out[64], tiny[7];

	cgfb_utf8_escape(out, sizeof(out), S("a\nb\r\x1b[1m\x7f\\ \xc3\xa9 \xc2\x9b \xff"));
	assert_string_equal(out, "a\\x0ab\\x0d\\x1b[1m\\x7f\\x5c \xc3\xa9 \\xc2\\x9b \\xff");
	/* Never a split escape or sequence at the end of the buffer. */
	assert_int_equal(cgfb_utf8_escape(tiny, sizeof(tiny), S("abc\n")), 3);
	assert_string_equal(tiny, "abc");
	assert_int_equal(cgfb_utf8_escape(tiny, sizeof(tiny), S("abcdef\xc3\xa9")), 6);
}

/* What free text may not hold, found wherever it is in the text: C0 but
 * newline and tab, DEL, C1 (U+009B is a terminal's CSI), the bidi
 * controls; their neighbours (U+00A0, U+2029, U+202F, U+2065, U+206A) are
 * text. */
static void finds_controls_in_text(void **state)
{
	static const struct {
		const char *s;
		ssize_t at;
	} cases[] = {
		{ "plain text\n\twith tab", -1 }, { "Gr\xc3\xbc\xc3\x9f\xe2\x82\xac", -1 },
		{ "ab\x1b[2J", 2 }, { "ab\r", 2 }, { "a\x7f", 1 },
		{ "a\xc2\x80", 1 }, { "ab\xc2\x9b" "2J", 2 }, { "a\xc2\x9f", 1 },
		{ "a\xc2\xa0", -1 }, { "a\xe2\x80\xa9", -1 }, { "a\xe2\x80\xaf", -1 },
		{ "a\xe2\x80\xaa", 1 }, { "abc\xe2\x80\xae", 3 }, { "a\xe2\x81\xa6", 1 },
		{ "a\xe2\x81\xa9", 1 }, { "a\xe2\x81\xa5", -1 }, { "a\xe2\x81\xaa", -1 },
		/* A sequence cut by the end of the text is no control. */
		{ "a\xc2", -1 }, { "a\xe2\x80", -1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (cgfb_text_control(cases[i].s, strlen(cases[i].s)) != cases[i].at)
			fail_msg("case %zu: got %zd, want %zd", i,
				 cgfb_text_control(cases[i].s, strlen(cases[i].s)), cases[i].at);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(escapes_for_logs),
		cmocka_unit_test(validates),
		cmocka_unit_test(sanitizes),
		cmocka_unit_test(finds_controls_in_text),
	};

	return cmocka_run_group_tests_name("utf8", tests, NULL, NULL);
}
