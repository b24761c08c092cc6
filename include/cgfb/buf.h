/* A growable byte buffer. The content is always NUL-terminated so it can be
 * used as a C string. Its own header, so that a user of buffers does not
 * pull in json-c or a crypto library. */
#ifndef CGFB_BUF_H
#define CGFB_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct cgfb_buf {
	char *data;
	size_t len;
	size_t cap;
};

void cgfb_buf_free(struct cgfb_buf *b);

/* 0 or -ENOMEM; on failure the buffer keeps its old content. */
int cgfb_buf_add(struct cgfb_buf *b, const void *data, size_t len);
int cgfb_buf_adds(struct cgfb_buf *b, const char *s);
int cgfb_buf_printf(struct cgfb_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cgfb_buf_vprintf(struct cgfb_buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#endif
