/* Free text as the secret scan reads it: what a reader sees, not how it
 * is encoded. Invisible characters (every format character, general
 * category Cf: zero-width space, joiners, word joiner, soft hyphen, BOM...;
 * the other default-ignorable code points; combining marks on their own)
 * are dropped; every code point is folded by NFKC (full-width, circled,
 * mathematical letters and digits); what NFKC leaves outside ASCII is
 * replaced by its confusable skeleton (Unicode TS #39) when that is ASCII
 * (Cyrillic 'а', Greek 'ο' -> 'a', 'o'). Then the usual ways of defanging
 * an address are undone: "[.]", "(.)", "[dot]", "[at]", "hxxp", and " dot "
 * or " at " between the parts of an address. ICU does the Unicode part
 * (libicu: unorm2, u_charType, uspoof). */
#ifndef CGFB_NORMALISE_H
#define CGFB_NORMALISE_H

#include <stddef.h>

/* The normalised text, and for each of its bytes the offset of the
 * original byte it came from, plus one entry for the end (at[len] is the
 * original length). A byte of an expansion ("㎏" -> "kg") maps to the start
 * of the code point it came from. */
struct cgfb_normal {
	char *text;
	size_t *at;
	size_t len;
};

/* 0, or -ENOMEM (nothing to free then). */
int cgfb_normalise(const char *text, struct cgfb_normal *out);
void cgfb_normal_free(struct cgfb_normal *n);

#endif
