/* Teddy: the vector prefilter of Hyperscan's literal matcher (Intel's
 * hyperscan, src/fdr/teddy.c; also the Rust aho-corasick crate's
 * packed/teddy), for the handful of strings the scanner looks for.
 *
 * Each string is given a fingerprint, CGFB_TEDDY_M of its bytes at an
 * offset of its own, and a bucket (one bit of eight). For every position
 * of the text a 32-byte step computes, for each fingerprint byte j, the
 * buckets that allow the text's byte at position + j by its low and its
 * high nibble (two table lookups by PSHUFB) and ANDs them: a bucket left
 * standing is a candidate, which is checked with memcmp against the
 * bucket's strings. The test costs a few instructions per 32 bytes, with
 * no branch and no dependency from one step to the next, so the scan runs
 * at the speed of memory; what decides its speed is how rarely a
 * candidate is a false one, hence fingerprints placed on a string's
 * rarest bytes. */
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "cgfb/mscan.h"

/* How rare a byte is in a kernel log, roughly (higher: rarer). Only the
 * choice of fingerprints depends on it, never what is found. Blanks,
 * lower-case letters and digits are everywhere; the punctuation of
 * timestamps, key=value pairs and paths is common; capitals are rarer;
 * other punctuation and bytes outside ASCII are rarest. */
static unsigned rarity(unsigned char c)
{
	if (c == ' ')
		return 0;
	if (strchr("etaoinsr", c) && c)
		return 1;
	/* Paths are everywhere in a kernel log: '/' is as common as a
	 * letter. */
	if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '/')
		return 2;
	if (strchr(".:[]-=,_()\n", c) && c)
		return 3;
	if (c >= 'A' && c <= 'Z')
		return 5;
	return 6;
}

/* The offset of the rarest run of CGFB_TEDDY_M ASCII bytes in a string
 * (the vector step relies on fingerprints being ASCII), -1 if it has
 * none; the first one among equals, which keeps the offsets (and the
 * distance a match must be looked beyond) short. */
static int rarest_offset(const char *lit, size_t len)
{
	int best = -1;
	unsigned best_score = 0;

	for (size_t k = 0; k + CGFB_TEDDY_M <= len; k++) {
		unsigned score = 1;

		for (size_t j = 0; j < CGFB_TEDDY_M; j++) {
			const unsigned char c = (unsigned char)lit[k + j];

			score = c < 0x80 && score ? score + rarity(c) : 0;
		}
		if (score > best_score) {
			best_score = score;
			best = (int)k;
		}
	}
	return best;
}

/* How often each ASCII byte turns up, roughly, as a fraction, by its
 * rarity (a table: the placement below asks for it 4,096 times a
 * string). */
static void count_frequencies(double freq[0x80])
{
	static const double by_rarity[] = { 0.12, 0.05, 0.02, 0.01, 0.003, 0.003, 0.0005 };

	for (unsigned c = 0; c < 0x80; c++)
		freq[c] = by_rarity[rarity((unsigned char)c)];
}

/* The fraction of positions a bucket would let through by mistake,
 * roughly: at each fingerprint position, the bytes whose low and high
 * nibbles it allows (every pair, not only its strings' bytes). */
static double letting_through(const struct cgfb_teddy *t, const double *freq, unsigned b,
			      const unsigned char *fp)
{
	double p = 1.0;

	for (size_t j = 0; j < CGFB_TEDDY_M; j++) {
		const uint8_t bit = (uint8_t)(1u << b);
		unsigned los = 0, his = 0;
		double pj = 0.0;

		/* The nibbles it allows, then the bytes made of them (a few:
		 * not all 128). */
		for (unsigned x = 0; x < 16; x++) {
			los |= (unsigned)((t->lo[j][x] & bit) != 0) << x;
			his |= (unsigned)((t->hi[j][x] & bit) != 0) << x;
		}
		if (fp) {
			los |= 1u << (fp[j] & 15);
			his |= 1u << (fp[j] >> 4);
		}
		for (unsigned h = 0; h < 8; h++)
			for (unsigned l = 0; (his >> h & 1) && l < 16; l++)
				if (los >> l & 1)
					pj += freq[h << 4 | l];
		p *= pj;
	}
	return p;
}

