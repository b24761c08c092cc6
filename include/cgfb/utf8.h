/* UTF-8 validation and repair for bytes that came from the kernel log. */
#ifndef CGFB_UTF8_H
#define CGFB_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

bool cgfb_utf8_valid(const char *s, size_t len);
/* Bytes of the sequence a lead byte starts (1 for ASCII and stray bytes):
 * for stepping over text already known to be valid, e.g. when wrapping. */
size_t cgfb_utf8_lead_len(unsigned char c);
/* Copy src to dst (NUL-terminated, at most dstsz-1 bytes), replacing every
 * byte that is not part of a valid UTF-8 sequence, and every C0 control but
 * tab, by U+FFFD. Never splits a sequence. Returns the length written. */
size_t cgfb_utf8_sanitize(char *dst, size_t dstsz, const char *src, size_t len);

/* src as a log line may show it: valid UTF-8 text as it is, but every
 * control character (C0, DEL, C1), backslash and byte that is not UTF-8 as
 * \xNN, so that no client-supplied byte can start a line of its own or
 * talk to a terminal. NUL-terminated, never a split sequence. */
size_t cgfb_utf8_escape(char *dst, size_t dstsz, const char *src, size_t len);

/* Free text a person gives (use case, answers, a message) may hold newline
 * and tab but no other C0 control, no DEL, no C1 control and no bidi
 * control (U+202A-U+202E, U+2066-U+2069), as the report schema's "text"
 * says: a NUL hides what follows wherever the text is a C string, ESC, CR
 * and U+009B (CSI) rewrite a terminal, a bidi override makes text read
 * otherwise than it is. Returns the offset of the first such byte, or -1. */
ssize_t cgfb_text_control(const char *s, size_t len);

#endif
