#include <string.h>

#include "cgfb/buf.h"
#include "cgfb/utf8.h"
#include "cgfb/wrap.h"

static int add_line(struct cgfb_buf *b, const char *indent, const char *s, size_t n)
{
	int rc = cgfb_buf_adds(b, indent);

	for (size_t k = 0; k < n && rc == 0; k++) {
		const char c = (unsigned char)s[k] < 0x20 || s[k] == 0x7f ? ' ' : s[k];

		rc = cgfb_buf_add(b, &c, 1);
	}
	/* Trailing white space is what transports strip: drop it here. */
	while (rc == 0 && b->len && b->data[b->len - 1] == ' ')
		b->data[--b->len] = '\0';
	return rc ? rc : cgfb_buf_add(b, "\n", 1);
}

/* One paragraph (no newlines). */
static int wrap_para(struct cgfb_buf *b, const char *indent, const char *s, size_t n,
		     size_t width)
{
	size_t i = 0;
	int rc = 0;

	while (i < n && rc == 0) {
		size_t cols = 0, j = i, brk = 0;

		while (j < n && cols < width) {
			if (s[j] == ' ')
				brk = j;
			j += cgfb_utf8_lead_len((unsigned char)s[j]);
			cols++;
		}
		if (j > n)
			j = n;
		if (j < n && brk > i && s[j] != ' ')
			j = brk;
		rc = add_line(b, indent, s + i, j - i);
		i = j;
		while (i < n && s[i] == ' ')
			i++;
	}
	return rc;
}

int cgfb_wrap(struct cgfb_buf *b, const char *indent, const char *s, unsigned width)
{
	const size_t iw = strlen(indent);
	const size_t w = width > iw + 8 ? width - iw : 8;
	const char *end = s + strlen(s);
	int rc = 0;

	while (rc == 0) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = (size_t)((nl ? nl : end) - s);

		if (n && s[n - 1] == '\r')
			n--;
		rc = n ? wrap_para(b, indent, s, n, w) : cgfb_buf_add(b, "\n", 1);
		if (!nl)
			break;
		s = nl + 1;
	}
	return rc;
}
