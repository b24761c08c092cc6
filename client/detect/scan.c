#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__AVX2__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "log/journal_export.h"
#include "detect/scan.h"

/* Streams are read in chunks of this size; a line longer than the largest
 * buffer is split (the kernel never prints one: records are < 1 KiB). */
#define CHUNK     (1u << 20)
#define CHUNK_MAX (16u << 20)

struct scanner {
	const struct cgfb_catalog *cat;
	struct cgfb_detector *det;
	struct cgfb_scan_stats *st;
	bool fmt_known;
	/* Catalog needles plus the WARN block marker: the only places where
	 * a text-format log needs to be parsed. */
	struct cgfb_mscan anchors;
	const char *lits[CGFB_MSCAN_MAX];
	char text[CGFB_RECORD_TEXT_MAX];
};

/* Counting newlines runs over every byte of a text log, so it must keep up
 * with memory. Matches are summed as bytes in vector lanes (a compare gives
 * 0 or -1 per byte, subtracted from the lanes) and the lanes are added up
 * before any can wrap. No popcount: baseline x86-64 has no POPCNT, and the
 * libgcc call it turns into costs more than the whole loop. */
#define NL_ROUNDS 255   /* additions before a byte lane could wrap */

#ifdef __AVX2__
static size_t count_nl_avx2(const char **pp, const char *end)
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
#endif

#ifdef __SSE2__
static size_t count_nl_sse2(const char **pp, const char *end)
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
#else
/* Other architectures: eight bytes at a time in a plain integer. A byte of
 * x ^ "\n\n\n..." is zero exactly where a newline is; the high bit of each
 * byte of t is then clear only there (no carries cross bytes: every byte
 * is at most 0x7f + 0x7f). */
static size_t count_nl_word(const char **pp, const char *end)
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
#endif

static size_t count_newlines(const char *p, const char *end)
{
	size_t n = 0;

#ifdef __AVX2__
	n += count_nl_avx2(&p, end);
#endif
#ifdef __SSE2__
	n += count_nl_sse2(&p, end);
#else
	n += count_nl_word(&p, end);
#endif
	for (; p < end; p++)
		n += *p == '\n';
	return n;
}

static void count_detection(const struct cgfb_detection *d, void *arg)
{
	(void)d;
	(void)arg;
}

struct relay {
	cgfb_detect_fn fn;
	void *arg;
	struct cgfb_scan_stats *st;
};

static void relay_detection(const struct cgfb_detection *d, void *arg)
{
	struct relay *r = arg;

	r->st->detections++;
	r->fn(d, r->arg);
}

static int scanner_init(struct scanner *s, const struct cgfb_catalog *cat, struct relay *r)
{
	size_t n = 0;
	int rc;

	memset(s, 0, sizeof(*s));
	s->cat = cat;
	s->st = r->st;
	/* The catalog refuses more needles than leave room for the anchors. */
	for (; n < cat->n_needles; n++)
		s->lits[n] = cat->needles[n];
	s->lits[n++] = CGFB_WARN_CUT_HERE;
	s->lits[n++] = CGFB_BOOT_BANNER;
	rc = cgfb_mscan_init(&s->anchors, s->lits, n);
	if (rc < 0)
		return rc;
	return cgfb_detector_new(cat, relay_detection, r, &s->det);
}

static void one_line(struct scanner *s, const char *line, size_t len, unsigned long lineno)
{
	struct cgfb_record rec;
	const int rc = cgfb_logfmt_parse_line(s->st->fmt, line, len, s->text, sizeof(s->text),
					      &rec);

	if (rc < 0) {
		s->st->malformed++;
		return;
	}
	if (rc == 0)
		return;
	rec.line = lineno;
	cgfb_detector_feed(s->det, &rec);
}

static void journal_record(const struct cgfb_record *rec, void *arg)
{
	struct scanner *s = arg;

	cgfb_detector_feed(s->det, rec);
}

/* Every line parsed: formats where records carry state (kmsg sequence
 * numbers, fragments) and the inside of WARN blocks. Returns the new p. */
static const char *line_mode(struct scanner *s, const char *p, const char *end, bool eof,
			     bool just_one)
{
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;

		if (!nl && !eof)
			break;
		s->st->lines++;
		one_line(s, p, (size_t)(e - p), s->st->lines);
		p = nl ? nl + 1 : end;
		if (just_one)
			break;
	}
	return p;
}

/* Text formats: jump from one needle to the next, parse only the lines that
 * hold one, count the lines in between.
 *
 * The search goes over the log a chunk of whole lines at a time, and the
 * lines of a chunk are counted right after it, while the search has just
 * brought them into the cache: counting them after the next needle, which
 * may be megabytes away, would read them from memory a second time. */
#define SKIP_CHUNK (256u << 10)

static const char *skip_mode(struct scanner *s, const char *p, const char *end, bool eof)
{
	const char *limit = end;
	size_t longest = 0;

	for (size_t i = 0; i < s->anchors.n; i++)
		if (s->anchors.len[i] > longest)
			longest = s->anchors.len[i];
	if (!eof) {
		const char *last = memrchr(p, '\n', (size_t)(end - p));

		limit = last ? last + 1 : p;
	}
	/* p is always at the start of a line. */
	while (p < limit) {
		if (cgfb_detector_in_block(s->det)) {
			p = line_mode(s, p, limit, true, true);
			continue;
		}
		const char *chunk_end = limit, *search_end = limit;

		if ((size_t)(limit - p) > SKIP_CHUNK + longest) {
			const char *nl = memrchr(p, '\n', SKIP_CHUNK);

			/* A needle that starts in the chunk may end after it. */
			if (nl) {
				chunk_end = nl + 1;
				search_end = chunk_end + longest - 1;
			}
		}
		const char *hit = cgfb_mscan_find(&s->anchors, p, search_end, NULL);

		if (!hit || hit >= chunk_end) {
			s->st->lines += count_newlines(p, chunk_end);
			if (chunk_end < limit) {
				p = chunk_end;
				continue;
			}
			if (eof && limit > p && limit[-1] != '\n')
				s->st->lines++;
			return limit;
		}
		const char *ls = memrchr(p, '\n', (size_t)(hit - p));

		ls = ls ? ls + 1 : p;
		s->st->lines += count_newlines(p, ls);
		p = line_mode(s, ls, limit, true, true);
	}
	return p;
}

