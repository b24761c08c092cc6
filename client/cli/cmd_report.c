/* The commands around a report: review, list, show, status, submit,
 * decline, withdraw, flush, export. Only submit, flush and withdraw (and
 * review when told to send) open network connections. */
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgfb/sha256.h"
#include "base/path.h"
#include "cgfb/log.h"
#include "cgfb/readfile.h"
#include "cgfb/utf8.h"
#include "base/hint.h"
#include "cli/commands.h"
#include "config/config.h"
#include "consent/consent.h"
#include "consent/draft.h"
#include "consent/notify.h"
#include "detect/output.h"
#include "deliver/mailout.h"
#include "privacy/redact.h"
#include "cli/review.h"
#include "report/spool.h"
#include "deliver/deliver.h"
#include "deliver/submit.h"

#define ANSWERS_MAX 32
#define USE_CASE_FILE_MAX 8192

struct ctx {
	struct cgfb_globals g;
	struct cgfb_config config;
	struct cgfb_catalog *cat;
	struct cgfb_schema *schema;
	struct cgfb_spool spool;
	const char *state_dir;
	const char *output;
	const char *use_case_file;
	const char *endpoint;
	const char *mbox;
	char id[CGFB_REPORT_ID_LEN + 1];   /* the report named, prefix resolved */
	bool send;
	bool json;
	bool yes;
	bool redact;
	bool raw;
	size_t n_answers;
	const char *answers[ANSWERS_MAX];
};

enum {
	OPT_STATE_DIR = 256, OPT_JSON, OPT_YES, OPT_USE_CASE, OPT_ANSWER, OPT_OUTPUT,
	OPT_ENDPOINT, OPT_REDACT, OPT_EMAIL, OPT_MBOX, OPT_SEND, OPT_RAW,
};

static const struct option long_opts[] = {
	{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "yes", no_argument, NULL, OPT_YES },
	{ "use-case-file", required_argument, NULL, OPT_USE_CASE },
	{ "answer", required_argument, NULL, OPT_ANSWER },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "endpoint", required_argument, NULL, OPT_ENDPOINT },
	{ "redact", no_argument, NULL, OPT_REDACT },
	{ "email", no_argument, NULL, OPT_EMAIL },
	{ "mbox", required_argument, NULL, OPT_MBOX },
	{ "send", no_argument, NULL, OPT_SEND },
	{ "raw", no_argument, NULL, OPT_RAW },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void ctx_free(struct ctx *c)
{
	cgfb_catalog_free(c->cat);
	cgfb_schema_free(c->schema);
}

