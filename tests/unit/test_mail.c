#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cgfb/buf.h"
#include "cgfb/canon.h"
#include "cgfb/mail.h"
#include "cgfb/schema.h"
#include "cgfb/sha256.h"

/* A schema-valid report; use_case text and title are filled in per test. */
static const char report_fmt[] =
	"{\"schema\":\"cgroup-feedback/report\",\"schema_version\":1,"
	"\"report_id\":\"0b7a3c1e-5f2d-4a8b-9c6d-1e2f3a4b5c6d\",\"created\":\"2025-03-04T05:06:07Z\","
	"\"client\":{\"name\":\"cgroup-feedback\",\"version\":\"0.1.0\"},"
	"\"detection\":{\"catalog_id\":\"M8\",\"title\":%s,\"contact\":\"linux-mm@kvack.org\","
	"\"message\":\"Non-hierarchical mode is deprecated. Please report your usecase to "
	"linux-mm@kvack.org if you depend on this functionality.\",\"level\":4,\"count\":2,"
	"\"source\":\"kmsg\",\"warn_block\":false,\"fields\":{\"comm\":\"libvirtd\"}},"
	"\"system\":{\"kernel\":{\"release\":\"6.1.0-13-amd64\",\"series\":\"6.1\",\"arch\":\"x86_64\"},"
	"\"distribution\":{\"id\":\"debian\",\"version_id\":\"12\"},\"cpus\":\"2-3\",\"numa_nodes\":1,"
	"\"memory\":\"8G\",\"virtualization\":\"kvm\",\"cgroup_mode\":\"legacy\",\"init\":\"systemd\","
	"\"cmdline\":{}},"
	"\"topology\":{\"max_nodes\":100,\"max_bytes\":65536,\"hierarchies\":[]},"
	"\"analysis\":{\"flat_subtrees\":[{\"hierarchy\":4,\"node\":0,\"children\":[1,2],"
	"\"verdict\":\"affected\",\"reasons\":[\"parent_has_tasks\"],\"reorganisation\":null}],"
	"\"knob_users\":[]},"
	"\"use_case\":{\"text\":%s,\"answers\":{\"reorganisation\":\"yes\"}},"
	"\"consent\":null,\"deletion\":null}";

/* The canonical bytes of the report with these JSON string literals;
 * with facts, its system member says whose they are (another machine's
 * log, "log", or a copy of its files, "copy"). */
static void make_report_facts(struct cgfb_buf *out, const char *title, const char *text,
			      const char *facts)
{
	struct cgfb_schema *s = NULL;
	char *src = NULL, err[256] = "";
	json_object *o;

	assert_true(asprintf(&src, report_fmt, title, text) > 0);
	o = json_tokener_parse(src);
	assert_non_null(o);
	if (facts)
		json_object_object_add(json_object_object_get(o, "system"), "facts",
				       json_object_new_string(facts));
	assert_int_equal(cgfb_schema_load_builtin(&s, err, sizeof(err)), 0);
	if (cgfb_schema_validate(s, o, err, sizeof(err)) < 0)
		fail_msg("test report invalid: %s", err);
	assert_int_equal(cgfb_canon_serialize(o, 1 << 20, out), 0);
	cgfb_schema_free(s);
	json_object_put(o);
	free(src);
}

static void make_report(struct cgfb_buf *out, const char *title, const char *text)
{
	make_report_facts(out, title, text, NULL);
}

static void format_report(struct cgfb_buf *report, struct cgfb_buf *mail, const char *title,
			  const char *text)
{
	make_report(report, title, text);
	assert_int_equal(cgfb_mail_format(report->data, report->len, NULL, mail), 0);
}

static void expect_extract(const char *msg, size_t len, const struct cgfb_buf *want)
{
	struct cgfb_buf got = { 0 };
	char err[256] = "";
	const int rc = cgfb_mail_extract(msg, len, &got, err, sizeof(err));

	if (rc != 0)
		fail_msg("extract: %d %s", rc, err);
	assert_int_equal(got.len, want->len);
	assert_memory_equal(got.data, want->data, want->len);
	cgfb_buf_free(&got);
}

