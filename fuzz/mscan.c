/* The multi-literal search (lib/mscan.c) that lets the scanner skip the
 * lines of a log that no catalog entry can match.
 *
 * Input: up to eight literals, each ended by a NUL byte (the first byte
 * says how many), then the text to search. Property: the search finds the
 * same leftmost occurrence as memmem over every literal, on the text as
 * it is and on the text repeated until it is long enough for the search's
 * interleaved lanes (from 2 KiB on), and from every start offset up to 64;
 * where the vector search (Teddy) is on, it counts the newlines and NULs
 * before what it found exactly, and the scalar search finds the same. */
#include <errno.h>

#include "cgfb/mscan.h"
#include "fuzz.h"

static struct cgfb_mscan ms;

static const char *naive(const char *const *lit, size_t n, const char *p, const char *end)
{
	const char *best = NULL;

	for (size_t i = 0; i < n; i++) {
		const char *h = memmem(p, (size_t)(end - p), lit[i], strlen(lit[i]));

		if (h && (!best || h < best))
			best = h;
	}
	return best;
}

static void check(size_t n, const char *const *lit, const char *p, const char *end)
{
	size_t which = SIZE_MAX;
	const char *got = cgfb_mscan_find(&ms, p, end, &which);
	const char *want = naive(lit, n, p, end);

	PROPERTY(got == want, "found at %td, memmem at %td (text of %td bytes)",
		 got ? got - p : -1, want ? want - p : -1, end - p);
	PROPERTY(cgfb_mscan_find_scalar(&ms, p, end, NULL) == want, "the scalar search differs");
	if (ms.teddy.on) {
		struct cgfb_mscan_tally t = { 0, 0 };
		size_t nl = 0, nul = 0;

		PROPERTY(cgfb_mscan_find_tally(&ms, p, end, NULL, &t) == want, "the tally differs");
		for (const char *q = p; q < (want ? want : end); q++) {
			nl += *q == '\n';
			nul += *q == '\0';
		}
		PROPERTY(t.newlines == nl && t.nuls == nul, "counted %zu newlines %zu NULs, not %zu %zu",
			 t.newlines, t.nuls, nl, nul);
	}
	if (got) {
		PROPERTY(which < n, "literal %zu of %zu", which, n);
		PROPERTY((size_t)(end - got) >= strlen(lit[which]) &&
			 memcmp(got, lit[which], strlen(lit[which])) == 0,
			 "literal %zu is not where it was found", which);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *lit[8];
	char *copy, *text, *big;
	size_t n = 0, want, tlen, blen;
	const char *p, *end;

	if (size < 1)
		return 0;
	want = (size_t)(data[0] % 8) + 1;
	copy = malloc(size);
	memcpy(copy, data + 1, size - 1);
	copy[size - 1] = '\0';
	p = copy;
	end = copy + size - 1;
	while (n < want && p < end) {
		const char *z = memchr(p, '\0', (size_t)(end - p));

		if (!z)
			break;
		if (z - p >= 2)
			lit[n++] = p;
		p = z + 1;
	}
	if (n == 0 || cgfb_mscan_init(&ms, lit, n) < 0) {
		free(copy);
		return 0;
	}
	tlen = (size_t)(end - p);
	text = malloc(tlen ? tlen : 1);
	memcpy(text, p, tlen);
	for (size_t off = 0; off <= tlen && off <= 64; off++)
		check(n, lit, text + off, text + tlen);
	if (tlen) {
		blen = 2048 + (size_t)data[0] * 64;
		blen -= blen % tlen;
		blen += tlen;
		big = malloc(blen);
		for (size_t o = 0; o < blen; o += tlen)
			memcpy(big + o, text, tlen);
		check(n, lit, big, big + blen);
		check(n, lit, big + 1, big + blen);
		free(big);
	}
	free(text);
	free(copy);
	return 0;
}
