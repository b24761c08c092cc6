/* The verdict on a request head (framing.h).
 *
 * Judged from what libmicrohttpd 0.9.75 hands the application, which is
 * not the bytes on the wire; what it was seen to make of hostile heads
 * (tests/integration/server-attack.sh sends them):
 *   - "Transfer-Encoding : chunked": a field named "Transfer-Encoding "
 *     (white space kept), which libmicrohttpd does not take for framing;
 *   - a bare CR: no line end; the CR and what follows it stay in the value;
 *   - an obs-fold: the continuation is appended to the field's NAME
 *     ("Content-Length: 4" CRLF " 7" gives a field "Content-Length7" with
 *     the value "4"), so only the caller can tell (http.c, by where the
 *     value lies);
 *   - "chunked " (trailing white space) and any other coding: read as a
 *     body that ends only when the connection does: no answer ever;
 *   - a NUL in a field value: the value ends there, the rest of the line
 *     is dropped; it frames nothing, and it cannot be seen here;
 *   - "%00" in the target: decoded in place, which cuts the path there.
 * So every one of them must be refused here, before libmicrohttpd reads a
 * body by its own reading of the head. */
#include "http/framing.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

/* RFC 9110 5.6.2: tchar. */
static bool is_tchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

static bool is_token(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!is_tchar((unsigned char)s[i]))
			return false;
	return true;
}

static bool is_ows(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_hex(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static unsigned hex_value(unsigned char c)
{
	return c <= '9' ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10);
}

static bool is_named(const char *name, size_t len, const char *want)
{
	return len == strlen(want) && strncasecmp(name, want, len) == 0;
}

/* RFC 9110 5.5: field-value = *field-content, field-vchar = VCHAR /
 * obs-text; SP and HTAB inside. CR, LF and NUL are the dangerous ones
 * (a recipient MUST reject or replace them); the other controls are no
 * more valid, and no client sends them. */
static bool value_valid(const char *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const unsigned char c = (unsigned char)v[i];

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return false;
	}
	return true;
}

/* RFC 9110 8.6: Content-Length = 1*DIGIT. */
static bool digits_only(const char *v, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (v[i] < '0' || v[i] > '9')
			return false;
	return true;
}

static void fault(struct framing *f, unsigned status, const char *why)
{
	if (!f->why) {
		f->why = why;
		f->status = status;
	}
}

/* One element of a Transfer-Encoding list, OWS trimmed: its coding's name
 * (parameters after ';' are not looked at: a coding we know has none). */
static void te_element(const char *e, size_t n, const char **name, size_t *name_len)
{
	const char *semi = memchr(e, ';', n);
	size_t k = semi ? (size_t)(semi - e) : n;

	while (k && is_ows(e[k - 1]))
		k--;
	*name = e;
	*name_len = k;
}

/* The verdict on a Transfer-Encoding value: 0 or a status with *why. Only
 * "chunked" is implemented (libmicrohttpd decodes nothing else):
 *   - chunked not the last coding, or none at all: the length cannot be
 *     known, and the server MUST answer 400 and close (RFC 9112 6.3 item
 *     4); this is "gzip" and "chunked, identity" too, whose codings are
 *     also unknown: the MUST wins over 6.1's SHOULD;
 *   - chunked applied twice: MUST NOT be sent (RFC 9112 7): 400;
 *   - chunked last, after a coding not known here: 501 (RFC 9112 6.1);
 *   - chunked alone but not spelled "chunked" (trailing white space, an
 *     empty list element): libmicrohttpd 0.9.75 compares the raw value, so
 *     it would read the body as one that ends with the connection; this
 *     server does not implement that spelling: 501 (RFC 9110 15.6.2). */
