#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/suggest.h"

#define NAME_MAX_LEN 40

/* Edits from a to b; the names are short, so a row of the table is
 * enough. SIZE_MAX for names too long to matter. */
static size_t distance(const char *a, const char *b)
{
	size_t row[NAME_MAX_LEN + 1], la = strlen(a), lb = strlen(b);

	if (la > NAME_MAX_LEN || lb > NAME_MAX_LEN)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			const size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

const char *cgfb_suggest(const char *word, const char *const *candidates, size_t n)
{
	const char *best = NULL;
	size_t best_d = 3;      /* more than two edits away is no suggestion */

	for (size_t i = 0; i < n; i++) {
		const size_t d = distance(word, candidates[i]);

		if (d < best_d) {
			best_d = d;
			best = candidates[i];
		} else if (!best && strlen(word) >= 2 &&
			   strncmp(candidates[i], word, strlen(word)) == 0) {
			best = candidates[i];
		}
	}
	return best;
}

const char *cgfb_suggest_words(const char *word, const char *words, char *out, size_t outsz)
{
	const char *names[64];
	char buf[1024], *save = NULL;
	size_t n = 0;
	const char *best;

	snprintf(buf, sizeof(buf), "%s", words);
	for (char *t = strtok_r(buf, " ", &save); t && n < 64; t = strtok_r(NULL, " ", &save))
		names[n++] = t;
	best = cgfb_suggest(word, names, n);
	if (!best)
		return NULL;
	snprintf(out, outsz, "%s", best);
	return out;
}
