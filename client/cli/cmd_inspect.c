/* Looking at the reports: list, show, status. Nothing here writes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "base/hint.h"
#include "base/watchlock.h"
#include "cgfb/log.h"
#include "cgfb/utf8.h"
#include "cli/commands.h"
#include "cli/report_cmd.h"
#include "cli/reveal.h"
#include "consent/destination.h"
#include "consent/notify.h"
#include "cgfb/wrap.h"
#include "detect/output.h"

static void fmt_time(long long t, char *buf, size_t sz)
{
	const time_t tt = (time_t)t;
	struct tm tm;

	if (t <= 0) {
		snprintf(buf, sz, "-");
		return;
	}
	gmtime_r(&tt, &tm);
	strftime(buf, sz, "%Y-%m-%d %H:%M:%SZ", &tm);
}

/* What is noted of a report: the collector's receipt id and error text
 * came over the network and stay in its .state for good (older clients
 * kept them as sent): shown escaped (cgfb/utf8.h), in text and JSON. */
#define NOTE_MAX (CGFB_ESC_SIZE(sizeof(((struct cgfb_spool_entry *)0)->last_error)) + 100)
static void note(const struct cgfb_spool_entry *e, char *buf, size_t sz)
{
	char when[32], x[CGFB_ESC_SIZE(sizeof(e->last_error))];

	buf[0] = '\0';
	if (e->state == CGFB_R_SENT) {
		cgfb_utf8_escape(x, sizeof(x), e->receipt_id, strlen(e->receipt_id));
		snprintf(buf, sz, "receipt %s", x);
	} else if (e->state == CGFB_R_CONSENTED && strncmp(e->endpoint, "mailto:", 7) == 0) {
		cgfb_utf8_escape(x, sizeof(x), e->endpoint + 7, strlen(e->endpoint + 7));
		snprintf(buf, sz, "exported for %s", x);
	} else if (e->state == CGFB_R_CONSENTED && e->next_attempt < 0) {
		cgfb_utf8_escape(x, sizeof(x), e->last_error, strlen(e->last_error));
		snprintf(buf, sz, "not retried: %s", x);
	} else if (e->state == CGFB_R_CONSENTED && e->attempts) {
		fmt_time(e->next_attempt, when, sizeof(when));
		cgfb_utf8_escape(x, sizeof(x), e->last_error, strlen(e->last_error));
		snprintf(buf, sz, "attempt %d failed (%s); next %s", e->attempts, x, when);
	}
}

/* "1 boot", "3 boots, kernels 6.1 6.12": how often the kernel asked. */
static void seen_text(const struct cgfb_seen *s, char *buf, size_t sz)
{
	size_t n = (size_t)snprintf(buf, sz, "%u boot%s", s->boots, s->boots == 1 ? "" : "s");

	for (unsigned i = 0; i < s->n_kernels && n < sz; i++)
		n += (size_t)snprintf(buf + n, sz - n, "%s%s", i ? " " : ", kernel ", s->kernels[i]);
}

static json_object *seen_json(const struct cgfb_seen *s)
{
	json_object *o = json_object_new_object(), *k = json_object_new_array();

	json_object_object_add(o, "boots", json_object_new_int64(s->boots));
	json_object_object_add(o, "first_seen", json_object_new_int64(s->first));
	json_object_object_add(o, "last_seen", json_object_new_int64(s->last));
	for (unsigned i = 0; i < s->n_kernels; i++)
		json_object_array_add(k, json_object_new_string(s->kernels[i]));
	json_object_object_add(o, "kernels", k);
	return o;
}

