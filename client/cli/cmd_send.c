/* Reports leaving the machine, or asked back: submit, flush, export and
 * withdraw. The only commands (with review told to send) that open a
 * network connection. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/hint.h"
#include "cgfb/log.h"
#include "cgfb/mail.h"
#include "cgfb/sha256.h"
#include "cgfb/utf8.h"
#include "cli/commands.h"
#include "cli/report_cmd.h"
#include "cli/review.h"
#include "base/urlshow.h"
#include "consent/consent.h"
#include "consent/notify.h"
#include "deliver/deliver.h"
#include "deliver/mailout.h"
#include "deliver/submit.h"

static int send_now(struct report_cmd *c, struct cgfb_spool_entry *e)
{
	const int rc = cgfb_deliver(&c->config, &c->spool, e);
	char hint[CGFB_HINT_MAX], rid[CGFB_ESC_SIZE(sizeof(e->receipt_id))];

	/* The collector's words: escaped here, and by cgfb_log below. */
	cgfb_utf8_escape(rid, sizeof(rid), e->receipt_id, strlen(e->receipt_id));
	if (rc == 0)
		printf("%s: sent; the collector stored it as %s (SHA-256 %s)\n", e->id, rid,
		       e->receipt_sha256);
	else if (rc == -ESTALE)
		;       /* changed by another command meanwhile: said, not sent */
	else if (e->state == CGFB_R_CONSENTED && e->next_attempt < 0)
		cgfb_log(LOG_ERR, "%s: sending failed: %s; after fixing the configuration, %s "
			 "sends it", e->id, e->last_error,
			 cgfb_hint(hint, sizeof(hint), c->state_dir, "submit %s --yes", e->id));
	else if (e->state != CGFB_R_SENT)    /* sent but not recorded: said already */
		cgfb_log(LOG_ERR, "%s: sending failed: %s%s%s", e->id, e->last_error,
			 e->next_attempt > 0 ? "; it will be retried by " : "",
			 e->next_attempt > 0 ? cgfb_hint(hint, sizeof(hint), c->state_dir, "flush") : "");
	return rc;
}

int cgfb_cmd_submit(const struct cgfb_globals *g, int argc, char **argv)
{
	static const char usage[] =
		"Usage: cgroup-feedback submit ID --yes [--use-case-file FILE] [--answer KEY=VALUE]...\n"
		"                              [--redact] [--endpoint URL] [--state-dir DIR] [--config FILE]\n"
		"Consent to sending report ID as it is plus the use case, and send it now.\n"
		"Each --answer KEY is one of the report's catalog entry's questions\n"
		"(cgroup-feedback catalog lists them: software, why_flat, reorganisation for\n"
		"the flat-hierarchy entries; purpose, software, v2_replacement for the knobs).\n";
	struct cgfb_spool_entry e;
	char err[1024], hint[CGFB_HINT_MAX];
	const char *id;
	struct report_cmd c;
	int rc;

	SETUP("state-dir yes use-case-file answer redact endpoint", usage);
	id = report_cmd_one_id(&c, argc, argv, usage);
	if (!id || report_cmd_load_entry(&c, id, &e, NULL) < 0)
		return report_cmd_finish(&c, CGFB_EXIT_TROUBLE);
	if (!c.yes) {
		cgfb_log(LOG_ERR, "submit sends a report only with --yes (or review it: %s)",
			 cgfb_hint(hint, sizeof(hint), c.state_dir, "review %s", id));
		return report_cmd_finish(&c, CGFB_EXIT_TROUBLE);
	}
	if (c.config.consent == CGFB_CONSENT_NEVER) {
		cgfb_log(LOG_ERR, "consent = never in the configuration: nothing is sent");
		return report_cmd_finish(&c, CGFB_EXIT_TROUBLE);
	}
	if (e.state != CGFB_R_PENDING && e.state != CGFB_R_CONSENTED) {
		cgfb_log(LOG_ERR, "report %s is %s", id, cgfb_rstate_name(e.state));
		return report_cmd_finish(&c, CGFB_EXIT_TROUBLE);
	}
	/* No default collector: nothing goes to an address nobody runs. */
	if (!c.config.endpoint[0]) {
		cgfb_log(LOG_ERR, "no collector is configured (endpoint in the configuration, or "
			 "--endpoint URL), so submit has nowhere to send report %s; what reaches the "
			 "kernel maintainers is the e-mail: %s", id,
			 cgfb_hint(hint, sizeof(hint), c.state_dir, "review %s", id));
		return report_cmd_finish(&c, CGFB_EXIT_TROUBLE);
	}
	if (cgfb_endpoint_check(c.config.endpoint, err, sizeof(err)) < 0 ||
	    cgfb_consent_one_way(&e, c.config.endpoint, err, sizeof(err)) < 0) {
		cgfb_log(LOG_ERR, "%s", err);
		return report_cmd_finish(&c, CGFB_EXIT_TROUBLE);
	}
	rc = report_cmd_unattended_consent(&c, &e, c.config.endpoint);
	if (rc == 0)
		rc = send_now(&c, &e);
	cgfb_notify_refresh_motd(&c.config, &c.sd);
	return report_cmd_finish(&c, rc < 0 ? CGFB_EXIT_TROUBLE : CGFB_EXIT_OK);
}