/* True when the header part has exactly this line. */
static bool has_header_line(const char *mail, const char *line)
{
	const char *end = strstr(mail, "\n\n");
	const size_t n = strlen(line);

	for (const char *p = mail; p && p < end; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (strncmp(p, line, n) == 0 && p[n] == '\n')
			return true;
	return false;
}

static void round_trip(void **state)
{
	struct cgfb_buf r = { 0 }, m = { 0 };
	char sha[65], hdr[128];

	format_report(&r, &m, "\"Non-hierarchical mode is deprecated\"",
		      "\"VMs under libvirt: Gr\\u00fc\xc3\x9f" "e, \\\"quoted\\\"\\nsecond line\"");
	cgfb_sha256_hex(r.data, r.len, sha);
	snprintf(hdr, sizeof(hdr), CGFB_MAIL_HDR_SHA256 ": %s", sha);
	assert_true(has_header_line(m.data, hdr));
	assert_true(has_header_line(m.data, CGFB_MAIL_HDR_ID
				    ": 0b7a3c1e-5f2d-4a8b-9c6d-1e2f3a4b5c6d"));
	assert_true(has_header_line(m.data, "Date: Tue, 04 Mar 2025 05:06:07 +0000"));
	assert_true(has_header_line(m.data, "To: linux-mm@kvack.org"));
	assert_true(has_header_line(m.data, "Content-Type: text/plain; charset=utf-8"));
	assert_true(has_header_line(m.data, "Content-Transfer-Encoding: quoted-printable"));
	assert_true(has_header_line(m.data, "Message-ID: "
				    "<0b7a3c1e-5f2d-4a8b-9c6d-1e2f3a4b5c6d@cgroup-feedback.invalid>"));
	assert_non_null(strstr(m.data, "\n    Non-hierarchical mode is deprecated."));
	assert_non_null(strstr(m.data, "\n  VMs under libvirt"));
	assert_non_null(strstr(m.data, "\n" CGFB_MAIL_BEGIN "\n"));
	expect_extract(m.data, m.len, &r);
	cgfb_buf_free(&r);
	cgfb_buf_free(&m);
}

/* A report about another machine says so above its facts, in the mail's
 * text as in the report (system.facts); this machine's says nothing. */
static void another_machine_said(void **state)
{
	static const char *const facts[] = { "log", "copy" };
	static const char *const said[] = { "\n  another machine's, as its log shows it\n",
					    "\n  another machine's, as a copy of its files shows it\n" };
	struct cgfb_buf r = { 0 }, m = { 0 };

	format_report(&r, &m, "\"t\"", "\"u\"");
	assert_null(strstr(m.data, "another machine's"));
	cgfb_buf_free(&r);
	cgfb_buf_free(&m);
	for (int i = 0; i < 2; i++) {
		make_report_facts(&r, "\"t\"", "\"u\"", facts[i]);
		assert_int_equal(cgfb_mail_format(r.data, r.len, NULL, &m), 0);
		if (!strstr(m.data, said[i]))
			fail_msg("no '%s' in:\n%s", said[i], m.data);
		expect_extract(m.data, m.len, &r);
		cgfb_buf_free(&r);
		cgfb_buf_free(&m);
	}
}

/* Mails exported before the header was written on one line fold it right
 * after the colon; they are still in people's outboxes and must import. */
static void old_folded_header(void **state)
{
	struct cgfb_buf r = { 0 }, m = { 0 }, old = { 0 };
	char sha[65], line[128];
	const char *p, *eol;

	format_report(&r, &m, "\"t\"", "\"x\"");
	cgfb_sha256_hex(r.data, r.len, sha);
	snprintf(line, sizeof(line), CGFB_MAIL_HDR_SHA256 ": %s\n", sha);
	p = strstr(m.data, line);
	assert_non_null(p);
	eol = p + strlen(line);
	assert_int_equal(cgfb_buf_add(&old, m.data, (size_t)(p - m.data)), 0);
	assert_int_equal(cgfb_buf_printf(&old, CGFB_MAIL_HDR_SHA256 ":\n %s\n", sha), 0);
	assert_int_equal(cgfb_buf_add(&old, eol, m.len - (size_t)(eol - m.data)), 0);
	expect_extract(old.data, old.len, &r);
	cgfb_buf_free(&r);
	cgfb_buf_free(&m);
	cgfb_buf_free(&old);
}

static void line_limits(void **state)
{
	struct cgfb_buf r = { 0 }, m = { 0 };
	char text[3000] = "\"";
	size_t n = 1;

	/* "From " and marker-like text at every offset modulo the width, and
	 * a long word with multi-byte characters. */
	for (int i = 0; i < 20; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%.*sFrom -.>x ", i, "zzzzzzzzzzzzzzzzzzzz");
	for (int i = 0; i < 100; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "\xc3\xa9");
	snprintf(text + n, sizeof(text) - n, "\\n" CGFB_MAIL_END "\"");
	format_report(&r, &m, "\"t\"", text);
	for (char *p = m.data, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		assert_non_null(nl);
		/* Columns, not bytes: the text has two-byte characters. */
		size_t cols = 0;

		for (char *q = p; q < nl; q++)
			cols += ((unsigned char)*q & 0xc0) != 0x80;
		/* The hash header is 90 columns: it has nowhere to fold but
		 * after the colon, which parsers read as part of the value. */
		if (cols > 78 && strncmp(p, CGFB_MAIL_HDR_SHA256 ": ", strlen(CGFB_MAIL_HDR_SHA256) + 2) != 0)
			fail_msg("line of %zu columns: %.*s", cols, (int)(nl - p), p);
		if (strncmp(p, "From ", 5) == 0 || *p == '>')
			fail_msg("line starts badly: %.*s", (int)(nl - p), p);
		if (nl > p && nl[-1] == ' ')
			fail_msg("line ends in a space: %.*s", (int)(nl - p), p);
	}
	/* The marker-like use case line is indented, so only the real markers count. */
	assert_int_equal(strstr(m.data, "\n" CGFB_MAIL_END "\n") - m.data,
			 (long)m.len - (long)strlen(CGFB_MAIL_END) - 2);
	expect_extract(m.data, m.len, &r);
	cgfb_buf_free(&r);
	cgfb_buf_free(&m);
}

static int hexdigit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static void crlf_and_8bit(void **state)
{
	struct cgfb_buf r = { 0 }, m = { 0 }, crlf = { 0 }, eight = { 0 };
	const char *qp_hdr = "Content-Transfer-Encoding: quoted-printable";
	bool body = false;

	format_report(&r, &m, "\"t\"", "\"caf\xc3\xa9 = ok, and a long line that goes on and on "
		      "past seventy-six columns with \xc3\xbc\xc3\xbc\xc3\xbc in it\"");
	/* Non-ASCII text goes out quoted-printable, no line over 76 columns. */
	assert_true(has_header_line(m.data, qp_hdr));
	for (const char *p = strstr(m.data, "\n\n"); (p = strchr(p, '\n')) != NULL; p++)
		assert_true(strcspn(p + 1, "\n") <= 76);
	for (size_t i = 0; i < m.len; i++) {
		if (m.data[i] == '\n')
			cgfb_buf_add(&crlf, "\r", 1);
		cgfb_buf_add(&crlf, m.data + i, 1);
	}
	expect_extract(crlf.data, crlf.len, &r);

	/* A mail path that decodes it to 8bit on the way. */
	for (size_t i = 0; i < m.len; i++) {
		const char c = m.data[i];

		if (!body && i && m.data[i - 1] == '\n' && c == '\n')
			body = true;
		if (!body && strncmp(m.data + i, qp_hdr, strlen(qp_hdr)) == 0) {
			cgfb_buf_adds(&eight, "Content-Transfer-Encoding: 8bit");
			i += strlen(qp_hdr) - 1;
			continue;
		}
		if (body && c == '=' && m.data[i + 1] == '\n') {
			i++;
			continue;
		}
		if (body && c == '=' && hexdigit(m.data[i + 1]) >= 0 && hexdigit(m.data[i + 2]) >= 0) {
			const char b = (char)(hexdigit(m.data[i + 1]) << 4 | hexdigit(m.data[i + 2]));

			cgfb_buf_add(&eight, &b, 1);
			i += 2;
			continue;
		}
		cgfb_buf_add(&eight, &c, 1);
	}
	assert_non_null(strstr(eight.data, "caf\xc3\xa9 = ok"));
	expect_extract(eight.data, eight.len, &r);
	cgfb_buf_free(&r);
	cgfb_buf_free(&m);
	cgfb_buf_free(&crlf);
	cgfb_buf_free(&eight);
}

static void mbox_split(void **state)
{
	struct cgfb_buf r[3] = { 0 }, m = { 0 }, box = { 0 };
	const char *texts[3] = { "\"one\"", "\"From the start\\nFrom here\"",
				 "\"three >From x\"" };
	const char *msg;
	size_t pos = 0, len, k = 0;

	for (int i = 0; i < 3; i++) {
		format_report(&r[i], &m, "\"t\"", texts[i]);
		assert_int_equal(cgfb_mbox_append(&box, m.data, m.len, 1700000000), 0);
	}
	assert_int_equal(strncmp(box.data, "From cgroup-feedback@localhost Tue Nov 14 22:13:20 2023\n",
				 56), 0);
	while (cgfb_mbox_next(box.data, box.len, &pos, &msg, &len) == 1) {
		assert_true(k < 3);
		expect_extract(msg, len, &r[k]);
		k++;
	}
	assert_int_equal(k, 3);
	/* A file that does not start with "From " is one message. */
	pos = 0;
	assert_int_equal(cgfb_mbox_next(m.data, m.len, &pos, &msg, &len), 1);
	assert_int_equal(len, m.len);
	assert_int_equal(cgfb_mbox_next(m.data, m.len, &pos, &msg, &len), 0);
	for (int i = 0; i < 3; i++)
		cgfb_buf_free(&r[i]);
	cgfb_buf_free(&m);
	cgfb_buf_free(&box);
}

static void damaged(void **state)
{
	struct cgfb_buf r = { 0 }, m = { 0 }, got = { 0 };
	char err[256];
	char *p;

	format_report(&r, &m, "\"t\"", "\"x\"");
	p = strstr(m.data, "\"schema_version\":1");
	assert_non_null(p);
	p[17] = '2';
	assert_int_equal(cgfb_mail_extract(m.data, m.len, &got, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "SHA-256"));
	p[17] = '1';
	p = strstr(m.data, "\n" CGFB_MAIL_END);
	assert_int_equal(cgfb_mail_extract(m.data, (size_t)(p - m.data), &got, err, sizeof(err)),
			 -EBADMSG);
	p = strstr(m.data, CGFB_MAIL_HDR_SHA256);
	p[2] = 'Y';
	assert_int_equal(cgfb_mail_extract(m.data, m.len, &got, err, sizeof(err)), -EBADMSG);
	assert_int_equal(cgfb_mail_extract(S("Subject: hi\n\nno report here\n"), &got, err,
					   sizeof(err)), -ENOENT);
	/* A quoted-printable message with no body at all (found by fuzz/mail):
	 * its header promises a report that is not there. */
	assert_int_equal(cgfb_mail_extract(S(CGFB_MAIL_HDR_SHA256 ": 00\n"
					     "Content-Transfer-Encoding: quoted-printable\n\n"),
					   &got, err, sizeof(err)), -EBADMSG);
	assert_int_equal(cgfb_mail_format(S("{\"a\":1}"), NULL, &m), -EINVAL);
	assert_int_equal(cgfb_mail_format(S("{ \"report_id\": \"x\" }"), NULL, &m), -EINVAL);
	cgfb_buf_free(&r);
	cgfb_buf_free(&m);
	cgfb_buf_free(&got);
}

static void header_injection(void **state)
{
	struct cgfb_buf r = { 0 }, m = { 0 };
	const struct cgfb_mail_opts o = { "Admin <root@example.org>", "list@example.org" };

	make_report(&r, "\"evil\\nBcc: victim@example.org \xc3\xa9\"", "\"x\"");
	assert_int_equal(cgfb_mail_format(r.data, r.len, &o, &m), 0);
	assert_null(strstr(m.data, "\nBcc:"));
	assert_true(has_header_line(m.data, "From: Admin <root@example.org>"));
	assert_true(has_header_line(m.data, "To: list@example.org"));
	assert_non_null(strstr(m.data, "Subject: =?utf-8?B?"));
	expect_extract(m.data, m.len, &r);
	cgfb_buf_free(&r);
	cgfb_buf_free(&m);
}

/* Every report of a message, whatever the transfer did: two mails joined
 * into one (the second's headers in the first's body), the whole in base64
 * with CR line ends; and a report's header without its report. */
static void every_report(void **state)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	struct cgfb_buf r1 = { 0 }, m1 = { 0 }, r2 = { 0 }, m2 = { 0 }, joined = { 0 };
	struct cgfb_buf enc = { 0 }, got = { 0 };
	struct cgfb_mail_reader rd;
	const char *body;
	char err[256];
	size_t hdr;

	format_report(&r1, &m1, "\"one\"", "\"first\"");
	format_report(&r2, &m2, "\"two\"", "\"second\"");
	assert_int_equal(cgfb_buf_add(&joined, m1.data, m1.len), 0);
	assert_int_equal(cgfb_buf_add(&joined, "\n", 1), 0);
	assert_int_equal(cgfb_buf_add(&joined, m2.data, m2.len), 0);
	body = strstr(joined.data, "\n\n") + 2;
	hdr = (size_t)(body - joined.data);
	for (const char *l = joined.data, *nl; l < body - 1; l = nl + 1) {
		nl = strchr(l, '\n');
		if (strncmp(l, "Content-Transfer-Encoding:", 26) != 0)
			assert_int_equal(cgfb_buf_add(&enc, l, (size_t)(nl + 1 - l)), 0);
	}
	assert_int_equal(cgfb_buf_printf(&enc, "Content-Transfer-Encoding: base64\n\n"), 0);
	for (size_t i = 0; i < joined.len - hdr; i += 3) {
		const unsigned char *p = (const unsigned char *)body + i;
		const size_t n = joined.len - hdr - i;
		const unsigned v = p[0] << 16 | (n > 1 ? p[1] << 8 : 0) | (n > 2 ? p[2] : 0);

		assert_int_equal(cgfb_buf_printf(&enc, "%c%c%c%c%s", b64[v >> 18], b64[v >> 12 & 63],
						 n > 1 ? b64[v >> 6 & 63] : '=', n > 2 ? b64[v & 63] : '=',
						 i % 57 == 54 ? "\n" : ""), 0);
	}
	for (size_t i = 0; i < enc.len; i++)
		if (enc.data[i] == '\n')
			enc.data[i] = '\r';
	assert_int_equal(cgfb_mail_open(&rd, enc.data, enc.len, err, sizeof(err)), 0);
	assert_int_equal(rd.n_sha, 2);
	assert_int_equal(cgfb_mail_next(&rd, &got, err, sizeof(err)), 1);
	assert_int_equal(got.len, r1.len);
	assert_memory_equal(got.data, r1.data, r1.len);
	assert_int_equal(cgfb_mail_next(&rd, &got, err, sizeof(err)), 1);
	assert_int_equal(got.len, r2.len);
	assert_memory_equal(got.data, r2.data, r2.len);
	assert_int_equal(cgfb_mail_next(&rd, &got, err, sizeof(err)), 0);
	cgfb_mail_close(&rd);

	/* A report header without its report is damage, not "no report". */
	assert_int_equal(cgfb_mail_open(&rd, m1.data, (size_t)(strstr(m1.data, CGFB_MAIL_BEGIN) -
								m1.data), err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "no " CGFB_MAIL_BEGIN));
	cgfb_mail_close(&rd);
	cgfb_buf_free(&r1);
	cgfb_buf_free(&m1);
	cgfb_buf_free(&r2);
	cgfb_buf_free(&m2);
	cgfb_buf_free(&joined);
	cgfb_buf_free(&enc);
	cgfb_buf_free(&got);
}

/* A withdrawal: its id and token in headers the import reads, lines within
 * the mail's width, and nothing a report reader would take for a report. */
static void withdrawal(void **state)
{
	static const char id[] = "0badf00d-0000-4000-8000-00000000c0de";
	static const char token[] = "f36507819df1da02c52398f8e97366092b0d033e9e955490efbeda3ffe66014f";
	const struct cgfb_mail_opts mo = { .to = "linux-mm@kvack.org" };
	struct cgfb_mail_reader r;
	struct cgfb_buf mail = { 0 };
	char got[80], err[128];
	size_t start = 0;

	assert_int_equal(cgfb_mail_format_withdrawal(id, token, &mo, 0, &mail), 0);
	assert_true(cgfb_mail_header(mail.data, mail.len, CGFB_MAIL_HDR_WITHDRAW, got, sizeof(got)));
	assert_string_equal(got, id);
	assert_true(cgfb_mail_header(mail.data, mail.len, CGFB_MAIL_HDR_TOKEN, got, sizeof(got)));
	assert_string_equal(got, token);
	for (size_t i = 0; i < mail.len; i++)
		if (mail.data[i] == '\n') {
			if (i - start > 78 && strncmp(mail.data + start, "X-Cgroup", 8) != 0)
				fail_msg("a line of %zu columns", i - start);
			start = i + 1;
		}
	assert_int_equal(cgfb_mail_open(&r, mail.data, mail.len, err, sizeof(err)), -ENOENT);
	cgfb_mail_close(&r);
	cgfb_buf_free(&mail);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(another_machine_said),
		cmocka_unit_test(old_folded_header),
		cmocka_unit_test(line_limits),
		cmocka_unit_test(crlf_and_8bit),
		cmocka_unit_test(mbox_split),
		cmocka_unit_test(damaged),
		cmocka_unit_test(header_injection),
		cmocka_unit_test(every_report),
		cmocka_unit_test(withdrawal),
	};

	return cmocka_run_group_tests_name("mail", tests, NULL, NULL);
}
