/* Reading the e-mail form of a report back (see cgfb/mail.h): whatever the
 * mail path did to the message on the way — CRLF, quoted-printable, mboxrd
 * quoting — the SHA-256 header decides whether the bytes are the ones sent. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cgfb/sha256.h"
#include "cgfb/buf.h"
#include "cgfb/mail.h"

struct line {
	const char *p;
	size_t n;        /* without the line ending */
};

/* The line starting at *pos; advances *pos past its end: LF, CRLF, or a CR
 * alone (a mail stored with classic Mac line ends is still a mail). */
static bool next_line(const char *s, size_t len, size_t *pos, struct line *l)
{
	size_t i = *pos;

	if (i >= len)
		return false;
	l->p = s + i;
	while (i < len && s[i] != '\n' && s[i] != '\r')
		i++;
	l->n = (size_t)(s + i - l->p);
	if (i < len && s[i] == '\r')
		i++;
	if (i < len && s[i] == '\n')
		i++;
	*pos = i;
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

/* Join the lines of the block whose BEGIN marker is the first at or after
 * *pos, and set *pos past its END marker. Returns 0, -ENOENT when no BEGIN
 * marker follows, -EBADMSG without an END marker; *quoted tells whether
 * any line looked mboxrd-quoted (and was unquoted when unquote is set). */
static int unwrap(const char *s, size_t len, size_t *pos, bool unquote, struct cgfb_buf *json,
		  bool *quoted)
{
	bool begun = false;
	struct line l;
	int rc;

	json->len = 0;
	while (!begun && next_line(s, len, pos, &l))
		begun = line_is(&l, CGFB_MAIL_BEGIN);
	if (!begun)
		return -ENOENT;
	while (next_line(s, len, pos, &l)) {
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

static int b64val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* RFC 2045 base64: line breaks and other white space between the groups
 * are skipped, "=" ends the data; any other character is damage. */
static int b64_decode(const char *s, size_t len, struct cgfb_buf *out)
{
	unsigned acc = 0, bits = 0;
	int rc = 0;

	for (size_t i = 0; i < len && !rc; i++) {
		const unsigned char c = (unsigned char)s[i];
		const int v = b64val(c);
		char byte;

		if (c == '=')
			break;
		if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
			continue;
		if (v < 0)
			return -EBADMSG;
		acc = (acc << 6 | (unsigned)v) & 0xffffff;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			byte = (char)(acc >> bits);
			rc = cgfb_buf_add(out, &byte, 1);
		}
	}
	return rc;
}

static void add_sha(struct cgfb_mail_reader *r, const char *v)
{
	if (r->n_sha < CGFB_MAIL_SHA_MAX && strlen(v) == 64)
		memcpy(r->sha[r->n_sha++], v, 65);
}

/* A message may carry more than one report: mails concatenated into one
 * file, a forward with the original inline. Each report's SHA-256 is the
 * value of an X-Cgroup-Feedback-SHA256 header line, the message's own or
 * one at the start of a line of the body. Free text in the mail is always
 * indented, so a sender's words cannot add one. */
static void collect_shas(struct cgfb_mail_reader *r)
{
	const size_t nl = strlen(CGFB_MAIL_HDR_SHA256);
	size_t pos = 0;
	struct line l;

	while (next_line(r->body, r->body_len, &pos, &l)) {
		char v[80];
		size_t o = 0;

		if (l.n <= nl || l.p[nl] != ':' || strncasecmp(l.p, CGFB_MAIL_HDR_SHA256, nl) != 0)
			continue;
		for (size_t i = nl + 1; i < l.n && o + 1 < sizeof(v); i++)
			if (l.p[i] != ' ' && l.p[i] != '\t')
				v[o++] = l.p[i];
		/* Folded onto the lines that follow, as the header is written. */
		for (size_t peek = pos; next_line(r->body, r->body_len, &peek, &l) && l.n &&
		     (l.p[0] == ' ' || l.p[0] == '\t'); pos = peek)
			for (size_t i = 0; i < l.n && o + 1 < sizeof(v); i++)
				if (l.p[i] != ' ' && l.p[i] != '\t')
					v[o++] = l.p[i];
		v[o] = '\0';
		add_sha(r, v);
	}
}

/* Undo the Content-Transfer-Encoding: quoted-printable and base64 are
 * decoded, 7bit, 8bit and binary are as they are. */
static int decode_body(struct cgfb_mail_reader *r, const char *msg, size_t len, size_t body,
		       char *err, size_t errsz)
{
	char cte[64];
	size_t b2;
	int rc = 0;

	r->body = msg + body;
	r->body_len = len - body;
	if (!find_header(msg, len, "Content-Transfer-Encoding", cte, sizeof(cte), &b2) ||
	    strcasecmp(cte, "7bit") == 0 || strcasecmp(cte, "8bit") == 0 ||
	    strcasecmp(cte, "binary") == 0)
		return 0;
	if (strcasecmp(cte, "quoted-printable") == 0)
		rc = qp_decode(r->body, r->body_len, &r->decoded);
	else if (strcasecmp(cte, "base64") == 0)
		rc = b64_decode(r->body, r->body_len, &r->decoded);
	else
		rc = -EOPNOTSUPP;
	if (rc == -EBADMSG)
		snprintf(err, errsz, "the base64 body is damaged");
	else if (rc == -EOPNOTSUPP) {
		snprintf(err, errsz, "Content-Transfer-Encoding %.40s is not one this reads", cte);
		rc = -EBADMSG;
	}
	if (rc < 0)
		return rc;
	r->body = r->decoded.data ? r->decoded.data : "";
	r->body_len = r->decoded.len;
	return 0;
}

int cgfb_mail_open(struct cgfb_mail_reader *r, const char *msg, size_t len, char *err,
		   size_t errsz)
{
	char want[80];
	size_t body;
	bool has_begin;
	int rc;

	memset(r, 0, sizeof(*r));
	if (find_header(msg, len, CGFB_MAIL_HDR_SHA256, want, sizeof(want), &body))
		add_sha(r, want);
	rc = decode_body(r, msg, len, body, err, errsz);
	/* An undecodable mail that is not a report's is simply not one. */
	if (rc == -EBADMSG && !want[0] && !memmem(msg, len, CGFB_MAIL_BEGIN, strlen(CGFB_MAIL_BEGIN)))
		return -ENOENT;
	if (rc < 0)
		return rc;
	collect_shas(r);
	has_begin = memmem(r->body, r->body_len, CGFB_MAIL_BEGIN, strlen(CGFB_MAIL_BEGIN)) != NULL;
	if (!r->n_sha && !has_begin && !want[0])
		return -ENOENT;
	if (!r->n_sha && !want[0]) {
		snprintf(err, errsz, "no %s header", CGFB_MAIL_HDR_SHA256);
		return -EBADMSG;
	}
	if (!r->n_sha) {
		snprintf(err, errsz, "the %s header is not a SHA-256: %.64s", CGFB_MAIL_HDR_SHA256,
			 want);
		return -EBADMSG;
	}
	if (!has_begin) {
		snprintf(err, errsz, "an %s header but no " CGFB_MAIL_BEGIN " line",
			 CGFB_MAIL_HDR_SHA256);
		return -EBADMSG;
	}
	return 0;
}

bool cgfb_mail_header(const char *msg, size_t len, const char *name, char *out, size_t outsz)
{
	size_t body;

	return find_header(msg, len, name, out, outsz, &body);
}

static bool sha_known(const struct cgfb_mail_reader *r, const char *got)
{
	for (unsigned i = 0; i < r->n_sha; i++)
		if (strcasecmp(r->sha[i], got) == 0)
			return true;
	return false;
}

int cgfb_mail_next(struct cgfb_mail_reader *r, struct cgfb_buf *json, char *err, size_t errsz)
{
	const size_t start = r->pos;
	bool quoted = false;
	char got[65];
	int rc;

	rc = unwrap(r->body, r->body_len, &r->pos, false, json, &quoted);
	if (rc == -ENOENT)
		return 0;
	r->index++;
	if (rc == -EBADMSG) {
		snprintf(err, errsz, "no " CGFB_MAIL_END " line");
		r->pos = r->body_len;
		return rc;
	}
	if (rc < 0)
		return rc;
	cgfb_sha256_hex(json->data ? json->data : "", json->len, got);
	if (!sha_known(r, got) && quoted) {
		size_t again = start;

		rc = unwrap(r->body, r->body_len, &again, true, json, &quoted);
		if (rc < 0)
			return rc;
		cgfb_sha256_hex(json->data ? json->data : "", json->len, got);
	}
	if (sha_known(r, got))
		return 1;
	if (r->n_sha == 1)
		snprintf(err, errsz, "the report's SHA-256 is %s, the header says %.64s", got,
			 r->sha[0]);
	else
		snprintf(err, errsz, "the report's SHA-256 is %s, which none of the %u %s headers "
			 "says", got, r->n_sha, CGFB_MAIL_HDR_SHA256);
	return -EBADMSG;
}

void cgfb_mail_close(struct cgfb_mail_reader *r)
{
	cgfb_buf_free(&r->decoded);
}

int cgfb_mail_extract(const char *msg, size_t len, struct cgfb_buf *json, char *err,
		      size_t errsz)
{
	struct cgfb_mail_reader r;
	int rc = cgfb_mail_open(&r, msg, len, err, errsz);

	json->len = 0;
	if (rc == 0)
		rc = cgfb_mail_next(&r, json, err, errsz);
	cgfb_mail_close(&r);
	return rc == 1 ? 0 : rc;
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
