/* Bytes as lower-case hex: hashes, tokens, ids. Its own file, without
 * libcrypto, so that the watcher may use it too. */
#ifndef CGFB_HEX_H
#define CGFB_HEX_H

#include <stddef.h>

/* n bytes of b as 2n hex digits and a NUL in out. */
void cgfb_hex(const void *b, size_t n, char *out);
/* The first 2n characters of h, lower-case hex digits (as cgfb_hex
 * writes them), as n bytes into out: 0, or -EINVAL when one is not. */
int cgfb_unhex(const char *h, void *out, size_t n);

#endif
