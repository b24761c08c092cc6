/* Writing the e-mail form of a report (see cgfb/mail.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cgfb/sha256.h"
#include "cgfb/buf.h"
#include "cgfb/jsonget.h"
#include "cgfb/mail.h"
#include "cgfb/utf8.h"
#include "cgfb/wrap.h"

/* The transfer encoding is settled once the body is known (see
 * encode_body): 7bit for pure ASCII, else quoted-printable, so the
 * message survives any relay, 8BITMIME or not. */
#define CTE_PLACEHOLDER "Content-Transfer-Encoding: 8bit\n"
#define MIME_HEADERS \
	"MIME-Version: 1.0\n" \
	"Content-Type: text/plain; charset=utf-8\n" \
	CTE_PLACEHOLDER

/* Accumulates the first error so the writers below can stay linear. */
struct mail {
	struct cgfb_buf *b;
	int rc;
};

static void add(struct mail *m, const char *s, size_t n)
{
	if (!m->rc)
		m->rc = cgfb_buf_add(m->b, s, n);
}

static void addf(struct mail *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void addf(struct mail *m, const char *fmt, ...)
{
	va_list ap;

	if (m->rc)
		return;
	va_start(ap, fmt);
	m->rc = cgfb_buf_vprintf(m->b, fmt, ap);
	va_end(ap);
}

static const char *str_or(json_object *o, const char *path, const char *dflt)
{
	const char *s = cgfb_json_str(o, path);

	return s ? s : dflt;
}

/* Free text is always indented, so no line of it can look like a marker
 * or an mbox "From " line. */
static void wrap_text(struct mail *m, const char *indent, const char *s)
{
	if (!m->rc)
		m->rc = cgfb_wrap(m->b, indent, s, CGFB_MAIL_WIDTH);
}

/* A header value from report text: printable ASCII as is (folded at spaces
 * to keep lines short), anything else as RFC 2047 base64 encoded-words that
 * never split a UTF-8 sequence. */
static bool needs_encoding(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return true;
	return strstr(s, "=?") != NULL;
}

static void add_encoded_word(struct mail *m, const unsigned char *s, size_t n)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char out[4];

	add(m, "=?utf-8?B?", 10);
	for (size_t i = 0; i < n; i += 3) {
		const uint32_t v = (uint32_t)s[i] << 16 | (i + 1 < n ? (uint32_t)s[i + 1] << 8 : 0) |
				   (i + 2 < n ? s[i + 2] : 0);

		out[0] = b64[v >> 18 & 63];
		out[1] = b64[v >> 12 & 63];
		out[2] = i + 1 < n ? b64[v >> 6 & 63] : '=';
		out[3] = i + 2 < n ? b64[v & 63] : '=';
		add(m, out, 4);
	}
	add(m, "?=", 2);
}

/* Like u8len, but never past a NUL: header values from options are not
 * checked UTF-8. */
static size_t step(const unsigned char *s)
{
	size_t n = 1;

	while (n < cgfb_utf8_lead_len(*s) && s[n])
		n++;
	return n;
}

static void add_header_text(struct mail *m, const char *name, const char *value)
{
	const unsigned char *s = (const unsigned char *)value;
	size_t col = strlen(name) + 2;

	addf(m, "%s: ", name);
	if (!needs_encoding(value)) {
		while (*s) {
			const char *sp = strchr((const char *)s + 1, ' ');
			const size_t w = sp ? (size_t)(sp - (const char *)s) : strlen((const char *)s);

			if (col + w > CGFB_MAIL_WIDTH && col > strlen(name) + 2 && *s == ' ') {
				add(m, "\n", 1);
				col = 0;
			}
			add(m, (const char *)s, w);
			col += w;
			s += w;
		}
		add(m, "\n", 1);
		return;
	}
	/* 45 bytes encode to 60 characters: one word per folded line. */
	for (bool first = true; *s; first = false) {
		size_t n = 0;

		while (s[n] && n + step(s + n) <= 45)
			n += step(s + n);
		if (n == 0)
			n = step(s);
		if (!first)
			add(m, "\n ", 2);
		add_encoded_word(m, s, n);
		s += n;
	}
	add(m, "\n", 1);
}

