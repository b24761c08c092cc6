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

/* The ways the search can go on this CPU: 64-byte steps by whole byte
 * (VBMI) or by nibble, 32-byte steps, and Wu-Manber; each is forced in
 * turn on the same set. */
enum way { EXACT, WIDE, NARROW, SCALAR, WAYS };

static bool force(struct cgfb_mscan *ms, enum way w)
{
	if (w == SCALAR) {
		ms->teddy.on = false;
		return true;
	}
	if (!ms->teddy.on)
		return false;
	if (w == EXACT)
		return ms->teddy.wide && ms->teddy.exact;
	ms->teddy.exact = false;
	if (w == WIDE)
		return ms->teddy.wide;
	ms->teddy.wide = false;
	return true;
}

/* Teddy's fingerprints are placed on rare bytes and share buckets, so a
 * string may be found by a fingerprint that lies after an earlier one's:
 * the leftmost start must still win, and what the search passed over
 * must be counted exactly (newlines and NULs up to the string found).
 * Haystacks of log-like bytes over 16 kinds of byte, with the strings
 * planted, near-misses (a string with one byte changed) and NULs; all
 * three ways against memmem. */
static void teddy_agrees_and_counts(void **state)
{
	static const char *const lits[] = {
		"WARNING: ", "[ cut here ]", "Linux version ", " is deprecated", "@kvack.org",
		"use_hierarchy", "Unknown subsys name '", "memcg", "cgroup: a",
	};
	const size_t n = sizeof(lits) / sizeof(lits[0]);
	static struct cgfb_mscan ms;
	static char hay[3000];
	unsigned seed = 4242;
	unsigned tried[WAYS] = { 0, 0, 0, 0 };

	for (int round = 0; round < 2000; round++) {
		const size_t len = (size_t)(rand_r(&seed) % sizeof(hay));
		const enum way w = (enum way)(round % WAYS);

		assert_int_equal(cgfb_mscan_init(&ms, lits, n), 0);
		if (!force(&ms, w))
			continue;
		tried[w]++;
		for (size_t i = 0; i < len; i++)
			hay[i] = "aemcg: Wx[\n\0 usd'"[rand_r(&seed) % 17];
		for (int k = rand_r(&seed) % 4; k > 0; k--) {
			const char *l = lits[(size_t)rand_r(&seed) % n];
			const size_t ll = strlen(l);

			if (ll < len) {
				const size_t at = (size_t)rand_r(&seed) % (len - ll);

				memcpy(hay + at, l, ll);
				if (rand_r(&seed) % 2)
					hay[at + (size_t)rand_r(&seed) % ll] ^= 1;
			}
		}
		for (const char *p = hay; p <= hay + len;) {
			const char *want = naive(lits, n, p, hay + len);
			const char *stop = want ? want : hay + len;
			struct cgfb_mscan_tally t = { 7, 3 }, ref = { 7, 3 };
			const char *got;

			for (const char *q = p; q < stop; q++) {
				ref.newlines += *q == '\n';
				ref.nuls += *q == '\0';
			}
			got = w == SCALAR ? cgfb_mscan_find(&ms, p, hay + len, NULL)
					  : cgfb_mscan_find_tally(&ms, p, hay + len, NULL, &t);
			if (want != got)
				fail_msg("way %d round %d offset %td: want %td got %td", w, round,
					 p - hay, want ? want - hay : -1, got ? got - hay : -1);
			if (w != SCALAR && (t.newlines != ref.newlines || t.nuls != ref.nuls))
				fail_msg("way %d round %d offset %td: counted %zu newlines %zu NULs, "
					 "there are %zu and %zu", w, round, p - hay, t.newlines, t.nuls,
					 ref.newlines, ref.nuls);
			if (!want)
				break;
			p = want + 1;
		}
	}
	/* Every way this CPU has was tried (Wu-Manber is everywhere). */
	assert_true(tried[SCALAR] > 0);
	print_message("ways tried: exact %u, wide %u, narrow %u, scalar %u\n", tried[EXACT],
		      tried[WIDE], tried[NARROW], tried[SCALAR]);
}

