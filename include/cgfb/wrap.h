/* Word-wrapping text for plain-text mail and digests. */
#ifndef CGFB_WRAP_H
#define CGFB_WRAP_H

#include "cgfb/canon.h"

/* Append s to b wrapped at width columns (UTF-8 characters), every line
 * starting with indent and ending in LF. A newline in s that an editor
 * made (after a line of 40 bytes or more, before a line that is neither
 * indented nor a list item) joins the lines into one paragraph; other
 * newlines start new lines. Other control characters become spaces, so text from a report can
 * neither end a mail header block nor hide anything from the reader.
 * Words longer than a line are cut. Returns 0 or -ENOMEM. */
int cgfb_wrap(struct cgfb_buf *b, const char *indent, const char *s, unsigned width);

#endif
