/* What the administrator says about a report: review (in a terminal),
 * decline, and the consent submit, flush and export give without one, from
 * --use-case-file, --answer and the configuration. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/hint.h"
#include "cgfb/log.h"
#include "cgfb/readfile.h"
#include "cgfb/utf8.h"
#include "cli/commands.h"
#include "cli/report_cmd.h"
#include "cli/review.h"
#include "consent/consent.h"
#include "consent/draft.h"
#include "consent/names.h"
#include "consent/notify.h"
#include "privacy/redact.h"
#include "privacy/where.h"

#define USE_CASE_FILE_MAX 8192

/* The schema refuses them too, but only this says which byte and where. */
static int refuse_controls(const char *text, size_t len, const char *what, const char *name)
{
	const ssize_t at = cgfb_text_control(text, len);

	if (at < 0)
		return 0;
	cgfb_log(LOG_ERR, "%s %s: byte %zd is the control character 0x%02x; only newline and "
		 "tab may be in free text%s", what, name, at + 1, (unsigned char)text[at],
		 text[at] == '\r' ? " (a Windows file? dos2unix converts it)" : "");
	return -EINVAL;
}

/* --use-case-file -: standard input, read to its end (a pipe, a here
 * document), blocking as a pipe wants. */
static int read_stdin(size_t max, struct cgfb_buf *b)
{
	char chunk[4096];
	size_t n;
	int rc = cgfb_buf_add(b, "", 0);

	while (rc == 0 && (n = fread(chunk, 1, sizeof(chunk), stdin)) > 0)
		rc = b->len + n > max ? -EFBIG : cgfb_buf_add(b, chunk, n);
	if (rc == 0 && ferror(stdin))
		rc = -EIO;
	return rc;
}

static char *slurp_use_case(const char *path)
{
	struct cgfb_buf b = { 0 };
	const int rc = strcmp(path, "-") == 0 ? read_stdin(USE_CASE_FILE_MAX, &b) :
		       cgfb_read_file(path, USE_CASE_FILE_MAX, 0, &b);

	if (rc == -EFBIG)
		cgfb_log(LOG_ERR, "use case file %s: longer than %d bytes", path, USE_CASE_FILE_MAX);
	else if (rc < 0)
		cgfb_log(LOG_ERR, "use case file %s: %s", path, strerror(-rc));
	if (rc < 0) {
		cgfb_buf_free(&b);
		return NULL;
	}
	while (b.len && (b.data[b.len - 1] == '\n' || b.data[b.len - 1] == ' '))
		b.data[--b.len] = '\0';
	if (refuse_controls(b.data, b.len, "use case file", path) < 0) {
		cgfb_buf_free(&b);
		return NULL;
	}
	return b.data;
}

/* A finding said by its kind and position only: standard error goes to
 * the journal under a timer, and a log must not keep what the check found. */
static void log_finding(const char *what, const char *text, const struct cgfb_finding *f,
			bool replaced)
{
	const struct cgfb_where w = cgfb_finding_where(text, f);

	cgfb_log(replaced ? LOG_NOTICE : LOG_ERR, "%s, line %zu, column %zu (byte %zu, %zu bytes "
		 "long): %s found%s", what, w.line, w.column, f->start + 1, f->len,
		 cgfb_secret_name(f->kind), replaced ? " and replaced" : "");
}

/* Secrets in unattended input are refused unless --redact says to replace
 * them: nobody is there to look. What the administrator was shown in a
 * review and kept for this very text (the draft remembers) is theirs to
 * send. Returns the text to use (maybe new). */
static char *unattended_secrets(struct report_cmd *c, const char *id, struct cgfb_draft *d,
				const char *field, char *text, const char *what, bool *bad)
{
	struct cgfb_finding f[CGFB_REDACT_MAX_FINDINGS];
	const char *texts[1] = { text };
	struct cgfb_local_names ln;
	size_t n;
	char *now;

	cgfb_consent_names(&ln, &c->sd, &c->spool, id, texts, 1);
	n = cgfb_draft_unkept(d, field, text, f,
			      cgfb_find_secrets(text, &ln, f, CGFB_REDACT_MAX_FINDINGS));
	cgfb_local_names_free(&ln);
	if (n == 0)
		return text;
	for (size_t i = 0; i < n; i++)
		log_finding(what, text, &f[i], c->redact);
	if (!c->redact) {
		cgfb_log(LOG_ERR, "refusing to send it; edit it, or pass --redact to replace these");
		*bad = true;
		return text;
	}
	now = cgfb_redact(text, f, n);
	if (!now) {
		cgfb_log(LOG_ERR, "%s: %s", what, strerror(ENOMEM));
		*bad = true;
		return text;
	}
	/* What was kept in the text before stays kept in the redacted one. */
	cgfb_draft_rebind(d, field, text, now);
	free(text);
	return now;
}

