#include <errno.h>
#include <string.h>

#include "detect/paste.h"

bool cgfb_paste_is_specific(const struct cgfb_catalog *cat, const char *text, size_t len)
{
	const struct cgfb_entry *e;

	if (!cgfb_catalog_candidate(cat, text, len))
		return false;
	e = cgfb_catalog_match(cat, text, len, NULL);
	return e && !e->generic;
}

struct join {
	const struct cgfb_catalog *cat;
	enum cgfb_logfmt fmt;
	const char *end;
	bool eof;
	char *buf;
	size_t bufsz;
	size_t len;          /* of the joined text, once found */
	const char *next;    /* past its last line */
	unsigned lines;
};

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Mail clients leave the space they wrapped at at the end of the line. */
static size_t trim_end(const char *t, size_t len)
{
	while (len && blank(t[len - 1]))
		len--;
	return len;
}

/* Join the line at p (the depth-th after the head) to the depth pieces
 * already in buf[0..have), then the lines after it, until the text is a
 * specific catalog message. 1 found, 0 not, -EAGAIN the bytes end too soon. */
static int extend(struct join *j, size_t have, const char *p, unsigned depth)
{
	const char *nl, *e, *t, *after;
	size_t tlen;

	if (depth >= CGFB_PASTE_JOIN_MAX)
		return 0;
	if (p >= j->end)
		return j->eof ? 0 : -EAGAIN;
	nl = memchr(p, '\n', (size_t)(j->end - p));
	if (!nl && !j->eof)
		return -EAGAIN;
	e = nl ? nl : j->end;
	after = nl ? nl + 1 : j->end;
	/* A line with a time stamp of its own is a record of its own. */
	if (cgfb_logfmt_starts_record(j->fmt, p, (size_t)(e - p)))
		return 0;
	t = cgfb_logfmt_unquote(p, (size_t)(e - p));
	tlen = trim_end(t, (size_t)(e - t));
	/* A blank line ends a paragraph: nothing was wrapped across it. */
	if (!tlen)
		return 0;
	have = trim_end(j->buf, have);
	/* The break as a space first (a mail client wraps at spaces), then as
	 * nothing (a terminal or a form wraps at a column, inside a word). */
	for (size_t sep = 1; sep != (size_t)-1; sep--) {
		size_t n = have;
		int rc;

		if (n + sep + tlen > j->bufsz)
			return 0;
		if (sep)
			j->buf[n++] = ' ';
		memcpy(j->buf + n, t, tlen);
		n += tlen;
		if (cgfb_paste_is_specific(j->cat, j->buf, n)) {
			j->len = n;
			j->next = after;
			j->lines = depth + 1;
			return 1;
		}
		rc = extend(j, n, after, depth + 1);
		if (rc)
			return rc;
	}
	return 0;
}

int cgfb_paste_record(const struct cgfb_catalog *cat, enum cgfb_logfmt fmt, bool join,
		      const char *p, const char *end, bool eof, char *buf, size_t bufsz,
		      struct cgfb_record *rec, const char **next, unsigned *lines)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	const char *e = nl ? nl : end;
	struct join j = { cat, fmt, end, eof, buf, bufsz, 0, NULL, 0 };
	int rc;

	*next = nl ? nl + 1 : end;
	*lines = 1;
	rc = cgfb_logfmt_parse_line(fmt, p, (size_t)(e - p), buf, bufsz, rec);
	if (rc != 1 || !join || (fmt != CGFB_FMT_DMESG && fmt != CGFB_FMT_SYSLOG))
		return rc;
	/* A complete record is never the head of another: two records in a
	 * row stay two, whatever follows. */
	if (rec->len >= bufsz || cgfb_paste_is_specific(cat, rec->text, rec->len))
		return rc;
	memcpy(buf, rec->text, rec->len);
	rc = extend(&j, rec->len, *next, 1);
	if (rc < 0)
		return rc;
	if (rc > 0) {
		rec->text = buf;
		rec->len = j.len;
		*next = j.next;
		*lines = j.lines;
	}
	return 1;
}
