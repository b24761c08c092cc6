#include "testutil.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "cgfb/schema.h"
#include "cgfb/utf8.h"

static const char SCHEMA[] =
	"{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"id\",\"n\"],"
	"\"properties\":{"
	"\"id\":{\"$ref\":\"#/$defs/id\"},"
	"\"n\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":3},"
	"\"s\":{\"type\":\"string\",\"maxLength\":3},"
	"\"e\":{\"enum\":[\"a\",\"b\"]},"
	"\"c\":{\"const\":true},"
	"\"o\":{\"anyOf\":[{\"type\":\"null\"},{\"type\":\"object\",\"maxProperties\":1,"
	"  \"propertyNames\":{\"pattern\":\"^[a-z]+$\"},\"additionalProperties\":{\"type\":\"integer\"}}]},"
	"\"l\":{\"type\":\"array\",\"maxItems\":2,\"items\":{\"type\":\"boolean\"}}},"
	"\"$defs\":{\"id\":{\"type\":\"string\",\"pattern\":\"^h:[0-9a-f]{4}$\"}}}";

static struct cgfb_schema *schema;

static int setup(void **state)
{
	char err[200];

	return cgfb_schema_load_buffer(&schema, SCHEMA, strlen(SCHEMA), err, sizeof(err));
}

static int teardown(void **state)
{
	cgfb_schema_free(schema);
	return 0;
}

static void expect(const char *doc, const char *want_err)
{
	json_object *o = json_tokener_parse(doc);
	char err[256] = "";
	int rc;

	if (!o)
		fail_msg("test document does not parse: %s", doc);
	rc = cgfb_schema_validate(schema, o, err, sizeof(err));
	json_object_put(o);
	if (!want_err && rc != 0)
		fail_msg("%s: rejected: %s", doc, err);
	if (want_err && (rc != -EINVAL || strcmp(err, want_err) != 0))
		fail_msg("%s: got '%s', want '%s'", doc, err, want_err);
}

static void accepts_and_names_fields(void **state)
{
	expect("{\"id\":\"h:00ff\",\"n\":2}", NULL);
	expect("{\"id\":\"h:00ff\",\"n\":2,\"s\":\"\xc3\xbc\xc3\xbc\xc3\xbc\",\"e\":\"b\",\"c\":true,"
	       "\"o\":{\"x\":1},\"l\":[true,false]}", NULL);
	expect("{\"id\":\"h:00ff\",\"n\":2,\"o\":null}", NULL);
	expect("{\"n\":2}", "/id: is required");
	expect("{\"id\":\"h:00fg\",\"n\":2}", "/id: does not match ^h:[0-9a-f]{4}$");
	expect("{\"id\":\"h:00ff\",\"n\":4}", "/n: above the maximum 3");
	expect("{\"id\":\"h:00ff\",\"n\":0}", "/n: below the minimum 1");
	expect("{\"id\":\"h:00ff\",\"n\":\"2\"}", "/n: must be of type integer, not string");
	expect("{\"id\":\"h:00ff\",\"n\":1.5}", "/n: must be of type integer, not number");
	expect("{\"id\":\"h:00ff\",\"n\":1,\"s\":\"abcd\"}", "/s: longer than 3 characters");
	expect("{\"id\":\"h:00ff\",\"n\":1,\"e\":\"c\"}", "/e: must be one of [\"a\",\"b\"]");
	expect("{\"id\":\"h:00ff\",\"n\":1,\"c\":false}", "/c: must be true");
	expect("{\"id\":\"h:00ff\",\"n\":1,\"x\":1}", "/x: is not allowed here");
	expect("{\"id\":\"h:00ff\",\"n\":1,\"o\":{\"A\":1}}", "/o/A: does not match ^[a-z]+$");
	expect("{\"id\":\"h:00ff\",\"n\":1,\"o\":{\"a\":1,\"b\":2}}", "/o: more than 1 members");
	expect("{\"id\":\"h:00ff\",\"n\":1,\"o\":{\"a\":\"x\"}}", "/o/a: must be of type integer, not string");
	expect("{\"id\":\"h:00ff\",\"n\":1,\"l\":[true,1]}", "/l/1: must be of type boolean, not integer");
	expect("{\"id\":\"h:00ff\",\"n\":1,\"l\":[true,true,true]}", "/l: more than 2 items");
	expect("[]", "/: must be of type object, not array");
	/* "$" is the end of the value, not a place before a final newline. */
	expect("{\"id\":\"h:00ff\\n\",\"n\":2}", "/id: does not match ^h:[0-9a-f]{4}$");
	expect("{\"id\":\"h:00ff\\u0000\",\"n\":2}", "/id: holds a NUL character");
	expect("{\"id\":\"h:00ff\",\"n\":1,\"o\":{\"a\\n\":1}}", "/o/a\n: does not match ^[a-z]+$");
}