/* String i, fingerprint fp, into the bucket it makes least worse. */
static void place(struct cgfb_teddy *t, const double *freq, const unsigned char *fp, size_t i)
{
	unsigned best = 0;
	double best_cost = 0.0;

	for (unsigned b = 0; b < CGFB_TEDDY_BUCKETS; b++) {
		const double was = t->first[b] ? letting_through(t, freq, b, NULL) : 0.0;
		const double cost = letting_through(t, freq, b, fp) - was;

		if (b == 0 || cost < best_cost) {
			best = b;
			best_cost = cost;
		}
	}
	for (size_t j = 0; j < CGFB_TEDDY_M; j++) {
		t->lo[j][fp[j] & 15] |= (uint8_t)(1u << best);
		t->hi[j][fp[j] >> 4] |= (uint8_t)(1u << best);
		t->byte[j][fp[j]] |= (uint8_t)(1u << best);
	}
	t->next[i] = t->first[best];
	t->first[best] = (uint8_t)(i + 1);
}

#if defined(__x86_64__) || defined(__i386__)
static bool cpu_has_avx2(void)
{
	return __builtin_cpu_supports("avx2");
}

static bool cpu_has_avx512bw(void)
{
	return __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("popcnt");
}

static bool cpu_has_avx512vbmi(void)
{
	return cpu_has_avx512bw() && __builtin_cpu_supports("avx512vbmi");
}
#else
static bool cpu_has_avx2(void)
{
	return false;
}

static bool cpu_has_avx512bw(void)
{
	return false;
}

static bool cpu_has_avx512vbmi(void)
{
	return false;
}
#endif

void cgfb_teddy_init(struct cgfb_teddy *t, const char *const *lits, const size_t *lens, size_t n)
{
	double freq[0x80];

	memset(t, 0, sizeof(*t));
	if (!cpu_has_avx2() || n == 0 || n > CGFB_MSCAN_MAX)
		return;
	count_frequencies(freq);
	for (size_t i = 0; i < n; i++) {
		const int off = lens[i] <= 255 ? rarest_offset(lits[i], lens[i]) : -1;

		if (off < 0)
			return;
		t->off[i] = (uint8_t)off;
		if (t->off[i] > t->kmax)
			t->kmax = t->off[i];
	}
	for (size_t i = 0; i < n; i++)
		place(t, freq, (const unsigned char *)lits[i] + t->off[i], i);
	t->on = true;
	t->wide = cpu_has_avx512bw();
	t->exact = cpu_has_avx512vbmi();
}

/* The search so far: the leftmost string found, and the fingerprint
 * positions still worth a look (none from limit on can start a string
 * before best). */
struct found {
	const char *best;
	size_t which;
	const char *limit;
};

/* A candidate fingerprint at s with these buckets: the strings that
 * would hold it there. */
static void check(const struct cgfb_mscan *ms, const char *p, const char *end, const char *s,
		  unsigned buckets, struct found *f)
{
	const struct cgfb_teddy *t = &ms->teddy;

	for (; buckets; buckets &= buckets - 1) {
		const unsigned b = (unsigned)__builtin_ctz(buckets);

		for (unsigned k = t->first[b]; k; k = t->next[k - 1]) {
			const size_t i = k - 1;
			const char *start = s - t->off[i];

			if ((size_t)(s - p) < t->off[i] || (size_t)(end - start) < ms->len[i] ||
			    (f->best && start >= f->best) ||
			    memcmp(start, ms->lit[i], ms->len[i]) != 0)
				continue;
			f->best = start;
			f->which = i;
			f->limit = start + t->kmax + 1;
		}
	}
}

/* The buckets of the fingerprint at s, one byte at a time: the tail. */
static unsigned buckets_at(const struct cgfb_teddy *t, const char *s)
{
	unsigned b = 0xff;

	for (size_t j = 0; j < CGFB_TEDDY_M; j++) {
		const unsigned char c = (unsigned char)s[j];

		b &= t->lo[j][c & 15] & t->hi[j][c >> 4];
	}
	return b;
}