/* word is one of the space-separated words of list. */
static bool in_words(const char *list, const char *word)
{
	const size_t n = strlen(word);

	if (n == 0)
		return false;
	for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

int cgfb_cmd_list(const struct cgfb_globals *g, int argc, char **argv)
{
	static const char usage[] = "Usage: cgroup-feedback list [--json] [--state-dir DIR] [--config FILE]\n";
	struct cgfb_spool_entry *v = NULL;
	struct report_cmd c;
	size_t n = 0;
	char when[32], nb[NOTE_MAX], seen[200], silenced[1024];

	SETUP("state-dir json", usage);
	if (!report_cmd_no_args(argc, argv, usage) || cgfb_spool_list(&c.spool, &v, &n) < 0)
		return report_cmd_finish(&c, CGFB_EXIT_TROUBLE);
	/* Read once, not once a report. */
	cgfb_silenced_ids(&c.sd, silenced, sizeof(silenced));
	if (!c.json && n)
		printf("%-36s  %-9s  %-5s  %-20s  %-8s  %s\n", "ID", "STATE", "ENTRY", "CREATED",
		       "SEEN", "NOTE");
	for (size_t i = 0; i < n; i++) {
		fmt_time(v[i].created, when, sizeof(when));
		note(&v[i], nb, sizeof(nb));
		snprintf(seen, sizeof(seen), "%u boot%s", v[i].seen.boots,
			 v[i].seen.boots == 1 ? "" : "s");
		if (c.json) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "id", json_object_new_string(v[i].id));
			json_object_object_add(o, "state", json_object_new_string(cgfb_rstate_name(v[i].state)));
			json_object_object_add(o, "catalog_id", json_object_new_string(v[i].catalog_id));
			json_object_object_add(o, "created", json_object_new_int64(v[i].created));
			json_object_object_add(o, "attempts", json_object_new_int(v[i].attempts));
			json_object_object_add(o, "note", json_object_new_string(nb));
			json_object_object_add(o, "seen", seen_json(&v[i].seen));
			json_object_object_add(o, "silenced",
					       json_object_new_boolean(in_words(silenced, v[i].catalog_id)));
			cgfb_print_json_line(stdout, o);
		} else {
			printf("%-36s  %-9s  %-5s  %-20s  %-8s  %s%s\n", v[i].id,
			       cgfb_rstate_name(v[i].state), v[i].catalog_id, when, seen, nb,
			       in_words(silenced, v[i].catalog_id) ? " (silenced)" : "");
		}
	}
	free(v);
	return report_cmd_finish(&c, fflush(stdout) ? CGFB_EXIT_TROUBLE : CGFB_EXIT_OK);
}

int cgfb_cmd_show(const struct cgfb_globals *g, int argc, char **argv)
{
	static const char usage[] =
		"Usage: cgroup-feedback show [--raw | --reveal] [--state-dir DIR] [--config FILE] ID\n"
		"Print the report's bytes as the spool holds them, and a newline\n"
		"(--raw: the bytes alone, to hash or to post them; --reveal: then which of\n"
		"this machine's cgroups and processes each token stands for, shown here only).\n";
	struct cgfb_spool_entry e;
	struct cgfb_buf bytes = { 0 };
	const char *id;
	struct report_cmd c;
	int rc;

	SETUP("state-dir raw reveal cgroup-root mountinfo", usage);
	if (c.raw && c.reveal) {
		cgfb_log(LOG_ERR, "show: --raw is the bytes alone; --reveal adds to them");
		return report_cmd_finish(&c, CGFB_EXIT_TROUBLE);
	}
	id = report_cmd_one_id(&c, argc, argv, usage);
	if (!id || report_cmd_load_entry(&c, id, &e, &bytes) < 0)
		return report_cmd_finish(&c, CGFB_EXIT_TROUBLE);
	rc = fwrite(bytes.data, 1, bytes.len, stdout) == bytes.len ? 0 : -EIO;
	/* Text ends in a newline, wherever it goes (a file, less, a prompt
	 * after it); canonical JSON holds none, so the one at the end is
	 * unambiguous, and --raw leaves it out. */
	if (!c.raw)
		putchar('\n');
	if (rc == 0 && c.reveal) {
		const struct cgfb_reveal_opts ro = { c.cgroup_root, c.mountinfo,
						     c.cgroup_root ? "" : NULL };

		rc = cgfb_reveal(&c.sd, &bytes, &ro, stdout);
	}
	cgfb_buf_free(&bytes);
	return report_cmd_finish(&c, rc || fflush(stdout) ? CGFB_EXIT_TROUBLE : CGFB_EXIT_OK);
}

/* What status counts, once over the spool, for both of its forms. */
struct status_sum {
	unsigned count[5];
	unsigned due;
	unsigned failing;
	long long now;
};

static bool exported(const struct cgfb_spool_entry *e)
{
	return strncmp(e->endpoint, "mailto:", 7) == 0;
}

static bool is_due(const struct cgfb_spool_entry *e, long long now)
{
	return e->state == CGFB_R_CONSENTED && e->next_attempt >= 0 && e->next_attempt <= now &&
	       !exported(e);
}

/* A consented report whose last attempt to send it failed, whether it is
 * retried or waits for an administrator: what status's exit status
 * counts (docs/STATUS.md). An export is not sent, so it cannot fail. */