/* Every text of the draft, checked as unattended input: one left there by
 * a review that ended before its secret check, or given by the options,
 * leaves only as the administrator saw it or redacted. -EINVAL when one
 * is refused; 1 when --redact changed one. */
static int draft_secrets(struct report_cmd *c, const char *id, struct cgfb_draft *d)
{
	char field[CGFB_CONFIG_STR_MAX], what[CGFB_CONFIG_STR_MAX];
	bool bad = false, changed = false;
	char *before;

	if (d->text) {
		before = d->text;
		d->text = unattended_secrets(c, id, d, "use_case", d->text, "the use case", &bad);
		changed |= d->text != before;
	}
	if (d->message) {
		before = d->message;
		d->message = unattended_secrets(c, id, d, "message", d->message, "the message",
						&bad);
		changed |= d->message != before;
	}
	for (size_t i = 0; i < d->n; i++) {
		before = d->values[i];
		snprintf(what, sizeof(what), "the answer %s", d->keys[i]);
		d->values[i] = unattended_secrets(c, id, d, cgfb_draft_answer_field(field, sizeof(field),
										  d->keys[i]),
						  d->values[i], what, &bad);
		changed |= d->values[i] != before;
	}
	return bad ? -EINVAL : changed;
}

/* An answer is to one of the entry's questions: a misspelt key would
 * otherwise be sent as given and read by nobody. */
static int check_answer_key(const struct report_cmd *c, const struct cgfb_spool_entry *e,
			    const char *key)
{
	const struct cgfb_entry *ce = cgfb_catalog_find(c->cat, e->catalog_id);
	char keys[256] = "";
	size_t n = 0;

	if (!ce)    /* an entry this version does not know: nothing to check against */
		return 0;
	for (size_t i = 0; i < ce->questions->n; i++) {
		if (strcmp(ce->questions->q[i].key, key) == 0)
			return 0;
		n += (size_t)snprintf(keys + n, n < sizeof(keys) ? sizeof(keys) - n : 0, "%s%s",
				      i ? ", " : "", ce->questions->q[i].key);
	}
	cgfb_log(LOG_ERR, "--answer %s: report %s (%s) asks no such question; its answer keys "
		 "are %s (cgroup-feedback catalog lists each entry's)", key, e->id, ce->id, keys);
	return -EINVAL;
}

/* What --use-case-file and --answer say goes into the draft; the draft is
 * checked for secrets and saved before anything is built, so that what was
 * given outlives a failure to send. */
static int options_into_draft(struct report_cmd *c, struct cgfb_draft *d,
			      const struct cgfb_spool_entry *e)
{
	const char *id = e->id;
	bool changed = c->use_case_file || c->n_answers;
	char *text = NULL;
	int rc = 0;

	if (c->use_case_file && !(text = slurp_use_case(c->use_case_file)))
		return -EINVAL;
	if (text)
		rc = cgfb_draft_set_text(&d->text, text);
	free(text);
	for (size_t i = 0; i < c->n_answers && rc == 0; i++) {
		const char *eq = strchr(c->answers[i], '=');
		char *key = strndup(c->answers[i], (size_t)(eq - c->answers[i]));

		rc = key ? check_answer_key(c, e, key) : -ENOMEM;
		if (rc == 0)
			rc = refuse_controls(eq + 1, strlen(eq + 1), "--answer", key);
		if (rc == 0)
			rc = cgfb_draft_set_answer(d, key, eq + 1);
		free(key);
		if (rc == -EINVAL)
			return rc;    /* said already */
	}
	if (rc < 0) {
		cgfb_log(LOG_ERR, "report %s: %s", id, rc == -E2BIG ? "too many answers" :
			 strerror(-rc));
		return rc;
	}
	rc = draft_secrets(c, id, d);
	if (rc < 0)
		return rc;
	if (!changed && rc == 0)
		return 0;
	rc = cgfb_draft_save(&c->spool, id, d);
	if (rc < 0)
		cgfb_log(LOG_ERR, "report %s: saving the use case and answers in %s: %s", id,
			 c->spool.dir, strerror(-rc));
	return rc;
}