static void tally_bytes(struct cgfb_mscan_tally *t, const char *p, const char *end)
{
	for (; p < end; p++) {
		t->newlines += *p == '\n';
		t->nuls += *p == '\0';
	}
}

static void untally_bytes(struct cgfb_mscan_tally *t, const char *p, const char *end)
{
	for (; p < end; p++) {
		t->newlines -= *p == '\n';
		t->nuls -= *p == '\0';
	}
}

#if defined(__x86_64__) || defined(__i386__)
/* The candidates of a step: mask has a bit for each position where a
 * bucket stands, bytes says which. */
static void check_step(const struct cgfb_mscan *ms, const char *p, const char *end,
		       const char *s, const uint8_t *bytes, uint64_t mask, struct found *f)
{
	for (; mask; mask &= mask - 1) {
		const unsigned at = (unsigned)__builtin_ctzll(mask);

		if (s + at >= f->limit)
			break;
		check(ms, p, end, s + at, bytes[at], f);
	}
}

/* How far ahead to ask for memory: the loop is too long for the CPU's own
 * window of reordering to reach the next lines of a text that comes from
 * memory (measured on a 512 MiB log: 2.0 GB/s without, 5.8 GB/s with). */
#define PREFETCH 4096
/* Additions to a byte-wide count before it could wrap. */
#define ROUNDS 255

/* Byte-wide counts of newlines and NULs, summed into t. */
__attribute__((target("avx2")))
static inline void add_counts(struct cgfb_mscan_tally *t, __m256i n_nl, __m256i n_nul)
{
	const __m256i zero = _mm256_setzero_si256();
	const __m256i a = _mm256_sad_epu8(n_nl, zero), b = _mm256_sad_epu8(n_nul, zero);

	t->newlines += (size_t)(_mm256_extract_epi64(a, 0) + _mm256_extract_epi64(a, 1) +
				_mm256_extract_epi64(a, 2) + _mm256_extract_epi64(a, 3));
	t->nuls += (size_t)(_mm256_extract_epi64(b, 0) + _mm256_extract_epi64(b, 1) +
			    _mm256_extract_epi64(b, 2) + _mm256_extract_epi64(b, 3));
}

/* Whole 32-byte steps from s while a fingerprint may still start there;
 * returns where it stopped, having counted the bytes before it. The
 * strings are ASCII (cgfb_teddy_init sees to it), so a byte with its top
 * bit set must match nothing: PSHUFB gives 0 for such an index, and the
 * low nibble needs no mask. */
__attribute__((target("avx2")))
static const char *vector_part(const struct cgfb_mscan *ms, const char *p, const char *s,
			       const char *end, struct found *f, struct cgfb_mscan_tally *t)
{
	const struct cgfb_teddy *td = &ms->teddy;
	const __m256i low = _mm256_set1_epi8(0x0f), zero = _mm256_setzero_si256();
	const __m256i nl = _mm256_set1_epi8('\n');
	__m256i lo[CGFB_TEDDY_M], hi[CGFB_TEDDY_M];
	__m256i n_nl = zero, n_nul = zero;
	unsigned rounds = 0;

	_Static_assert(CGFB_TEDDY_M == 4, "the loop below looks at four bytes");
	for (size_t j = 0; j < CGFB_TEDDY_M; j++) {
		lo[j] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)td->lo[j]));
		hi[j] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)td->hi[j]));
	}