static bool is_failing(const struct cgfb_spool_entry *e)
{
	return e->state == CGFB_R_CONSENTED && !exported(e) && e->attempts > 0 &&
	       e->last_error[0];
}

static void status_sum(const struct cgfb_spool_entry *v, size_t n, struct status_sum *s)
{
	memset(s, 0, sizeof(*s));
	s->now = (long long)time(NULL);
	for (size_t i = 0; i < n; i++) {
		s->count[v[i].state]++;
		s->due += is_due(&v[i], s->now);
		s->failing += is_failing(&v[i]);
	}
}

static const char *const consent_modes[] = { "ask", "never", "auto" };

/* A consented report still to be sent, to an endpoint that is no longer
 * the configured one: the consent names where it goes, and only there. */
static bool moved_away(const struct report_cmd *c, const struct cgfb_spool_entry *e)
{
	return e->state == CGFB_R_CONSENTED && !exported(e) &&
	       strcmp(e->endpoint, c->config.endpoint) != 0;
}

/* Whether anything answers for this spool: the watcher holding its state
 * directory (base/watchlock.h); the first thing to know after installing. */
static void watcher_text(const struct report_cmd *c)
{
	char hint[CGFB_HINT_MAX];
	long pid;
	const int rc = cgfb_watch_holder(&c->sd, &pid);

	if (rc > 0 && pid > 0)
		printf("watcher: running (pid %ld)\n", pid);
	else if (rc > 0)
		printf("watcher: running\n");
	else if (rc == 0)
		printf("watcher: not running: nothing reads the kernel log for this state directory "
		       "(%s)\n", strcmp(c->state_dir, CGFB_DEFAULT_STATE_DIR) == 0 ?
		       "systemctl start cgroup-feedback" :
		       cgfb_hint(hint, sizeof(hint), c->state_dir, "watch"));
	else
		printf("watcher: cannot tell (/proc/locks: %s)\n", strerror(-rc));
}

static json_object *watcher_json(const struct report_cmd *c)
{
	json_object *o = json_object_new_object();
	long pid;
	const int rc = cgfb_watch_holder(&c->sd, &pid);

	json_object_object_add(o, "running", rc < 0 ? NULL : json_object_new_boolean(rc > 0));
	json_object_object_add(o, "pid", rc > 0 && pid > 0 ? json_object_new_int64(pid) : NULL);
	return o;
}

static void status_text(const struct report_cmd *c, const struct cgfb_spool_entry *v, size_t n,
			const struct status_sum *s, const char *silenced)
{
	char nb[NOTE_MAX], hint[CGFB_HINT_MAX], seen[200], ids[1024], *save = NULL;

	struct cgfb_buf where = { 0 }, wrapped = { 0 };

	/* Where a yes goes, before anyone gives one (consent/destination.h). */
	if (cgfb_buf_adds(&where, "where a yes goes: ") == 0 &&
	    cgfb_destination_say(&where, &c->config, NULL) == 0)
		cgfb_wrap(&wrapped, "", where.data, 76);
	watcher_text(c);
	printf("endpoint: %s\nconsent: %s\n%sreports: %zu (pending %u, consented %u, sent %u, "
	       "declined %u, withdrawn %u)\ndue for sending now: %u\nfailing to send: %u\n",
	       c->config.endpoint[0] ? c->config.endpoint : "none (no collector is configured)",
	       consent_modes[c->config.consent], wrapped.data ? wrapped.data : "", n,
	       s->count[CGFB_R_PENDING],
	       s->count[CGFB_R_CONSENTED], s->count[CGFB_R_SENT], s->count[CGFB_R_DECLINED],
	       s->count[CGFB_R_WITHDRAWN], s->due, s->failing);
	for (size_t i = 0; i < n; i++) {
		note(&v[i], nb, sizeof(nb));
		seen_text(&v[i].seen, seen, sizeof(seen));
		if (v[i].state == CGFB_R_PENDING)
			printf("  %s %s (seen at %s): waiting for review: %s\n", v[i].catalog_id,
			       v[i].id, seen,
			       cgfb_hint(hint, sizeof(hint), c->state_dir, "review %s", v[i].id));
		else if (v[i].state == CGFB_R_CONSENTED && nb[0])
			printf("  %s %s: %s (seen at %s)\n", v[i].catalog_id, v[i].id, nb, seen);
		/* An answered report whose message came back: counted, not asked. */
		else if (v[i].seen.boots > 1)
			printf("  %s %s: %s; seen again since (%s), no new report\n",
			       v[i].catalog_id, v[i].id, cgfb_rstate_name(v[i].state), seen);
		if (moved_away(c, &v[i]) && !c->config.endpoint[0])
			printf("    consented for %s; no collector is configured now, and flush still "
			       "sends it there; to stop it: %s\n", v[i].endpoint,
			       cgfb_hint(hint, sizeof(hint), c->state_dir, "withdraw %s", v[i].id));
		else if (moved_away(c, &v[i]))
			printf("    consented for %s, which is not the endpoint configured now; "
			       "to send it there instead: %s\n", v[i].endpoint,
			       cgfb_hint(hint, sizeof(hint), c->state_dir, "submit %s --yes", v[i].id));
	}
	cgfb_buf_free(&where);
	cgfb_buf_free(&wrapped);
	/* Review's "never": what nobody is told of any more, and the undo. */
	snprintf(ids, sizeof(ids), "%s", silenced);
	for (char *t = strtok_r(ids, " ", &save); t; t = strtok_r(NULL, " ", &save))
		printf("never asked again (silenced): %s; to be asked again: %s\n", t,
		       cgfb_hint(hint, sizeof(hint), c->state_dir, "reopen %s", t));
}

