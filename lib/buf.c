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

int cgfb_buf_printf(struct cgfb_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	rc = reserve(b, (size_t)n);
	if (rc < 0)
		return rc;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}
