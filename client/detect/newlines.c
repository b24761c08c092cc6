#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "detect/newlines.h"

/* Counting newlines runs over every byte of a text log, so it must keep up
 * with memory. Matches are summed as bytes in vector lanes (a compare gives
 * 0 or -1 per byte, subtracted from the lanes) and the lanes are added up
 * before any can wrap. No popcount: baseline x86-64 has no POPCNT, and the
 * libgcc call it turns into costs more than the whole loop. */
#define NL_ROUNDS 255   /* additions before a byte lane could wrap */

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx2")))
size_t cgfb_count_nl_avx2(const char **pp, const char *end)
{
	const __m256i nl = _mm256_set1_epi8('\n'), zero = _mm256_setzero_si256();
	const char *p = *pp;
	size_t n = 0;

	while (end - p >= 32) {
		const size_t rounds = (size_t)(end - p) / 32 < NL_ROUNDS ? (size_t)(end - p) / 32
									: NL_ROUNDS;
		__m256i acc = zero;

		for (size_t i = 0; i < rounds; i++, p += 32) {
			const __m256i v = _mm256_loadu_si256((const __m256i *)p);

			acc = _mm256_sub_epi8(acc, _mm256_cmpeq_epi8(v, nl));
		}
		acc = _mm256_sad_epu8(acc, zero);
		const __m128i s = _mm_add_epi64(_mm256_castsi256_si128(acc),
						_mm256_extracti128_si256(acc, 1));

		n += (size_t)_mm_cvtsi128_si32(s) + (size_t)_mm_cvtsi128_si32(_mm_srli_si128(s, 8));
	}
	*pp = p;
	return n;
}

/* SSE2 is in every x86-64 CPU. */
__attribute__((target("sse2")))
size_t cgfb_count_nl_sse2(const char **pp, const char *end)
{
	const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
	const char *p = *pp;
	size_t n = 0;

	while (end - p >= 64) {
		const size_t rounds = (size_t)(end - p) / 64 < NL_ROUNDS ? (size_t)(end - p) / 64
									: NL_ROUNDS;
		__m128i a = zero, b = zero, c = zero, d = zero;

		/* Four lanes of accumulators: independent additions pipeline. */
		for (size_t i = 0; i < rounds; i++, p += 64) {
			a = _mm_sub_epi8(a, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)p), nl));
			b = _mm_sub_epi8(b, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 16)), nl));
			c = _mm_sub_epi8(c, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 32)), nl));
			d = _mm_sub_epi8(d, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 48)), nl));
		}
		/* Each 64-bit half of a SAD is at most 8 * 255: adding the four
		 * SADs as 16-bit sums cannot overflow either. */
		__m128i s = _mm_add_epi64(_mm_add_epi64(_mm_sad_epu8(a, zero), _mm_sad_epu8(b, zero)),
					  _mm_add_epi64(_mm_sad_epu8(c, zero), _mm_sad_epu8(d, zero)));

		n += (size_t)_mm_cvtsi128_si32(s) + (size_t)_mm_cvtsi128_si32(_mm_srli_si128(s, 8));
	}
	*pp = p;
	return n;
}
#endif

/* Any architecture: eight bytes at a time in a plain integer. A byte of
 * x ^ "\n\n\n..." is zero exactly where a newline is; the high bit of each
 * byte of t is then clear only there (no carries cross bytes: every byte
 * is at most 0x7f + 0x7f). */
size_t cgfb_count_nl_word(const char **pp, const char *end)
{
	const uint64_t ones = 0x0101010101010101ull, low7 = 0x7f7f7f7f7f7f7f7full;
	const char *p = *pp;
	size_t n = 0;

	while (end - p >= 8) {
		const size_t rounds = (size_t)(end - p) / 8 < NL_ROUNDS ? (size_t)(end - p) / 8
									: NL_ROUNDS;
		uint64_t acc = 0;

		for (size_t i = 0; i < rounds; i++, p += 8) {
			uint64_t x, t;

			memcpy(&x, p, sizeof(x));
			x ^= ones * '\n';
			t = ((x & low7) + low7) | x;
			acc += (~t >> 7) & ones;
		}
		/* Bytes to 16-bit lanes (at most 510 each), then their sum in
		 * the top 16 bits. */
		acc = (acc & 0x00ff00ff00ff00ffull) + ((acc >> 8) & 0x00ff00ff00ff00ffull);
		n += (size_t)((acc * 0x0001000100010001ull) >> 48);
	}
	*pp = p;
	return n;
}

size_t cgfb_count_newlines(const char *p, const char *end)
{
	size_t n = 0;

#if defined(__x86_64__) || defined(__i386__)
	/* Chosen at run time, so that one build is fast on every x86 CPU. */
	static int avx2 = -1;

	if (avx2 < 0)
		avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
	if (avx2)
		n += cgfb_count_nl_avx2(&p, end);
	n += cgfb_count_nl_sse2(&p, end);
#endif
	n += cgfb_count_nl_word(&p, end);
	for (; p < end; p++)
		n += *p == '\n';
	return n;
}
