#include "testutil.h"

#include <errno.h>

#include "cgfb/canon.h"
#include "cgfb/sha256.h"

static void expect_canon(const char *in, const char *want)
{
	json_object *o = json_tokener_parse(in);
	struct cgfb_buf b = { 0 };

	assert_non_null(o);
	assert_int_equal(cgfb_canon_serialize(o, 1 << 20, &b), 0);
	if (strcmp(b.data, want) != 0)
		fail_msg("canon(%s) = %s, want %s", in, b.data, want);
	cgfb_buf_free(&b);
	json_object_put(o);
}

static void serializes(void **state)
{
	expect_canon("{ \"b\": 1, \"a\": [true, false, null, -5], \"c\": {\"z\": \"\", \"y\": \"x\"} }",
		     "{\"a\":[true,false,null,-5],\"b\":1,\"c\":{\"y\":\"x\",\"z\":\"\"}}");
	expect_canon("\"q\\\" b\\\\ \\n\\t\\u0001 / \\u00fc \\u20ac\"",
		     "\"q\\\" b\\\\ \\n\\t\\u0001 / \xc3\xbc \xe2\x82\xac\"");
	expect_canon("9007199254740993", "9007199254740993");
	expect_canon("{}", "{}");
}

static void refuses_doubles_and_size(void **state)
{
	json_object *o = json_tokener_parse("{\"a\": 1.5}");
	struct cgfb_buf b = { 0 };

	assert_int_equal(cgfb_canon_serialize(o, 1 << 20, &b), -EINVAL);
	json_object_put(o);
	o = json_tokener_parse("[\"0123456789\"]");
	assert_int_equal(cgfb_canon_serialize(o, 10, &b), -E2BIG);
	assert_int_equal(cgfb_canon_serialize(o, 14, &b), 0);
	assert_int_equal(b.len, 14);
	json_object_put(o);
	cgfb_buf_free(&b);
}

static void parse_only_canonical(void **state)
{
	static const char *const bad[] = {
		"{\"a\":1,\"a\":2}",           /* duplicate key */
		"{\"b\":1,\"a\":2}",           /* unsorted */
		"{\"a\": 1}",                  /* white space */
		"{\"a\":1.0}",                 /* float */
		"{\"a\":\"\\u0041\"}",         /* needless escape */
		"{\"a\":1}x",                  /* trailing bytes */
		"{\"a\":\"\xff\"}",            /* invalid UTF-8 */
		"{\"a\":\"\xed\xaf\x82\"}",    /* a surrogate, UTF-8-encoded (fuzz/canon.c) */
		"{\"\xed\xa0\x80\":1}",         /* the same in a key */
		"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
		"{\"a\":01}",
		"{\"a\":{\"b\":1,\"b\":1}}",    /* duplicate key, nested */
		"[{\"b\":1,\"a\":2}]",            /* unsorted, nested */
		"{\"a\":1,\"a\":1}",              /* duplicate with the same value */
		"{\"\\u0061\":1}",                /* escaped key */
		"{\"a\":\"\\ud800\"}",          /* lone surrogate */
		"{\"a\":1,\"b\":[1,2]",           /* truncated */
		"",
	};
	json_object *o;
	char err[160];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (cgfb_canon_parse(bad[i], strlen(bad[i]), 16, &o, err, sizeof(err)) == 0)
			fail_msg("accepted non-canonical '%s'", bad[i]);
		assert_null(o);
		assert_true(err[0] != '\0');
	}
	assert_int_equal(cgfb_canon_parse(S("{\"a\":[1,\"x\"],\"b\":null}"), 16, &o, err,
					  sizeof(err)), 0);
	assert_non_null(o);
	json_object_put(o);
	/* Found by fuzz/canon.c: a number alone is canonical too, but the
	 * tokener waited for more digits and the bytes were refused. */
	static const char *const scalars[] = { "1", "-12", "0", "true", "\"x\"", "[1]" };

	for (size_t i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++) {
		if (cgfb_canon_parse(scalars[i], strlen(scalars[i]), 16, &o, err, sizeof(err)) != 0)
			fail_msg("refused canonical '%s': %s", scalars[i], err);
		json_object_put(o);
	}
	static const char *const cut[] = { "tru", "-", "\"ab", "[1,", "1 ", "01", "1x" };

	for (size_t i = 0; i < sizeof(cut) / sizeof(cut[0]); i++)
		if (cgfb_canon_parse(cut[i], strlen(cut[i]), 16, &o, err, sizeof(err)) == 0)
			fail_msg("accepted '%s'", cut[i]);
}

/* The values a text holds, counted without parsing: commas, brackets
 * and braces inside strings (escaped quotes too) are text. */
static void counts_values(void **state)
{
	static const struct {
		const char *s;
		size_t n;
	} cases[] = {
		{ "", 0 }, { "1", 1 }, { "[1,2,3]", 4 }, { "{\"a\":1,\"b\":[2,3]}", 5 },
		{ "{\"a\":[1,\"x,[{\"],\"b\":null}", 5 },
		{ "[\"a\\\",[\",0]", 3 }, { "[\"\\\\\",0]", 3 },
	};
	struct cgfb_buf b = { 0 };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (cgfb_json_values(cases[i].s, strlen(cases[i].s)) != cases[i].n)
			fail_msg("case %zu (%s): %zu, want %zu", i, cases[i].s,
				 cgfb_json_values(cases[i].s, strlen(cases[i].s)), cases[i].n);
	/* 125,000 small integers in 250 KB (issue 41). */
	assert_int_equal(cgfb_buf_adds(&b, "[0"), 0);
	for (int i = 1; i < 125000; i++)
		assert_int_equal(cgfb_buf_adds(&b, ",0"), 0);
	assert_int_equal(cgfb_buf_adds(&b, "]"), 0);
	assert_int_equal(cgfb_json_values(b.data, b.len), 125001);
	cgfb_buf_free(&b);
}

static void sha256(void **state)
{
	char hex[65];

	cgfb_sha256_hex("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(serializes),
		cmocka_unit_test(refuses_doubles_and_size),
		cmocka_unit_test(parse_only_canonical),
		cmocka_unit_test(counts_values),
		cmocka_unit_test(sha256),
	};

	return cmocka_run_group_tests_name("canon", tests, NULL, NULL);
}