/* An exported report went out by e-mail (exporting is consenting to the
 * mail channel); the maintainers may have imported it into the collector,
 * where only its deletion token, which stayed here, can delete it. */
static bool mailed(const struct cgfb_spool_entry *e)
{
	return (e->state == CGFB_R_CONSENTED || e->state == CGFB_R_WITHDRAWN) &&
	       strncmp(e->endpoint, "mailto:", 7) == 0 && e->deletion_token[0];
}

/* No collector to reach (none configured, or none that answers): the
 * withdrawal goes the way the report went, as
 * an e-mail to the same address, which the collector's import reads
 * (server-stub/ingest/import.c). Written to --output or
 * ./cgroup-feedback-withdraw-ID.eml for the administrator to send. */
static int withdrawal_mail(struct report_cmd *c, const struct cgfb_spool_entry *e)
{
	struct cgfb_mail_opts mo = { .to = e->endpoint + 7,
				     .from = c->config.mail_from[0] ? c->config.mail_from : NULL };
	struct cgfb_buf mail = { 0 };
	char path[PATH_MAX];
	int rc;

	if (c->output)
		snprintf(path, sizeof(path), "%s", c->output);
	else
		snprintf(path, sizeof(path), "cgroup-feedback-withdraw-%s.eml", e->id);
	rc = cgfb_mail_format_withdrawal(e->id, e->deletion_token, &mo, time(NULL), &mail);
	if (rc == 0)
		rc = cgfb_mailout_file(&mail, path, false);
	cgfb_buf_free(&mail);
	if (rc < 0) {
		cgfb_log(LOG_ERR, "report %s: writing its withdrawal to %s: %s", e->id, path,
			 strerror(-rc));
		return rc;
	}
	fprintf(strcmp(path, "-") == 0 ? stderr : stdout,
		"%s: was sent by e-mail and no collector can be reached (endpoint): the\n"
		"withdrawal is an e-mail too, %s; send it to %s, whose maintainers'\n"
		"import deletes the report from their collector.%s%s\n", e->id,
		strcmp(path, "-") == 0 ? "on standard output" : path, e->endpoint + 7,
		mo.from ? "" : " ", mo.from ? "" : CGFB_MAILOUT_NO_FROM);
	return 0;
}

/* The collector of the configuration (or --endpoint) deletes the copy it
 * imported from the e-mail; 404 is said, since the import may come later.
 * One that gives no HTTP answer at all gets the withdrawal as an e-mail. */
