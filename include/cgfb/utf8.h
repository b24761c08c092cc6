/* UTF-8: validation, and the one escape of every byte another party
 * controls before a terminal, a log or a JSON document shows it. */
#ifndef CGFB_UTF8_H
#define CGFB_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

bool cgfb_utf8_valid(const char *s, size_t len);
/* Bytes of the sequence a lead byte starts (1 for ASCII and stray bytes):
 * for stepping over text already known to be valid, e.g. when wrapping. */
size_t cgfb_utf8_lead_len(unsigned char c);

/* The escape. Bytes that a cgroup's creator, a process, a file, a
 * collector or a log chose are shown by it, and by nothing else, wherever
 * they reach root's terminal, a log or a JSON document: valid UTF-8 text
 * as it is, but
 *   - every byte that is not part of valid UTF-8 (stray, overlong,
 *     surrogate, truncated) and every C0 control and DEL as \xNN;
 *   - the backslash as \\ (so that the escape reads back one way only);
 *   - C1 controls (U+0080-U+009F: U+009B is a terminal's CSI), the bidi
 *     controls and marks, the invisible format controls, the line and
 *     paragraph separators and the tag characters (the list is in
 *     lib/utf8.c) as \uXXXX, or \UXXXXXXXX beyond U+FFFF.
 * U+009B written in UTF-8 is "\u009b", the raw byte 0x9b "\x9b". The
 * result is valid UTF-8 that holds no control character (in
 * CGFB_ESC_TEXT mode none but newline and tab), and reads back to the
 * exact bytes given. CGFB_ESC_TEXT is for free text of many lines (a
 * draft, a use case); CGFB_ESC_LINE for everything else (a name, a path,
 * an error, a log line), where newline and tab are escaped too. */
enum cgfb_esc { CGFB_ESC_LINE, CGFB_ESC_TEXT };

/* What dst needs to hold the escape of len bytes whole: no byte becomes
 * more than four. */
#define CGFB_ESC_SIZE(len) ((len) * 4 + 1)

/* src escaped into dst, NUL-terminated; stops before an escape or a
 * sequence that does not fit whole. Returns the length written. */
size_t cgfb_utf8_escape_as(char *dst, size_t dstsz, const char *src, size_t len,
			   enum cgfb_esc mode);
/* CGFB_ESC_LINE. */
size_t cgfb_utf8_escape(char *dst, size_t dstsz, const char *src, size_t len);
/* s escaped, malloc'd; NULL for NULL or out of memory. */
char *cgfb_utf8_escape_dup(const char *s, enum cgfb_esc mode);
/* len bytes of s escaped onto f, whatever their length. 0 or -EIO. */
int cgfb_utf8_escape_put(FILE *f, const char *s, size_t len, enum cgfb_esc mode);

/* Free text a person gives (use case, answers, a message) may hold newline
 * and tab but no other C0 control, no DEL, no C1 control and no bidi
 * control (Bidi_Control: U+061C, U+200E, U+200F, U+202A-U+202E,
 * U+2066-U+2069), as the report schema's "text" says (the collector
 * checks the same pattern; test_schema proves the two refuse the same
 * code points): a NUL hides what follows wherever
 * the text is a C string, ESC, CR and U+009B (CSI) rewrite a terminal, a
 * bidi override makes text read otherwise than it is. The other code
 * points the escape shows escaped (a zero width joiner, a soft hyphen) are
 * text the schema allows; they are escaped when shown. Returns the offset
 * of the first refused byte, or -1. */
ssize_t cgfb_text_control(const char *s, size_t len);

#endif
