/* cgroup-feedback-server: the collector. main() dispatches to serve (the
 * default) or import and owns the service's lifecycle: start the writer,
 * then HTTP; on SIGTERM or SIGINT stop accepting, let requests in flight
 * finish, commit what is queued, close the database. */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "api/api.h"
#include "cgfb/hex.h"
#include "cgfb/log.h"
#include "http/http.h"
#include "ingest/import.h"
#include "store/migrate.h"
#include "conf/options.h"

static void api_free(struct api *a)
{
	pubsum_stop(a->pubsum);
	for (unsigned i = 0; i < a->n_readers; i++)
		store_close(a->readers[i]);
	ratelimit_free(a->rl);
	ratelimit_free(a->rl_read);
	ratelimit_free(a->rl_login);
	ratelimit_free(a->rl_login_all);
	auth_free(&a->auth);
	cgfb_catalog_free(a->catalog);
	pthread_mutex_destroy(&a->lock);
}

/* A second connection for the writer's checkpoints; without one the
 * server still works, with checkpoints inside commits. PostgreSQL
 * checkpoints and syncs its WAL itself: none there. */
static struct store *checkpointer(const char *path)
{
	struct store *s = NULL;

	if (store_is_postgres(path))
		return NULL;
	if (store_open(&s, path, false) < 0)
		cgfb_log(LOG_WARNING, "%s: no checkpoint connection; commits will checkpoint", path);
	return s;
}

/* The public summary's thread, before a recomputation: the writer folds
 * (none before it starts, nor without a store). */
static int api_fold(void *ud)
{
	struct api *a = ud;
	struct writer *w;

	pthread_mutex_lock(&a->lock);
	w = a->writer;
	pthread_mutex_unlock(&a->lock);
	return w ? writer_fold(w) : 0;
}

/* The published numbers' rules. The noise's key is one the store keeps
 * (store_secret), made here from getrandom(2) when it has none: every
 * collector sharing the database, and this one after a restart, draws
 * the same noise for the same numbers, so that watching many summaries of
 * an unchanged store averages nothing away (a key per instance, or per
 * start, published alternating draws of the same state). It never leaves
 * the database and the process. */
static int policy_init(struct api *a, const struct server_opts *o, struct store *s)
{
	unsigned char fresh[NOISE_KEY_LEN];
	char cand[STORE_SECRET_HEX + 1], kept[STORE_SECRET_HEX + 1];
	int rc;

	_Static_assert(NOISE_KEY_LEN * 2 == STORE_SECRET_HEX, "a key of the store's size");
	a->policy.catalog = a->catalog;
	a->policy.epsilon = o->summary_epsilon;
	if (getrandom(fresh, sizeof(fresh), 0) != (ssize_t)sizeof(fresh)) {
		cgfb_log(LOG_ERR, "getrandom: %s: the public summary cannot be blurred",
			 strerror(errno));
		return -errno;
	}
	cgfb_hex(fresh, sizeof(fresh), cand);
	explicit_bzero(fresh, sizeof(fresh));
	rc = store_secret(s, "summary-noise", cand, kept);
	explicit_bzero(cand, sizeof(cand));
	if (rc == 0 && cgfb_unhex(kept, a->policy.key, NOISE_KEY_LEN) < 0)
		rc = -EBADMSG;
	if (rc < 0) {
		cgfb_log(LOG_ERR, "%s: the public summary's noise key cannot be read or kept: %s",
			 o->db_path, strerror(-rc));
		return rc;
	}
	explicit_bzero(kept, sizeof(kept));
	return 0;
}