static int take_option(struct ctx *c, int opt)
{
	switch (opt) {
	case OPT_STATE_DIR: c->state_dir = optarg; break;
	case OPT_JSON: c->json = true; break;
	case OPT_YES: c->yes = true; break;
	case OPT_USE_CASE: c->use_case_file = optarg; break;
	case 'o':
	case OPT_OUTPUT: c->output = optarg; break;
	case OPT_ENDPOINT: c->endpoint = optarg; break;
	case OPT_REDACT: c->redact = true; break;
	case OPT_EMAIL: break;          /* the e-mail form is what export writes */
	case OPT_MBOX: c->mbox = optarg; break;
	case OPT_SEND: c->send = true; break;
	case OPT_RAW: c->raw = true; break;
	case OPT_ANSWER:
		if (c->n_answers >= ANSWERS_MAX || !strchr(optarg, '=')) {
			cgfb_log(LOG_ERR, "--answer takes KEY=VALUE (at most %d)", ANSWERS_MAX);
			return -EINVAL;
		}
		c->answers[c->n_answers++] = optarg;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

/* Parse the options a command allows, then load what every command needs. */
static int setup(struct ctx *c, const struct cgfb_globals *g, int argc, char **argv,
		 const char *allowed, const char *usage)
{
	char err[256];
	int opt, rc;

	memset(c, 0, sizeof(*c));
	c->g = *g;
	c->state_dir = cgfb_state_dir(g);
	while ((opt = cgfb_next_option(argc, argv, long_opts, allowed, usage)) != -1) {
		if (opt == CGFB_OPT_HELP)
			return 1;
		if (opt == CGFB_OPT_ERROR || take_option(c, opt) < 0)
			return -EINVAL;
	}
	if (cgfb_load_config(&c->g, &c->config) < 0 || cgfb_load_catalog(&c->g, &c->cat) < 0)
		return -EINVAL;
	if (c->endpoint && cgfb_config_set(&c->config, "endpoint", c->endpoint, err,
					   sizeof(err)) < 0) {
		cgfb_log(LOG_ERR, "--endpoint: %s", err);
		return -EINVAL;
	}
	rc = cgfb_schema_load_builtin(&c->schema, err, sizeof(err));
	if (rc < 0) {
		cgfb_log(LOG_ERR, "report schema: %s", err);
		return rc;
	}
	/* A typo in --state-dir must not look like "nothing to review", and
	 * a look at the reports must not create directories. */
	rc = cgfb_spool_open_existing(&c->spool, c->state_dir);
	if (rc == -ENOENT)
		cgfb_log(LOG_ERR, "state directory %s does not exist (the watcher creates it; "
			 "is --state-dir or $" CGFB_STATE_DIR_ENV " right?)", c->state_dir);
	else if (rc == -EACCES)
		cgfb_log(LOG_ERR, "%s: permission denied; the reports are readable by root only "
			 "(try sudo)", c->state_dir);
	else if (rc < 0)
		cgfb_log(LOG_ERR, "state directory %s: %s", c->state_dir, strerror(-rc));
	return rc;
}

static int finish(struct ctx *c, int rc)
{
	ctx_free(c);
	return rc;
}

#define SETUP(allowed, usage) \
	do { \
		const int _r = setup(&c, g, argc, argv, allowed, usage); \
		if (_r != 0) \
			return finish(&c, _r > 0 ? CGFB_EXIT_OK : CGFB_EXIT_TROUBLE); \
	} while (0)

/* The shortest prefix that names a report, as git's abbreviated ids. */
#define ID_PREFIX_MIN 4

static bool id_prefix_shape(const char *s)
{
	const size_t n = strlen(s);

	return n >= ID_PREFIX_MIN && n < CGFB_REPORT_ID_LEN &&
	       strspn(s, "0123456789abcdef-") == n;
}

/* The report a unique prefix names, into c->id. */
static const char *resolve_prefix(struct ctx *c, const char *prefix)
{
	struct cgfb_spool_entry *v = NULL;
	size_t n = 0, found = 0;
	char hint[600];

	if (cgfb_spool_list(&c->spool, &v, &n) < 0)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (strncmp(v[i].id, prefix, strlen(prefix)) != 0)
			continue;
		if (found++ == 0)
			snprintf(c->id, sizeof(c->id), "%s", v[i].id);
		else if (found == 2)
			cgfb_log(LOG_ERR, "'%s' names more than one report: %s, %s%s", prefix, c->id,
				 v[i].id, n > i + 1 ? " (and maybe more); give more of the id" :
				 "; give more of the id");
	}
	free(v);
	if (found == 0)
		cgfb_log(LOG_ERR, "no report id starts with '%s' in %s (see %s)", prefix,
			 c->spool.dir, cgfb_hint(hint, sizeof(hint), c->state_dir, "list"));
	return found == 1 ? c->id : NULL;
}

/* The one ID argument of show, submit, decline, withdraw, export, review:
 * a whole id or a unique prefix of at least four characters. */
static const char *one_id(struct ctx *c, int argc, char **argv, const char *usage)
{
	char hint[600];

	if (optind >= argc) {
		cgfb_log(LOG_ERR, "%s: which report? give its id (see %s)", argv[0],
			 cgfb_hint(hint, sizeof(hint), c->state_dir, "list"));
		fputs(usage, stderr);
		return NULL;
	}
	if (optind + 1 < argc) {
		cgfb_log(LOG_ERR, "%s takes one report id; '%s' is one argument too many", argv[0],
			 argv[optind + 1]);
		fputs(usage, stderr);
		return NULL;
	}
	if (cgfb_report_id_valid(argv[optind])) {
		snprintf(c->id, sizeof(c->id), "%s", argv[optind]);
		return c->id;
	}
	if (id_prefix_shape(argv[optind]))
		return resolve_prefix(c, argv[optind]);
	cgfb_log(LOG_ERR, "'%s' is not a report id (see %s)", argv[optind],
		 cgfb_hint(hint, sizeof(hint), c->state_dir, "list"));
	return NULL;
}

/* list, status, flush: options only. */
static bool no_args(int argc, char **argv, const char *usage)
{
	if (optind >= argc)
		return true;
	cgfb_log(LOG_ERR, "%s takes no arguments; '%s' is one too many", argv[0], argv[optind]);
	fputs(usage, stderr);
	return false;
}

static int load_entry(struct ctx *c, const char *id, struct cgfb_spool_entry *e,
		      struct cgfb_buf *bytes)
{
	const int rc = cgfb_spool_load(&c->spool, id, e, bytes);

	if (rc == -ENOENT)
		cgfb_log(LOG_ERR, "no report %s in %s", id, c->spool.dir);
	else if (rc < 0)
		cgfb_log(LOG_ERR, "report %s: %s", id, strerror(-rc));
	return rc;
}

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

static void note(const struct cgfb_spool_entry *e, char *buf, size_t sz)
{
	char when[32];

	buf[0] = '\0';
	if (e->state == CGFB_R_SENT)
		snprintf(buf, sz, "receipt %s", e->receipt_id);
	else if (e->state == CGFB_R_CONSENTED && strncmp(e->endpoint, "mailto:", 7) == 0)
		snprintf(buf, sz, "exported for %s", e->endpoint + 7);
	else if (e->state == CGFB_R_CONSENTED && e->next_attempt < 0)
		snprintf(buf, sz, "not retried: %s", e->last_error);
	else if (e->state == CGFB_R_CONSENTED && e->attempts) {
		fmt_time(e->next_attempt, when, sizeof(when));
		snprintf(buf, sz, "attempt %d failed (%s); next %s", e->attempts, e->last_error, when);
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

int cgfb_cmd_list(const struct cgfb_globals *g, int argc, char **argv)
{
	static const char usage[] = "Usage: cgroup-feedback list [--json] [--state-dir DIR]\n";
	struct cgfb_spool_entry *v = NULL;
	struct ctx c;
	size_t n = 0;
	char when[32], nb[400], seen[200];

	SETUP("state-dir json", usage);
	if (!no_args(argc, argv, usage) || cgfb_spool_list(&c.spool, &v, &n) < 0)
		return finish(&c, CGFB_EXIT_TROUBLE);
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
			cgfb_print_json_line(stdout, o);
		} else {
			printf("%-36s  %-9s  %-5s  %-20s  %-8s  %s\n", v[i].id,
			       cgfb_rstate_name(v[i].state), v[i].catalog_id, when, seen, nb);
		}
	}
	free(v);
	return finish(&c, fflush(stdout) ? CGFB_EXIT_TROUBLE : CGFB_EXIT_OK);
}

int cgfb_cmd_show(const struct cgfb_globals *g, int argc, char **argv)
{
	static const char usage[] = "Usage: cgroup-feedback show [--raw] [--state-dir DIR] ID\n"
				    "Print the report's bytes as the spool holds them, and a newline\n"
				    "(--raw: the bytes alone, to hash or to post them).\n";
	struct cgfb_spool_entry e;
	struct cgfb_buf bytes = { 0 };
	const char *id;
	struct ctx c;
	int rc;

	SETUP("state-dir raw", usage);
	id = one_id(&c, argc, argv, usage);
	if (!id || load_entry(&c, id, &e, &bytes) < 0)
		return finish(&c, CGFB_EXIT_TROUBLE);
	rc = fwrite(bytes.data, 1, bytes.len, stdout) == bytes.len ? 0 : -EIO;
	/* Text ends in a newline, wherever it goes (a file, less, a prompt
	 * after it); canonical JSON holds none, so the one at the end is
	 * unambiguous, and --raw leaves it out. */
	if (!c.raw)
		putchar('\n');
	cgfb_buf_free(&bytes);
	return finish(&c, rc || fflush(stdout) ? CGFB_EXIT_TROUBLE : CGFB_EXIT_OK);
}

int cgfb_cmd_status(const struct cgfb_globals *g, int argc, char **argv)
{
	static const char usage[] = "Usage: cgroup-feedback status [--state-dir DIR]\n";
	static const char *const modes[] = { "ask", "never", "auto" };
	struct cgfb_spool_entry *v = NULL;
	unsigned count[5] = { 0 }, due = 0;
	const long long now = (long long)time(NULL);
	struct ctx c;
	size_t n = 0;
	char nb[400], hint[600], seen[200];

	SETUP("state-dir", usage);
	if (!no_args(argc, argv, usage) || cgfb_spool_list(&c.spool, &v, &n) < 0)
		return finish(&c, CGFB_EXIT_TROUBLE);
	for (size_t i = 0; i < n; i++) {
		count[v[i].state]++;
		due += v[i].state == CGFB_R_CONSENTED && v[i].next_attempt >= 0 &&
		       v[i].next_attempt <= now && strncmp(v[i].endpoint, "mailto:", 7) != 0;
	}
	printf("endpoint: %s\nconsent: %s\nreports: %zu (pending %u, consented %u, sent %u, "
	       "declined %u, withdrawn %u)\ndue for sending now: %u\n", c.config.endpoint,
	       modes[c.config.consent], n, count[CGFB_R_PENDING], count[CGFB_R_CONSENTED],
	       count[CGFB_R_SENT], count[CGFB_R_DECLINED], count[CGFB_R_WITHDRAWN], due);
	for (size_t i = 0; i < n; i++) {
		note(&v[i], nb, sizeof(nb));
		seen_text(&v[i].seen, seen, sizeof(seen));
		if (v[i].state == CGFB_R_PENDING)
			printf("  %s %s (seen at %s): waiting for review: %s\n", v[i].catalog_id,
			       v[i].id, seen,
			       cgfb_hint(hint, sizeof(hint), c.state_dir, "review %s", v[i].id));
		else if (v[i].state == CGFB_R_CONSENTED && nb[0])
			printf("  %s %s: %s (seen at %s)\n", v[i].catalog_id, v[i].id, nb, seen);
		/* An answered report whose message came back: counted, not asked. */
		else if (v[i].seen.boots > 1)
			printf("  %s %s: %s; seen again since (%s), no new report\n",
			       v[i].catalog_id, v[i].id, cgfb_rstate_name(v[i].state), seen);
	}
	free(v);
	return finish(&c, CGFB_EXIT_OK);
}

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

static char *slurp_use_case(const char *path)
{
	struct cgfb_buf b = { 0 };
	const int rc = cgfb_read_file(path, USE_CASE_FILE_MAX, 0, &b);

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

/* Secrets in unattended input are refused unless --redact says to replace
 * them: nobody is there to look. What the administrator was shown in a
 * review and kept (the draft remembers) is theirs to send. Returns the text
 * to use (maybe new). */
static char *unattended_secrets(struct ctx *c, const struct cgfb_draft *d, char *text,
				const char *what, bool *bad)
{
	struct cgfb_finding f[CGFB_REDACT_MAX_FINDINGS];
	struct cgfb_local_names ln;
	size_t n;

	cgfb_local_names_load(&ln, NULL, NULL);
	n = cgfb_draft_unkept(d, text, f, cgfb_find_secrets(text, &ln, f, CGFB_REDACT_MAX_FINDINGS));
	cgfb_local_names_free(&ln);
	if (n == 0)
		return text;
	if (!c->redact) {
		for (size_t i = 0; i < n; i++)
			cgfb_log(LOG_ERR, "%s contains a %s: '%.*s'", what, cgfb_secret_name(f[i].kind),
				 (int)f[i].len, text + f[i].start);
		cgfb_log(LOG_ERR, "refusing to send it; edit it, or pass --redact to replace these");
		*bad = true;
		return text;
	}
	return cgfb_redact_replace(text, f, n);
}

/* Every text of the draft, checked as unattended input: one left there by
 * a review that ended before its secret check, or given by the options,
 * leaves only as the administrator saw it or redacted. -EINVAL when one
 * is refused; 1 when --redact changed one. */
static int draft_secrets(struct ctx *c, struct cgfb_draft *d)
{
	bool bad = false, changed = false;
	char *before;

	if (d->text) {
		before = d->text;
		d->text = unattended_secrets(c, d, d->text, "the use case", &bad);
		changed |= d->text != before;
	}
	if (d->message) {
		before = d->message;
		d->message = unattended_secrets(c, d, d->message, "the message", &bad);
		changed |= d->message != before;
	}
	for (size_t i = 0; i < d->n; i++) {
		before = d->values[i];
		d->values[i] = unattended_secrets(c, d, d->values[i], d->keys[i], &bad);
		changed |= d->values[i] != before;
	}
	return bad ? -EINVAL : changed;
}

/* An answer is to one of the entry's questions: a misspelt key would
 * otherwise be sent as given and read by nobody. */
static int check_answer_key(const struct ctx *c, const struct cgfb_spool_entry *e,
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
static int options_into_draft(struct ctx *c, struct cgfb_draft *d,
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
			rc = refuse_controls(eq + 1, strlen(eq + 1), "--answer", c->answers[i]);
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
	rc = draft_secrets(c, d);
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

/* The use case of a report with none in its draft: the configured
 * use-case-file (consent = auto), checked like any unattended text. */
static int configured_use_case(struct ctx *c, struct cgfb_draft *d)
{
	bool bad = false;
	char *text;

	if (d->text || !c->config.use_case_file[0])
		return 0;
	text = slurp_use_case(c->config.use_case_file);
	if (!text)
		return -EINVAL;
	d->text = unattended_secrets(c, d, text, "the use case", &bad);
	return bad ? -EINVAL : 0;
}

/* Consent from the command line: --yes (or export, or consent = auto),
 * from the report's draft with what --use-case-file and --answer add. */
static int unattended_consent(struct ctx *c, struct cgfb_spool_entry *e, const char *endpoint)
{
	struct cgfb_draft d;
	struct cgfb_use_case uc;
	struct cgfb_buf report = { 0 }, bytes = { 0 };
	char token[65], err[256];
	int rc;

	rc = cgfb_draft_load(&c->spool, e->id, &d);
	if (rc < 0)
		cgfb_log(LOG_ERR, "report %s: its draft: %s", e->id, strerror(-rc));
	if (rc == 0)
		rc = options_into_draft(c, &d, e);
	if (rc >= 0)
		rc = configured_use_case(c, &d);
	if (rc < 0)
		goto out;
	if (!d.text || !d.text[0])
		cgfb_log(LOG_NOTICE, "report %s has no use case: the maintainers will see the "
			 "snapshot only (--use-case-file FILE gives one)", e->id);
	cgfb_draft_use_case(&d, &uc);
	rc = cgfb_spool_load(&c->spool, e->id, e, &report);
	if (rc < 0) {
		cgfb_log(LOG_ERR, "report %s: %s", e->id, strerror(-rc));
		goto out;
	}
	rc = cgfb_consent_build(c->schema, c->state_dir, &report, &uc, endpoint, e->deletion_token,
				&bytes, token, err, sizeof(err));
	if (rc < 0)
		cgfb_log(LOG_ERR, "report %s: %s", e->id, err);
	if (rc == 0) {
		rc = cgfb_consent_record(&c->spool, e, &bytes, endpoint, token);
		if (rc < 0)
			cgfb_log(LOG_ERR, "report %s: recording the consent in %s: %s; nothing was "
				 "sent", e->id, c->spool.dir, strerror(-rc));
	}
out:
	cgfb_draft_free(&d);
	cgfb_buf_free(&report);
	cgfb_buf_free(&bytes);
	return rc;
}

static int send_now(struct ctx *c, struct cgfb_spool_entry *e)
{
	const int rc = cgfb_deliver(&c->config, &c->spool, e);
	char hint[600];

	if (rc == 0)
		printf("%s: sent; the collector stored it as %s (SHA-256 %s)\n", e->id, e->receipt_id,
		       e->receipt_sha256);
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
		"                              [--redact] [--endpoint URL] [--state-dir DIR]\n"
		"Consent to sending report ID as it is plus the use case, and send it now.\n"
		"Each --answer KEY is one of the report's catalog entry's questions\n"
		"(cgroup-feedback catalog lists them: software, why_flat, reorganisation for\n"
		"the flat-hierarchy entries; purpose, software, v2_replacement for the knobs).\n";
	struct cgfb_spool_entry e;
	char err[256], hint[600];
	const char *id;
	struct ctx c;
	int rc;

	SETUP("state-dir yes use-case-file answer redact endpoint", usage);
	id = one_id(&c, argc, argv, usage);
	if (!id || load_entry(&c, id, &e, NULL) < 0)
		return finish(&c, CGFB_EXIT_TROUBLE);
	if (!c.yes) {
		cgfb_log(LOG_ERR, "submit sends a report only with --yes (or review it: %s)",
			 cgfb_hint(hint, sizeof(hint), c.state_dir, "review %s", id));
		return finish(&c, CGFB_EXIT_TROUBLE);
	}
	if (c.config.consent == CGFB_CONSENT_NEVER) {
		cgfb_log(LOG_ERR, "consent = never in the configuration: nothing is sent");
		return finish(&c, CGFB_EXIT_TROUBLE);
	}
	if (e.state != CGFB_R_PENDING && e.state != CGFB_R_CONSENTED) {
		cgfb_log(LOG_ERR, "report %s is %s", id, cgfb_rstate_name(e.state));
		return finish(&c, CGFB_EXIT_TROUBLE);
	}
	if (cgfb_endpoint_check(c.config.endpoint, err, sizeof(err)) < 0) {
		cgfb_log(LOG_ERR, "%s", err);
		return finish(&c, CGFB_EXIT_TROUBLE);
	}
	rc = unattended_consent(&c, &e, c.config.endpoint);
	if (rc == 0)
		rc = send_now(&c, &e);
	cgfb_notify_refresh_motd(&c.config, c.state_dir);
	return finish(&c, rc < 0 ? CGFB_EXIT_TROUBLE : CGFB_EXIT_OK);
}

int cgfb_cmd_decline(const struct cgfb_globals *g, int argc, char **argv)
{
	static const char usage[] = "Usage: cgroup-feedback decline [--state-dir DIR] ID\n";
	struct cgfb_spool_entry e;
	const char *id;
	struct ctx c;
	int rc;

	SETUP("state-dir", usage);
	id = one_id(&c, argc, argv, usage);
	if (!id || load_entry(&c, id, &e, NULL) < 0)
		return finish(&c, CGFB_EXIT_TROUBLE);
	if (e.state == CGFB_R_SENT) {
		cgfb_log(LOG_ERR, "report %s was sent already: withdraw it instead", id);
		return finish(&c, CGFB_EXIT_TROUBLE);
	}
	e.state = CGFB_R_DECLINED;
	rc = cgfb_spool_save_state(&c.spool, &e);
	if (rc < 0)
		cgfb_log(LOG_ERR, "report %s: recording the decline in %s: %s", id, c.spool.dir,
			 strerror(-rc));
	cgfb_notify_refresh_motd(&c.config, c.state_dir);
	return finish(&c, rc < 0 ? CGFB_EXIT_TROUBLE : CGFB_EXIT_OK);
}

int cgfb_cmd_withdraw(const struct cgfb_globals *g, int argc, char **argv)
{
	static const char usage[] = "Usage: cgroup-feedback withdraw [--state-dir DIR] ID\n"
				    "Delete a sent report from the collector (or stop an unsent one).\n";
	struct cgfb_submit_result res;
	struct cgfb_spool_entry e;
	const char *id;
	struct ctx c;
	int rc = 0;

	SETUP("state-dir", usage);
	id = one_id(&c, argc, argv, usage);
	if (!id || load_entry(&c, id, &e, NULL) < 0)
		return finish(&c, CGFB_EXIT_TROUBLE);
	if (e.state == CGFB_R_SENT) {
		rc = cgfb_submit_delete(&c.config, e.endpoint, e.id, e.deletion_token, &res);
		if (rc < 0) {
			cgfb_log(LOG_ERR, "withdrawing %s from %s: %s", id, e.endpoint, res.error);
			return finish(&c, CGFB_EXIT_TROUBLE);
		}
		printf("%s: deleted from %s\n", id, e.endpoint);
	} else if (e.state == CGFB_R_WITHDRAWN) {
		printf("%s: was withdrawn already\n", id);
	} else {
		printf("%s: was never sent; it will not be\n", id);
	}
	e.state = CGFB_R_WITHDRAWN;
	e.next_attempt = 0;
	rc = cgfb_spool_save_state(&c.spool, &e);
	if (rc < 0)
		cgfb_log(LOG_ERR, "report %s: recording the withdrawal in %s: %s", id, c.spool.dir,
			 strerror(-rc));
	cgfb_notify_refresh_motd(&c.config, c.state_dir);
	return finish(&c, rc < 0 ? CGFB_EXIT_TROUBLE : CGFB_EXIT_OK);
}

/* A consent is for one schema: a report made under another asks again. */
static bool schema_changed(struct ctx *c, struct cgfb_spool_entry *e)
{
	struct cgfb_buf bytes = { 0 };
	char sha[65], hint[600];
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
	static const char usage[] = "Usage: cgroup-feedback flush [--state-dir DIR]\n"
				    "Send the consented reports whose time has come.\n";
	struct cgfb_spool_entry *v = NULL;
	const long long now = (long long)time(NULL);
	unsigned sent = 0, failed = 0;
	struct ctx c;
	size_t n = 0;

	SETUP("state-dir", usage);
	if (!no_args(argc, argv, usage) || cgfb_spool_list(&c.spool, &v, &n) < 0)
		return finish(&c, CGFB_EXIT_TROUBLE);
	for (size_t i = 0; i < n; i++) {
		if (c.config.consent == CGFB_CONSENT_AUTO && v[i].state == CGFB_R_PENDING &&
		    !cgfb_silenced(c.state_dir, v[i].catalog_id) &&
		    unattended_consent(&c, &v[i], c.config.endpoint) < 0)
			failed++;
		if (!due(&v[i], now) || schema_changed(&c, &v[i]))
			continue;
		if (send_now(&c, &v[i]) == 0)
			sent++;
		else
			failed++;
	}
	free(v);
	cgfb_notify_refresh_motd(&c.config, c.state_dir);
	printf("flush: %u sent, %u failed\n", sent, failed);
	return finish(&c, failed ? CGFB_EXIT_TROUBLE : CGFB_EXIT_OK);
}

/* Exporting is consenting to the mail channel. A report not yet consented
 * to, or exported before and given a use case or answers now, is built
 * afresh from its draft with what the options add, so a second export
 * carries them; a report consented to for the collector, or sent, goes out
 * as it is — the same bytes, the same story — and options that would
 * change it are named as unused rather than dropped without a word. */
static int export_consent(struct ctx *c, struct cgfb_spool_entry *e, const char *endpoint)
{
	const bool mailed = e->state == CGFB_R_CONSENTED && strncmp(e->endpoint, "mailto:", 7) == 0;
	int rc;

	if (e->state == CGFB_R_DECLINED || e->state == CGFB_R_WITHDRAWN) {
		cgfb_log(LOG_ERR, "report %s is %s", e->id, cgfb_rstate_name(e->state));
		return -EPERM;
	}
	/* Exported before and nothing new: the same bytes again. */
	if (mailed && !c->use_case_file && !c->n_answers)
		return 0;
	if (e->state != CGFB_R_PENDING && !mailed) {
		if (c->use_case_file || c->n_answers)
			cgfb_log(LOG_WARNING, "report %s is %s for %s: the e-mail carries those bytes, "
				 "with the use case and answers given then; --use-case-file and "
				 "--answer are not used", e->id, cgfb_rstate_name(e->state), e->endpoint);
		return 0;
	}
	rc = unattended_consent(c, e, endpoint);
	/* Standard output may be the e-mail itself (-o -). */
	if (rc == 0)
		fprintf(c->output && strcmp(c->output, "-") == 0 ? stderr : stdout,
			"%s: consent recorded for the mail channel (%s); flush will not send it "
			"over the network\n", e->id, endpoint);
	return rc;
}

int cgfb_cmd_export(const struct cgfb_globals *g, int argc, char **argv)
{
	static const char usage[] =
		"Usage: cgroup-feedback export ID [--email] [-o FILE | --mbox FILE] [--send]\n"
		"                              [--use-case-file FILE] [--answer KEY=VALUE]...\n"
		"                              [--redact] [--state-dir DIR]\n"
		"Write the report as an e-mail ready for linux-mm (for machines without network):\n"
		"to FILE (- for standard output; default ./cgroup-feedback-ID.eml), appended to an\n"
		"mbox, or sent through smtp-url (STARTTLS) or sendmail.\n";
	struct cgfb_spool_entry e;
	struct cgfb_buf bytes = { 0 }, mail = { 0 };
	char to[600], endpoint[620], path[PATH_MAX], err[512], sha[65];
	const char *id;
	struct ctx c;
	int rc;

	SETUP("state-dir output use-case-file answer redact email mbox send", usage);
	id = one_id(&c, argc, argv, usage);
	if (!id || load_entry(&c, id, &e, &bytes) < 0)
		return finish(&c, CGFB_EXIT_TROUBLE);
	cgfb_mailout_recipients(&c.config, &bytes, to, sizeof(to));
	snprintf(endpoint, sizeof(endpoint), "mailto:%s", to);
	rc = export_consent(&c, &e, endpoint);
	if (rc == 0)
		rc = cgfb_spool_load(&c.spool, id, &e, &bytes);
	if (rc == 0)
		rc = cgfb_mailout_format(&c.config, &bytes, &mail);
	if (c.mbox)
		snprintf(path, sizeof(path), "%s", c.mbox);
	else if (c.output)
		snprintf(path, sizeof(path), "%s", c.output);
	else
		snprintf(path, sizeof(path), "cgroup-feedback-%s.eml", id);
	if (rc == 0 && c.send) {
		rc = cgfb_mailout_send(&c.config, &mail, err, sizeof(err));
		if (rc < 0)
			cgfb_log(LOG_ERR, "sending %s: %s", id, err);
		else
			printf("%s: sent by mail to %s\n", id, to);
	}
	if (rc == 0 && (!c.send || c.output || c.mbox)) {
		rc = cgfb_mailout_file(&mail, path, c.mbox != NULL);
		cgfb_sha256_hex(bytes.data, bytes.len, sha);
		if (rc == 0 && strcmp(path, "-") != 0)
			printf("%s: %s %s (the report: %zu bytes, SHA-256 %s); send it to %s\n", id,
			       c.mbox ? "appended to" : "wrote", path, bytes.len, sha, to);
		else if (rc < 0)
			cgfb_log(LOG_ERR, "writing %s: %s", path, strerror(-rc));
	}
	cgfb_buf_free(&bytes);
	cgfb_buf_free(&mail);
	cgfb_notify_refresh_motd(&c.config, c.state_dir);
	return finish(&c, rc < 0 ? CGFB_EXIT_TROUBLE : CGFB_EXIT_OK);
}

/* review without a terminal (a script, a cron job, a pasted pipe): the
 * commands that do the same without questions, for the report named or the
 * first one waiting, so that they can be pasted as printed. */
static int no_terminal(struct ctx *c, int argc, char **argv, const char *usage)
{
	struct cgfb_spool_entry *v = NULL;
	const char *id = NULL;
	char show[600], submit[600];
	size_t n = 0;

	if (optind < argc) {
		id = one_id(c, argc, argv, usage);
		if (!id)
			return CGFB_EXIT_TROUBLE;
	} else if (cgfb_spool_list(&c->spool, &v, &n) == 0) {
		for (size_t i = 0; i < n && !id; i++)
			if (v[i].state == CGFB_R_PENDING)
				id = v[i].id;
	}
	if (id)
		cgfb_log(LOG_ERR, "review asks questions on a terminal; without one, read the report "
			 "with '%s', then send it as it is with '%s' (--use-case-file FILE and "
			 "--answer KEY=VALUE add your use case and answers)",
			 cgfb_hint(show, sizeof(show), c->state_dir, "show %s", id),
			 cgfb_hint(submit, sizeof(submit), c->state_dir, "submit %s --yes", id));
	else
		cgfb_log(LOG_ERR, "review asks questions on a terminal; nothing is waiting for "
			 "review anyway");
	free(v);
	return CGFB_EXIT_TROUBLE;
}

int cgfb_cmd_review(const struct cgfb_globals *g, int argc, char **argv)
{
	static const char usage[] =
		"Usage: cgroup-feedback review [--state-dir DIR] [--output FILE] [ID]\n"
		"Look at a report (each pending one without ID), answer its questions, see the\n"
		"exact bytes, and decide: send, export as e-mail, keep for later, decline.\n";
	struct cgfb_spool_entry *v = NULL;
	struct cgfb_review_ctx rc;
	struct ctx c;
	size_t n = 0, done = 0;
	int r = 0;

	SETUP("state-dir output", usage);
	if (!isatty(STDIN_FILENO))
		return finish(&c, no_terminal(&c, argc, argv, usage));
	rc = (struct cgfb_review_ctx){
		.config = &c.config, .cat = c.cat, .schema = c.schema, .spool = &c.spool,
		.state_dir = c.state_dir, .in = stdin, .out = stdout, .export_path = c.output,
	};
	if (optind < argc) {
		const char *id = one_id(&c, argc, argv, usage);
		struct cgfb_spool_entry e;

		if (!id || load_entry(&c, id, &e, NULL) < 0)
			return finish(&c, CGFB_EXIT_TROUBLE);
		r = cgfb_review(&rc, &e);
		return finish(&c, r < 0 ? CGFB_EXIT_TROUBLE : CGFB_EXIT_OK);
	}
	if (cgfb_spool_list(&c.spool, &v, &n) < 0)
		return finish(&c, CGFB_EXIT_TROUBLE);
	for (size_t i = 0; i < n && r >= 0; i++) {
		if (v[i].state != CGFB_R_PENDING || cgfb_silenced(c.state_dir, v[i].catalog_id))
			continue;
		r = cgfb_review(&rc, &v[i]);
		done++;
	}
	if (!done)
		puts("Nothing is waiting for review.");
	free(v);
	return finish(&c, r < 0 ? CGFB_EXIT_TROUBLE : CGFB_EXIT_OK);
}
