/* "Did you mean": the nearest of a few known names to a word typed wrong
 * (a command, an option, a configuration key). */
#ifndef CGFB_SUGGEST_H
#define CGFB_SUGGEST_H

#include <stddef.h>

/* The candidate nearest to word, at most two edits away (insert, delete,
 * substitute) or starting with it (two letters or more); NULL when none
 * is near. candidates[i] for i < n. */
const char *cgfb_suggest(const char *word, const char *const *candidates, size_t n);

/* The same over a space-separated list of names; the name is copied into
 * out (outsz bytes). NULL when none is near. */
const char *cgfb_suggest_words(const char *word, const char *words, char *out, size_t outsz);

#endif