static int api_init(struct api *a, const struct server_opts *o, struct cgfb_schema *schema)
{
	struct store *s = NULL;
	char err[256];
	int rc;

	pthread_mutex_init(&a->lock, NULL);
	a->o = o;
	a->schema = schema;
	rc = auth_load(&a->auth, o->admin_token_file);
	if (rc == 0 && (rc = cgfb_catalog_load_builtin(&a->catalog, err, sizeof(err))) < 0)
		cgfb_log(LOG_ERR, "built-in catalog: %s", err);
	if (rc == 0)
		rc = ratelimit_new(&a->rl, o->rate, o->burst);
	if (rc == 0)
		rc = ratelimit_new(&a->rl_read, o->read_rate, o->read_burst);
	if (rc == 0)
		rc = ratelimit_new(&a->rl_login, 1.0 / API_GUESS_EVERY_S, API_GUESS_BURST);
	if (rc == 0)
		rc = ratelimit_new(&a->rl_login_all, API_GUESS_ALL_RATE, API_GUESS_ALL_BURST);
	if (rc == 0 && (rc = offload_start(&a->offload, API_READERS)) < 0)
		cgfb_log(LOG_ERR, "cannot start the reader threads: %s", strerror(-rc));
	store_write_timeouts(o->db_lock_ms, o->db_statement_ms, o->db_deadline_ms);
	/* Opening read-write creates and migrates the file before any reader. */
	if (rc == 0 && (rc = store_open(&s, o->db_path, false)) < 0)
		cgfb_log(LOG_ERR, "%s: cannot open the database", o->db_path);
	/* After the migration: the first summary reads the current schema. */
	if (rc == 0)
		rc = policy_init(a, o, s);
	/* What came in while the server was down (an import, a migration,
	 * a new schema's backfill) is counted before the first summary; what
	 * a failure leaves is counted at the next recomputation. */
	if (rc == 0 && store_fold(s, 0) < 0)
		cgfb_log(LOG_WARNING, "%s: the public summary's counts are behind; they are "
			 "brought up to date at its next recomputation", o->db_path);
	if (rc == 0 && (rc = pubsum_start(&a->pubsum, o->db_path, o->summary_interval,
					  &a->policy, api_fold, a)) < 0)
		cgfb_log(LOG_ERR, "cannot start the public summary");
	if (rc == 0 && o->no_store) {
		cgfb_log(LOG_WARNING, "CGFB_SERVER_BENCH_NO_STORE is set: reports are "
			 "validated and answered but NOT stored (benchmark only)");
		store_close(s);
	} else if (rc == 0) {
		struct writer *w = NULL;

		rc = writer_start(&w, s, checkpointer(o->db_path));
		pthread_mutex_lock(&a->lock);
		a->writer = w;
		pthread_mutex_unlock(&a->lock);
	}
	return rc;
}

static int wait_for_signal(void)
{
	sigset_t set;
	int sig = 0;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigwait(&set, &sig);
	return sig;
}

static int serve(struct cgfb_schema *schema, int argc, char **argv)
{
	struct server_opts o;
	struct http_server *h = NULL;
	struct api a = { 0 };
	const struct http_app app = { api_precheck, api_handle, api_finish, &a,
				       CGFB_REPORT_MAX_BYTES, CGFB_REPORT_TOO_LARGE,
				       api_past_grace };
	sigset_t set;
	int rc = options_parse(&o, argc, argv);

	if (rc)
		return rc > 0 ? 0 : 2;
	/* Every thread started from here on inherits the blocked signals, so
	 * only sigwait() below sees them. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	rc = api_init(&a, &o, schema);
	if (rc == 0)
		rc = http_start(&h, &o, &app);
	if (rc == 0) {
		const int sig = wait_for_signal();

		cgfb_log(LOG_INFO, "%s: finishing requests in flight", strsignal(sig));
		api_shutdown(&a);
		http_stop(h, o.grace_ms);
	}
	/* Readers first: the writing connection must be the last one open, so
	 * that closing it checkpoints the WAL into the database file. */
	offload_stop(a.offload);
	api_free(&a);
	writer_stop(a.writer);
	if (rc == 0)
		cgfb_log(LOG_INFO, "stopped; database closed");
	return rc == 0 ? 0 : 2;
}

/* "import" may follow --database (as in the man page's synopsis): move
 * it first so that import parses the options around it. Returns 1 when
 * argv is an import command. */
static int find_import(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--database") == 0 || strcmp(argv[i], "--db") == 0) {
			i++;
			continue;
		}
		if (strcmp(argv[i], "import") != 0)
			continue;
		for (; i > 1; i--) {
			char *t = argv[i];

			argv[i] = argv[i - 1];
			argv[i - 1] = t;
		}
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct cgfb_schema *schema = NULL;
	char err[256];
	int rc;

	cgfb_log_init("cgroup-feedback-server");
	signal(SIGPIPE, SIG_IGN);
	/* The database holds use cases before anyone published them and the
	 * deletion-token hashes: readable by the service's user only. */
	umask(077);
	/* Request bodies (up to 256 KiB) come and go by the thousand per
	 * second across 64 connection threads: keep freed memory for reuse
	 * instead of mapping and trimming it each time. */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	mallopt(M_TRIM_THRESHOLD, 16 << 20);
	if (cgfb_schema_load_builtin(&schema, err, sizeof(err)) < 0) {
		cgfb_log(LOG_ERR, "built-in report schema: %s", err);
		return 2;
	}
	if (find_import(argc, argv))
		rc = server_import(schema, argc - 1, argv + 1);
	else if (argc > 1 && strcmp(argv[1], "migrate") == 0)
		rc = server_migrate(argc - 1, argv + 1);
	else if (argc > 1 && strcmp(argv[1], "serve") == 0)
		rc = serve(schema, argc - 1, argv + 1);
	else
		rc = serve(schema, argc, argv);
	cgfb_schema_free(schema);
	return rc;
}
