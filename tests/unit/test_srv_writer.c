/* The collector's group commit (ingest/writer.h) on a real SQLite file:
 * many requests queued at once are all answered, each with its own
 * outcome; a request that fails on its own (a wrong deletion token) does
 * not spoil the others of its batch; the queue is finished at stop. Both
 * ways the writer runs: with the
 * checkpoint and sync helpers (pipelined) and without. And the file under
 * the store swapped, removed or made read-only while the writer runs. */
#include "srvsql.h"

#include <errno.h>
#include <glob.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgfb/readfile.h"
#include "cgfb/schema.h"
#include "ingest/ingest.h"
#include "ingest/writer.h"
#include "store/store.h"

#define N 60

static char dir[] = "/tmp/cgfb-writer.XXXXXX";
static struct cgfb_schema *schema;
static struct cgfb_buf body[N];
static struct report_meta meta[N];
static char token[N][80];

static int setup(void **state)
{
	char cmd[256], path[128], err[256];

	if (!mkdtemp(dir) || cgfb_schema_load_builtin(&schema, err, sizeof(err)) < 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "python3 tests/server/genreport.py --dir %s --count %d", dir, N);
	if (system(cmd) != 0)
		return -1;
	for (int i = 0; i < N; i++) {
		struct cgfb_buf t = { 0 };

		snprintf(path, sizeof(path), "%s/%d.json", dir, i);
		if (cgfb_read_file(path, CGFB_REPORT_MAX_BYTES, 0, &body[i]) < 0 ||
		    ingest_report(schema, body[i].data, body[i].len, &meta[i], err, sizeof(err)) < 0)
			return -1;
		snprintf(path, sizeof(path), "%s/%d.token", dir, i);
		if (cgfb_read_file(path, sizeof(token[i]) - 1, 0, &t) < 0)
			return -1;
		snprintf(token[i], sizeof(token[i]), "%.*s", (int)strcspn(t.data, "\n"), t.data);
		cgfb_buf_free(&t);
	}
	return 0;
}