/* The configured use-case-file into d->text, checked like any unattended
 * text; with redact, every finding in it is replaced whatever the options. */
static int configured_use_case(struct report_cmd *c, const char *id, struct cgfb_draft *d,
			       bool redact)
{
	const bool was = c->redact;
	bool bad = false;
	char *text = slurp_use_case(c->config.use_case_file);

	if (!text)
		return -EINVAL;
	c->redact |= redact;
	d->text = unattended_secrets(c, id, d, "use_case", text, "the configured use-case-file",
				     &bad);
	c->redact = was;
	return bad ? -EINVAL : 0;
}

/* Build the report's final bytes from d for endpoint and record the
 * consent. */
static int consent_with(struct report_cmd *c, struct cgfb_spool_entry *e,
			const struct cgfb_draft *d, const char *endpoint)
{
	struct cgfb_use_case uc;
	struct cgfb_buf report = { 0 }, bytes = { 0 };
	char token[65], err[256];
	int rc;

	if (!d->text || !d->text[0])
		cgfb_log(LOG_NOTICE, "report %s has no use case: the maintainers will see the "
			 "snapshot only (--use-case-file FILE gives one)", e->id);
	cgfb_draft_use_case(d, &uc);
	rc = cgfb_spool_load(&c->spool, e->id, e, &report);
	if (rc < 0) {
		cgfb_log(LOG_ERR, "report %s: %s", e->id, strerror(-rc));
		goto out;
	}
	rc = cgfb_consent_build(c->schema, &c->sd, &report, &uc, endpoint, e->deletion_token,
				&bytes, token, err, sizeof(err));
	if (rc < 0)
		cgfb_log(LOG_ERR, "report %s: %s", e->id, err);
	if (rc == 0 && c->confirm)
		rc = c->confirm(c, e, &bytes);
	if (rc == 0) {
		rc = cgfb_consent_record(&c->spool, e, &bytes, endpoint, token);
		if (rc < 0 && rc != -ESTALE)    /* changed meanwhile: said */
			cgfb_log(LOG_ERR, "report %s: recording the consent in %s: %s; nothing was "
				 "sent", e->id, c->spool.dir, strerror(-rc));
	}
out:
	cgfb_buf_free(&report);
	cgfb_buf_free(&bytes);
	return rc;
}

int report_cmd_auto_consent(struct report_cmd *c, struct cgfb_spool_entry *e,
			    const char *endpoint)
{
	struct cgfb_draft d = { 0 };
	int rc;

	/* consent = auto: nobody is there to have seen anything, and whoever
	 * can write the spool can leave a draft there. So the configured
	 * use-case-file alone is sent, every finding in it replaced; the
	 * draft's use case, answers, message and kept list are not read. */
	rc = c->config.use_case_file[0] ? configured_use_case(c, e->id, &d, true) : 0;
	if (rc == 0)
		rc = consent_with(c, e, &d, endpoint);
	cgfb_draft_free(&d);
	return rc;
}

/* Consent from the command line: --yes (or export), from the report's
 * draft with what --use-case-file and --answer add. */
int report_cmd_unattended_consent(struct report_cmd *c, struct cgfb_spool_entry *e, const char *endpoint)
{
	struct cgfb_draft d;
	int rc;

	rc = cgfb_draft_load(&c->spool, e->id, &d);
	if (rc < 0)
		cgfb_log(LOG_ERR, "report %s: its draft: %s", e->id, strerror(-rc));
	if (rc == 0)
		rc = options_into_draft(c, &d, e);
	/* A report with no use case in its draft nor the options. */
	if (rc >= 0 && !d.text && c->config.use_case_file[0])
		rc = configured_use_case(c, e->id, &d, false);
	if (rc >= 0)
		rc = consent_with(c, e, &d, endpoint);
	cgfb_draft_free(&d);
	return rc;
}