/* A consented report in status --json: where it goes and how sending it
 * went. next_attempt is null when it is not retried automatically. */
static json_object *consented_json(const struct cgfb_spool_entry *e, long long now)
{
	json_object *o = json_object_new_object();
	char err[CGFB_ESC_SIZE(sizeof(e->last_error))];

	cgfb_utf8_escape(err, sizeof(err), e->last_error, strlen(e->last_error));
	json_object_object_add(o, "id", json_object_new_string(e->id));
	json_object_object_add(o, "catalog_id", json_object_new_string(e->catalog_id));
	json_object_object_add(o, "created", json_object_new_int64(e->created));
	json_object_object_add(o, "endpoint", json_object_new_string(e->endpoint));
	json_object_object_add(o, "exported", json_object_new_boolean(exported(e)));
	json_object_object_add(o, "attempts", json_object_new_int(e->attempts));
	json_object_object_add(o, "last_error", cgfb_json_str_or_null(err[0] ? err : NULL));
	json_object_object_add(o, "next_attempt", e->next_attempt < 0 || exported(e) ? NULL :
				json_object_new_int64(e->next_attempt));
	json_object_object_add(o, "due", json_object_new_boolean(is_due(e, now)));
	json_object_object_add(o, "failing", json_object_new_boolean(is_failing(e)));
	json_object_object_add(o, "seen", seen_json(&e->seen));
	return o;
}

static json_object *report_json(const struct report_cmd *c, const struct cgfb_spool_entry *e,
				const char *silenced)
{
	json_object *o = json_object_new_object();
	char hint[CGFB_HINT_MAX];

	json_object_object_add(o, "id", json_object_new_string(e->id));
	json_object_object_add(o, "catalog_id", json_object_new_string(e->catalog_id));
	json_object_object_add(o, "state", json_object_new_string(cgfb_rstate_name(e->state)));
	json_object_object_add(o, "created", json_object_new_int64(e->created));
	json_object_object_add(o, "seen", seen_json(&e->seen));
	json_object_object_add(o, "silenced",
			       json_object_new_boolean(in_words(silenced, e->catalog_id)));
	if (e->state == CGFB_R_PENDING)
		json_object_object_add(o, "review", json_object_new_string(
			cgfb_hint(hint, sizeof(hint), c->state_dir, "review %s", e->id)));
	return o;
}

static json_object *counts_json(const struct status_sum *s, size_t n)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "total", json_object_new_int64((int64_t)n));
	for (int st = CGFB_R_PENDING; st <= CGFB_R_WITHDRAWN; st++)
		json_object_object_add(o, cgfb_rstate_name((enum cgfb_rstate)st),
				       json_object_new_int64(s->count[st]));
	json_object_object_add(o, "due", json_object_new_int64(s->due));
	json_object_object_add(o, "failing", json_object_new_int64(s->failing));
	return o;
}

/* Where a yes goes (docs/STATUS.md): the channel, the collector or the
 * e-mail's recipients and way, and the sentence the text form prints. */