static int withdraw_mailed(struct report_cmd *c, const struct cgfb_spool_entry *e)
{
	struct cgfb_submit_result res;
	char err[256];
	int rc;

	if (!c->config.endpoint[0] || cgfb_endpoint_check(c->config.endpoint, err, sizeof(err)) < 0)
		return withdrawal_mail(c, e);
	rc = cgfb_submit_delete(&c->config, c->config.endpoint, e->id, e->deletion_token, &res);
	if (rc < 0 && res.http_status == 0) {
		cgfb_log(LOG_NOTICE, "report %s (sent by e-mail): no collector answers at %s: %s",
			 e->id, c->config.endpoint, res.error);
		return withdrawal_mail(c, e);
	}
	if (rc < 0) {
		cgfb_log(LOG_ERR, "withdrawing %s (sent by e-mail) from %s: %s", e->id,
			 c->config.endpoint, res.error);
		return rc;
	}
	if (res.http_status == 404)
		printf("%s: was sent by e-mail and is not stored on %s (not imported yet?);\n"
		       "run withdraw again if it is imported later\n", e->id, c->config.endpoint);
	else
		printf("%s: sent by e-mail; the copy imported into %s is deleted\n", e->id,
		       c->config.endpoint);
	return 0;
}

int cgfb_cmd_withdraw(const struct cgfb_globals *g, int argc, char **argv)
{
	static const char usage[] =
		"Usage: cgroup-feedback withdraw [--state-dir DIR] [--config FILE] [--endpoint URL]\n"
		"                                [--output FILE] ID\n"
		"Delete a sent report from the collector (or stop an unsent one); for a report\n"
		"sent by e-mail, the copy imported into the collector of --endpoint or the\n"
		"configuration, or without one write the withdrawal as an e-mail to FILE (- for\n"
		"standard output; default ./cgroup-feedback-withdraw-ID.eml).\n";
	struct cgfb_submit_result res;
	struct cgfb_spool_entry e;
	const char *id;
	struct report_cmd c;
	int rc = 0, saved;

	SETUP("state-dir endpoint output", usage);
	id = report_cmd_one_id(&c, argc, argv, usage);
	/* The senders' lock from the first look on (closing the spool lets
	 * go of it): a flush sending this report meanwhile finishes first,
	 * and then the report is found sent and deleted from the collector,
	 * never recorded as withdrawn while the send records it sent. */
	if (!id || cgfb_spool_lock_send(&c.spool) < 0 ||
	    report_cmd_load_entry(&c, id, &e, NULL) < 0)
		return report_cmd_finish(&c, CGFB_EXIT_TROUBLE);
	if (e.state == CGFB_R_SENT) {
		rc = cgfb_submit_delete(&c.config, e.endpoint, e.id, e.deletion_token, &res);
		if (rc < 0) {
			cgfb_log(LOG_ERR, "withdrawing %s from %s: %s", id, e.endpoint, res.error);
			return report_cmd_finish(&c, CGFB_EXIT_TROUBLE);
		}
		printf("%s: deleted from %s\n", id, e.endpoint);
	} else if (mailed(&e)) {
		/* Withdrawn locally in any case: it is never sent again. */
		rc = withdraw_mailed(&c, &e);
	} else if (e.state == CGFB_R_WITHDRAWN) {
		printf("%s: was withdrawn already\n", id);
	} else {
		printf("%s: was never sent; it will not be\n", id);
	}
	e.state = CGFB_R_WITHDRAWN;
	e.next_attempt = 0;
	saved = cgfb_spool_save_state(&c.spool, &e);
	if (saved < 0) {
		if (saved != -ESTALE)
			cgfb_log(LOG_ERR, "report %s: recording the withdrawal in %s: %s", id,
				 c.spool.dir, strerror(-saved));
		rc = saved;
	}
	cgfb_notify_refresh_motd(&c.config, &c.sd);
	return report_cmd_finish(&c, rc < 0 ? CGFB_EXIT_TROUBLE : CGFB_EXIT_OK);
}

