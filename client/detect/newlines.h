/* Counting newlines: the line numbers of a text log, over every byte, so it
 * must keep up with memory. Three ways, chosen at run time: AVX2 where the
 * CPU has it, SSE2 on any x86-64, eight bytes in a word elsewhere; all are
 * built on x86-64 so that the unit tests compare them. */
#ifndef CGFB_NEWLINES_H
#define CGFB_NEWLINES_H

#include <stddef.h>

/* The newlines in [p, end). */
size_t cgfb_count_newlines(const char *p, const char *end);

/* Each counts whole blocks from *pp (32, 64 and 8 bytes), advances *pp past
 * them and leaves the tail for the caller. The AVX2 one only on a CPU that
 * has AVX2. */
size_t cgfb_count_nl_word(const char **pp, const char *end);
#if defined(__x86_64__) || defined(__i386__)
size_t cgfb_count_nl_sse2(const char **pp, const char *end);
size_t cgfb_count_nl_avx2(const char **pp, const char *end);
#endif

#endif
