/* The three newline counters agree with a byte loop at every length and
 * alignment, and at lengths where the lane sums would wrap if they were
 * not added up in time. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>

#include "detect/newlines.h"

typedef size_t counter(const char **pp, const char *end);

static size_t naive(const char *p, const char *end)
{
	size_t n = 0;

	for (; p < end; p++)
		n += *p == '\n';
	return n;
}

/* A block counter and then the tail, as cgfb_count_newlines does. */
static size_t with(counter *c, const char *p, const char *end)
{
	size_t n = c(&p, end);

	assert_true(p <= end);
	return n + naive(p, end);
}

static void fill(char *buf, size_t n, unsigned seed, unsigned density)
{
	srand(seed);
	for (size_t i = 0; i < n; i++)
		buf[i] = (unsigned)rand() % density == 0 ? '\n' : (char)(rand() & 0xff);
}

static void compare(counter *c, const char *name)
{
	static char buf[64 + 300];

	for (unsigned density = 1; density <= 64; density *= 4) {
		fill(buf, sizeof(buf), density, density);
		for (size_t align = 0; align < 64; align++)
			for (size_t len = 0; len <= 300; len++) {
				const char *p = buf + align;
				const size_t want = naive(p, p + len);

				if (with(c, p, p + len) != want || cgfb_count_newlines(p, p + len) != want)
					fail_msg("%s: length %zu at alignment %zu (1 in %u newlines)",
						 name, len, align, density);
			}
	}
}

/* 255 rounds fill a byte lane; a megabyte of nothing but newlines runs
 * thousands of rounds in every lane. */
static void compare_big(counter *c, const char *name)
{
	const size_t n = (1u << 20) + 37;
	char *buf = malloc(n);

	assert_non_null(buf);
	memset(buf, '\n', n);
	if (with(c, buf + 1, buf + n) != n - 1)
		fail_msg("%s: all newlines", name);
	fill(buf, n, 7, 3);
	if (with(c, buf + 3, buf + n) != naive(buf + 3, buf + n))
		fail_msg("%s: a random megabyte", name);
	free(buf);
}

static void word(void **state)
{
	compare(cgfb_count_nl_word, "word");
	compare_big(cgfb_count_nl_word, "word");
}

#if defined(__x86_64__) || defined(__i386__)
static void sse2(void **state)
{
	compare(cgfb_count_nl_sse2, "sse2");
	compare_big(cgfb_count_nl_sse2, "sse2");
}

static void avx2(void **state)
{
	if (!__builtin_cpu_supports("avx2"))
		skip();   /* a prerequisite of the machine: this CPU has no AVX2 */
	compare(cgfb_count_nl_avx2, "avx2");
	compare_big(cgfb_count_nl_avx2, "avx2");
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(word),
#if defined(__x86_64__) || defined(__i386__)
		cmocka_unit_test(sse2),
		cmocka_unit_test(avx2),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