int cgfb_cmd_decline(const struct cgfb_globals *g, int argc, char **argv)
{
	static const char usage[] = "Usage: cgroup-feedback decline [--state-dir DIR] [--config FILE] ID\n";
	struct cgfb_spool_entry e;
	const char *id;
	struct report_cmd c;
	int rc;

	SETUP("state-dir", usage);
	id = report_cmd_one_id(&c, argc, argv, usage);
	/* As withdraw: a send in flight finishes first, and is then seen. */
	if (!id || cgfb_spool_lock_send(&c.spool) < 0 ||
	    report_cmd_load_entry(&c, id, &e, NULL) < 0)
		return report_cmd_finish(&c, CGFB_EXIT_TROUBLE);
	if (e.state == CGFB_R_SENT) {
		cgfb_log(LOG_ERR, "report %s was sent already: withdraw it instead", id);
		return report_cmd_finish(&c, CGFB_EXIT_TROUBLE);
	}
	e.state = CGFB_R_DECLINED;
	rc = cgfb_spool_save_state(&c.spool, &e);
	if (rc < 0 && rc != -ESTALE)
		cgfb_log(LOG_ERR, "report %s: recording the decline in %s: %s", id, c.spool.dir,
			 strerror(-rc));
	cgfb_notify_refresh_motd(&c.config, &c.sd);
	return report_cmd_finish(&c, rc < 0 ? CGFB_EXIT_TROUBLE : CGFB_EXIT_OK);
}

/* Undo a never: the message's new reports are announced again. */
static int unsilence(struct report_cmd *c, const char *catalog_id, bool *undone)
{
	const int rc = cgfb_silence_remove(&c->sd, catalog_id);

	if (rc < 0)
		cgfb_log(LOG_ERR, "%s: removing %s from %s/%s: %s", catalog_id, catalog_id,
			 c->state_dir, CGFB_SILENCED_FILE, strerror(-rc));
	else if (rc > 0)
		printf("You will be asked about %s again.\n", catalog_id);
	*undone |= rc > 0;
	return rc < 0 ? rc : 0;
}

/* Undo a decline: the report waits for review again, as it was before. */
static int undecline(struct report_cmd *c, struct cgfb_spool_entry *e, bool *undone)
{
	char hint[CGFB_HINT_MAX];
	int rc;

	if (e->state != CGFB_R_DECLINED)
		return 0;
	e->state = CGFB_R_PENDING;
	rc = cgfb_spool_save_state(&c->spool, e);
	if (rc < 0) {
		if (rc != -ESTALE)
			cgfb_log(LOG_ERR, "report %s: recording it as pending in %s: %s", e->id,
				 c->spool.dir, strerror(-rc));
		return rc;
	}
	printf("Report %s is pending again: %s\n", e->id,
	       cgfb_hint(hint, sizeof(hint), c->state_dir, "review %s", e->id));
	*undone = true;
	return 0;
}

/* reopen MESSAGE (a catalog id): only the never. */
static int reopen_message(struct report_cmd *c, const char *catalog_id)
{
	bool undone = false;
	const int rc = unsilence(c, catalog_id, &undone);

	if (rc == 0 && !undone)
		printf("%s was not silenced: nothing to undo.\n", catalog_id);
	return rc;
}

int cgfb_cmd_reopen(const struct cgfb_globals *g, int argc, char **argv)
{
	static const char usage[] =
		"Usage: cgroup-feedback reopen [--state-dir DIR] ID|MESSAGE\n"
		"Undo review's decline (the report is pending again) and never (its message\n"
		"is announced again); MESSAGE, a catalog id such as M8, undoes only a never.\n";
	struct cgfb_spool_entry e;
	struct report_cmd c;
	bool undone = false;
	const char *id;
	int rc;

	SETUP("state-dir", usage);
	if (optind + 1 == argc && cgfb_catalog_find(c.cat, argv[optind])) {
		rc = reopen_message(&c, argv[optind]);
		goto out;
	}
	id = report_cmd_one_id(&c, argc, argv, usage);
	if (!id || report_cmd_load_entry(&c, id, &e, NULL) < 0)
		return report_cmd_finish(&c, CGFB_EXIT_TROUBLE);
	rc = undecline(&c, &e, &undone);
	if (rc == 0)
		rc = unsilence(&c, e.catalog_id, &undone);
	if (rc == 0 && !undone)
		printf("Report %s is %s and %s is not silenced: nothing to undo.\n", e.id,
		       cgfb_rstate_name(e.state), e.catalog_id);
out:
	if (rc == 0)
		cgfb_notify_refresh_motd(&c.config, &c.sd);
	return report_cmd_finish(&c, rc < 0 ? CGFB_EXIT_TROUBLE : CGFB_EXIT_OK);
}

