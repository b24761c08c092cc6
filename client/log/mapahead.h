/* Windows on a file mapped, and unmapped, by a thread of its own while
 * the caller reads the window before: setting up and tearing down the
 * page tables of a 4 MiB window costs about as much as scanning it (on a
 * VM, 0.6 us a page), and the machine has a second CPU for it. The caller
 * says where its next window will most likely start; when it asks for a
 * window the one prepared holds, it gets it, mapped already, and
 * otherwise maps one itself. */
#ifndef CGFB_MAPAHEAD_H
#define CGFB_MAPAHEAD_H

#include <stdbool.h>
#include <sys/types.h>

#include "log/mapwin.h"

struct cgfb_mapahead;

/* 0, or -errno (no thread: the caller maps its windows itself). */
int cgfb_mapahead_new(int fd, struct cgfb_mapahead **out);
/* Map [off, off + len) in the background, instead of what was prepared
 * and not taken. */
void cgfb_mapahead_prepare(struct cgfb_mapahead *a, off_t off, size_t len);
/* The prepared window, when it holds [off, off + len) and could be mapped
 * (waiting for it if need be): moved into *w, true. False, and what was
 * prepared is dropped, when it does not. */
bool cgfb_mapahead_take(struct cgfb_mapahead *a, off_t off, size_t len, struct cgfb_mapwin *w);
/* Unmap w in the background (w is emptied). */
void cgfb_mapahead_release(struct cgfb_mapahead *a, struct cgfb_mapwin *w);
/* Stop the thread, unmapping all it still holds. */
void cgfb_mapahead_free(struct cgfb_mapahead *a);

#endif
