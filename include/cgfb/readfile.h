/* Reading whole small files: /proc and sysfs report a size of 0, so these
 * read until end of file instead of trusting fstat. */
#ifndef CGFB_READFILE_H
#define CGFB_READFILE_H

#include <stddef.h>
#include <sys/types.h>

#include "cgfb/buf.h"

enum {
	CGFB_RF_APPEND = 1,     /* add to b instead of replacing its content */
	CGFB_RF_REGULAR = 2,    /* only a regular file (-EINVAL otherwise) */
	CGFB_RF_NOFOLLOW = 4,   /* not through a symbolic link (-ELOOP) */
};

/* The one whole-file reader: path's bytes into b (NUL-terminated), reading
 * until end of file whatever fstat says. -EFBIG past max bytes (b keeps
 * its old content), else 0 or a negative errno from open/read. Opened
 * non-blocking: a FIFO planted where a file should be reads as empty. */
int cgfb_read_file(const char *path, size_t max, unsigned flags, struct cgfb_buf *b);
/* The same for name in the directory open as dfd (AT_FDCWD: the path). */
int cgfb_read_file_at(int dfd, const char *name, size_t max, unsigned flags, struct cgfb_buf *b);
/* The same from fd, open already (CGFB_RF_NOFOLLOW means nothing here). */
int cgfb_read_fd(int fd, size_t max, unsigned flags, struct cgfb_buf *b);

/* Up to sz - 1 bytes of name in dirfd, NUL-terminated; returns the length
 * or a negative errno. Never blocks: a FIFO planted in a tree reads empty. */
ssize_t cgfb_read_at(int dirfd, const char *name, char *buf, size_t sz);

#endif
