/* Kernel records as reports from the field carry them: pasted into an
 * e-mail or a web form, quoted, indented, re-wrapped at 72 or 80 columns so
 * that one record spans several lines. Pure: no I/O. */
#ifndef CGFB_PASTE_H
#define CGFB_PASTE_H

#include <stdbool.h>
#include <stddef.h>

#include "cgfb/catalog.h"
#include "log/logfmt.h"
#include "log/record.h"

/* The most lines one re-wrapped record is joined from: the longest catalog
 * text (M9b, S1, about 200 bytes) after a time stamp spans 4 lines at 72
 * columns when the wrap falls badly. */
#define CGFB_PASTE_JOIN_MAX 4

/* Whether text is a catalog message other than a generic one (G1). */
bool cgfb_paste_is_specific(const struct cgfb_catalog *cat, const char *text, size_t len);

/* The record starting at the line at p, in a text format (DMESG, SYSLOG),
 * parsed with cgfb_logfmt_parse_line; with join, a record that is the head
 * of a re-wrapped catalog message is joined with the lines after it, when:
 *   - the record alone is no specific catalog message (two complete records
 *     are never merged),
 *   - each following line starts no record of its own (no time stamp),
 *   - and the joined text is a specific catalog message. Each break is
 *     tried as a space, and as nothing when it may have split a word.
 * The joined text goes to buf, which rec->text then points to.
 * Returns what cgfb_logfmt_parse_line returns, or -EAGAIN when a line after
 * p may be cut off by the end of the bytes (eof false): call again with
 * more. *next is where the next record starts and *lines how many lines
 * were used (>= 1) whatever the return value but -EAGAIN. A run of NULs
 * (a power cut's zeros) ends a line's record: what is before it is cut
 * short and skipped (0), and a record that starts after it (a time stamp,
 * a kmsg header) is the next one, on the same line (*lines 0), so that the
 * zeros do not swallow it. */
int cgfb_paste_record(const struct cgfb_catalog *cat, enum cgfb_logfmt fmt, bool join,
		      const char *p, const char *end, bool eof, char *buf, size_t bufsz,
		      struct cgfb_record *rec, const char **next, unsigned *lines);

#endif
