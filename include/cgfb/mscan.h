/* Find the first occurrence of any of a set of fixed strings in a buffer.
 *
 * Two ways, chosen at init: where the CPU has AVX2 and every string is at
 * least CGFB_TEDDY_M bytes long, a vector prefilter (Hyperscan's "Teddy",
 * lib/mscan_teddy.c) looks at 32 positions per step; elsewhere Wu-Manber
 * with 2-byte blocks skips up to (shortest string - 1) bytes per step.
 * Either way lines that cannot match are never looked at byte by byte:
 * the scan of a text log runs at the speed of memory. */
#ifndef CGFB_MSCAN_H
#define CGFB_MSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CGFB_MSCAN_MAX 64
/* Bytes of each string that Teddy's fingerprint compares, and its buckets
 * (one bit each in a byte). */
#define CGFB_TEDDY_M       4
#define CGFB_TEDDY_BUCKETS 8

/* A set of fingerprints: for position j of the fingerprint, the buckets
 * whose strings may have a byte with that low (lo) or high (hi) nibble. */
struct cgfb_teddy {
	bool on;
	bool wide;                                /* 64 bytes a step (AVX-512BW) */
	bool exact;                               /* ... looked up by 7 bits (AVX-512 VBMI) */
	size_t kmax;                              /* largest offset */
	uint8_t lo[CGFB_TEDDY_M][16];
	uint8_t hi[CGFB_TEDDY_M][16];
	uint8_t byte[CGFB_TEDDY_M][128];          /* the same by whole ASCII byte */
	uint8_t off[CGFB_MSCAN_MAX];              /* where a string's fingerprint starts */
	uint8_t first[CGFB_TEDDY_BUCKETS];        /* string index + 1, 0 = none */
	uint8_t next[CGFB_MSCAN_MAX];             /* chain within a bucket, index + 1 */
};

struct cgfb_mscan {
	size_t n;
	size_t m;                        /* shortest literal */
	const char *lit[CGFB_MSCAN_MAX];
	size_t len[CGFB_MSCAN_MAX];
	uint8_t shift[65536];
	uint8_t bucket[65536];           /* first literal index + 1 ending the window, 0 = none */
	uint8_t next[CGFB_MSCAN_MAX];    /* chain of literals sharing a block, index + 1 */
	struct cgfb_teddy teddy;
};

/* Literals are not copied: they must outlive the scanner. Each must be at
 * least 2 bytes long. Returns 0, -EINVAL or -E2BIG. */
int cgfb_mscan_init(struct cgfb_mscan *ms, const char *const *lits, size_t n);
/* Start of the leftmost occurrence of any literal in [p, end), or NULL.
 * If which is not NULL it receives the literal's index. */
const char *cgfb_mscan_find(const struct cgfb_mscan *ms, const char *p, const char *end,
			    size_t *which);

/* What a search passed over, counted on its way: a scanner that needs the
 * line numbers need not read the bytes a second time. */
struct cgfb_mscan_tally {
	size_t newlines;
	size_t nuls;
};

/* Only where ms->teddy.on: as cgfb_mscan_find, and adds to t the newlines
 * and NUL bytes in [p, what it found), or in [p, end) when nothing. */
const char *cgfb_mscan_find_tally(const struct cgfb_mscan *ms, const char *p, const char *end,
				  size_t *which, struct cgfb_mscan_tally *t);

/* The two ways apart, for the tests and the benchmark: the scalar one
 * always works; Teddy only where cgfb_mscan_init turned it on. */
const char *cgfb_mscan_find_scalar(const struct cgfb_mscan *ms, const char *p, const char *end,
				   size_t *which);
void cgfb_teddy_init(struct cgfb_teddy *t, const char *const *lits, const size_t *lens, size_t n);

#endif
