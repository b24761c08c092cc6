#include <errno.h>
#include <string.h>

#include "detect/paste.h"

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* How well a joined text matches: a break taken as a space inside a field
 * ("controller \" memory\"" of a C1 cut at a column) matches a regex that
 * takes any bytes there, but the kernel never prints a field that starts or
 * ends with a space. */
enum fit { FIT_NONE, FIT_SPACED_FIELD, FIT_CLEAN };

static enum fit fit(const struct cgfb_catalog *cat, const char *text, size_t len)
{
	struct cgfb_fields fields = { 0 };
	const struct cgfb_entry *e;

	if (!cgfb_catalog_candidate(cat, text, len))
		return FIT_NONE;
	e = cgfb_catalog_match(cat, text, len, &fields);
	if (!e || e->generic)
		return FIT_NONE;
	for (unsigned i = 0; i < fields.n; i++) {
		const char *v = fields.f[i].value;
		const size_t n = strlen(v);

		if (n && (blank(v[0]) || blank(v[n - 1])))
			return FIT_SPACED_FIELD;
	}
	return FIT_CLEAN;
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
	/* The first match whose fields start or end with a space: taken when
	 * no clean one turns up. */
	unsigned weak_lines;
	unsigned weak_seps;
};

/* Mail clients leave the space they wrapped at at the end of the line. */
static size_t trim_end(const char *t, size_t len)
{
	while (len && blank(t[len - 1]))
		len--;
	return len;
}

/* The piece t after buf[0..have), with a space if sep: the new length, or
 * 0 when it does not fit. */
static size_t put(struct join *j, size_t have, bool sep, const char *t, size_t tlen)
{
	have = trim_end(j->buf, have);
	if (have + sep + tlen > j->bufsz)
		return 0;
	if (sep)
		j->buf[have++] = ' ';
	memcpy(j->buf + have, t, tlen);
	return have + tlen;
}

/* The line at p when it may go on the text before it: its text (unquoted,
 * trimmed) in *t, *tlen, and the start of the line after it in *after.
 * 1 yes, 0 no, -EAGAIN the bytes end too soon. */
static int piece(const struct join *j, const char *p, const char **t, size_t *tlen,
		 const char **after)
{
	const char *nl, *e;

	if (p >= j->end)
		return j->eof ? 0 : -EAGAIN;
	nl = memchr(p, '\n', (size_t)(j->end - p));
	if (!nl && !j->eof)
		return -EAGAIN;
	e = nl ? nl : j->end;
	*after = nl ? nl + 1 : j->end;
	/* A line with a time stamp of its own is a record of its own. */
	if (cgfb_logfmt_starts_record(j->fmt, p, (size_t)(e - p)))
		return 0;
	*t = cgfb_logfmt_unquote(p, (size_t)(e - p));
	*tlen = trim_end(*t, (size_t)(e - *t));
	/* A blank line ends a paragraph: nothing was wrapped across it. */
	return *tlen != 0;
}

/* Join the line at p (the depth-th after the head) to the text in
 * buf[0..have), then the lines after it, until the text is a specific
 * catalog message; seps has a bit set for each earlier break taken as a
 * space. 1 a clean match, 0 none (j->weak_lines may hold one with a spaced
 * field), -EAGAIN the bytes end too soon. */
static int extend(struct join *j, size_t have, const char *p, unsigned depth, unsigned seps)
{
	const char *t, *after;
	size_t tlen;
	int rc;

	if (depth >= CGFB_PASTE_JOIN_MAX)
		return 0;
	rc = piece(j, p, &t, &tlen, &after);
	if (rc <= 0)
		return rc;
	/* The break as a space first (a mail client wraps at spaces), then as
	 * nothing (a terminal or a form wraps at a column, inside a word). */
	for (int sep = 1; sep >= 0; sep--) {
		const unsigned s = seps | (unsigned)sep << depth;
		const size_t n = put(j, have, sep, t, tlen);
		enum fit f;

		if (!n)
			return 0;
		f = fit(j->cat, j->buf, n);
		if (f == FIT_CLEAN) {
			j->len = n;
			j->next = after;
			j->lines = depth + 1;
			return 1;
		}
		if (f == FIT_SPACED_FIELD) {
			if (!j->weak_lines) {
				j->weak_lines = depth + 1;
				j->weak_seps = s;
			}
			continue;
		}
		rc = extend(j, n, after, depth + 1, s);
		if (rc)
			return rc;
	}
	return 0;
}

/* The weak match extend() noted, built again into buf after have. */
static void take_weak(struct join *j, size_t have, const char *p)
{
	for (unsigned depth = 1; depth < j->weak_lines; depth++) {
		const char *t, *after;
		size_t tlen;

		if (piece(j, p, &t, &tlen, &after) <= 0)
			return;
		have = put(j, have, j->weak_seps >> depth & 1, t, tlen);
		p = after;
	}
	j->len = have;
	j->next = p;
	j->lines = j->weak_lines;
}

/* A run of NULs in line p..e (zero is its first): what a power cut leaves
 * in a log file, blocks whose data never reached the disk, after which the
 * logger went on writing at the file's end. What comes before the run is
 * a record cut short (its rest is what the zeros replaced): skipped, never
 * taken for a whole one. What follows it is the next record when it starts
 * as one (a time stamp, a kmsg header, no indentation), read as any
 * (*next there, *lines 0: the same line); anything else after NULs is no
 * record the logger began, and the line is skipped whole. */
static int nul_block(enum cgfb_logfmt fmt, const char *e, const char *zero, const char **next,
		     unsigned *lines)
{
	const char *after = zero;

	while (after < e && *after == '\0')
		after++;
	if (after < e && *after != ' ' && *after != '\t' && *after != '>' &&
	    cgfb_logfmt_starts_record(fmt, after, (size_t)(e - after))) {
		*next = after;
		*lines = 0;
	}
	return 0;
}

int cgfb_paste_record(const struct cgfb_catalog *cat, enum cgfb_logfmt fmt, bool join,
		      const char *p, const char *end, bool eof, char *buf, size_t bufsz,
		      struct cgfb_record *rec, const char **next, unsigned *lines)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	const char *e = nl ? nl : end;
	const char *zero = memchr(p, '\0', (size_t)(e - p));
	struct join j = { cat, fmt, end, eof, buf, bufsz, 0, NULL, 0, 0, 0 };
	int rc;

	*next = nl ? nl + 1 : end;
	*lines = 1;
	if (zero)
		return nul_block(fmt, e, zero, next, lines);
	rc = cgfb_logfmt_parse_line(fmt, p, (size_t)(e - p), buf, bufsz, rec);
	if (rc != 1 || !join || (fmt != CGFB_FMT_DMESG && fmt != CGFB_FMT_SYSLOG))
		return rc;
	/* A complete record is never the head of another: two records in a
	 * row stay two, whatever follows. */
	if (rec->len >= bufsz || cgfb_paste_is_specific(cat, rec->text, rec->len))
		return rc;
	memcpy(buf, rec->text, rec->len);
	rc = extend(&j, rec->len, *next, 1, 0);
	if (rc < 0)
		return rc;
	if (rc == 0 && j.weak_lines) {
		take_weak(&j, rec->len, *next);
		rc = 1;
	}
	if (rc > 0) {
		rec->text = buf;
		rec->len = j.len;
		*next = j.next;
		*lines = j.lines;
	}
	return 1;
}

bool cgfb_paste_is_specific(const struct cgfb_catalog *cat, const char *text, size_t len)
{
	return fit(cat, text, len) != FIT_NONE;
}
