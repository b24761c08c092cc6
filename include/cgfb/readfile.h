/* Reading whole small files: /proc and sysfs report a size of 0, so these
 * read until end of file instead of trusting fstat. */
#ifndef CGFB_READFILE_H
#define CGFB_READFILE_H

#include <stddef.h>
#include <sys/types.h>

#include "cgfb/buf.h"

/* path's bytes into b (replacing its content, NUL-terminated). -EFBIG past
 * max bytes, else 0 or a negative errno from open/read. */
int cgfb_read_file(const char *path, size_t max, struct cgfb_buf *b);

/* Up to sz - 1 bytes of name in dirfd, NUL-terminated; returns the length
 * or a negative errno. Never blocks: a FIFO planted in a tree reads empty. */
ssize_t cgfb_read_at(int dirfd, const char *name, char *buf, size_t sz);

#endif