/* Returns the bytes consumed from buf. */
static size_t scanner_feed(struct scanner *s, const char *buf, size_t len, bool eof)
{
	const char *end = buf + len;

	if (!s->fmt_known) {
		s->st->fmt = cgfb_logfmt_detect(buf, len);
		s->fmt_known = true;
	}
	switch (s->st->fmt) {
	case CGFB_FMT_JOURNAL_EXPORT: {
		const long n = cgfb_journal_export_parse(buf, len, eof, &s->st->lines,
							 journal_record, s);
		if (n < 0) {
			s->st->truncated = true;
			return len;
		}
		return (size_t)n;
	}
	case CGFB_FMT_KMSG:
		return (size_t)(line_mode(s, buf, end, eof, false) - buf);
	case CGFB_FMT_DMESG:
	case CGFB_FMT_SYSLOG:
		break;
	}
	return (size_t)(skip_mode(s, buf, end, eof) - buf);
}

static int scan_with(const struct cgfb_catalog *cat, cgfb_detect_fn fn, void *arg,
		     struct cgfb_scan_stats *st,
		     int (*body)(struct scanner *s, void *ctx), void *ctx)
{
	struct relay r = { fn ? fn : count_detection, arg, st };
	struct scanner *s = malloc(sizeof(*s));
	int rc;

	memset(st, 0, sizeof(*st));
	if (!s)
		return -ENOMEM;
	rc = scanner_init(s, cat, &r);
	if (rc == 0) {
		rc = body(s, ctx);
		cgfb_detector_finish(s->det);
	}
	cgfb_detector_free(s->det);
	free(s);
	return rc;
}

struct membuf {
	const char *buf;
	size_t len;
};

static int body_buffer(struct scanner *s, void *ctx)
{
	const struct membuf *m = ctx;

	scanner_feed(s, m->buf, m->len, true);
	return 0;
}

int cgfb_scan_buffer(const char *buf, size_t len, const struct cgfb_catalog *cat,
		     cgfb_detect_fn fn, void *arg, struct cgfb_scan_stats *st)
{
	struct membuf m = { buf, len };

	return scan_with(cat, fn, arg, st, body_buffer, &m);
}

static ssize_t read_some(int fd, char *buf, size_t len)
{
	ssize_t r;

	do
		r = read(fd, buf, len);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r;
}

/* A buffer full of one line: pass the head on as a line of its own. */
static size_t split_long_line(struct scanner *s, const char *buf, size_t len)
{
	s->st->long_lines++;
	s->st->lines++;
	one_line(s, buf, len, s->st->lines);
	/* The rest of the line must not count as a new line. */
	s->st->lines--;
	return len;
}

static int body_stream(struct scanner *s, void *ctx)
{
	const int fd = *(const int *)ctx;
	size_t cap = CHUNK, have = 0;
	char *buf = malloc(cap);
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		const ssize_t r = have < cap ? read_some(fd, buf + have, cap - have) : 0;
		const bool eof = r == 0 && have < cap;

		if (r < 0) {
			rc = (int)r;
			scanner_feed(s, buf, have, true);
			break;
		}
		have += (size_t)r;
		size_t used = scanner_feed(s, buf, have, eof);

		if (eof)
			break;
		if (used == 0 && have == cap) {
			char *bigger = cap < CHUNK_MAX ? realloc(buf, cap * 2) : NULL;

			if (bigger) {
				buf = bigger;
				cap *= 2;
				continue;
			}
			used = s->st->fmt == CGFB_FMT_JOURNAL_EXPORT ? have
					   : split_long_line(s, buf, have);
		}
		memmove(buf, buf + used, have - used);
		have -= used;
	}
	free(buf);
	return rc;
}

static int body_mapped(struct scanner *s, void *ctx)
{
	const struct membuf *m = ctx;

	madvise((void *)m->buf, m->len, MADV_SEQUENTIAL);
	scanner_feed(s, m->buf, m->len, true);
	return 0;
}

int cgfb_scan_fd(int fd, const struct cgfb_catalog *cat, cgfb_detect_fn fn, void *arg,
		 struct cgfb_scan_stats *st)
{
	struct stat sb;
	struct membuf m;
	int rc;

	if (fstat(fd, &sb) < 0)
		return -errno;
	/* /proc and /sys files claim a size of 0 or 4096: read those. */
	if (!S_ISREG(sb.st_mode) || sb.st_size <= 0)
		return scan_with(cat, fn, arg, st, body_stream, &fd);
	m.len = (size_t)sb.st_size;
	m.buf = mmap(NULL, m.len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m.buf == MAP_FAILED)
		return scan_with(cat, fn, arg, st, body_stream, &fd);
	rc = scan_with(cat, fn, arg, st, body_mapped, &m);
	munmap((void *)m.buf, m.len);
	return rc;
}