#define TEDDY_BYTE(v, j)                                                                  \
	_mm256_and_si256(_mm256_shuffle_epi8(lo[j], v),                                   \
			 _mm256_shuffle_epi8(hi[j], _mm256_and_si256(_mm256_srli_epi16(v, 4), low)))
	while (s < f->limit && end - s >= 32 + CGFB_TEDDY_M - 1) {
		const __m256i v0 = _mm256_loadu_si256((const __m256i *)s);
		const __m256i v1 = _mm256_loadu_si256((const __m256i *)(s + 1));
		const __m256i v2 = _mm256_loadu_si256((const __m256i *)(s + 2));
		const __m256i v3 = _mm256_loadu_si256((const __m256i *)(s + 3));

		_mm_prefetch(s + PREFETCH, _MM_HINT_T0);
		const __m256i r = _mm256_and_si256(_mm256_and_si256(TEDDY_BYTE(v0, 0), TEDDY_BYTE(v1, 1)),
						   _mm256_and_si256(TEDDY_BYTE(v2, 2), TEDDY_BYTE(v3, 3)));
		unsigned m = ~(unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(r, zero));

		n_nl = _mm256_sub_epi8(n_nl, _mm256_cmpeq_epi8(v0, nl));
		n_nul = _mm256_sub_epi8(n_nul, _mm256_cmpeq_epi8(v0, zero));
		if (++rounds == ROUNDS || __builtin_expect(m != 0, 0)) {
			/* Byte-wide counts summed before they wrap, and before
			 * a candidate's check may end the loop. */
			add_counts(t, n_nl, n_nul);
			n_nl = n_nul = zero;
			rounds = 0;
		}
		if (__builtin_expect(m != 0, 0)) {
			uint8_t bytes[32];

			_mm256_storeu_si256((__m256i *)bytes, r);
			check_step(ms, p, end, s, bytes, m, f);
		}
		s += 32;
	}
#undef TEDDY_BYTE
	add_counts(t, n_nl, n_nul);
	return s;
}

/* The 64-position step of both AVX-512 ways, around TEDDY_BYTE(v, j): the
 * buckets that allow each byte of v at fingerprint position j. */
#define TEDDY_LOOP_64()                                                                    \
	while (s < f->limit && end - s >= 64 + CGFB_TEDDY_M - 1) {                         \
		const __m512i v0 = _mm512_loadu_si512((const void *)s);                    \
		const __m512i v1 = _mm512_loadu_si512((const void *)(s + 1));              \
		const __m512i v2 = _mm512_loadu_si512((const void *)(s + 2));              \
		const __m512i v3 = _mm512_loadu_si512((const void *)(s + 3));              \
                                                                                           \
		_mm_prefetch(s + PREFETCH, _MM_HINT_T0);                                    \
		_mm_prefetch(s + PREFETCH + 64, _MM_HINT_T0);                               \
		const __m512i r = _mm512_and_si512(                                         \
			_mm512_and_si512(TEDDY_BYTE(v0, 0), TEDDY_BYTE(v1, 1)),             \
			_mm512_and_si512(TEDDY_BYTE(v2, 2), TEDDY_BYTE(v3, 3)));            \
		const uint64_t m = _mm512_test_epi8_mask(r, r);                             \
                                                                                           \
		newlines += (uint64_t)__builtin_popcountll(_mm512_cmpeq_epi8_mask(v0, nl)); \
		nuls += (uint64_t)__builtin_popcountll(_mm512_testn_epi8_mask(v0, v0));     \
		if (__builtin_expect(m != 0, 0)) {                                          \
			uint8_t bytes[64];                                                  \
                                                                                           \
			_mm512_storeu_si512((void *)bytes, r);                              \
			check_step(ms, p, end, s, bytes, m, f);                             \
		}                                                                           \
		s += 64;                                                                    \
	}

/* The same, 64 positions per step, where the CPU has AVX-512BW: a
 * compare gives a mask of 64 bits, so counting is POPCNT. */
__attribute__((target("avx512f,avx512bw,popcnt")))
static const char *vector_part_512(const struct cgfb_mscan *ms, const char *p, const char *s,
				   const char *end, struct found *f, struct cgfb_mscan_tally *t)
{
	const struct cgfb_teddy *td = &ms->teddy;
	const __m512i low = _mm512_set1_epi8(0x0f), nl = _mm512_set1_epi8('\n');
	__m512i lo[CGFB_TEDDY_M], hi[CGFB_TEDDY_M];
	/* Counted in registers: adding to *t in the loop made the compiler
	 * keep the counts in memory, a chain of loads and stores that cost
	 * half the speed. */
	uint64_t newlines = 0, nuls = 0;

	for (size_t j = 0; j < CGFB_TEDDY_M; j++) {
		lo[j] = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)td->lo[j]));
		hi[j] = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)td->hi[j]));
	}
