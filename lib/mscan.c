#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "cgfb/mscan.h"

/* A long search runs as this many interleaved lanes, each over at most
 * LANE_MAX bytes of window ends. One Wu-Manber step is a chain of dependent
 * loads (window bytes, then the shift table) and the CPU waits on it; lanes
 * are independent chains, so it works on all of them at once. Below
 * LANES * LANE_MIN bytes (one record of text) a single lane does. */
#define LANES    4
#define LANE_MAX (16u << 10)
#define LANE_MIN 512u

/* The two bytes ending at p, as one load. The order of the bytes in the
 * index is the machine's, the same in init and find. */
static inline unsigned block_at(const char *p)
{
	uint16_t v;

	memcpy(&v, p - 1, sizeof(v));
	return v;
}

int cgfb_mscan_init(struct cgfb_mscan *ms, const char *const *lits, size_t n)
{
	size_t m = SIZE_MAX;

	if (n == 0)
		return -EINVAL;
	if (n > CGFB_MSCAN_MAX)
		return -E2BIG;
	memset(ms, 0, sizeof(*ms));
	for (size_t i = 0; i < n; i++) {
		const size_t len = strlen(lits[i]);

		if (len < 2)
			return -EINVAL;
		ms->lit[i] = lits[i];
		ms->len[i] = len;
		if (len < m)
			m = len;
	}
	/* A shift is stored in a byte; past 256 the gain is nil anyway. */
	if (m > 256)
		m = 256;
	ms->n = n;
	ms->m = m;
	memset(ms->shift, (int)(m - 1), sizeof(ms->shift));
	for (size_t i = 0; i < n; i++) {
		/* Only the first m bytes of each literal take part in shifting,
		 * so every literal can be found with a window of m bytes. */
		for (size_t j = 1; j < m; j++) {
			const unsigned b = block_at(lits[i] + j);
			const size_t s = m - 1 - j;

			if (s < ms->shift[b])
				ms->shift[b] = (uint8_t)s;
		}
		const unsigned last = block_at(lits[i] + m - 1);

		ms->next[i] = ms->bucket[last];
		ms->bucket[last] = (uint8_t)(i + 1);
	}
	cgfb_teddy_init(&ms->teddy, ms->lit, ms->len, n);
	return 0;
}

/* The window ending at w has a shift of 0: compare the literals whose
 * first m bytes end with its block. Out of line: it is the rare case, but
 * in English text not that rare (a few windows in a hundred), and most are
 * near misses that the first byte tells apart without a call to memcmp. */
static const char *__attribute__((noinline))
try_window(const struct cgfb_mscan *ms, const char *w, const char *end, size_t *which)
{
	const char *start = w - (ms->m - 1);

	for (unsigned k = ms->bucket[block_at(w)]; k; k = ms->next[k - 1]) {
		const size_t i = k - 1;

		if (start[0] == ms->lit[i][0] && (size_t)(end - start) >= ms->len[i] &&
		    memcmp(start, ms->lit[i], ms->len[i]) == 0) {
			if (which)
				*which = i;
			return start;
		}
	}
	return NULL;
}

/* The leftmost literal whose window ends in [w, stop); literals may run on
 * up to end. */
static const char *one_lane(const struct cgfb_mscan *ms, const char *w, const char *stop,
			    const char *end, size_t *which)
{
	while (w < stop) {
		const unsigned s = ms->shift[block_at(w)];
		const char *hit;

		if (s) {
			w += s;
			continue;
		}
		hit = try_window(ms, w, end, which);
		if (hit)
			return hit;
		w++;
	}
	return NULL;
}

/* One step of a lane inside the interleaved loop: false when it found a
 * literal (the lane stops there, to be finished in order). */
static inline bool lane_step(const struct cgfb_mscan *ms, const char **w, const char *end)
{
	unsigned s = ms->shift[block_at(*w)];

	if (__builtin_expect(s == 0, 0)) {
		if (try_window(ms, *w, end, NULL))
			return false;
		s = 1;
	}
	*w += s;
	return true;
}

const char *cgfb_mscan_find_scalar(const struct cgfb_mscan *ms, const char *p, const char *end,
				   size_t *which)
{
	const size_t m = ms->m;
	const char *w0;

	if (p > end || (size_t)(end - p) < m)
		return NULL;
	/* w0 is the last byte of the first m-byte window. */
	w0 = p + m - 1;
	while ((size_t)(end - w0) >= LANES * LANE_MIN) {
		const size_t left = (size_t)(end - w0) / LANES;
		const size_t lane = left < LANE_MAX ? left : LANE_MAX;
		const char *w[LANES], *stop[LANES];
		const char *hit;

		for (unsigned k = 0; k < LANES; k++) {
			w[k] = w0 + k * lane;
			stop[k] = w[k] + lane;
		}
		_Static_assert(LANES == 4, "the loop below steps four lanes");
		/* Until a lane reaches its end or a literal. A lane runs past
		 * its end by less than m: the next lane covers those windows. */
		while (lane_step(ms, &w[0], end) & lane_step(ms, &w[1], end) &
		       lane_step(ms, &w[2], end) & lane_step(ms, &w[3], end) &&
		       w[0] < stop[0] && w[1] < stop[1] && w[2] < stop[2] && w[3] < stop[3])
			;
		/* The lanes in order, each from where it stopped: the first
		 * literal found is the leftmost one. */
		for (unsigned k = 0; k < LANES; k++) {
			hit = one_lane(ms, w[k], stop[k], end, which);
			if (hit)
				return hit;
		}
		w0 += LANES * lane;
	}
	return one_lane(ms, w0, end, end, which);
}

const char *cgfb_mscan_find(const struct cgfb_mscan *ms, const char *p, const char *end,
			    size_t *which)
{
	if (ms->teddy.on)
		return cgfb_mscan_find_tally(ms, p, end, which, NULL);
	return cgfb_mscan_find_scalar(ms, p, end, which);
}