/* A string's fingerprint may lie far into it: here the first found (by
 * its fingerprint at 2) is not the leftmost, whose fingerprint is at 8;
 * and the newlines before the string found are counted, not those the
 * search looked at beyond it. */
static void teddy_looks_past_the_first_found(void **state)
{
	static const char *const lits[] = { "abcdefghXYZW", "cdef" };
	static struct cgfb_mscan ms;
	const char text[] = "\nabcdefghXYZW\n\n";
	const char *end = text + sizeof(text) - 1;

	for (enum way w = EXACT; w <= SCALAR; w++) {
		struct cgfb_mscan_tally t = { 0, 0 };
		size_t which = 9;

		assert_int_equal(cgfb_mscan_init(&ms, lits, 2), 0);
		if (!force(&ms, w))
			continue;
		if (w != SCALAR)
			assert_int_equal(ms.teddy.off[0], 8);
		assert_ptr_equal(cgfb_mscan_find(&ms, text, end, &which), text + 1);
		assert_int_equal(which, 0);
		if (w == SCALAR)
			continue;
		assert_ptr_equal(cgfb_mscan_find_tally(&ms, text, end, NULL, &t), text + 1);
		assert_int_equal(t.newlines, 1);
	}
}

/* The 64-byte steps stop 67 bytes before the end and the 32-byte steps go
 * on from there: a string that starts before that point, with its
 * fingerprint after it, is still found (the fuzzer's first find). */
static void teddy_string_across_the_change_of_step(void **state)
{
	static const char *const lits[] = { "abcdefghXYZW", "@kvack.org" };
	static struct cgfb_mscan ms;
	char text[175];

	memset(text, '.', sizeof(text));
	memcpy(text + 125, lits[0], strlen(lits[0]));
	for (enum way w = EXACT; w <= SCALAR; w++) {
		assert_int_equal(cgfb_mscan_init(&ms, lits, 2), 0);
		if (!force(&ms, w))
			continue;
		assert_ptr_equal(cgfb_mscan_find(&ms, text, text + sizeof(text), NULL), text + 125);
	}
}

/* A string with no run of four ASCII bytes cannot be fingerprinted, nor
 * can one shorter than four: the set is searched the scalar way, and
 * found all the same. */
static void teddy_stays_off_for_what_it_cannot_hold(void **state)
{
	static const char *const short_one[] = { "WARNING: ", "abc" };
	static const char *const utf8[] = { "WARNING: ", "\xc3\xa9t\xc3\xa9" };
	static struct cgfb_mscan ms;
	const char text[] = "x \xc3\xa9t\xc3\xa9 abc";

	assert_int_equal(cgfb_mscan_init(&ms, short_one, 2), 0);
	assert_false(ms.teddy.on);
	assert_ptr_equal(cgfb_mscan_find(&ms, text, text + sizeof(text) - 1, NULL), strstr(text, "abc"));
	assert_int_equal(cgfb_mscan_init(&ms, utf8, 2), 0);
	assert_false(ms.teddy.on);
	assert_ptr_equal(cgfb_mscan_find(&ms, text, text + sizeof(text) - 1, NULL), text + 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(finds_leftmost),
		cmocka_unit_test(rejects_bad_sets),
		cmocka_unit_test(agrees_with_memmem),
		cmocka_unit_test(teddy_agrees_and_counts),
		cmocka_unit_test(teddy_looks_past_the_first_found),
		cmocka_unit_test(teddy_string_across_the_change_of_step),
		cmocka_unit_test(teddy_stays_off_for_what_it_cannot_hold),
	};

	return cmocka_run_group_tests_name("mscan", tests, NULL, NULL);
}