#define TEDDY_BYTE(v, j)                                                                  \
	_mm512_and_si512(_mm512_shuffle_epi8(lo[j], v),                                   \
			 _mm512_shuffle_epi8(hi[j], _mm512_and_si512(_mm512_srli_epi16(v, 4), low)))
	TEDDY_LOOP_64();
#undef TEDDY_BYTE
	t->newlines += newlines;
	t->nuls += nuls;
	return s;
}

/* 64 positions a step where the CPU has AVX-512 VBMI: VPERMT2B looks a
 * byte up in a table of 128 entries, so each fingerprint byte is matched
 * whole (its bucket's strings' bytes exactly, not every pairing of their
 * nibbles), in one instruction instead of five. A byte with its top bit
 * set reads as the ASCII one below it: a candidate to check, never a
 * miss. */
__attribute__((target("avx512f,avx512bw,avx512vbmi,popcnt")))
static const char *vector_part_vbmi(const struct cgfb_mscan *ms, const char *p, const char *s,
				    const char *end, struct found *f, struct cgfb_mscan_tally *t)
{
	const struct cgfb_teddy *td = &ms->teddy;
	const __m512i nl = _mm512_set1_epi8('\n');
	__m512i a[CGFB_TEDDY_M], b[CGFB_TEDDY_M];
	uint64_t newlines = 0, nuls = 0;

	for (size_t j = 0; j < CGFB_TEDDY_M; j++) {
		a[j] = _mm512_loadu_si512((const void *)td->byte[j]);
		b[j] = _mm512_loadu_si512((const void *)(td->byte[j] + 64));
	}
#define TEDDY_BYTE(v, j) _mm512_permutex2var_epi8(a[j], v, b[j])
	TEDDY_LOOP_64();
#undef TEDDY_BYTE
	t->newlines += newlines;
	t->nuls += nuls;
	return s;
}
#else
/* Elsewhere no step is vector: the byte-by-byte tail does it all (and
 * cgfb_teddy_init turns Teddy on only with AVX2 anyway). */
static const char *no_vector(const struct cgfb_mscan *ms, const char *p, const char *s,
			     const char *end, struct found *f, struct cgfb_mscan_tally *t)
{
	(void)ms;
	(void)p;
	(void)end;
	(void)f;
	(void)t;
	return s;
}
#define vector_part_512  no_vector
#define vector_part_vbmi no_vector
#define vector_part      no_vector
#endif

const char *cgfb_mscan_find_tally(const struct cgfb_mscan *ms, const char *p, const char *end,
				  size_t *which, struct cgfb_mscan_tally *tally)
{
	struct found f = { NULL, 0, end };
	struct cgfb_mscan_tally scratch = { 0, 0 };
	struct cgfb_mscan_tally *t = tally ? tally : &scratch;
	const char *s;

	if (p >= end)
		return NULL;
	/* Each part goes on where the one before stopped; a string found
	 * may start anywhere from p on. */
	if (ms->teddy.wide && ms->teddy.exact)
		s = vector_part_vbmi(ms, p, p, end, &f, t);
	else if (ms->teddy.wide)
		s = vector_part_512(ms, p, p, end, &f, t);
	else
		s = p;
	s = vector_part(ms, p, s, end, &f, t);
	for (; s < f.limit && end - s >= CGFB_TEDDY_M; s++) {
		const unsigned b = buckets_at(&ms->teddy, s);

		tally_bytes(t, s, s + 1);
		if (b)
			check(ms, p, end, s, b, &f);
	}
	/* Everything before s is counted: what lies between the string found
	 * and s was not passed over; nothing found, the last bytes, too
	 * short to start a fingerprint, were. */
	if (f.best)
		untally_bytes(t, f.best, s);
	else
		tally_bytes(t, s, end);
	if (f.best && which)
		*which = f.which;
	return f.best;
}
