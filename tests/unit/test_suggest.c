/* "Did you mean" (base/suggest.c): a typo two edits away or a prefix gets
 * the name; anything further gets nothing rather than a wild guess. */
#include "testutil.h"

#include "base/suggest.h"

static const char *const commands[] = { "scan", "watch", "status", "submit", "show",
					"review", "reopen", "export" };
#define N (sizeof(commands) / sizeof(commands[0]))

static void typos(void **state)
{
	assert_string_equal(cgfb_suggest("stauts", commands, N), "status");
	assert_string_equal(cgfb_suggest("sumbit", commands, N), "submit");
	assert_string_equal(cgfb_suggest("reveiw", commands, N), "review");
	assert_string_equal(cgfb_suggest("expor", commands, N), "export");
	/* The nearest, not the first near: "shw" is one from show. */
	assert_string_equal(cgfb_suggest("shw", commands, N), "show");
}

static void prefixes_and_nothing(void **state)
{
	assert_string_equal(cgfb_suggest("wat", commands, N), "watch");
	assert_null(cgfb_suggest("x", commands, N));
	assert_null(cgfb_suggest("frobnicate", commands, N));
	assert_null(cgfb_suggest("", commands, 0));
}

static void words(void **state)
{
	char out[32];

	assert_string_equal(cgfb_suggest_words("jsno", "state-dir json", out, sizeof(out)), "json");
	assert_string_equal(cgfb_suggest_words("state-dri", "state-dir json", out, sizeof(out)),
			    "state-dir");
	assert_null(cgfb_suggest_words("verbose", "state-dir json", out, sizeof(out)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(typos),
		cmocka_unit_test(prefixes_and_nothing),
		cmocka_unit_test(words),
	};

	return cmocka_run_group_tests_name("suggest", tests, NULL, NULL);
}