static void add_date(struct mail *m, const char *created)
{
	static const char *const days[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	struct tm tm = { 0 };
	time_t t;

	if (!created || !strptime(created, "%Y-%m-%dT%H:%M:%SZ", &tm))
		t = 0;
	else
		t = timegm(&tm);
	gmtime_r(&t, &tm);
	/* By hand: strftime's %a and %b follow the locale, RFC 5322 does not. */
	addf(m, "Date: %s, %02d %s %04d %02d:%02d:%02d +0000\n", days[tm.tm_wday], tm.tm_mday,
	     months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static void add_headers(struct mail *m, json_object *r, const struct cgfb_mail_opts *o,
			const char *sha)
{
	const char *id = str_or(r, "report_id", "unknown");
	const char *to = o && o->to ? o->to : str_or(r, "detection.contact", "linux-mm@kvack.org");
	struct cgfb_buf subject = { 0 };

	if (!m->rc)
		m->rc = cgfb_buf_printf(&subject, "[cgroup-feedback] %s (%s)",
					str_or(r, "detection.title", "report"),
					str_or(r, "system.kernel.release", "?"));
	add_header_text(m, "From", o && o->from ? o->from :
			"cgroup-feedback <cgroup-feedback@localhost>");
	add_header_text(m, "To", to);
	add_header_text(m, "Subject", subject.data ? subject.data : "");
	cgfb_buf_free(&subject);
	add_date(m, cgfb_json_str(r, "created"));
	addf(m, "Message-ID: <%s@cgroup-feedback.invalid>\n", id);
	add(m, MIME_HEADERS, sizeof(MIME_HEADERS) - 1);
	/* One line (26 + 64 columns, under 78): folded right after the colon,
	 * parsers read the value with the fold's white space in front. */
	addf(m, "%s: %s\n%s: %s\n\n", CGFB_MAIL_HDR_ID, id, CGFB_MAIL_HDR_SHA256, sha);
}

/* A formatted line of report data, wrapped like free text. */
static void addw(struct mail *m, const char *indent, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Formatted whole, however long: a fixed line cut a 2,048-character answer
 * inside a UTF-8 sequence. */
static void addw(struct mail *m, const char *indent, const char *fmt, ...)
{
	struct cgfb_buf line = { 0 };
	va_list ap;

	if (m->rc)
		return;
	va_start(ap, fmt);
	m->rc = cgfb_buf_vprintf(&line, fmt, ap);
	va_end(ap);
	if (!m->rc)
		wrap_text(m, indent, line.data ? line.data : "");
	cgfb_buf_free(&line);
}

static void add_detection(struct mail *m, json_object *r)
{
	static const char *const fields[] = { "comm", "controller", "knob", "function" };
	const int64_t count = json_object_get_int64(cgfb_json_get(r, "detection.count"));

	add(m, "What was detected\n", 18);
	addw(m, "  ", "%s: %s", str_or(r, "detection.catalog_id", "?"),
	     str_or(r, "detection.title", ""));
	addw(m, "  ", "The kernel said (%" PRId64 " time%s):", count, count == 1 ? "" : "s");
	wrap_text(m, "    ", str_or(r, "detection.message", ""));
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		char path[64];
		const char *v;

		snprintf(path, sizeof(path), "detection.fields.%s", fields[i]);
		v = cgfb_json_str(r, path);
		if (v)
			addw(m, "  ", "%s: %s", fields[i], v);
	}
	add(m, "\n", 1);
}

static void add_system(struct mail *m, json_object *r)
{
	const char *facts = cgfb_json_str(r, "system.facts");

	add(m, "System\n", 7);
	/* Another machine's, which a log or a copy of its files showed. */
	if (facts)
		addw(m, "  ", "another machine's, as %s shows it", strcmp(facts, "copy") == 0 ?
		     "a copy of its files" : "its log");
	addw(m, "  ", "kernel %s (series %s, %s), %s %s", str_or(r, "system.kernel.release", "?"),
	     str_or(r, "system.kernel.series", "?"), str_or(r, "system.kernel.arch", "?"),
	     str_or(r, "system.distribution.id", "?"),
	     str_or(r, "system.distribution.version_id", ""));
	addw(m, "  ", "cgroup mode %s, init %s, virtualization %s, %s CPUs, memory %s",
	     str_or(r, "system.cgroup_mode", "?"), str_or(r, "system.init", "?"),
	     str_or(r, "system.virtualization", "?"), str_or(r, "system.cpus", "?"),
	     str_or(r, "system.memory", "?"));
	add(m, "\n", 1);
}

static void add_subtree(struct mail *m, json_object *st)
{
	json_object *reasons = cgfb_json_get(st, "reasons");
	json_object *reorg = cgfb_json_get(st, "reorganisation");
	char why[512] = "";
	size_t n = 0;

	for (size_t i = 0; i < json_object_array_length(reasons) && n < sizeof(why); i++)
		n += (size_t)snprintf(why + n, sizeof(why) - n, "%s%s", i ? ", " : " (",
				      json_object_get_string(json_object_array_get_idx(reasons, i)));
	const size_t nch = json_object_array_length(cgfb_json_get(st, "children"));

	addw(m, "  ", "- hierarchy %" PRId64 ", node %" PRId64 ", %zu flat child%s: %s%s%s",
	     json_object_get_int64(cgfb_json_get(st, "hierarchy")), json_object_get_int64(cgfb_json_get(st, "node")),
	     nch, nch == 1 ? "" : "ren", str_or(st, "verdict", "?"), why, why[0] ? ")" : "");
	if (json_object_is_type(reorg, json_type_object)) {
		const size_t nmv = json_object_array_length(cgfb_json_get(reorg, "move_under_new_parent"));

		addw(m, "    ", "proposed: a new parent with use_hierarchy=1 above %zu group%s", nmv,
		     nmv == 1 ? "" : "s");
	}
}

static void add_analysis(struct mail *m, json_object *r)
{
	json_object *flat = cgfb_json_get(r, "analysis.flat_subtrees");
	json_object *knobs = cgfb_json_get(r, "analysis.knob_users");

	add(m, "Analysis\n", 9);
	if (!json_object_array_length(flat) && !json_object_array_length(knobs))
		add(m, "  no flat subtrees and no users of deprecated knobs found\n", 58);
	for (size_t i = 0; i < json_object_array_length(flat); i++)
		add_subtree(m, json_object_array_get_idx(flat, i));
	for (size_t i = 0; i < json_object_array_length(knobs); i++) {
		json_object *k = json_object_array_get_idx(knobs, i);

		addw(m, "  ", "- %s on hierarchy %" PRId64 ": %" PRId64 " groups set it",
		     str_or(k, "knob", "?"), json_object_get_int64(cgfb_json_get(k, "hierarchy")),
		     json_object_get_int64(cgfb_json_get(k, "count")));
		if (cgfb_json_str(k, "replacement")) {
			add(m, "    replacement:\n", 17);
			wrap_text(m, "      ", cgfb_json_str(k, "replacement"));
		}
	}
	add(m, "\n", 1);
}

static void add_use_case(struct mail *m, json_object *r)
{
	json_object *uc = cgfb_json_get(r, "use_case");
	json_object *answers = cgfb_json_get(uc, "answers");

	add(m, "Use case\n", 9);
	if (!json_object_is_type(uc, json_type_object)) {
		add(m, "  (none given)\n\n", 16);
		return;
	}
	wrap_text(m, "  ", str_or(uc, "text", ""));
	json_object_object_foreach(answers, key, val)
		addw(m, "  ", "%s: %s", key, json_object_get_string(val));
	add(m, "\n", 1);
}

/* A line may not begin with what a transport or reader would change or
 * misread: "From " (mbox), '>' (mboxrd quoting), '.' (SMTP), '-' (a marker)
 * or white space; nor end in white space (stripped by some transports). */
static bool bad_start(const char *s, size_t n)
{
	return n && (*s == '>' || *s == '.' || *s == '-' || *s == ' ' || *s == '\t' ||
		     (n >= 5 && memcmp(s, "From ", 5) == 0));
}

static size_t json_line_len(const char *s, size_t n)
{
	size_t cut;

	if (n <= CGFB_MAIL_WIDTH)
		return n;
	/* Canonical JSON has no newlines, so line lengths are free to vary:
	 * step back from the full width until the cut is harmless. */
	for (cut = CGFB_MAIL_WIDTH; cut > CGFB_MAIL_WIDTH / 2; cut--) {
		if (((unsigned char)s[cut] & 0xc0) == 0x80)
			continue;
		if (s[cut - 1] == ' ' || s[cut - 1] == '\t' || bad_start(s + cut, n - cut))
			continue;
		return cut;
	}
	for (cut = CGFB_MAIL_WIDTH; ((unsigned char)s[cut] & 0xc0) == 0x80; cut--)
		;
	return cut;
}

static void add_json(struct mail *m, const char *s, size_t n)
{
	static const char intro[] =
		"The report as sent: canonical JSON wrapped at 76 columns. Joined without\n"
		"line breaks, its SHA-256 is the " CGFB_MAIL_HDR_SHA256 " header.\n";

	add(m, intro, sizeof(intro) - 1);
	add(m, CGFB_MAIL_BEGIN "\n", sizeof(CGFB_MAIL_BEGIN));
	while (n) {
		const size_t l = json_line_len(s, n);

		add(m, s, l);
		add(m, "\n", 1);
		s += l;
		n -= l;
	}
	add(m, CGFB_MAIL_END "\n", sizeof(CGFB_MAIL_END));
}

static bool all_ascii(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] >= 0x80)
			return false;
	return true;
}

/* RFC 2045 quoted-printable of one line (without its newline): at most 76
 * columns with soft breaks, never splitting an =XX, white space at the end
 * encoded. */
static int qp_line(struct cgfb_buf *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t col = 0;
	int rc = 0;

	for (size_t i = 0; i < n && rc == 0; i++) {
		const unsigned char c = (unsigned char)s[i];
		const bool last = i + 1 == n;
		char enc[3] = { '=', hex[c >> 4], hex[c & 15] };
		const bool literal = (c >= 33 && c <= 126 && c != '=') ||
				     ((c == ' ' || c == '\t') && !last);
		const size_t w = literal ? 1 : 3;

		/* Room for the soft break "=" unless this is the last byte. */
		if (col + w > (last ? 76u : 75u)) {
			rc = cgfb_buf_add(o, "=\n", 2);
			col = 0;
		}
		if (rc == 0)
			rc = literal ? cgfb_buf_add(o, (const char *)&c, 1) : cgfb_buf_add(o, enc, 3);
		col += w;
	}
	return rc;
}

static int encode_body(struct cgfb_buf *out)
{
	const char *sep = strstr(out->data, "\n\n");
	char *cte = strstr(out->data, CTE_PLACEHOLDER);
	struct cgfb_buf b = { 0 };
	size_t body;
	int rc = 0;

	if (!sep || !cte || cte > sep)
		return -EINVAL;
	body = (size_t)(sep - out->data) + 2;
	if (all_ascii(out->data + body, out->len - body)) {
		memcpy(cte + strlen("Content-Transfer-Encoding: "), "7bit", 4);
		return 0;
	}
	rc = cgfb_buf_add(&b, out->data, (size_t)(cte - out->data));
	if (rc == 0)
		rc = cgfb_buf_adds(&b, "Content-Transfer-Encoding: quoted-printable\n");
	if (rc == 0)
		rc = cgfb_buf_add(&b, cte + strlen(CTE_PLACEHOLDER),
				  body - (size_t)(cte + strlen(CTE_PLACEHOLDER) - out->data));
	for (size_t p = body; p < out->len && rc == 0;) {
		const char *nl = memchr(out->data + p, '\n', out->len - p);
		const size_t n = nl ? (size_t)(nl - out->data) - p : out->len - p;

		rc = qp_line(&b, out->data + p, n);
		if (rc == 0 && nl)
			rc = cgfb_buf_add(&b, "\n", 1);
		p += n + (nl ? 1 : 0);
	}
	if (rc == 0) {
		cgfb_buf_free(out);
		*out = b;
	} else {
		cgfb_buf_free(&b);
	}
	return rc;
}

int cgfb_mail_format_withdrawal(const char *id, const char *token,
				const struct cgfb_mail_opts *o, time_t when, struct cgfb_buf *out)
{
	struct mail m = { out, 0 };
	char created[32];
	struct tm tm;

	out->len = 0;
	gmtime_r(&when, &tm);
	strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", &tm);
	add_header_text(&m, "From", o && o->from ? o->from :
			"cgroup-feedback <cgroup-feedback@localhost>");
	add_header_text(&m, "To", o && o->to ? o->to : "linux-mm@kvack.org");
	addf(&m, "Subject: [cgroup-feedback] withdrawal %s\n", id);
	add_date(&m, created);
	addf(&m, "Message-ID: <w-%s@cgroup-feedback.invalid>\n", id);
	add(&m, MIME_HEADERS, sizeof(MIME_HEADERS) - 1);
	addf(&m, "%s: %s\n%s: %s\n\n", CGFB_MAIL_HDR_WITHDRAW, id, CGFB_MAIL_HDR_TOKEN, token);
	addf(&m, "The sender of cgroup-feedback report\n%s withdraws it.\n\n"
	     "Maintainers: cgroup-feedback-server import of this message deletes the\n"
	     "report from the collector, as its deletion token (above) proves the\n"
	     "sender's right to; please do not quote it further.\n", id);
	return m.rc ? m.rc : encode_body(out);
}

int cgfb_mail_format(const char *report, size_t len, const struct cgfb_mail_opts *o,
		     struct cgfb_buf *out)
{
	struct mail m = { out, 0 };
	json_object *r = NULL;
	char sha[65], err[128];
	int rc;

	rc = cgfb_canon_parse(report, len, 64, &r, err, sizeof(err));
	if (rc < 0 || !json_object_is_type(r, json_type_object) || !cgfb_json_str(r, "report_id")) {
		rc = -EINVAL;
		goto out;
	}
	out->len = 0;
	cgfb_sha256_hex(report, len, sha);
	add_headers(&m, r, o, sha);
	addf(&m, "cgroup-feedback report %s\ncreated %s\n\n", cgfb_json_str(r, "report_id"),
	     str_or(r, "created", "?"));
	add_detection(&m, r);
	add_system(&m, r);
	add_analysis(&m, r);
	add_use_case(&m, r);
	add_json(&m, report, len);
	rc = m.rc;
	if (rc == 0)
		rc = encode_body(out);
out:
	json_object_put(r);
	return rc;
}