static void refuses_unknown_keywords(void **state)
{
	static const char bad[] = "{\"type\":\"object\",\"if\":{}}";
	static const char badre[] = "{\"type\":\"string\",\"pattern\":\"(\"}";
	struct cgfb_schema *s = NULL;
	char err[200];

	assert_int_equal(cgfb_schema_load_buffer(&s, S(bad), err, sizeof(err)), -ENOTSUP);
	assert_non_null(strstr(err, "'if'"));
	assert_int_equal(cgfb_schema_load_buffer(&s, S(badre), err, sizeof(err)), -EINVAL);
}

static void builtin_report_schema_loads(void **state)
{
	struct cgfb_schema *s = NULL;
	char err[200];

	assert_int_equal(cgfb_schema_load_builtin(&s, err, sizeof(err)), 0);
	assert_int_equal(strlen(cgfb_schema_sha256(s)), 64);
	cgfb_schema_free(s);
}

/* The report schema's free text, checked by code point: C1 and bidi
 * controls are refused like ESC; their neighbours, multibyte letters,
 * newline and tab are text; bytes that are not UTF-8 match no pattern. */
static void free_text_refuses_hidden_controls(void **state)
{
	static const struct {
		const char *s;
		int rc;
	} cases[] = {
		{ "Gr\xc3\xbc\xc3\x9f\xe2\x82\xac\n\tok", 0 }, { "", 0 },
		{ "a\x1b[2J", -EINVAL }, { "a\x7f", -EINVAL }, { "a\xc2\x80", -EINVAL },
		{ "a\xc2\x9b" "2J", -EINVAL }, { "a\xc2\x9f", -EINVAL }, { "a\xc2\xa0", 0 },
		{ "a\xe2\x80\xaa", -EINVAL }, { "a\xe2\x80\xae", -EINVAL }, { "a\xe2\x80\xa9", 0 },
		{ "a\xe2\x80\xaf", 0 }, { "a\xe2\x81\xa6", -EINVAL }, { "a\xe2\x81\xa9", -EINVAL },
		{ "a\xe2\x81\xa5", 0 }, { "a\xe2\x81\xaa", 0 }, { "a\x9b", -EINVAL },
		{ "a\xff", -EINVAL },
		/* The bidi marks are Bidi_Control too (issue 41). */
		{ "a\xd8\x9c", -EINVAL }, { "a\xe2\x80\x8e", -EINVAL }, { "a\xe2\x80\x8f", -EINVAL },
		{ "a\xd8\x9b", 0 }, { "a\xe2\x80\x8d", 0 }, { "a\xe2\x80\x90", 0 },
	};
	struct cgfb_schema *s = NULL;
	char err[200];

	assert_int_equal(cgfb_schema_load_builtin(&s, err, sizeof(err)), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (cgfb_schema_check_word(s, "text", cases[i].s) != cases[i].rc)
			fail_msg("case %zu: got %d, want %d", i,
				 cgfb_schema_check_word(s, "text", cases[i].s), cases[i].rc);
	cgfb_schema_free(s);
}

/* The collector checks free text with the schema's pattern, the client's
 * review and consent with cgfb_text_control (lib/utf8.c): the two must
 * refuse exactly the same code points, every one of them, or a use case
 * the client let through is refused at the collector (or the reverse). */
static void free_text_pattern_is_text_control(void **state)
{
	struct cgfb_schema *s = NULL;
	char err[200];

	assert_int_equal(cgfb_schema_load_builtin(&s, err, sizeof(err)), 0);
	for (uint32_t c = 1; c <= 0x10ffff; c++) {
		char t[8] = "a";
		size_t n = 1;
		bool pattern, control;

		if (c >= 0xd800 && c <= 0xdfff)
			continue;
		if (c > 0x2100 && c < 0xe0000 && c != 0xfeff && !(c >= 0xfff9 && c <= 0xfffb))
			continue;	/* nothing either list names: keep the test fast */
		if (c < 0x80) {
			t[n++] = (char)c;
		} else if (c < 0x800) {
			t[n++] = (char)(0xc0 | c >> 6);
			t[n++] = (char)(0x80 | (c & 0x3f));
		} else if (c < 0x10000) {
			t[n++] = (char)(0xe0 | c >> 12);
			t[n++] = (char)(0x80 | ((c >> 6) & 0x3f));
			t[n++] = (char)(0x80 | (c & 0x3f));
		} else {
			t[n++] = (char)(0xf0 | c >> 18);
			t[n++] = (char)(0x80 | ((c >> 12) & 0x3f));
			t[n++] = (char)(0x80 | ((c >> 6) & 0x3f));
			t[n++] = (char)(0x80 | (c & 0x3f));
		}
		t[n] = '\0';
		pattern = cgfb_schema_check_word(s, "text", t) != 0;
		control = cgfb_text_control(t, n) >= 0;
		if (pattern != control)
			fail_msg("U+%04X: the schema %s it, cgfb_text_control %s it", c,
				 pattern ? "refuses" : "takes", control ? "refuses" : "takes");
	}
	cgfb_schema_free(s);
}

/* utc_time's format: a real calendar day, which the pattern alone lets
 * through (issue 30: 2026-02-30 was stored and counted). */
static void times_are_real_calendar_days(void **state)
{
	static const struct {
		const char *s;
		int rc;
	} cases[] = {
		{ "2026-02-28T23:59:59Z", 0 }, { "2024-02-29T00:00:00Z", 0 },
		{ "2000-02-29T00:00:00Z", 0 }, { "2026-12-31T23:59:60Z", 0 },
		{ "2026-04-30T00:00:00Z", 0 }, { "2026-02-30T00:00:00Z", -EINVAL },
		{ "2026-02-29T00:00:00Z", -EINVAL }, { "1900-02-29T00:00:00Z", -EINVAL },
		{ "2026-04-31T00:00:00Z", -EINVAL }, { "2026-11-31T00:00:00Z", -EINVAL },
		{ "9999-99-99T99:99:99Z", -EINVAL }, { "2026-01-01T24:00:00Z", -EINVAL },
		{ "2026-01-01T00:00:00", -EINVAL }, { "2026-1-01T00:00:00Z", -EINVAL },
	};
	struct cgfb_schema *s = NULL;
	char err[200];

	assert_int_equal(cgfb_schema_load_builtin(&s, err, sizeof(err)), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (cgfb_schema_check_word(s, "utc_time", cases[i].s) != cases[i].rc)
			fail_msg("%s: got %d, want %d", cases[i].s,
				 cgfb_schema_check_word(s, "utc_time", cases[i].s), cases[i].rc);
	cgfb_schema_free(s);
}

/* The format is asserted, and named when it fails; a format the validator
 * does not know is refused at load rather than passed over. */
static void format_is_asserted(void **state)
{
	static const char dt[] = "{\"properties\":{\"t\":{\"type\":\"string\","
				 "\"format\":\"date-time\"}}}";
	static const char email[] = "{\"type\":\"string\",\"format\":\"email\"}";
	struct cgfb_schema *s = NULL;
	json_object *o = json_tokener_parse("{\"t\":\"2025-02-29T00:00:00Z\"}");
	char err[200];

	assert_int_equal(cgfb_schema_load_buffer(&s, S(dt), err, sizeof(err)), 0);
	assert_int_equal(cgfb_schema_validate(s, o, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "/t: is not a real date and time");
	json_object_put(o);
	cgfb_schema_free(s);
	assert_int_equal(cgfb_schema_load_buffer(&s, S(email), err, sizeof(err)), -ENOTSUP);
	assert_non_null(strstr(err, "'email'"));
}

/* $defs/sent_report is the whole report ("$ref": "#") and a consent
 * object: the pending report's null consent is valid on the machine and
 * refused as a sent report (issue 30: "consent": null was stored). */
static void sent_report_needs_consent(void **state)
{
	static const char sch[] =
		"{\"type\":\"object\",\"required\":[\"n\",\"consent\"],"
		"\"properties\":{\"n\":{\"type\":\"integer\"},"
		"\"consent\":{\"anyOf\":[{\"type\":\"null\"},{\"type\":\"object\"}]}},"
		"\"$defs\":{\"sent_report\":{\"$ref\":\"#\","
		"\"properties\":{\"consent\":{\"type\":\"object\"}}}}}";
	struct cgfb_schema *s = NULL, *b = NULL;
	json_object *pending = json_tokener_parse("{\"n\":1,\"consent\":null}");
	json_object *sent = json_tokener_parse("{\"n\":1,\"consent\":{}}");
	json_object *bad = json_tokener_parse("{\"n\":\"x\",\"consent\":{}}");
	char err[200];

	assert_int_equal(cgfb_schema_load_buffer(&s, S(sch), err, sizeof(err)), 0);
	assert_int_equal(cgfb_schema_validate(s, pending, err, sizeof(err)), 0);
	assert_int_equal(cgfb_schema_validate_sent(s, pending, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "/consent: must be of type object, not null");
	assert_int_equal(cgfb_schema_validate_sent(s, sent, err, sizeof(err)), 0);
	/* The rest of the report is still checked through "#". */
	assert_int_equal(cgfb_schema_validate_sent(s, bad, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "/n: must be of type integer, not string");
	/* The built-in schema has the definition the collector uses. */
	assert_int_equal(cgfb_schema_load_builtin(&b, err, sizeof(err)), 0);
	assert_int_equal(cgfb_schema_validate_sent(b, pending, err, sizeof(err)), -EINVAL);
	json_object_put(pending);
	json_object_put(sent);
	json_object_put(bad);
	cgfb_schema_free(b);
	cgfb_schema_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(accepts_and_names_fields),
		cmocka_unit_test(refuses_unknown_keywords),
		cmocka_unit_test(builtin_report_schema_loads),
		cmocka_unit_test(free_text_refuses_hidden_controls),
		cmocka_unit_test(free_text_pattern_is_text_control),
		cmocka_unit_test(times_are_real_calendar_days),
		cmocka_unit_test(format_is_asserted),
		cmocka_unit_test(sent_report_needs_consent),
	};

	return cmocka_run_group_tests_name("schema", tests, setup, teardown);
}
