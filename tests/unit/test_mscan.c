#include "testutil.h"

#include <errno.h>
#include <stdlib.h>

#include "cgfb/mscan.h"

/* The leftmost occurrence of any literal, found the slow and obvious way. */
static const char *naive(const char *const *lits, size_t n, const char *p, const char *end)
{
	const char *best = NULL;

	for (size_t i = 0; i < n; i++) {
		const char *f = memmem(p, (size_t)(end - p), lits[i], strlen(lits[i]));

		if (f && (!best || f < best))
			best = f;
	}
	return best;
}

static void finds_leftmost(void **state)
{
	static const char *const lits[] = { "@kvack.org", "[ cut here ]", " is deprecated" };
	static struct cgfb_mscan ms;
	const char text[] = "xx [ cut here ] yy foo is deprecated zz linux-mm@kvack.org";
	const char *end = text + sizeof(text) - 1;
	size_t which = 99;

	assert_int_equal(cgfb_mscan_init(&ms, lits, 3), 0);
	assert_ptr_equal(cgfb_mscan_find(&ms, text, end, &which), text + 3);
	assert_int_equal(which, 1);
	assert_ptr_equal(cgfb_mscan_find(&ms, text + 4, end, &which), strstr(text, " is deprecated"));
	assert_int_equal(which, 2);
	assert_null(cgfb_mscan_find(&ms, text, text + 5, NULL));
	/* A literal at the very end and at the very start. */
	assert_ptr_equal(cgfb_mscan_find(&ms, end - 10, end, NULL), end - 10);
	assert_ptr_equal(cgfb_mscan_find(&ms, text + 3, text + 15, NULL), text + 3);
}

static void rejects_bad_sets(void **state)
{
	static const char *const short_lit[] = { "ok-literal", "x" };
	static struct cgfb_mscan ms;

	assert_int_equal(cgfb_mscan_init(&ms, short_lit, 0), -EINVAL);
	assert_int_equal(cgfb_mscan_init(&ms, short_lit, 2), -EINVAL);
	assert_int_equal(cgfb_mscan_init(&ms, short_lit, CGFB_MSCAN_MAX + 1), -E2BIG);
}

/* Random haystacks over a small alphabet, so that near-misses abound, with
 * literals planted at random places: the scanner must agree with memmem. */
static void agrees_with_memmem(void **state)
{
	static const char *const lits[] = {
		"abcab", "bcabca", "cabcabcab", "aab", "ccc", "abcabcabcabca",
	};
	static struct cgfb_mscan ms;
	static char hay[4096];
	unsigned seed = 12345;

	assert_int_equal(cgfb_mscan_init(&ms, lits, 6), 0);
	for (int round = 0; round < 2000; round++) {
		const size_t len = (size_t)(rand_r(&seed) % sizeof(hay));

		for (size_t i = 0; i < len; i++)
			hay[i] = "abcd\n"[rand_r(&seed) % 5];
		for (const char *p = hay; p <= hay + len;) {
			const char *want = naive(lits, 6, p, hay + len);
			const char *got = cgfb_mscan_find(&ms, p, hay + len, NULL);

			if (want != got)
				fail_msg("round %d offset %td: want %td got %td", round, p - hay,
					 want ? want - hay : -1, got ? got - hay : -1);
			if (!want)
				break;
			p = want + 1;
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(finds_leftmost),
		cmocka_unit_test(rejects_bad_sets),
		cmocka_unit_test(agrees_with_memmem),
	};

	return cmocka_run_group_tests_name("mscan", tests, NULL, NULL);
}
