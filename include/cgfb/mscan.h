/* Find the first occurrence of any of a set of fixed strings in a buffer.
 *
 * Wu-Manber with 2-byte blocks: the scan skips up to (shortest string - 1)
 * bytes per step, so lines that cannot match are never looked at byte by
 * byte. This is what lets the detector keep up with grep -F on big logs. */
#ifndef CGFB_MSCAN_H
#define CGFB_MSCAN_H

#include <stddef.h>
#include <stdint.h>

#define CGFB_MSCAN_MAX 64

struct cgfb_mscan {
	size_t n;
	size_t m;                        /* shortest literal */
	const char *lit[CGFB_MSCAN_MAX];
	size_t len[CGFB_MSCAN_MAX];
	uint8_t shift[65536];
	uint8_t bucket[65536];           /* first literal index + 1 ending the window, 0 = none */
	uint8_t next[CGFB_MSCAN_MAX];    /* chain of literals sharing a block, index + 1 */
};

/* Literals are not copied: they must outlive the scanner. Each must be at
 * least 2 bytes long. Returns 0, -EINVAL or -E2BIG. */
int cgfb_mscan_init(struct cgfb_mscan *ms, const char *const *lits, size_t n);
/* Start of the leftmost occurrence of any literal in [p, end), or NULL.
 * If which is not NULL it receives the literal's index. */
const char *cgfb_mscan_find(const struct cgfb_mscan *ms, const char *p, const char *end,
			    size_t *which);

#endif