/* A consent is for one schema: a report made under another asks again. */
static bool schema_changed(struct report_cmd *c, struct cgfb_spool_entry *e)
{
	struct cgfb_buf bytes = { 0 };
	char sha[65], hint[CGFB_HINT_MAX];
	bool changed;

	if (cgfb_spool_load(&c->spool, e->id, e, &bytes) < 0)
		return false;
	changed = cgfb_consent_schema(&bytes, sha) < 0 ||
		  strcmp(sha, cgfb_schema_sha256(c->schema)) != 0;
	cgfb_buf_free(&bytes);
	if (!changed)
		return false;
	cgfb_log(LOG_NOTICE, "report %s was consented to under another report schema; "
		 "review it again: %s", e->id,
		 cgfb_hint(hint, sizeof(hint), c->state_dir, "review %s", e->id));
	e->state = CGFB_R_PENDING;
	cgfb_spool_save_state(&c->spool, e);
	return true;
}

static bool due(const struct cgfb_spool_entry *e, long long now)
{
	return e->state == CGFB_R_CONSENTED && e->next_attempt >= 0 && e->next_attempt <= now &&
	       strncmp(e->endpoint, "mailto:", 7) != 0;
}

int cgfb_cmd_flush(const struct cgfb_globals *g, int argc, char **argv)
{
	static const char usage[] = "Usage: cgroup-feedback flush [--state-dir DIR] [--config FILE]\n"
				    "Send the consented reports whose time has come.\n";
	struct cgfb_spool_entry *v = NULL;
	const long long now = (long long)time(NULL);
	unsigned sent = 0, failed = 0;
	struct report_cmd c;
	size_t n = 0;

	SETUP("state-dir", usage);
	if (!report_cmd_no_args(argc, argv, usage) || cgfb_spool_list(&c.spool, &v, &n) < 0)
		return report_cmd_finish(&c, CGFB_EXIT_TROUBLE);
	for (size_t i = 0; i < n; i++) {
		if (c.config.consent == CGFB_CONSENT_AUTO && v[i].state == CGFB_R_PENDING &&
		    !cgfb_silenced(&c.sd, v[i].catalog_id) &&
		    report_cmd_auto_consent(&c, &v[i], c.config.endpoint) < 0)
			failed++;
		if (!due(&v[i], now) || schema_changed(&c, &v[i]))
			continue;
		if (send_now(&c, &v[i]) == 0)
			sent++;
		else
			failed++;
	}
	free(v);
	cgfb_notify_refresh_motd(&c.config, &c.sd);
	printf("flush: %u sent, %u failed\n", sent, failed);
	return report_cmd_finish(&c, failed ? CGFB_EXIT_TROUBLE : CGFB_EXIT_OK);
}

/* Exporting is consenting to the mail channel. A report not yet consented
 * to, consented for a collector not tried yet, or exported before and
 * given a use case or answers now, is built afresh from its draft with
 * what the options add; one sent to a collector, or tried there, is never
 * mailed too (cgfb_consent_one_way). 1: not confirmed (export_confirm). */
static int export_consent(struct report_cmd *c, struct cgfb_spool_entry *e, const char *endpoint)
{
	const bool mailed = e->state == CGFB_R_CONSENTED && strncmp(e->endpoint, "mailto:", 7) == 0;
	char err[1024];
	int rc;

	if (e->state == CGFB_R_DECLINED || e->state == CGFB_R_WITHDRAWN) {
		cgfb_log(LOG_ERR, "report %s is %s", e->id, cgfb_rstate_name(e->state));
		return -EPERM;
	}
	/* Sent to a collector, or tried there: never mailed too. */
	if (cgfb_consent_one_way(e, endpoint, err, sizeof(err)) < 0) {
		cgfb_log(LOG_ERR, "%s", err);
		return -EPERM;
	}
	/* Exported before and nothing new: the same bytes again. */
	if (mailed && !c->use_case_file && !c->n_answers)
		return 0;
	/* Pending, or consented for a collector not tried yet: consented to
	 * the mail channel now, the collector's consent replaced (flush will
	 * not send it there). */
	rc = report_cmd_unattended_consent(c, e, endpoint);
	/* Standard output may be the e-mail itself (-o -). */
	if (rc == 0)
		fprintf(c->output && strcmp(c->output, "-") == 0 ? stderr : stdout,
			"%s: consent recorded for the mail channel (%s); flush will not send it "
			"over the network\n", e->id, endpoint);
	return rc;
}