static int teardown(void **state)
{
	char cmd[64];

	for (int i = 0; i < N; i++) {
		cgfb_buf_free(&body[i]);
		ingest_meta_free(&meta[i]);
	}
	cgfb_schema_free(schema);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Jobs answered, counted under a lock the test waits on. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t all_done = PTHREAD_COND_INITIALIZER;
static int answered;

static void done(struct job *j)
{
	pthread_mutex_lock(&lock);
	answered++;
	pthread_cond_signal(&all_done);
	pthread_mutex_unlock(&lock);
}

static void wait_for(int n)
{
	pthread_mutex_lock(&lock);
	while (answered < n)
		pthread_cond_wait(&all_done, &lock);
	pthread_mutex_unlock(&lock);
}

static struct writer *start(const char *db, bool helpers)
{
	struct store *s = NULL, *ckpt = NULL;
	struct writer *w = NULL;

	assert_int_equal(store_open(&s, db, false), 0);
	if (helpers)
		assert_int_equal(store_open(&ckpt, db, false), 0);
	assert_int_equal(writer_start(&w, s, ckpt), 0);
	return w;
}

static void put_job(struct job *j, int i)
{
	memset(j, 0, sizeof(*j));
	j->kind = JOB_PUT;
	j->meta = &meta[i];
	j->body = body[i].data;
	j->len = body[i].len;
	j->via = "http";
	j->done = done;
}

/* Reports counted for the public summary, and deltas not yet counted. */
static int64_t counted(const char *db)
{
	return test_sql_int(db, "SELECT coalesce(sum(reports), 0) FROM tally_groups WHERE dim = 9");
}

static int64_t pending(const char *db)
{
	return test_sql_int(db, "SELECT count(*) FROM tally_delta");
}

static void batches(bool helpers)
{
	static struct job jobs[N + 2];
	char db[96];
	struct writer *w;

	snprintf(db, sizeof(db), "%s/%s.sqlite", dir, helpers ? "pipelined" : "plain");
	w = start(db, helpers);
	answered = 0;
	/* Everything queued at once: the writer takes them in batches; a
	 * fold queued among them runs alone, after what was queued before it
	 * and before what comes after. */
	for (int i = 0; i < N; i++) {
		put_job(&jobs[i], i);
		writer_queue(w, &jobs[i]);
		if (i == N / 2 - 1) {
			assert_int_equal(writer_fold(w), 0);
			assert_int_equal(counted(db), N / 2);
		}
	}
	wait_for(N);
	assert_int_equal(writer_fold(w), 0);
	assert_int_equal(counted(db), N);
	assert_int_equal(pending(db), 0);
	for (int i = 0; i < N; i++) {
		assert_int_equal(jobs[i].result, STORE_CREATED);
		assert_string_equal(jobs[i].receipt.id, meta[i].id);
		assert_string_equal(jobs[i].receipt.sha256, meta[i].sha256);
	}
	/* Queued together (a batch, or more): the same report again (already
	 * there), a delete with a wrong token (refused on its own), a delete
	 * with the right one. */
	answered = 0;
	put_job(&jobs[0], 0);
	memset(&jobs[N], 0, sizeof(jobs[N]));
	jobs[N] = (struct job){ .kind = JOB_DELETE, .id = meta[1].id,
				.token = "not-the-token", .done = done };
	jobs[N + 1] = (struct job){ .kind = JOB_DELETE, .id = meta[2].id, .token = token[2],
				    .done = done };
	writer_queue(w, &jobs[0]);
	writer_queue(w, &jobs[N]);
	writer_queue(w, &jobs[N + 1]);
	wait_for(3);
	assert_int_equal(jobs[0].result, STORE_SAME);
	assert_int_equal(jobs[N].result, -EACCES);
	assert_int_equal(jobs[N + 1].result, 0);
	/* The report whose delete was refused is still there, the other gone. */
	put_job(&jobs[1], 1);
	assert_int_equal(writer_submit(w, &jobs[1]), STORE_SAME);
	put_job(&jobs[2], 2);
	assert_int_equal(writer_submit(w, &jobs[2]), STORE_WITHDRAWN);
	writer_stop(w);
	/* The withdrawal's scrub counted it out: no line of it waits. */
	assert_int_equal(pending(db), 0);
	assert_int_equal(counted(db), N - 1);
}

static void group_commit(void **state)
{
	batches(false);
}

static void group_commit_pipelined(void **state)
{
	batches(true);
}

/* Stop, from another thread, finishes what was queued: every job queued
 * before it is answered, and stored. */
static void *stopper(void *arg)
{
	writer_stop(arg);
	return NULL;
}

static void stop_finishes_the_queue(void **state)
{
	static struct job jobs[N];
	char db[96];
	struct writer *w;
	pthread_t t;
	int created = 0;

	snprintf(db, sizeof(db), "%s/stop.sqlite", dir);
	w = start(db, false);
	answered = 0;
	for (int i = 0; i < N / 2; i++) {
		put_job(&jobs[i], i);
		writer_queue(w, &jobs[i]);
	}
	assert_int_equal(pthread_create(&t, NULL, stopper, w), 0);
	pthread_join(t, NULL);
	wait_for(N / 2);
	for (int i = 0; i < N / 2; i++)
		created += jobs[i].result == STORE_CREATED;
	assert_int_equal(created, N / 2);
}

/* Bytes in path, or -1 when there is no such file. */
static off_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

/* The copy the writer made of a file replaced or removed (store.h,
 * store_keep_replaced): its reports, or -1 when there is none or it is
 * not sound. */
static int kept_copy_reports(const char *db, const char *how)
{
	char pattern[128];
	glob_t g;
	int n = -1;

	snprintf(pattern, sizeof(pattern), "%s.%s-*Z", db, how);
	if (glob(pattern, 0, NULL, &g) != 0)
		return -1;
	if (g.gl_pathc == 1 &&
	    test_sql_int(g.gl_pathv[0], "SELECT count(*) = 1 FROM pragma_integrity_check "
			 "WHERE integrity_check = 'ok'") == 1)
		n = test_sql_int(g.gl_pathv[0], "SELECT count(*) FROM reports");
	globfree(&g);
	return n;
}

/* The file under the store renamed over, removed, made read-only (issue
 * 41), with the checkpointer and the syncer running: from then on every
 * write is refused, -ESTALE for good or -EROFS while it lasts; what was
 * acknowledged before is in the old file, whose WAL is emptied into it so
 * that no file at the path is ever paired with it. */
static void swap_under(const char *name, int how)
{
	static struct job j;
	char db[96], kept[112], wal[112], other[112];
	struct store *s = NULL;
	struct writer *w;
	struct timespec tick = { 0, 10000000L };

	snprintf(db, sizeof(db), "%s/%s.sqlite", dir, name);
	snprintf(kept, sizeof(kept), "%s.kept", db);
	snprintf(wal, sizeof(wal), "%s-wal", db);
	snprintf(other, sizeof(other), "%s/%s.other", dir, name);
	w = start(db, true);
	put_job(&j, 0);
	assert_int_equal(writer_submit(w, &j), STORE_CREATED);
	assert_int_equal(link(db, kept), 0);
	if (how == 'm') {
		assert_int_equal(store_open(&s, other, false), 0);
		store_close(s);
		assert_int_equal(rename(other, db), 0);
	} else if (how == 'r') {
		assert_int_equal(unlink(db), 0);
	} else {
		assert_int_equal(chmod(db, 0444), 0);
	}
	put_job(&j, 1);
	assert_int_equal(writer_submit(w, &j), how == 'w' ? -EROFS : -ESTALE);
	put_job(&j, 2);
	assert_int_equal(writer_submit(w, &j), how == 'w' ? -EROFS : -ESTALE);
	if (how == 'w') {
		assert_int_equal(chmod(db, 0644), 0);
		assert_int_equal(writer_submit(w, &j), STORE_CREATED);
	} else {
		/* Emptied at once, not at the next withdrawal or restart. */
		for (int i = 0; i < 300 && file_size(wal) != 0; i++)
			nanosleep(&tick, NULL);
		assert_int_equal(file_size(wal), 0);
	}
	writer_stop(w);
	/* The old file alone (no WAL by its other name) holds the report. */
	assert_int_equal(test_sql_int(kept, "SELECT count(*) FROM reports"), how == 'w' ? 2 : 1);
	if (how == 'm')
		/* The file renamed over it is as it was: empty, and sound. */
		assert_int_equal(test_sql_int(db, "SELECT count(*) FROM reports"), 0);
	/* And a copy of the old one beside the path holds it: the old file
	 * goes with the process (here the test's link keeps it). */
	if (how != 'w')
		assert_int_equal(kept_copy_reports(db, how == 'm' ? "replaced" : "removed"), 1);
}

/* Renamed over while nothing is written: the checkpointer finds it within
 * a tick; without one the writer finds it at stop. Either way the old WAL
 * is emptied before it could be paired with the new file. */
static void swap_quiet(const char *name, bool helpers)
{
	static struct job j;
	char db[96], kept[112], wal[112], other[112];
	struct store *s = NULL;
	struct writer *w;
	struct timespec tick = { 0, 10000000L };

	snprintf(db, sizeof(db), "%s/%s.sqlite", dir, name);
	snprintf(kept, sizeof(kept), "%s.kept", db);
	snprintf(wal, sizeof(wal), "%s-wal", db);
	snprintf(other, sizeof(other), "%s/%s.other", dir, name);
	w = start(db, helpers);
	put_job(&j, 0);
	assert_int_equal(writer_submit(w, &j), STORE_CREATED);
	assert_int_equal(link(db, kept), 0);
	assert_int_equal(store_open(&s, other, false), 0);
	store_close(s);
	assert_int_equal(rename(other, db), 0);
	if (helpers) {
		for (int i = 0; i < 300 && file_size(wal) != 0; i++)
			nanosleep(&tick, NULL);
		assert_int_equal(file_size(wal), 0);
	}
	writer_stop(w);
	assert_int_equal(file_size(wal), 0);
	assert_int_equal(test_sql_int(kept, "SELECT count(*) FROM reports"), 1);
	assert_int_equal(test_sql_int(db, "SELECT count(*) FROM reports"), 0);
	assert_int_equal(kept_copy_reports(db, "replaced"), 1);
}

static void file_renamed_over_quietly(void **state)
{
	swap_quiet("quiet", true);
	swap_quiet("quiet-plain", false);
}

static void file_renamed_over(void **state)
{
	swap_under("mv", 'm');
}

static void file_removed(void **state)
{
	swap_under("rm", 'r');
}

static void file_read_only(void **state)
{
	swap_under("ro", 'w');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(group_commit),
		cmocka_unit_test(group_commit_pipelined),
		cmocka_unit_test(stop_finishes_the_queue),
		cmocka_unit_test(file_renamed_over),
		cmocka_unit_test(file_removed),
		cmocka_unit_test(file_read_only),
		cmocka_unit_test(file_renamed_over_quietly),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