/* review without a terminal (a script, a cron job, a pasted pipe): the
 * commands that do the same without questions, for the report named or the
 * first one waiting, so that they can be pasted as printed. */
static int no_terminal(struct report_cmd *c, int argc, char **argv, const char *usage)
{
	struct cgfb_spool_entry *v = NULL;
	const char *id = NULL;
	char show[CGFB_HINT_MAX], submit[CGFB_HINT_MAX];
	size_t n = 0;

	if (optind < argc) {
		id = report_cmd_one_id(c, argc, argv, usage);
		if (!id)
			return CGFB_EXIT_TROUBLE;
	} else if (cgfb_spool_list(&c->spool, &v, &n) == 0) {
		for (size_t i = 0; i < n && !id; i++)
			if (v[i].state == CGFB_R_PENDING)
				id = v[i].id;
	}
	/* Without a collector the way out is the e-mail (no default endpoint). */
	if (id && c->config.endpoint[0])
		cgfb_log(LOG_ERR, "review asks questions on a terminal; without one, read the report "
			 "with '%s', then send it as it is with '%s' (--use-case-file FILE and "
			 "--answer KEY=VALUE add your use case and answers)",
			 cgfb_hint(show, sizeof(show), c->state_dir, "show %s", id),
			 cgfb_hint(submit, sizeof(submit), c->state_dir, "submit %s --yes", id));
	else if (id)
		cgfb_log(LOG_ERR, "review asks questions on a terminal; without one, read the report "
			 "with '%s', then write it as it is as the e-mail for the kernel's list with "
			 "'%s' (--use-case-file FILE and --answer KEY=VALUE add your use case and "
			 "answers; the list publishes all of it)",
			 cgfb_hint(show, sizeof(show), c->state_dir, "show %s", id),
			 cgfb_hint(submit, sizeof(submit), c->state_dir, "export %s --yes", id));
	else
		cgfb_log(LOG_ERR, "review asks questions on a terminal; nothing is waiting for "
			 "review anyway");
	free(v);
	return CGFB_EXIT_TROUBLE;
}

int cgfb_cmd_review(const struct cgfb_globals *g, int argc, char **argv)
{
	static const char usage[] =
		"Usage: cgroup-feedback review [--state-dir DIR] [--config FILE] [--output FILE] [ID]\n"
		"Look at a report (each pending one without ID), answer its questions, see the\n"
		"exact bytes, and decide: send, export as e-mail, keep for later, decline.\n";
	struct cgfb_spool_entry *v = NULL;
	struct cgfb_review_ctx rc;
	struct report_cmd c;
	size_t n = 0, done = 0;
	int r = 0;

	SETUP("state-dir output", usage);
	if (!isatty(STDIN_FILENO))
		return report_cmd_finish(&c, no_terminal(&c, argc, argv, usage));
	rc = (struct cgfb_review_ctx){
		.config = &c.config, .cat = c.cat, .schema = c.schema, .spool = &c.spool,
		.sd = &c.sd, .in = stdin, .out = stdout, .export_path = c.output,
	};
	if (optind < argc) {
		const char *id = report_cmd_one_id(&c, argc, argv, usage);
		struct cgfb_spool_entry e;

		if (!id || report_cmd_load_entry(&c, id, &e, NULL) < 0)
			return report_cmd_finish(&c, CGFB_EXIT_TROUBLE);
		r = cgfb_review(&rc, &e);
		return report_cmd_finish(&c, r < 0 ? CGFB_EXIT_TROUBLE : CGFB_EXIT_OK);
	}
	if (cgfb_spool_list(&c.spool, &v, &n) < 0)
		return report_cmd_finish(&c, CGFB_EXIT_TROUBLE);
	for (size_t i = 0; i < n && r >= 0; i++) {
		if (v[i].state != CGFB_R_PENDING || cgfb_silenced(&c.sd, v[i].catalog_id))
			continue;
		r = cgfb_review(&rc, &v[i]);
		done++;
	}
	if (!done)
		puts("Nothing is waiting for review.");
	free(v);
	return report_cmd_finish(&c, r < 0 ? CGFB_EXIT_TROUBLE : CGFB_EXIT_OK);
}

