/* A read-only window on a regular file, for reading a saved log without
 * copying it (read(2) copies every byte once more than the scan needs).
 *
 * The hazard of mapping a file is that it may shrink while it is read
 * (logrotate's copytruncate does exactly that to the logs this reads): a
 * page past the new end raises SIGBUS. Between cgfb_mapwin_guard and
 * cgfb_mapwin_unguard a handler owns SIGBUS: for a fault inside a mapped
 * window it replaces the pages from the faulting one to the window's end
 * with zeros, so the access completes, and the window remembers that the
 * file shrank; the caller then stops and says so. A SIGBUS anywhere else
 * takes its default action. Windows may be mapped and unmapped by another
 * thread than the one reading them (log/mapahead.h); one guard at a time
 * per process, and at most CGFB_MAPWIN_LIVE windows mapped at once. */
#ifndef CGFB_MAPWIN_H
#define CGFB_MAPWIN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define CGFB_MAPWIN_LIVE 6

struct cgfb_mapwin {
	const char *base;       /* the bytes at offset off */
	size_t len;
	off_t off;
	char *map;              /* page-aligned mapping */
	size_t map_len;
	int slot;               /* in the handler's table */
};

/* Install the handler (saving the one before), and restore it. */
void cgfb_mapwin_guard(void);
void cgfb_mapwin_unguard(void);
/* Map [off, off + len) of fd, its pages mapped in at once; len > 0, and
 * within the file's size when called. 0, -EBUSY with every slot taken,
 * or -errno as mmap's. */
int cgfb_mapwin_map(struct cgfb_mapwin *w, int fd, off_t off, size_t len);
/* Whether the file shrank under the window since it was mapped: its
 * bytes from the first missing page on read as zeros. */
bool cgfb_mapwin_shrunk(const struct cgfb_mapwin *w);
void cgfb_mapwin_unmap(struct cgfb_mapwin *w);

#endif
