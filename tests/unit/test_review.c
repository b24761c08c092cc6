/* The interactive review (cli/review.c) as a dialogue: scripted answers in,
 * what the administrator would read out, and what the spool holds after,
 * on real reports in a scratch state directory. Each outcome (keep,
 * resume, decline, never, export), the secret check, refused control
 * characters, a closed terminal and the configuration's limits. Sending is
 * always answered no here: the collector's side is review.sh's. */
#include "testutil.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/statedir.h"
#include "cgfb/readfile.h"
#include "cgfb/schema.h"
#include "cli/review.h"
#include "config/config.h"
#include "consent/draft.h"
#include "privacy/where.h"
#include "report/snapshot.h"
#include "report/spool.h"

static char dir[] = "/tmp/cgfb-review.XXXXXX";
static struct cgfb_catalog *cat;
static struct cgfb_schema *schema;
static struct cgfb_statedir sd = { .fd = -1 };
static struct cgfb_spool sp = { .fd = -1 };
static struct cgfb_config conf;
static size_t n_questions;         /* M8's asked here, from the catalog */

static int setup(void **state)
{
	char err[256];

	cat = test_catalog();
	if (!mkdtemp(dir) || cgfb_schema_load_builtin(&schema, err, sizeof(err)) < 0 ||
	    cgfb_statedir_open(&sd, dir, 0, err, sizeof(err)) < 0 || cgfb_spool_open(&sp, &sd) < 0)
		return -1;
	/* The reports here are of an empty tree: no reorganisation is shown,
	 * so M8's question about it is not asked. */
	n_questions = cgfb_catalog_find(cat, "M8")->questions->n - 1;
	/* The review's pager is not used when its output is no terminal. */
	unsetenv("PAGER");
	return n_questions > 0 ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[64];

	cgfb_spool_close(&sp);
	cgfb_statedir_close(&sd);
	cgfb_schema_free(schema);
	cgfb_catalog_free(cat);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static int each(void **state)
{
	char err[256], motd[128];

	cgfb_config_defaults(&conf);
	/* The banner review refreshes stays in the scratch directory, never
	 * the host's /run/motd.d. */
	snprintf(motd, sizeof(motd), "%s/motd", dir);
	if (cgfb_config_set(&conf, "motd-path", motd, err, sizeof(err)) != 0)
		return -1;
	return cgfb_config_set(&conf, "endpoint", "https://collector.invalid/api/v1/reports", err,
			       sizeof(err)) == 0 ? 0 : -1;
}

/* A new report of catalog entry id in the spool (an empty tree). */
static void new_report_of(const char *cid, struct cgfb_spool_entry *e)
{
	const struct cgfb_snapshot_opts o = { .state = &sd, .mountinfo = "/dev/null" };
	struct cgfb_snapshot *s;
	struct cgfb_buf b = { 0 };
	char id[CGFB_REPORT_ID_LEN + 1], err[512];

	assert_int_equal(cgfb_snapshot_new(&o, &s), 0);
	assert_int_equal(cgfb_snapshot_report(s, cgfb_catalog_find(cat, cid), NULL, "file", false,
					      &b, id, err, sizeof(err)), 0);
	assert_int_equal(cgfb_snapshot_save(s, id, &b), 0);
	cgfb_buf_free(&b);
	cgfb_snapshot_free(s);
	assert_int_equal(cgfb_spool_load(&sp, id, e, NULL), 0);
}

static void new_report(struct cgfb_spool_entry *e)
{
	new_report_of("M8", e);
}

/* One review with input; what it printed into *out (malloc'ed). */
static int run(struct cgfb_spool_entry *e, const char *input, char **out,
	       const char *export_path)
{
	size_t outlen;
	FILE *in = input[0] ? fmemopen((void *)input, strlen(input), "r") : fopen("/dev/null", "r");
	FILE *o = open_memstream(out, &outlen);
	const struct cgfb_review_ctx rc = {
		.config = &conf, .cat = cat, .schema = schema, .spool = &sp, .sd = &sd,
		.in = in, .out = o, .export_path = export_path,
	};
	int r;

	assert_non_null(in);
	assert_non_null(o);
	r = cgfb_review(&rc, e);
	fclose(in);
	fclose(o);
	return r;
}

/* n_questions answers "answer-0"... (or Enter each), then the rest. */
static char *script(bool answer, const char *rest)
{
	struct cgfb_buf b = { 0 };

	for (size_t i = 0; i < n_questions; i++)
		cgfb_buf_printf(&b, answer ? "answer-%zu\n" : "\n", i);
	cgfb_buf_printf(&b, "%s", rest);
	return b.data;
}

static enum cgfb_rstate state_now(const char *id)
{
	struct cgfb_spool_entry e;

	assert_int_equal(cgfb_spool_load(&sp, id, &e, NULL), 0);
	return e.state;
}

static bool silenced_file_has(const char *what)
{
	struct cgfb_buf b = { 0 };
	bool has;

	if (cgfb_read_file_at(sd.fd, CGFB_SILENCED_FILE, 4096, 0, &b) < 0)
		return false;
	has = strstr(b.data, what) != NULL;
	cgfb_buf_free(&b);
	return has;
}

/* Keep for later keeps every answer, on disk, and sends nothing; the next
 * review starts from them, Enter keeps them, and d declines. */
static void keep_then_resume_and_decline(void **state)
{
	struct cgfb_spool_entry e;
	struct cgfb_draft d = { 0 };
	char *in = script(true, "our own batch scheduler\nsecond line\n\n\nk\n"), *out = NULL;

	new_report(&e);
	assert_int_equal(run(&e, in, &out, NULL), CGFB_REVIEW_KEPT);
	assert_non_null(strstr(out, "== cgroup-feedback: report "));
	assert_non_null(strstr(out, "The kernel printed (M8)"));
	/* The bytes shown before the question carry what was typed. */
	assert_non_null(strstr(out, "our own batch scheduler\\nsecond line"));
	assert_non_null(strstr(out, "\"answer-0\""));
	assert_non_null(strstr(out, "Send this report to https://collector.invalid/api/v1/reports? [y/N]"));
	assert_non_null(strstr(out, "Kept for later with what you typed; nothing was sent."));
	assert_int_equal(state_now(e.id), CGFB_R_PENDING);
	assert_int_equal(cgfb_draft_load(&sp, e.id, &d), 0);
	assert_string_equal(d.text, "our own batch scheduler\nsecond line");
	assert_int_equal(d.n, n_questions);
	assert_string_equal(d.values[0], "answer-0");
	cgfb_draft_free(&d);
	free(in);
	free(out);

	/* Enter at each question and at the use case keeps; no, then d, and
	 * yes to its question. */
	in = script(false, "\n\nd\ny\n");
	assert_int_equal(run(&e, in, &out, NULL), CGFB_REVIEW_DECLINED);
	assert_non_null(strstr(out, "(your answer so far: answer-0)"));
	assert_non_null(strstr(out, "  | our own batch scheduler\n  | second line\n"));
	assert_non_null(strstr(out, "Declined. Nothing was sent."));
	assert_int_equal(state_now(e.id), CGFB_R_DECLINED);
	assert_false(silenced_file_has("M8"));
	assert_int_equal(cgfb_draft_load(&sp, e.id, &d), 0);
	assert_string_equal(d.text, "our own batch scheduler\nsecond line");
	cgfb_draft_free(&d);
	free(in);
	free(out);
}

/* "-" alone removes an answer and the use case; a new one replaces. */
static void remove_and_replace(void **state)
{
	struct cgfb_spool_entry e;
	struct cgfb_draft d = { 0 };
	char *in = script(true, "first\n\n\nk\n"), *out = NULL;

	new_report(&e);
	assert_int_equal(run(&e, in, &out, NULL), CGFB_REVIEW_KEPT);
	free(in);
	free(out);
	/* The first answer removed, the others kept, the use case removed. */
	in = script(false, "-\n\nk\n");
	memmove(in + 1, in, strlen(in) + 1);
	in[0] = '-';
	assert_int_equal(run(&e, in, &out, NULL), CGFB_REVIEW_KEPT);
	assert_non_null(strstr(out, "This report has no use case"));
	assert_int_equal(cgfb_draft_load(&sp, e.id, &d), 0);
	assert_string_equal(d.text, "");
	assert_null(cgfb_draft_answer(&d, cgfb_catalog_find(cat, "M8")->questions->q[0].key));
	assert_int_equal(d.n, n_questions - 1);
	cgfb_draft_free(&d);
	free(in);
	free(out);
}

/* n at the send question and n again is no decision (asked again); never
 * is v, and only after its own yes (Enter at it goes back). */
static void never(void **state)
{
	struct cgfb_spool_entry e;
	char *in = script(false, "\n\nn\nv\n\nv\ny\n"), *out = NULL;

	new_report(&e);
	assert_int_equal(run(&e, in, &out, NULL), CGFB_REVIEW_SILENCED);
	assert_non_null(strstr(out, "Please answer with one of the letters in brackets (ekdv)."));
	assert_non_null(strstr(out, "Never ask about M8 again: its reports are kept"));
	assert_non_null(strstr(out, "you will not be asked about this message again"));
	assert_int_equal(state_now(e.id), CGFB_R_DECLINED);
	assert_true(silenced_file_has("M8\n"));
	free(in);
	free(out);
}

/* What looks private is listed and, with Enter, replaced in the draft and
 * in the bytes; then export writes the e-mail and records the consent for
 * it, for the mailto: endpoint. */
static void secrets_redacted_then_export(void **state)
{
	struct cgfb_spool_entry e;
	struct cgfb_draft d = { 0 };
	struct cgfb_buf mail = { 0 };
	char path[PATH_MAX];
	char *in = script(false, "ask alice@acme-corp.example for the details\n\n\n\ne\n\ny\n"),
	     *out = NULL;

	snprintf(path, sizeof(path), "%s/export.eml", dir);
	new_report(&e);
	assert_int_equal(run(&e, in, &out, path), CGFB_REVIEW_EXPORTED);
	assert_non_null(strstr(out, "contains what looks like private information"));
	/* The finding, where it is, and its line around it. */
	assert_non_null(strstr(out, "e-mail address: alice@acme-corp.example (the use case, "
				    "line 1, column 5)\n    ask >>alice@acme-corp.example<< for"));
	assert_non_null(strstr(out, "Write this report as an e-mail for linux-mm@kvack.org"));
	assert_non_null(strstr(out, "Wrote "));
	assert_int_equal(cgfb_draft_load(&sp, e.id, &d), 0);
	assert_null(strstr(d.text, "alice"));
	assert_non_null(strstr(d.text, "[redacted"));
	cgfb_draft_free(&d);
	assert_int_equal(cgfb_read_file(path, 1 << 20, 0, &mail), 0);
	assert_null(strstr(mail.data, "alice@acme-corp"));
	assert_non_null(strstr(mail.data, "[redacted"));
	cgfb_buf_free(&mail);
	assert_int_equal(cgfb_spool_load(&sp, e.id, &e, NULL), 0);
	assert_int_equal(e.state, CGFB_R_CONSENTED);
	assert_int_equal(strncmp(e.endpoint, "mailto:", 7), 0);
	free(in);
	free(out);
}

/* Kept as written when the administrator says n: sent as typed, and not
 * asked about again in the next review. */
static void secret_kept_is_not_asked_again(void **state)
{
	struct cgfb_spool_entry e;
	char *in = script(false, "our host is db01.acme-corp.example\n\nn\n\nk\n"), *out = NULL;

	new_report(&e);
	assert_int_equal(run(&e, in, &out, NULL), CGFB_REVIEW_KEPT);
	assert_non_null(strstr(out, "looks like private information"));
	assert_non_null(strstr(out, "db01.acme-corp.example"));
	free(in);
	free(out);
	in = script(false, "\n\nk\n");
	assert_int_equal(run(&e, in, &out, NULL), CGFB_REVIEW_KEPT);
	assert_null(strstr(out, "looks like private information"));
	free(in);
	free(out);
}

static char *draft_file(const char *id)
{
	struct cgfb_buf b = { 0 };
	char name[64];

	snprintf(name, sizeof(name), "%s.draft", id);
	assert_int_equal(cgfb_read_file_at(sp.fd, name, 1 << 20, 0, &b), 0);
	return b.data;
}

/* Each finding is asked about on its own: k keeps the host name, Enter
 * replaces the address in the same text; only the host name is kept,
 * remembered for that text, and the next review of it asks nothing. */
static void each_finding_asked_on_its_own(void **state)
{
	struct cgfb_spool_entry e;
	struct cgfb_draft d = { 0 };
	char *in = script(false, "our db01.acme-corp.example mails alice@acme-corp.example\n\n"
				 "k\n\n\nk\n"),
	     *out = NULL, *file;

	new_report(&e);
	assert_int_equal(run(&e, in, &out, NULL), CGFB_REVIEW_KEPT);
	assert_int_equal(cgfb_draft_load(&sp, e.id, &d), 0);
	assert_string_equal(d.text, "our db01.acme-corp.example mails [redacted e-mail address]");
	cgfb_draft_free(&d);
	assert_non_null(strstr(out, "    our >>db01.acme-corp.example<< mails alice"));
	assert_non_null(strstr(out, "mails >>alice@acme-corp.example<<\n"));
	file = draft_file(e.id);
	assert_non_null(strstr(file, "db01.acme-corp.example"));
	assert_null(strstr(file, "alice"));
	free(file);
	free(in);
	free(out);
	in = script(false, "\n\nk\n");
	assert_int_equal(run(&e, in, &out, NULL), CGFB_REVIEW_KEPT);
	assert_null(strstr(out, "looks like private information"));
	free(in);
	free(out);
}

/* A kept string is kept for the text it was shown in only: the use case
 * edited, or the same string in an answer, is asked about again, and
 * Enter there replaces it. */
static void kept_is_bound_to_its_text(void **state)
{
	struct cgfb_spool_entry e;
	struct cgfb_draft d = { 0 };
	char *in = script(false, "host db01.acme-corp.example\n\nk\n\nk\n"), *out = NULL;

	new_report(&e);
	assert_int_equal(run(&e, in, &out, NULL), CGFB_REVIEW_KEPT);
	free(in);
	free(out);
	/* The use case edited: asked again. */
	in = script(false, "new host db01.acme-corp.example\n\n\n\nk\n");
	assert_int_equal(run(&e, in, &out, NULL), CGFB_REVIEW_KEPT);
	assert_int_equal(cgfb_draft_load(&sp, e.id, &d), 0);
	assert_string_equal(d.text, "new host [redacted host name]");
	cgfb_draft_free(&d);
	assert_non_null(strstr(out, "db01.acme-corp.example (the use case, line 1, column 10)"));
	free(in);
	free(out);
	/* Kept in the use case, then typed in an answer: asked there. */
	new_report(&e);
	in = script(false, "host db01.acme-corp.example\n\nk\n\nk\n");
	assert_int_equal(run(&e, in, &out, NULL), CGFB_REVIEW_KEPT);
	free(in);
	free(out);
	in = script(false, "\n\nk\n");
	memmove(in + strlen("db01.acme-corp.example"), in, strlen(in) + 1);
	memcpy(in, "db01.acme-corp.example", strlen("db01.acme-corp.example"));
	assert_int_equal(run(&e, in, &out, NULL), CGFB_REVIEW_KEPT);
	assert_int_equal(cgfb_draft_load(&sp, e.id, &d), 0);
	assert_string_equal(d.values[0], "[redacted host name]");
	assert_string_equal(d.text, "host db01.acme-corp.example");
	cgfb_draft_free(&d);
	assert_non_null(strstr(out, "db01.acme-corp.example (your answer to "));
	free(in);
	free(out);
}

/* A draft from before kept strings were bound to their text (a list of
 * bare strings) keeps nothing: the string is asked about again, and a
 * terminal closed at that question replaces it. */
static void old_kept_list_asks_again(void **state)
{
	static const char old[] = "{\"use_case\": \"host db01.acme-corp.example\", "
				  "\"kept\": [\"db01.acme-corp.example\"]}";
	struct cgfb_spool_entry e;
	struct cgfb_draft d = { 0 };
	char *in = script(false, "\n"), *out = NULL, *file;

	new_report(&e);
	assert_int_equal(cgfb_spool_save_draft(&sp, e.id, old, strlen(old)), 0);
	assert_int_equal(cgfb_draft_load(&sp, e.id, &d), 0);
	assert_int_equal(d.n_kept, 0);
	assert_string_equal(d.text, "host db01.acme-corp.example");
	cgfb_draft_free(&d);
	assert_int_equal(run(&e, in, &out, NULL), CGFB_REVIEW_KEPT);
	assert_non_null(strstr(out, "looks like private information"));
	file = draft_file(e.id);
	assert_null(strstr(file, "db01"));
	free(file);
	free(in);
	free(out);
}

/* A draft on disk is text whoever could write the file chose (issue 39):
 * the review shows it escaped, never raw: an OSC title, an OSC 52
 * clipboard write, a screen clear, DEL, CSI in UTF-8, a right-to-left
 * override, in the use case and in an answer. */
static void draft_from_disk_shown_escaped(void **state)
{
	static const char hostile[] = "{\"use_case\": \"ev\\u001b]0;x\\u0007\\u001b]52;c;Y2g=\\u0007"
				      "\\nline\\u001b[2J\\u007f\\u009b\\u202e\", \"answers\": "
				      "{\"hierarchy\": \"a\\u001b[2J\\u202eb\"}}";
	static const char *const raw[] = { "\x1b", "\x07", "\x7f", "\xc2\x9b", "\xe2\x80\xae" };
	struct cgfb_spool_entry e;
	char *in = script(false, "\n\nk\n"), *out = NULL;

	new_report(&e);
	assert_int_equal(cgfb_spool_save_draft(&sp, e.id, hostile, strlen(hostile)), 0);
	run(&e, in, &out, NULL);
	for (size_t i = 0; i < sizeof(raw) / sizeof(raw[0]); i++)
		if (strstr(out, raw[i]))
			fail_msg("raw bytes (case %zu) at offset %td of the review", i,
				 strstr(out, raw[i]) - out);
	assert_non_null(strstr(out, "  | ev\\x1b]0;x\\x07\\x1b]52;c;Y2g=\\x07\n"
				    "  | line\\x1b[2J\\x7f\\u009b\\u202e\n"));
	free(in);
	free(out);
}

/* Where a finding is: line and column in characters (a UTF-8 letter is
 * one), and its line cut around it at character boundaries. */
static void finding_where_and_context(void **state)
{
	static const char text[] = "first line\n\xc3\xa9t\xc3\xa9: ask bob@x.example now";
	const struct cgfb_finding f = { .kind = CGFB_SECRET_EMAIL, .start = 22, .len = 13 };
	const struct cgfb_where w = cgfb_finding_where(text, &f);
	struct cgfb_buf b = { 0 };
	char long_line[200];

	assert_int_equal(w.line, 2);
	assert_int_equal(w.column, 10);
	assert_int_equal(cgfb_finding_context(&b, text, &f), 0);
	assert_string_equal(b.data, "\xc3\xa9t\xc3\xa9: ask >>bob@x.example<< now");
	cgfb_buf_free(&b);
	/* 40 two-byte letters each side: cut to at most 30 bytes, whole letters. */
	memset(long_line, 0, sizeof(long_line));
	for (int i = 0; i < 40; i++)
		memcpy(long_line + 2 * i, "\xc3\xa9", 2);
	memcpy(long_line + 80, "bob@x.example", 13);
	for (int i = 0; i < 40; i++)
		memcpy(long_line + 93 + 2 * i, "\xc3\xa9", 2);
	{
		const struct cgfb_finding g = { .kind = CGFB_SECRET_EMAIL, .start = 80, .len = 13 };

		assert_int_equal(cgfb_finding_context(&b, long_line, &g), 0);
	}
	assert_int_equal(strncmp(b.data, "...\xc3\xa9", 5), 0);
	assert_int_equal(strlen(b.data), 3 + 30 + 4 + 13 + 30 + 3);
	assert_non_null(strstr(b.data, "\xc3\xa9>>bob@x.example<<\xc3\xa9"));
	assert_string_equal(b.data + strlen(b.data) - 5, "\xc3\xa9...");
	cgfb_buf_free(&b);
}

/* A line with a control character (ESC would repaint the review) is
 * refused and asked for again; nothing of it is kept. */
static void control_characters_refused(void **state)
{
	struct cgfb_spool_entry e;
	struct cgfb_draft d = { 0 };
	char *in = script(false, "clear \x1b[2J this\nplain words\n\n\nk\n"), *out = NULL;

	new_report(&e);
	assert_int_equal(run(&e, in, &out, NULL), CGFB_REVIEW_KEPT);
	assert_non_null(strstr(out, "That line holds the control character 0x1b"));
	assert_int_equal(cgfb_draft_load(&sp, e.id, &d), 0);
	assert_string_equal(d.text, "plain words");
	cgfb_draft_free(&d);
	free(in);
	free(out);
}

/* A closed terminal at the first question: nothing decided, nothing lost. */
static void closed_terminal_keeps(void **state)
{
	struct cgfb_spool_entry e;
	char *out = NULL;

	new_report(&e);
	assert_int_equal(run(&e, "", &out, NULL), CGFB_REVIEW_KEPT);
	assert_non_null(strstr(out, "Kept for later"));
	assert_int_equal(state_now(e.id), CGFB_R_PENDING);
	free(out);
}

/* consent = never: no send question, export still offered. */
static void consent_never_asks_no_send(void **state)
{
	struct cgfb_spool_entry e;
	char err[128], *in = script(false, "\n\nk\n"), *out = NULL;

	assert_int_equal(cgfb_config_set(&conf, "consent", "never", err, sizeof(err)), 0);
	new_report(&e);
	assert_int_equal(run(&e, in, &out, NULL), CGFB_REVIEW_KEPT);
	assert_non_null(strstr(out, "Sending is off (consent = never"));
	assert_null(strstr(out, "Send this report to"));
	/* Where a yes goes, and where the use case would: said as it is. */
	assert_non_null(strstr(out, "Where a yes at the end goes: Nothing is sent (consent = never "
				    "in the"));
	assert_non_null(strstr(out, "Nothing is sent from here (consent = never); what you write"));
	assert_null(strstr(out, "PUBLISHED"));
	free(in);
	free(out);
}

/* An endpoint that cannot be sent to stops the review before a question. */
static void bad_endpoint_stops(void **state)
{
	struct cgfb_spool_entry e;
	char *out = NULL;

	snprintf(conf.endpoint, sizeof(conf.endpoint), "ftp://collector.invalid/");
	new_report(&e);
	assert_int_equal(run(&e, "\n", &out, NULL), -EINVAL);
	assert_null(strstr(out, "A few questions"));
	assert_int_equal(state_now(e.id), CGFB_R_PENDING);
	free(out);
}

/* Review speaks to the case: M8's write was refused by the kernel (said),
 * and with no reorganisation shown it is not asked about; M7's knob has
 * no cgroup v2 replacement (said), so none is asked about; M3's has one
 * (named, and asked about). */
static void questions_fit_the_case(void **state)
{
	struct cgfb_spool_entry e;
	char *out = NULL;

	new_report(&e);
	assert_int_equal(run(&e, "\n\n\n\n\nk\n", &out, NULL), CGFB_REVIEW_KEPT);
	assert_non_null(strstr(out, "What the kernel did with the write: the kernel refused the "
				    "write (EINVAL)"));
	assert_null(strstr(out, "Would the reorganisation"));
	assert_non_null(strstr(out, "Which software creates"));
	free(out);
	new_report_of("M7", &e);
	assert_int_equal(run(&e, "\n\n\n\n\nk\n", &out, NULL), CGFB_REVIEW_KEPT);
	assert_non_null(strstr(out, "In cgroup v2: none: cgroup v2 leaves memory charged where"));
	assert_non_null(strstr(out, "from about 6.13 the kernel refuses a non-zero write"));
	assert_null(strstr(out, "Would the cgroup v2 replacement"));
	assert_non_null(strstr(out, "What do you use this setting for?"));
	free(out);
	new_report_of("M3", &e);
	assert_int_equal(run(&e, "\n\n\n\n\nk\n", &out, NULL), CGFB_REVIEW_KEPT);
	assert_non_null(strstr(out, "In cgroup v2: memory.low (protection) or memory.high"));
	assert_non_null(strstr(out, "Would the cgroup v2 replacement"));
	assert_null(strstr(out, "What the kernel did with the write"));
	free(out);
}

/* out with every run of white space one space (the texts are wrapped). */
static char *squeezed(const char *out)
{
	char *s = strdup(out);
	size_t j = 0;

	assert_non_null(s);
	for (size_t i = 0; out[i]; i++)
		if (!isspace((unsigned char)out[i]) || (j && s[j - 1] != ' '))
			s[j++] = isspace((unsigned char)out[i]) ? ' ' : out[i];
	s[j] = '\0';
	return s;
}

/* No collector (no endpoint, the default): where a yes goes is said before
 * the first question; nothing offers to send over the network; the choice
 * is the e-mail or keep (or decline, never); and the e-mail's yes comes
 * after the whole e-mail and what the list publishes. */
static void no_collector_offers_the_mail(void **state)
{
	struct cgfb_spool_entry e;
	struct cgfb_buf mail = { 0 };
	char path[PATH_MAX];
	char *in = script(false, "\nk\n"), *out = NULL, *s;
	const char *where;

	conf.endpoint[0] = '\0';
	new_report(&e);
	assert_int_equal(run(&e, in, &out, NULL), CGFB_REVIEW_KEPT);
	s = squeezed(out);
	where = strstr(s, "Where a yes at the end goes: No collector is configured (endpoint), so a "
			  "yes writes the report as an e-mail for linux-mm@kvack.org to a file, for "
			  "you to send; nothing goes over the network.");
	assert_non_null(where);
	assert_true(where < strstr(s, "A few questions"));
	assert_non_null(strstr(s, "What you write here will be PUBLISHED: the e-mail goes to a "
				  "public list that is archived for anyone to read (linux-mm@kvack.org)."));
	assert_non_null(strstr(out, "Now: [e]-mail it to linux-mm@kvack.org (shown first, then "
				    "asked), [k]eep for later, [d]ecline, ne[v]er ask about M8 again? "
				    "[k] "));
	assert_null(strstr(out, "Send this report to"));
	assert_null(strstr(out, "These "));      /* no bytes before the e-mail is chosen */
	assert_non_null(strstr(out, "Kept for later with what you typed; nothing was sent."));
	assert_int_equal(state_now(e.id), CGFB_R_PENDING);
	free(s);
	free(in);
	free(out);

	snprintf(path, sizeof(path), "%s/no-collector.eml", dir);
	in = script(false, "\ne\nJane Admin <jane@example.org>\ny\n");
	assert_int_equal(run(&e, in, &out, path), CGFB_REVIEW_EXPORTED);
	s = squeezed(out);
	assert_non_null(strstr(out, "The e-mail, exactly as it will be written:\n\n"
				    "  From: Jane Admin <jane@example.org>\n  To: linux-mm@kvack.org\n"));
	assert_non_null(strstr(s, "Once sent, the whole e-mail is PUBLIC: it goes to the public "
				  "mailing list linux-mm@kvack.org, whose archives (lore.kernel.org "
				  "among them) anyone can read, search and copy."));
	assert_non_null(strstr(s, "and the From: line it is sent with (Jane Admin "
				  "<jane@example.org>). It cannot be withdrawn from the archives"));
	assert_true(strstr(s, "It cannot be withdrawn") < strstr(s, "Write this report as an e-mail "
								    "for linux-mm@kvack.org to "));
	assert_null(strstr(out, "Send this report to"));
	assert_int_equal(cgfb_read_file(path, 1 << 20, 0, &mail), 0);
	assert_int_equal(strncmp(mail.data, "From: Jane Admin <jane@example.org>\n", 36), 0);
	cgfb_buf_free(&mail);
	assert_int_equal(cgfb_spool_load(&sp, e.id, &e, NULL), 0);
	assert_int_equal(e.state, CGFB_R_CONSENTED);
	assert_string_equal(e.endpoint, "mailto:linux-mm@kvack.org");
	free(s);
	free(in);
	free(out);
}

/* What a collector publishes is said before its yes, from the bytes that
 * would go: with a use case, its digest quotes it and the answers under
 * the catalog id and the start of the report id; without one, nothing. */
static void collector_says_what_it_publishes(void **state)
{
	struct cgfb_spool_entry e;
	char *in = script(false, "one VM per cgroup\n\nn\nk\n"), *out = NULL, *s, want[600];

	new_report(&e);
	assert_int_equal(run(&e, in, &out, NULL), CGFB_REVIEW_KEPT);
	s = squeezed(out);
	assert_non_null(strstr(s, "Where a yes at the end goes: A yes sends the report over the "
				  "network to the collector at https://collector.invalid/api/v1/reports "
				  "(endpoint in the configuration)."));
	snprintf(want, sizeof(want), "The use case and the answers will be PUBLISHED: the "
		 "collector's digest, written for the public linux-mm mailing list, quotes them word "
		 "for word under the message's id (M8) and the start of the report id (%.8s). The "
		 "rest of the report is read by those who run the collector at "
		 "https://collector.invalid/api/v1/reports, and otherwise only counted, in its public "
		 "summary and its digest. Send this report to", e.id);
	if (!strstr(s, want))
		fail_msg("no '%s' in:\n%s", want, out);
	assert_null(strstr(s, "whole e-mail"));
	free(s);
	free(in);
	free(out);
	in = script(false, "-\n\nn\nk\n");
	assert_int_equal(run(&e, in, &out, NULL), CGFB_REVIEW_KEPT);
	s = squeezed(out);
	assert_non_null(strstr(s, "This report has no use case, and the collector's digest, written "
				  "for the public linux-mm mailing list, quotes only reports that have "
				  "one: nothing of it is quoted there."));
	assert_null(strstr(s, "will be PUBLISHED: the collector's digest, written for the public "
			      "linux-mm mailing list, quotes them"));
	free(s);
	free(in);
	free(out);
}

/* mail-to someone's own address: the e-mail is not called public, and
 * what its readers get is said as it is. */
static void own_recipients_are_not_a_public_list(void **state)
{
	struct cgfb_spool_entry e;
	char path[PATH_MAX], err[256];
	char *in = script(false, "\ne\n\ny\n"), *out = NULL, *s;

	conf.endpoint[0] = '\0';
	assert_int_equal(cgfb_config_set(&conf, "mail-to", "kernel-team@acme.example", err,
					 sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/own.eml", dir);
	new_report(&e);
	assert_int_equal(run(&e, in, &out, path), CGFB_REVIEW_EXPORTED);
	s = squeezed(out);
	assert_non_null(strstr(s, "What you write here goes, in the e-mail, to "
				  "kernel-team@acme.example."));
	assert_non_null(strstr(s, "The whole e-mail goes to kernel-team@acme.example, which is not "
				  "one of the public lists the kernel messages name: whoever reads mail "
				  "there reads everything in it"));
	assert_non_null(strstr(s, "the From: line it is sent with (for now the placeholder "
				  "cgroup-feedback <cgroup-feedback@localhost>)"));
	assert_null(strstr(s, "PUBLIC"));
	assert_null(strstr(s, "PUBLISHED"));
	free(s);
	free(in);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(keep_then_resume_and_decline, each),
		cmocka_unit_test_setup(remove_and_replace, each),
		cmocka_unit_test_setup(never, each),
		cmocka_unit_test_setup(secrets_redacted_then_export, each),
		cmocka_unit_test_setup(secret_kept_is_not_asked_again, each),
		cmocka_unit_test_setup(each_finding_asked_on_its_own, each),
		cmocka_unit_test_setup(kept_is_bound_to_its_text, each),
		cmocka_unit_test_setup(old_kept_list_asks_again, each),
		cmocka_unit_test_setup(draft_from_disk_shown_escaped, each),
		cmocka_unit_test(finding_where_and_context),
		cmocka_unit_test_setup(control_characters_refused, each),
		cmocka_unit_test_setup(closed_terminal_keeps, each),
		cmocka_unit_test_setup(consent_never_asks_no_send, each),
		cmocka_unit_test_setup(bad_endpoint_stops, each),
		cmocka_unit_test_setup(questions_fit_the_case, each),
		cmocka_unit_test_setup(no_collector_offers_the_mail, each),
		cmocka_unit_test_setup(collector_says_what_it_publishes, each),
		cmocka_unit_test_setup(own_recipients_are_not_a_public_list, each),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
