/* Reading the e-mail form of a report back (see cgfb/mail.h): whatever the
 * mail path did to the message on the way — CRLF, quoted-printable, mboxrd
 * quoting — the SHA-256 header decides whether the bytes are the ones sent. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cgfb/buf.h"
#include "cgfb/mail.h"

struct line {
	const char *p;
	size_t n;        /* without the line ending */
};

/* The line starting at *pos; advances *pos past its LF. */
static bool next_line(const char *s, size_t len, size_t *pos, struct line *l)
{
	const char *nl;

	if (*pos >= len)
		return false;
	l->p = s + *pos;
	nl = memchr(l->p, '\n', len - *pos);
	l->n = nl ? (size_t)(nl - l->p) : len - *pos;
	*pos += l->n + (nl ? 1 : 0);
	if (l->n && l->p[l->n - 1] == '\r')
		l->n--;
	return true;
}

static bool line_is(const struct line *l, const char *text)
{
	size_t n = l->n;

	while (n && (l->p[n - 1] == ' ' || l->p[n - 1] == '\t'))
		n--;
	return n == strlen(text) && memcmp(l->p, text, n) == 0;
}

/* Copy the (unfolded, trimmed) value of header name into out. *body is set
 * to the offset of the body. Returns true when the header was found. */
static bool find_header(const char *s, size_t len, const char *name, char *out, size_t outsz,
			size_t *body)
{
	const size_t nl = strlen(name);
	size_t pos = 0, o = 0;
	bool in = false, found = false;
	struct line l;

	while (next_line(s, len, &pos, &l) && l.n) {
		size_t i = 0;

		if (l.p[0] != ' ' && l.p[0] != '\t') {
			in = !found && l.n > nl && l.p[nl] == ':' && strncasecmp(l.p, name, nl) == 0;
			if (in) {
				found = true;
				i = nl + 1;
			}
		}
		for (; in && i < l.n; i++)
			if (l.p[i] != ' ' && l.p[i] != '\t' && o + 1 < outsz)
				out[o++] = l.p[i];
	}
	if (outsz)
		out[o] = '\0';
	*body = pos;
	return found;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* RFC 2045 quoted-printable: "=XX" is a byte, "=" before a line end is a
 * soft break, trailing white space before a line end is transport padding. */
static int qp_decode(const char *s, size_t len, struct cgfb_buf *out)
{
	int rc = 0;

	for (size_t i = 0; i < len && !rc; i++) {
		char c = s[i];

		if (c == '=' && i + 1 < len && (s[i + 1] == '\n' || s[i + 1] == '\r')) {
			i += s[i + 1] == '\r' && i + 2 < len && s[i + 2] == '\n' ? 2 : 1;
			continue;
		}
		if (c == '=' && i + 2 < len && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
			c = (char)(hexval(s[i + 1]) << 4 | hexval(s[i + 2]));
			i += 2;
		}
		rc = cgfb_buf_add(out, &c, 1);
	}
	return rc;
}

static bool mboxrd_quoted(const struct line *l)
{
	size_t i = 0;

	while (i < l->n && l->p[i] == '>')
		i++;
	return i > 0 && l->n - i >= 5 && memcmp(l->p + i, "From ", 5) == 0;
}

/* Join the lines between the markers. Returns 0, -ENOENT without a BEGIN
 * marker, -EBADMSG without an END marker; *quoted tells whether any line
 * looked mboxrd-quoted (and was unquoted when unquote is set). */
static int unwrap(const char *s, size_t len, bool unquote, struct cgfb_buf *json, bool *quoted)
{
	size_t pos = 0;
	bool begun = false;
	struct line l;
	int rc;

	json->len = 0;
	while (!begun && next_line(s, len, &pos, &l))
		begun = line_is(&l, CGFB_MAIL_BEGIN);
	if (!begun)
		return -ENOENT;
	while (next_line(s, len, &pos, &l)) {
		if (line_is(&l, CGFB_MAIL_END))
			return 0;
		if (mboxrd_quoted(&l)) {
			*quoted = true;
			if (unquote) {
				l.p++;
				l.n--;
			}
		}
		rc = cgfb_buf_add(json, l.p, l.n);
		if (rc < 0)
			return rc;
	}
	return -EBADMSG;
}

int cgfb_mail_extract(const char *msg, size_t len, struct cgfb_buf *json, char *err,
		      size_t errsz)
{
	struct cgfb_buf qp = { 0 };
	char want[80], cte[64], got[65];
	size_t body, b2;
	bool quoted = false;
	int rc;

	if (!find_header(msg, len, CGFB_MAIL_HDR_SHA256, want, sizeof(want), &body)) {
		snprintf(err, errsz, "no %s header", CGFB_MAIL_HDR_SHA256);
		return memmem(msg, len, CGFB_MAIL_BEGIN, strlen(CGFB_MAIL_BEGIN)) ? -EBADMSG : -ENOENT;
	}
	if (find_header(msg, len, "Content-Transfer-Encoding", cte, sizeof(cte), &b2) &&
	    strcasecmp(cte, "quoted-printable") == 0) {
		rc = qp_decode(msg + body, len - body, &qp);
		if (rc < 0)
			goto out;
		/* An empty body decodes to no buffer at all. */
		msg = qp.data ? qp.data : "";
		len = qp.len;
		body = 0;
	}
	rc = unwrap(msg + body, len - body, false, json, &quoted);
	if (rc == 0)
		cgfb_sha256_hex(json->data ? json->data : "", json->len, got);
	if (rc == 0 && strcmp(got, want) != 0 && quoted) {
		rc = unwrap(msg + body, len - body, true, json, &quoted);
		if (rc == 0)
			cgfb_sha256_hex(json->data ? json->data : "", json->len, got);
	}
	if (rc == -ENOENT)
		snprintf(err, errsz, "no " CGFB_MAIL_BEGIN " line");
	else if (rc == -EBADMSG)
		snprintf(err, errsz, "no " CGFB_MAIL_END " line");
	else if (rc == 0 && strcmp(got, want) != 0) {
		snprintf(err, errsz, "the report's SHA-256 is %s, the header says %.64s", got, want);
		rc = -EBADMSG;
	}
out:
	cgfb_buf_free(&qp);
	return rc;
}

static bool from_line_at(const char *data, size_t len, size_t pos)
{
	return len - pos >= 5 && memcmp(data + pos, "From ", 5) == 0;
}

int cgfb_mbox_next(const char *data, size_t len, size_t *pos, const char **msg,
		   size_t *msglen)
{
	size_t start = *pos, end;
	const char *p;

	if (start >= len)
		return 0;
	if (start == 0 && !from_line_at(data, len, 0)) {
		/* A single .eml: its body may hold an unquoted "From ". */
		*msg = data;
		*msglen = len;
		*pos = len;
		return 1;
	}
	if (from_line_at(data, len, start)) {
		p = memchr(data + start, '\n', len - start);
		start = p ? (size_t)(p - data) + 1 : len;
	}
	/* In mbox every body line starting "From " is quoted, so the next
	 * one at the start of a line is the next message. */
	for (end = start; end < len; end++) {
		p = memchr(data + end, '\n', len - end);
		if (!p) {
			end = len;
			break;
		}
		end = (size_t)(p - data);
		if (from_line_at(data, len, end + 1)) {
			end++;
			break;
		}
	}
	*msg = data + start;
	*msglen = end - start;
	*pos = end;
	return 1;
}

int cgfb_mbox_append(struct cgfb_buf *out, const char *msg, size_t len, time_t when)
{
	struct tm tm;
	char date[64];
	size_t pos = 0;
	struct line l;
	int rc;

	gmtime_r(&when, &tm);
	strftime(date, sizeof(date), "%a %b %e %H:%M:%S %Y", &tm);
	rc = cgfb_buf_printf(out, "From cgroup-feedback@localhost %s\n", date);
	while (rc == 0 && next_line(msg, len, &pos, &l)) {
		if (mboxrd_quoted(&l) || (l.n >= 5 && memcmp(l.p, "From ", 5) == 0))
			rc = cgfb_buf_add(out, ">", 1);
		if (rc == 0)
			rc = cgfb_buf_add(out, l.p, l.n);
		if (rc == 0)
			rc = cgfb_buf_add(out, "\n", 1);
	}
	if (rc == 0)
		rc = cgfb_buf_add(out, "\n", 1);
	return rc;
}
