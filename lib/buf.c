#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgfb/buf.h"

void cgfb_buf_free(struct cgfb_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

static int reserve(struct cgfb_buf *b, size_t extra)
{
	size_t cap = b->cap ? b->cap : 256;
	char *d;

	if (b->len + extra + 1 <= b->cap)
		return 0;
	while (cap < b->len + extra + 1) {
		if (cap > ((size_t)-1) / 2)
			return -ENOMEM;
		cap *= 2;
	}
	d = realloc(b->data, cap);
	if (!d)
		return -ENOMEM;
	b->data = d;
	b->cap = cap;
	return 0;
}

int cgfb_buf_add(struct cgfb_buf *b, const void *data, size_t len)
{
	const int rc = reserve(b, len);

	if (rc < 0)
		return rc;
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
	return 0;
}

int cgfb_buf_adds(struct cgfb_buf *b, const char *s)
{
	return cgfb_buf_add(b, s, strlen(s));
}

int cgfb_buf_vprintf(struct cgfb_buf *b, const char *fmt, va_list ap)
{
	va_list again;
	int n, rc;

	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	if (n < 0) {
		rc = -EINVAL;
		goto out;
	}
	rc = reserve(b, (size_t)n);
	if (rc < 0)
		goto out;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, again);
	b->len += (size_t)n;
out:
	va_end(again);
	return rc;
}

int cgfb_buf_printf(struct cgfb_buf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = cgfb_buf_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}