/* What export's yes is asked about: the e-mail for to, going where. */
struct export_ask {
	const char *to;
	const char *path;      /* the file, or the mbox */
};

/* The e-mail of a report is published whole on the list, for good: export
 * writes or sends it only after a yes, given as review asks it (the bytes,
 * the e-mail, what the list publishes: cli/review.h) on a terminal, or as
 * --yes. 0: yes; 1: no (said); -EPERM: nobody to ask. */
static int export_confirm(struct report_cmd *c, const struct cgfb_spool_entry *e,
			  const struct cgfb_buf *bytes)
{
	const struct export_ask *a = c->confirm_arg;
	const bool send = c->send, file = !c->send || c->output || c->mbox;
	struct cgfb_buf mail = { 0 };
	char question[PATH_MAX + 1400], way[CGFB_CONFIG_STR_MAX + 40], shown[CGFB_CONFIG_STR_MAX];
	bool yes;
	int rc;

	if (c->yes)
		return 0;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		cgfb_log(LOG_ERR, "report %s: export makes the e-mail for %s, which publishes all of "
			 "it for good; it asks first on a terminal, or takes --yes", e->id, a->to);
		return -EPERM;
	}
	rc = cgfb_mailout_format(&c->config, bytes, &mail);
	if (rc < 0) {
		cgfb_log(LOG_ERR, "report %s: making the e-mail: %s", e->id, strerror(-rc));
		return rc;
	}
	if (c->config.smtp_url[0])
		snprintf(way, sizeof(way), "the mail server %s",
			 cgfb_url_shown(shown, sizeof(shown), c->config.smtp_url));
	else
		snprintf(way, sizeof(way), "%s", c->config.sendmail);
	snprintf(question, sizeof(question), "%s this e-mail for %s %s%s%s%s? [y/N] ",
		 file ? (c->mbox ? "Append" : "Write") : "Send", a->to,
		 file ? (c->mbox ? "to the mbox " : "to ") : "through ",
		 file ? (strcmp(a->path, "-") == 0 ? "standard output" : a->path) : way,
		 file && send ? " and send it through " : "", file && send ? way : "");
	yes = cgfb_review_confirm_mail(stdin, stdout, &c->config, bytes, &mail, a->to, question);
	cgfb_buf_free(&mail);
	if (!yes)
		printf("%s: no e-mail was written or sent, and no consent recorded.\n", e->id);
	return yes ? 0 : 1;
}

/* Said before the consent is recorded, so that nothing changes for a file
 * that will not be written; the write itself refuses it again (O_EXCL). */
static int refuse_existing(const struct report_cmd *c, const char *path)
{
	struct stat st;

	if (c->mbox || c->force || (c->send && !c->output) || strcmp(path, "-") == 0 ||
	    lstat(path, &st) < 0)
		return 0;
	cgfb_log(LOG_ERR, "%s exists: export writes only a file it makes itself (--force "
		 "replaces it)", path);
	return -EEXIST;
}

