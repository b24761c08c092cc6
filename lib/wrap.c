#include <stdbool.h>
#include <string.h>

#include "cgfb/buf.h"
#include "cgfb/utf8.h"
#include "cgfb/wrap.h"

/* A line this long (bytes) was probably wrapped by an editor, not ended
 * by its writer. */
#define SOFT_BREAK_MIN 40

static int add_line(struct cgfb_buf *b, const char *indent, const char *s, size_t n)
{
	int rc = cgfb_buf_adds(b, indent);
	const size_t at = b->len;

	/* The line whole, then its controls made spaces in place: a byte at
	 * a time made the digest's 250 MB of use cases take 20 s. */
	if (rc == 0)
		rc = cgfb_buf_add(b, s, n);
	for (size_t k = at; rc == 0 && k < b->len; k++)
		if ((unsigned char)b->data[k] < 0x20 || b->data[k] == 0x7f)
			b->data[k] = ' ';
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

/* A line of a list or an indented line starts a line of its own. */
static bool starts_block(const char *s, size_t n)
{
	size_t d = 0;

	if (!n || s[0] == ' ' || s[0] == '\t' || s[0] == '>')
		return true;
	if (n >= 2 && strchr("-*+", s[0]) && s[1] == ' ')
		return true;
	while (d < n && d < 3 && s[d] >= '0' && s[d] <= '9')
		d++;
	return d && d + 1 < n && (s[d] == '.' || s[d] == ')') && s[d + 1] == ' ';
}

/* A break the writer did not mean: an editor or a mail client wrapped a
 * long line. Kept are breaks after a short line ("Thanks,") and before a
 * list item or an indented line. Joining them before wrapping again is
 * what keeps a single word from sitting alone on every other line. */
static bool soft_break(size_t prev_len, const char *next, size_t next_len)
{
	return prev_len >= SOFT_BREAK_MIN && !starts_block(next, next_len);
}

/* The line at s (up to a newline or end), its length without a CR. */
static size_t line_len(const char *s, const char *end, const char **nl)
{
	size_t n;

	*nl = memchr(s, '\n', (size_t)(end - s));
	n = (size_t)((*nl ? *nl : end) - s);
	if (n && s[n - 1] == '\r')
		n--;
	return n;
}

int cgfb_wrap(struct cgfb_buf *b, const char *indent, const char *s, unsigned width)
{
	const size_t iw = strlen(indent);
	const size_t w = width > iw + 8 ? width - iw : 8;
	const char *end = s + strlen(s), *nl;
	struct cgfb_buf para = { 0 };
	int rc = 0;

	while (rc == 0) {
		size_t n = line_len(s, end, &nl);

		if (!n) {
			rc = cgfb_buf_add(b, "\n", 1);
		} else {
			para.len = 0;
			rc = cgfb_buf_add(&para, s, n);
			while (rc == 0 && nl) {
				const char *next = nl + 1, *nl2;
				const size_t nn = line_len(next, end, &nl2);

				if (!nn || !soft_break(n, next, nn))
					break;
				rc = cgfb_buf_add(&para, " ", 1);
				if (rc == 0)
					rc = cgfb_buf_add(&para, next, nn);
				s = next;
				n = nn;
				nl = nl2;
			}
			if (rc == 0)
				rc = wrap_para(b, indent, para.data, para.len, w);
		}
		if (!nl)
			break;
		s = nl + 1;
	}
	cgfb_buf_free(&para);
	return rc;
}
