#include <errno.h>
#include <string.h>

#include "cgfb/mscan.h"

static inline unsigned block_at(const char *p)
{
	return (unsigned)(unsigned char)p[0] << 8 | (unsigned char)p[1];
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
			const unsigned b = block_at(lits[i] + j - 1);
			const size_t s = m - 1 - j;

			if (s < ms->shift[b])
				ms->shift[b] = (uint8_t)s;
		}
		const unsigned last = block_at(lits[i] + m - 2);

		ms->next[i] = ms->bucket[last];
		ms->bucket[last] = (uint8_t)(i + 1);
	}
	return 0;
}

const char *cgfb_mscan_find(const struct cgfb_mscan *ms, const char *p, const char *end,
			    size_t *which)
{
	const size_t m = ms->m;

	if (p > end || (size_t)(end - p) < m)
		return NULL;
	/* w points at the last byte of the current m-byte window. */
	for (const char *w = p + m - 1; w < end;) {
		const unsigned b = block_at(w - 1);
		const unsigned s = ms->shift[b];

		if (s) {
			w += s;
			continue;
		}
		const char *start = w - (m - 1);

		for (unsigned k = ms->bucket[b]; k; k = ms->next[k - 1]) {
			const size_t i = k - 1;

			if ((size_t)(end - start) >= ms->len[i] &&
			    memcmp(start, ms->lit[i], ms->len[i]) == 0) {
				if (which)
					*which = i;
				return start;
			}
		}
		w++;
	}
	return NULL;
}