int cgfb_cmd_export(const struct cgfb_globals *g, int argc, char **argv)
{
	static const char usage[] =
		"Usage: cgroup-feedback export ID [--yes] [--email] [-o FILE [--force] | --mbox FILE]\n"
		"                              [--send] [--use-case-file FILE] [--answer KEY=VALUE]...\n"
		"                              [--redact] [--state-dir DIR] [--config FILE]\n"
		"Write the report as an e-mail ready for linux-mm (for machines without network):\n"
		"to FILE (- for standard output; default ./cgroup-feedback-ID.eml; a new file, 0600,\n"
		"unless --force replaces one), appended to an mbox, or sent through smtp-url\n"
		"(STARTTLS) or sendmail. The list publishes the whole e-mail for good: on a\n"
		"terminal export shows it and asks first; elsewhere it needs --yes.\n";
	struct cgfb_spool_entry e;
	struct cgfb_buf bytes = { 0 }, mail = { 0 };
	char to[600], endpoint[620], path[PATH_MAX], err[512], sha[65];
	struct export_ask ask = { .to = to, .path = path };
	const char *id;
	struct report_cmd c;
	int rc;

	SETUP("state-dir output use-case-file answer redact email mbox send force yes", usage);
	id = report_cmd_one_id(&c, argc, argv, usage);
	if (!id || report_cmd_load_entry(&c, id, &e, &bytes) < 0)
		return report_cmd_finish(&c, CGFB_EXIT_TROUBLE);
	cgfb_mailout_recipients(&c.config, &bytes, to, sizeof(to));
	snprintf(endpoint, sizeof(endpoint), "mailto:%s", to);
	if (c.mbox)
		snprintf(path, sizeof(path), "%s", c.mbox);
	else if (c.output)
		snprintf(path, sizeof(path), "%s", c.output);
	else
		snprintf(path, sizeof(path), "cgroup-feedback-%s.eml", id);
	c.confirm = export_confirm;
	c.confirm_arg = &ask;
	rc = refuse_existing(&c, path);
	if (rc == 0)
		rc = export_consent(&c, &e, endpoint);
	if (rc == 0)
		rc = cgfb_spool_load(&c.spool, id, &e, &bytes);
	/* Consented for this very e-mail (by the consent just recorded, or by
	 * an export before with nothing added): its bytes, not asked again.
	 * Mailed before to recipients that are not these: asked here. */
	if (rc == 0 && strcmp(e.endpoint, endpoint) != 0)
		rc = export_confirm(&c, &e, &bytes);
	if (rc == 0)
		rc = cgfb_mailout_format(&c.config, &bytes, &mail);
	if (rc == 0 && c.send) {
		rc = cgfb_mailout_send(&c.config, &mail, err, sizeof(err));
		if (rc < 0)
			cgfb_log(LOG_ERR, "sending %s: %s", id, err);
		else
			printf("%s: sent by mail to %s\n", id, to);
	}
	if (rc == 0 && (!c.send || c.output || c.mbox)) {
		rc = cgfb_mailout_file(&mail, path, c.mbox ? CGFB_MAILOUT_MBOX : c.force ?
				       CGFB_MAILOUT_REPLACE : CGFB_MAILOUT_NEW);
		cgfb_sha256_hex(bytes.data, bytes.len, sha);
		if (rc == 0 && strcmp(path, "-") != 0)
			printf("%s: %s %s (the report: %zu bytes, SHA-256 %s); send it to %s\n", id,
			       c.mbox ? "appended to" : "wrote", path, bytes.len, sha, to);
		if (rc == 0 && !c.config.mail_from[0])
			cgfb_log(LOG_WARNING, "%s: " CGFB_MAILOUT_NO_FROM, id);
		else if (rc == -EEXIST)
			cgfb_log(LOG_ERR, "%s exists: export writes only a file it makes itself "
				 "(--force replaces it)", path);
		else if (rc < 0)
			cgfb_log(LOG_ERR, "writing %s: %s", path, strerror(-rc));
	}
	cgfb_buf_free(&bytes);
	cgfb_buf_free(&mail);
	cgfb_notify_refresh_motd(&c.config, &c.sd);
	/* No to the question (1): nothing done, as the person said. */
	return report_cmd_finish(&c, rc < 0 ? CGFB_EXIT_TROUBLE : CGFB_EXIT_OK);
}