static json_object *destination_json(const struct cgfb_config *conf)
{
	const enum cgfb_dest d = cgfb_destination(conf);
	const bool mail = d != CGFB_DEST_COLLECTOR;
	json_object *o = json_object_new_object();
	struct cgfb_buf says = { 0 };

	json_object_object_add(o, "channel", json_object_new_string(
		d == CGFB_DEST_COLLECTOR ? "collector" : d == CGFB_DEST_MAIL ? "mail" : "none"));
	json_object_object_add(o, "endpoint", mail ? NULL : json_object_new_string(conf->endpoint));
	json_object_object_add(o, "mail_to", mail && conf->mail_to[0] ?
			       json_object_new_string(conf->mail_to) : NULL);
	json_object_object_add(o, "mail_by", mail ? json_object_new_string(
		cgfb_mail_way_name(cgfb_mail_way(conf))) : NULL);
	cgfb_destination_say(&says, conf, NULL);
	json_object_object_add(o, "says", json_object_new_string(says.data ? says.data : ""));
	cgfb_buf_free(&says);
	return o;
}

/* status --json: one document (docs/STATUS.md, docs/status.schema.json). */
static int status_json(const struct report_cmd *c, const struct cgfb_spool_entry *v, size_t n,
		       const struct status_sum *s, const char *silenced)
{
	json_object *o = json_object_new_object(), *pending = json_object_new_array(),
		    *consented = json_object_new_array(), *again = json_object_new_array(),
		    *ids = json_object_new_array();
	char buf[1024], *save = NULL;

	for (size_t i = 0; i < n; i++) {
		if (v[i].state == CGFB_R_PENDING)
			json_object_array_add(pending, report_json(c, &v[i], silenced));
		else if (v[i].state == CGFB_R_CONSENTED)
			json_object_array_add(consented, consented_json(&v[i], s->now));
		else if (v[i].seen.boots > 1)
			json_object_array_add(again, report_json(c, &v[i], silenced));
	}
	snprintf(buf, sizeof(buf), "%s", silenced);
	for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save))
		json_object_array_add(ids, json_object_new_string(t));
	json_object_object_add(o, "schema", json_object_new_string("cgroup-feedback/status"));
	json_object_object_add(o, "schema_version", json_object_new_int(1));
	json_object_object_add(o, "state_dir", json_object_new_string(c->state_dir));
	json_object_object_add(o, "watcher", watcher_json(c));
	json_object_object_add(o, "endpoint", json_object_new_string(c->config.endpoint));
	json_object_object_add(o, "consent",
			       json_object_new_string(consent_modes[c->config.consent]));
	json_object_object_add(o, "destination", destination_json(&c->config));
	json_object_object_add(o, "now", json_object_new_int64(s->now));
	json_object_object_add(o, "counts", counts_json(s, n));
	json_object_object_add(o, "pending", pending);
	json_object_object_add(o, "consented", consented);
	json_object_object_add(o, "seen_again", again);
	json_object_object_add(o, "silenced", ids);
	return cgfb_print_json_line(stdout, o);
}

int cgfb_cmd_status(const struct cgfb_globals *g, int argc, char **argv)
{
	static const char usage[] =
		"Usage: cgroup-feedback status [--json] [--state-dir DIR] [--config FILE]\n"
		"What is pending, due or failing (--json: one JSON document). Exits 0,\n"
		"1 while a consented report's last attempt to send it failed, 2 on trouble.\n";
	struct cgfb_spool_entry *v = NULL;
	struct status_sum s;
	struct report_cmd c;
	size_t n = 0;
	char silenced[1024];
	int rc = 0;

	SETUP("state-dir json", usage);
	if (!report_cmd_no_args(argc, argv, usage) || cgfb_spool_list(&c.spool, &v, &n) < 0)
		return report_cmd_finish(&c, CGFB_EXIT_TROUBLE);
	status_sum(v, n, &s);
	if (cgfb_silenced_ids(&c.sd, silenced, sizeof(silenced)) < 0)
		silenced[0] = '\0';
	if (c.json)
		rc = status_json(&c, v, n, &s, silenced);
	else
		status_text(&c, v, n, &s, silenced);
	if (fflush(stdout) || ferror(stdout))
		rc = -EIO;
	free(v);
	if (rc < 0)
		return report_cmd_finish(&c, CGFB_EXIT_TROUBLE);
	return report_cmd_finish(&c, s.failing ? CGFB_EXIT_FAILING : CGFB_EXIT_OK);
}
