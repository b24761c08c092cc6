/* Where a secret-looking finding is in the text it was found in, said two
 * ways: by position only (line, column, byte), for logs and standard error,
 * which must never carry the text itself (a journal keeps it, and flush
 * under consent = auto would repeat it every hour); and with a little of
 * the line around it, for the review, where the administrator decides about
 * each finding and has to see which one it is. */
#ifndef CGFB_WHERE_H
#define CGFB_WHERE_H

#include <stddef.h>

#include "cgfb/buf.h"
#include "privacy/redact.h"

/* Line and column of f in text, from 1; the column counts UTF-8
 * characters, as a terminal or an editor shows them. */
struct cgfb_where {
	size_t line;
	size_t column;
};

struct cgfb_where cgfb_finding_where(const char *text, const struct cgfb_finding *f);

/* Bytes of context shown on each side of a finding at most. */
#define CGFB_WHERE_CONTEXT 30

/* The finding's line, cut to CGFB_WHERE_CONTEXT bytes on each side (at a
 * character boundary, "..." where cut), the finding between ">>" and
 * "<<", appended to b. */
int cgfb_finding_context(struct cgfb_buf *b, const char *text, const struct cgfb_finding *f);

#endif