static unsigned te_verdict(const char *v, size_t n, const char **why)
{
	unsigned chunked = 0;
	bool last_chunked = false, unknown = false;
	const char *p = v, *end = v + n;

	while (p <= end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *e_end = comma ? comma : end;
		const char *name;
		size_t len;

		while (p < e_end && is_ows(*p))
			p++;
		te_element(p, (size_t)(e_end - p), &name, &len);
		if (len) {
			if (!is_token(name, len)) {
				*why = "Transfer-Encoding is not a list of codings";
				return 400;
			}
			last_chunked = is_named(name, len, "chunked");
			chunked += last_chunked;
			unknown |= !last_chunked;
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	if (!last_chunked) {
		*why = "Transfer-Encoding without chunked last: the body's length is unknown";
		return 400;
	}
	if (chunked > 1) {
		*why = "Transfer-Encoding applies chunked more than once";
		return 400;
	}
	if (unknown) {
		*why = "Transfer-Encoding names a coding this server does not implement";
		return 501;
	}
	if (!is_named(v, n, "chunked")) {
		*why = "Transfer-Encoding: only \"chunked\", spelled so, is implemented";
		return 501;
	}
	return 0;
}

/* RFC 3986 2.3 and 2.2: unreserved and sub-delims. */
static bool is_unreserved(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("-._~", c));
}

static bool is_sub_delim(unsigned char c)
{
	return c && strchr("!$&'()*+,;=", c);
}

/* reg-name = *( unreserved / pct-encoded / sub-delims ); extra: ':' (IPvFuture). */
static bool reg_name_valid(const char *s, size_t n, bool colon_ok)
{
	for (size_t i = 0; i < n; i++) {
		const unsigned char c = (unsigned char)s[i];

		if (c == '%') {
			if (i + 2 >= n)
				return false;
			if (!is_hex((unsigned char)s[i + 1]) || !is_hex((unsigned char)s[i + 2]))
				return false;
			i += 2;
		} else if (!is_unreserved(c) && !is_sub_delim(c) && !(colon_ok && c == ':')) {
			return false;
		}
	}
	return true;
}

/* IP-literal = "[" ( IPv6address / IPvFuture ) "]" (RFC 3986 3.2.2);
 * IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ). No
 * zone identifier: RFC 3986 has none. */
static bool ip_literal_valid(const char *s, size_t n)
{
	char text[64];
	struct in6_addr a;
	size_t i = 1;

	if (n && (s[0] == 'v' || s[0] == 'V')) {
		while (i < n && is_hex((unsigned char)s[i]))
			i++;
		return i > 1 && i + 1 < n && s[i] == '.' && reg_name_valid(s + i + 1, n - i - 1, true);
	}
	if (n == 0 || n >= sizeof(text))
		return false;
	memcpy(text, s, n);
	text[n] = '\0';
	return inet_pton(AF_INET6, text, &a) == 1;
}

/* Host = uri-host [ ":" port ] (RFC 9112 3.2); host = IP-literal /
 * IPv4address / reg-name, port = *DIGIT (RFC 3986 3.2.2, 3.2.3). An
 * IPv4address is a reg-name as far as the characters go; an empty
 * reg-name is allowed (a target without authority is sent so). */
bool framing_host_valid(const char *v, size_t n)
{
	const char *port;
	size_t host_len;

	if (n && v[0] == '[') {
		const char *close = memchr(v, ']', n);

		if (!close || !ip_literal_valid(v + 1, (size_t)(close - v - 1)))
			return false;
		port = close + 1;
		if (port == v + n)
			return true;
		if (*port != ':')
			return false;
	} else {
		port = memchr(v, ':', n);
		host_len = port ? (size_t)(port - v) : n;
		if (!reg_name_valid(v, host_len, false))
			return false;
		if (!port)
			return true;
	}
	port++;
	for (; port < v + n; port++)
		if (*port < '0' || *port > '9')
			return false;
	return true;
}

/* RFC 9112 5.1: no white space between a field name and its colon, which
 * is where "Transfer-Encoding : chunked" leaves it (a server MUST answer
 * 400); a name is a token (RFC 9110 5.1). */
void framing_field(struct framing *f, const char *name, size_t name_len, const char *value,
		   size_t value_len, bool folded)
{
	if (!is_token(name, name_len))
		fault(f, 400, "a header field name that is not a token (white space before "
			      "the colon?)");
	else if (folded)
		fault(f, 400, "a header field folded over several lines (obs-fold)");
	else if (!value_valid(value, value_len))
		fault(f, 400, "a header field value with CR, LF, NUL or another control "
			      "character");
	if (is_named(name, name_len, "Content-Length")) {
		f->content_length++;
		if (!digits_only(value, value_len))
			fault(f, 400, "a Content-Length that is not a number");
	} else if (is_named(name, name_len, "Transfer-Encoding")) {
		if (f->transfer_encoding++ == 0)
			f->te_status = te_verdict(value, value_len, &f->te_why);
	} else if (is_named(name, name_len, "Host")) {
		f->host++;
		if (!framing_host_valid(value, value_len))
			fault(f, 400, "a Host that is not host[:port]");
	}
}

/* The order is that of the RFC's musts: a field that cannot be read is
 * refused whatever else the head holds; then the length (RFC 9112 6.3:
 * both framings, several lengths, chunked not last), then Host (3.2). A
 * 501 (unknown coding, chunked last) only when nothing is a 400. */
unsigned framing_verdict(const struct framing *f, bool http11, const char **why)
{
	*why = NULL;
	if (f->why)
		*why = f->why;
	else if (f->content_length && f->transfer_encoding)
		*why = "both Content-Length and Transfer-Encoding";
	else if (f->content_length > 1)
		*why = "more than one Content-Length";
	else if (f->transfer_encoding > 1)
		*why = "more than one Transfer-Encoding";
	else if (f->transfer_encoding && !http11)
		/* RFC 9112 6.1: an HTTP/1.0 message with Transfer-Encoding
		 * MUST be treated as one whose framing is faulty. */
		*why = "Transfer-Encoding in an HTTP/1.0 request";
	else if (f->te_status == 400)
		*why = f->te_why;
	else if (f->host > 1)
		*why = "more than one Host";
	else if (!f->host && http11)
		*why = "HTTP/1.1 without Host";
	else if (f->te_status) {
		*why = f->te_why;
		return f->te_status;
	}
	if (!*why)
		return 0;
	return f->why ? f->status : 400;
}

/* The request target as sent (RFC 9112 3.2): visible ASCII only (no
 * white space, controls or raw bytes above 0x7e, which the grammar has no
 * room for: an invalid request-line, 400 by RFC 9112 3), percent-encoding
 * well formed (RFC 3986 2.1), and nothing that decodes to a control
 * character: "%00" would cut the path where routing and the log see it
 * end (RFC 3986 7.3: reject it where raw data is not expected), "%0a" would
 * start a line of the log. */
const char *framing_target(const char *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const unsigned char c = (unsigned char)t[i];
		unsigned d;

		if (c <= 0x20 || c >= 0x7f)
			return "a request target with white space, a control character or a "
			       "raw byte outside ASCII";
		if (c != '%')
			continue;
		if (i + 2 >= n || !is_hex((unsigned char)t[i + 1]) ||
		    !is_hex((unsigned char)t[i + 2]))
			return "a request target with a malformed percent-encoding";
		d = hex_value((unsigned char)t[i + 1]) * 16 + hex_value((unsigned char)t[i + 2]);
		if (d < 0x20 || d == 0x7f)
			return "a request target that decodes to a control character (%00 and "
			       "the like)";
		i += 2;
	}
	return NULL;
}
