#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>

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

/* The escape of s (len bytes), whole, in mode. */
static char *esc(const char *s, size_t len, enum cgfb_esc mode)
{
	static char out[4096];

	assert_true(CGFB_ESC_SIZE(len) <= sizeof(out));
	cgfb_utf8_escape_as(out, CGFB_ESC_SIZE(len), s, len, mode);
	return out;
}

#define ESC_LINE(lit) esc(S(lit), CGFB_ESC_LINE)
#define ESC_TEXT(lit) esc(S(lit), CGFB_ESC_TEXT)

/* UTF-8 of code point c into b; its length. */
static size_t put_cp(char *b, uint32_t c)
{
	if (c < 0x80) {
		b[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		b[0] = (char)(0xc0 | c >> 6);
		b[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		b[0] = (char)(0xe0 | c >> 12);
		b[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		b[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	b[0] = (char)(0xf0 | c >> 18);
	b[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	b[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	b[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* The escape read back: the bytes it stands for, into out; their length.
 * Fails the test on anything the escape never writes. */
static size_t unescape(const char *s, char *out)
{
	size_t o = 0;

	while (*s) {
		unsigned long v;
		char hex[9] = "";

		if (*s != '\\') {
			out[o++] = *s++;
			continue;
		}
		switch (s[1]) {
		case '\\':
			out[o++] = '\\';
			s += 2;
			break;
		case 'x':
			memcpy(hex, s + 2, 2);
			out[o++] = (char)strtoul(hex, NULL, 16);
			s += 4;
			break;
		case 'u':
		case 'U':
			memcpy(hex, s + 2, s[1] == 'u' ? 4 : 8);
			v = strtoul(hex, NULL, 16);
			o += put_cp(out + o, (uint32_t)v);
			s += s[1] == 'u' ? 6 : 10;
			break;
		default:
			fail_msg("a backslash the escape does not write: %s", s);
		}
	}
	return o;
}

/* Every C0 control, CR, ESC and BEL among them, and DEL: \xNN; newline
 * and tab only in free text's mode are themselves. */
static void escapes_c0_and_del(void **state)
{
	char want[8];

	for (unsigned c = 0; c < 0x20; c++) {
		const char in[2] = { (char)c, 'a' };

		snprintf(want, sizeof(want), "\\x%02xa", c);
		assert_string_equal(esc(in, 2, CGFB_ESC_LINE), want);
		if (c == '\n' || c == '\t')
			assert_memory_equal(esc(in, 2, CGFB_ESC_TEXT), in, 2);
		else
			assert_string_equal(esc(in, 2, CGFB_ESC_TEXT), want);
	}
	assert_string_equal(ESC_LINE("\x1b]0;x\x07"), "\\x1b]0;x\\x07");
	assert_string_equal(ESC_LINE("\x1b[2J\r"), "\\x1b[2J\\x0d");
	assert_string_equal(ESC_LINE("a\x7f"), "a\\x7f");
	assert_string_equal(ESC_TEXT("a\x7f\nb\tc\r\n"), "a\\x7f\nb\tc\\x0d\n");
	assert_string_equal(ESC_LINE("a\nb"), "a\\x0ab");
}

/* C1 in UTF-8 (U+009B, the CSI) is a code point, \u009b; the raw byte 0x9b
 * is no UTF-8, \x9b: two inputs, two outputs. */
static void escapes_c1_both_forms(void **state)
{
	assert_string_equal(ESC_LINE("\xc2\x9b" "2J"), "\\u009b2J");
	assert_string_equal(ESC_LINE("\x9b" "2J"), "\\x9b2J");
	assert_string_equal(ESC_LINE("\xc2\x80\xc2\x9d\xc2\x9f"), "\\u0080\\u009d\\u009f");
	assert_string_equal(ESC_TEXT("\xc2\x9b"), "\\u009b");
	assert_string_equal(ESC_LINE("\xc2\xa0\xc2\xa9"), "\xc2\xa0\xc2\xa9");   /* NBSP, (c): text */
	for (unsigned b = 0x80; b <= 0xff; b++) {
		const char in[1] = { (char)b };
		char want[8];

		snprintf(want, sizeof(want), "\\x%02x", b);
		assert_string_equal(esc(in, 1, CGFB_ESC_LINE), want);
	}
}

/* Each range of bidi and format controls at its edges: the edge itself is
 * escaped, its neighbour outside is text. */
static void escapes_bidi_and_format_edges(void **state)
{
	static const struct { uint32_t c; bool escaped; } cases[] = {
		{ 0xac, false }, { 0xad, true }, { 0xae, false },
		{ 0x61b, false }, { 0x61c, true }, { 0x61d, false },
		{ 0x180d, false }, { 0x180e, true }, { 0x180f, false },
		{ 0x200a, false }, { 0x200b, true }, { 0x200c, true }, { 0x200d, true },
		{ 0x200e, true }, { 0x200f, true }, { 0x2010, false },
		{ 0x2027, false }, { 0x2028, true }, { 0x2029, true },
		{ 0x202a, true }, { 0x202e, true }, { 0x202f, false },
		{ 0x205f, false }, { 0x2060, true }, { 0x2064, true }, { 0x2065, true },
		{ 0x2066, true }, { 0x2069, true }, { 0x206a, true }, { 0x206f, true },
		{ 0x2070, false },
		{ 0xfefe, false }, { 0xfeff, true }, { 0xff00, false },
		{ 0xfff8, false }, { 0xfff9, true }, { 0xfffb, true }, { 0xfffc, false },
		{ 0xdffff, false }, { 0xe0000, true }, { 0xe0001, true }, { 0xe007f, true },
		{ 0xe0080, false }, { 0x1f600, false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char in[8], want[16];
		const size_t n = put_cp(in, cases[i].c);

		if (!cases[i].escaped)
			snprintf(want, sizeof(want), "%.*s", (int)n, in);
		else if (cases[i].c > 0xffff)
			snprintf(want, sizeof(want), "\\U%08x", (unsigned)cases[i].c);
		else
			snprintf(want, sizeof(want), "\\u%04x", (unsigned)cases[i].c);
		if (strcmp(esc(in, n, CGFB_ESC_LINE), want) != 0 ||
		    strcmp(esc(in, n, CGFB_ESC_TEXT), want) != 0)
			fail_msg("U+%04X: got %s, want %s", (unsigned)cases[i].c,
				 esc(in, n, CGFB_ESC_LINE), want);
	}
	assert_string_equal(ESC_LINE("abc\xe2\x80\xaetxt.exe"), "abc\\u202etxt.exe");
}

/* What is not UTF-8 is shown byte by byte: overlongs, surrogates, beyond
 * U+10FFFF, a sequence the end of the text cuts; and the backslash is
 * doubled, so that "\x1b" typed and ESC read differently. */
static void escapes_invalid_and_backslash(void **state)
{
	assert_string_equal(ESC_LINE("\xc0\xaf"), "\\xc0\\xaf");
	assert_string_equal(ESC_LINE("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");
	assert_string_equal(ESC_LINE("\xed\xa0\x80"), "\\xed\\xa0\\x80");
	assert_string_equal(ESC_LINE("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");
	assert_string_equal(ESC_LINE("ok\xe2\x80"), "ok\\xe2\\x80");
	assert_string_equal(ESC_LINE("ok\xf0\x9f\x98"), "ok\\xf0\\x9f\\x98");
	assert_string_equal(ESC_LINE("\xe2\x80\x1b"), "\\xe2\\x80\\x1b");
	assert_string_equal(ESC_LINE("a\\x1b\\"), "a\\\\x1b\\\\");
	assert_string_equal(ESC_LINE("system-systemd\\x2dfsck.slice"),
			    "system-systemd\\\\x2dfsck.slice");
	assert_string_equal(ESC_LINE("gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80"),
			    "gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80");
}

/* Never past dst, never half an escape or half a sequence: every size from
 * 0 up gives a prefix of the whole escape that reads back to a prefix of
 * the input. */
static void stays_in_its_buffer(void **state)
{
	static const char in[] = "a\xe2\x80\xae\\\x1b\xc3\xa9\xf3\xa0\x80\x81\xff\xc2\x9bz";
	char whole[256], got[256], back[256];
	const size_t full = cgfb_utf8_escape(whole, sizeof(whole), in, sizeof(in) - 1);

	for (size_t sz = 0; sz <= full + 1; sz++) {
		char *b = malloc(sz ? sz : 1);
		size_t n;

		assert_non_null(b);
		n = cgfb_utf8_escape(b, sz, in, sizeof(in) - 1);
		if (sz == 0) {
			assert_int_equal(n, 0);
		} else {
			assert_true(n < sz);
			assert_int_equal(b[n], '\0');
			assert_memory_equal(b, whole, n);
			memcpy(got, b, n + 1);
			assert_memory_equal(in, back, unescape(got, back));
		}
		free(b);
	}
	assert_int_equal(full, strlen(whole));
	/* The whole escape of "é" needs 3 bytes with its NUL: 2 gives nothing. */
	assert_int_equal(cgfb_utf8_escape(got, 2, S("\xc3\xa9")), 0);
	assert_int_equal(cgfb_utf8_escape(got, 4, S("\x1b")), 0);
	assert_int_equal(cgfb_utf8_escape(got, 5, S("\x1b")), 4);
	assert_int_equal(cgfb_utf8_escape(got, 6, S("ab\xe2\x80\xae")), 2);
}

/* The rules on random bytes, weighted to what matters: the escape fits
 * CGFB_ESC_SIZE, is valid UTF-8 with no control (in free text none but
 * newline and tab), reads back to the input, and escaping it again only
 * doubles its backslashes (nothing else in it is escaped: the rule is
 * idempotent but for the backslash it must add). The streaming and the
 * allocating forms give the same bytes. */
static void rules_hold_on_any_bytes(void **state)
{
	static const char pool[] = "\x1b\x07\x7f\\\n\t\r\xc2\x9b\xe2\x80\xae\xf3\xa0\x80\x81"
				   "\xef\xbb\xbf\xc2\xad\xed\xa0\x80\xc3\xa9\xf0\x9f\x98\x80";
	unsigned seed = 12345;
	char in[200], out[CGFB_ESC_SIZE(200)], again[CGFB_ESC_SIZE(sizeof(out))], back[256];
	char twice[sizeof(again)];

	for (int round = 0; round < 3000; round++) {
		const enum cgfb_esc mode = round & 1 ? CGFB_ESC_TEXT : CGFB_ESC_LINE;
		const size_t len = (seed = seed * 1103515245 + 12345) >> 16 & 127;
		size_t n, t = 0;
		char *dup, *mem = NULL;
		size_t memlen = 0;
		FILE *f;

		for (size_t i = 0; i < len; i++) {
			seed = seed * 1103515245 + 12345;
			in[i] = (seed >> 16) & 1 ? pool[(seed >> 17) % (sizeof(pool) - 1)] :
				(char)(seed >> 20);
		}
		n = cgfb_utf8_escape_as(out, CGFB_ESC_SIZE(len), in, len, mode);
		assert_true(cgfb_utf8_valid(out, n));
		assert_int_equal(cgfb_text_control(out, n), -1);
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)out[i] < 0x20 && !(mode == CGFB_ESC_TEXT &&
							     (out[i] == '\n' || out[i] == '\t')))
				fail_msg("round %d: control 0x%02x in the escape", round, out[i]);
		assert_int_equal(unescape(out, back), len);
		assert_memory_equal(back, in, len);
		cgfb_utf8_escape_as(again, sizeof(again), out, n, mode);
		for (size_t i = 0; i < n; i++) {
			twice[t++] = out[i];
			if (out[i] == '\\')
				twice[t++] = '\\';
		}
		twice[t] = '\0';
		assert_string_equal(again, twice);
		/* The allocating form takes a C string: up to a NUL. */
		memcpy(back, in, len);
		back[len] = '\0';
		dup = cgfb_utf8_escape_dup(back, mode);
		cgfb_utf8_escape_as(again, sizeof(again), in, strlen(back), mode);
		assert_string_equal(dup, again);
		free(dup);
		f = open_memstream(&mem, &memlen);
		assert_int_equal(cgfb_utf8_escape_put(f, in, len, mode), 0);
		fclose(f);
		assert_int_equal(memlen, n);
		assert_memory_equal(mem, out, n);
		free(mem);
	}
}

/* Longer than the streaming form's chunk: no sequence split between two. */
static void streams_long_text(void **state)
{
	char in[5000], *mem = NULL, *dup;
	size_t memlen = 0;
	FILE *f;

	for (size_t i = 0; i + 3 <= sizeof(in); i += 3)
		memcpy(in + i, "\xe2\x80\xae", 3);
	in[sizeof(in) - 2] = '\\';
	in[sizeof(in) - 1] = '\0';
	dup = cgfb_utf8_escape_dup(in, CGFB_ESC_LINE);
	f = open_memstream(&mem, &memlen);
	assert_int_equal(cgfb_utf8_escape_put(f, in, strlen(in), CGFB_ESC_LINE), 0);
	fclose(f);
	assert_int_equal(memlen, strlen(dup));
	assert_memory_equal(mem, dup, memlen);
	free(mem);
	free(dup);
	assert_null(cgfb_utf8_escape_dup(NULL, CGFB_ESC_LINE));
}

/* What free text may not hold, found wherever it is in the text: C0 but
 * newline and tab, DEL, C1 (U+009B is a terminal's CSI), the bidi
 * controls and marks (every Bidi_Control); their neighbours (U+00A0, U+2029, U+202F, U+2065, U+206A) are
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
		/* Every Bidi_Control, the marks too (issue 41: an RLM made
		 * "10<RLM>-<RLM>20" read "1020-"), but not their neighbours. */
		{ "a\xd8\x9c", 1 }, { "ab\xe2\x80\x8e", 2 }, { "a\xe2\x80\x8f", 1 },
		{ "a\xd8\x9b", -1 }, { "a\xd8\x9d", -1 }, { "a\xe2\x80\x8d", -1 },
		{ "a\xe2\x80\x90", -1 },
		/* A sequence cut by the end of the text is no control. */
		{ "a\xc2", -1 }, { "a\xe2\x80", -1 },
		/* Nor a stray byte, but a control after one is. */
		{ "a\x9b", -1 }, { "\xe2\x80\x1b", 2 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (cgfb_text_control(cases[i].s, strlen(cases[i].s)) != cases[i].at)
			fail_msg("case %zu: got %zd, want %zd", i,
				 cgfb_text_control(cases[i].s, strlen(cases[i].s)), cases[i].at);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(validates),
		cmocka_unit_test(escapes_c0_and_del),
		cmocka_unit_test(escapes_c1_both_forms),
		cmocka_unit_test(escapes_bidi_and_format_edges),
		cmocka_unit_test(escapes_invalid_and_backslash),
		cmocka_unit_test(stays_in_its_buffer),
		cmocka_unit_test(rules_hold_on_any_bytes),
		cmocka_unit_test(streams_long_text),
		cmocka_unit_test(finds_controls_in_text),
	};

	return cmocka_run_group_tests_name("utf8", tests, NULL, NULL);
}
