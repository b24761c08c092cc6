#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgfb/log.h"
#include "ingest/writer.h"

/* A batch this large is already one fsync per many milliseconds of work;
 * bigger ones only make the first requester wait longer. */
#define BATCH_MAX 512
/* How often the WAL is copied back into the database file. */
#define CHECKPOINT_MS 250
/* After a withdrawal the store is scrubbed (store_scrub) as soon as the
 * queue allows, but at most once per SCRUB_GAP_MS: a VACUUM or a TRUNCATE
 * checkpoint stops the writer while it runs, and a client that sends and
 * withdraws in a loop must not turn that into a stall. A scrub that met a
 * reader on an old snapshot is tried again after SCRUB_RETRY_MS; one that
 * has waited SCRUB_WARN_MS is said once in the log. */
#define SCRUB_GAP_MS 2000
#define SCRUB_RETRY_MS 250
#define SCRUB_WARN_MS 10000

struct writer {
	struct store *store;
	struct store *ckpt;      /* NULL: no checkpointer thread */
	bool pipelined;          /* a syncer thread makes commits durable */
	bool sync_started;
	pthread_t thread;
	pthread_t ckpt_thread;
	pthread_t sync_thread;
	pthread_mutex_t lock;
	/* Held by the writer for a batch, and by the checkpointer to finish a
	 * checkpoint while no batch runs (see checkpoint_main). */
	pthread_mutex_t db_lock;
	pthread_cond_t work;     /* the queue became non-empty, or stop */
	pthread_cond_t tick;     /* the checkpointer's timer, or stop */
	pthread_cond_t synced;   /* committed jobs wait for an fsync, or stop */
	struct job *head, *tail;
	struct job *unsynced;    /* committed, not yet known to be on disk */
	bool stopping;
	bool writer_done;        /* the writer thread has drained the queue */
	bool failed;             /* an fsync failed: nothing is acknowledged any more */
	bool scrub_pending;      /* a withdrawal committed since the last scrub */
	bool scrub_warned;
	/* The database file was replaced or removed (store_file_check): the
	 * WAL is emptied into the old file once, by a scrub, so that the file
	 * at the path is never paired with it. */
	bool file_gone;
	bool file_kept;          /* store_keep_replaced ran (once) */
	/* Intervals and deadlines on CLOCK_MONOTONIC: a wall clock stepped
	 * back (chrony at boot, a restored VM) must not hold a scrub or the
	 * checkpoints for as long as the step. The condition variables wait
	 * on the same clock (writer_start). */
	struct timespec scrub_due;   /* not before then */
	struct timespec scrub_since; /* when the pending scrub was first due */
	char wal_path[PATH_MAX];
	int wal_fd;
};

void writer_now(char buf[32])
{
	struct timespec ts;
	struct tm tm;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(buf, 32, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, 32 - n, ".%03dZ", (int)(ts.tv_nsec / 1000000));
}

void writer_hour(char out[32], const char *t)
{
	/* "YYYY-MM-DDTHH": the first 13 characters of any RFC 3339 time. */
	snprintf(out, 32, "%.13s:00:00Z", t);
}

static void run_job(struct writer *w, struct job *j, const char *now)
{
	char hour[32];

	writer_hour(hour, now);
	if (j->kind == JOB_PUT)
		j->result = store_put(w->store, j->meta, j->body, j->len, hour, j->via,
				      &j->receipt);
	else
		/* A withdrawal's time is kept as coarse as a receipt's: to the
		 * minute it would date the administrator's action. */
		j->result = store_delete(w->store, j->id, j->token, hour);
}

/* Reports stored together (store_put_batch: one round trip to PostgreSQL
 * for these instead of one each): at most this many at a time. */
#define PUT_RUN 128

/* The puts of run[0..n) as one store_put_batch, their results into the
 * jobs. */
static void put_run(struct writer *w, struct job **run, struct store_put_item *items, size_t n)
{
	if (n == 0)
		return;
	store_put_batch(w->store, items, n);
	for (size_t i = 0; i < n; i++)
		run[i]->result = items[i].rc;
}

/* Every job of the batch in order; consecutive puts together. */
static void run_jobs(struct writer *w, struct job *batch, const char *now)
{
	struct store_put_item items[PUT_RUN];
	struct job *run[PUT_RUN];
	char hour[32];
	size_t n = 0;

	writer_hour(hour, now);
	for (struct job *j = batch; j; j = j->next) {
		if (j->kind != JOB_PUT) {
			put_run(w, run, items, n);
			n = 0;
			run_job(w, j, now);
			continue;
		}
		items[n] = (struct store_put_item){ .m = j->meta, .body = j->body, .len = j->len,
						    .received_at = hour, .via = j->via,
						    .r = &j->receipt };
		run[n++] = j;
		if (n == PUT_RUN) {
			put_run(w, run, items, n);
			n = 0;
		}
	}
	put_run(w, run, items, n);
}

/* A batch that lost a deadlock against another collector's batch on the
 * same PostgreSQL (the same ids in another order) is run again this many
 * times before its requests are answered 503. */
#define DEADLOCK_RETRIES 3

/* One transaction for the whole batch. A job that failed on its own (a
 * wrong token, say) does not spoil the others; a failed commit fails all.
 * Returns the commit's result. */
static int run_batch_once(struct writer *w, struct job *batch)
{
	char now[32];
	int rc;

	writer_now(now);
	rc = store_begin(w->store);
	if (rc == 0)
		run_jobs(w, batch, now);
	if (rc == 0)
		rc = store_commit(w->store);
	if (rc < 0) {
		store_rollback(w->store);
		for (struct job *j = batch; j; j = j->next)
			j->result = rc;
	}
	return rc;
}

static int run_batch(struct writer *w, struct job *batch)
{
	int rc = run_batch_once(w, batch);

	for (int i = 0; rc == -EDEADLK && i < DEADLOCK_RETRIES; i++)
		rc = run_batch_once(w, batch);
	return rc;
}

static struct timespec after_ms(struct timespec t, long ms)
{
	t.tv_nsec += ms * 1000000L;
	t.tv_sec += t.tv_nsec / 1000000000L;
	t.tv_nsec %= 1000000000L;
	return t;
}

static bool reached(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > t->tv_sec || (now.tv_sec == t->tv_sec && now.tv_nsec >= t->tv_nsec);
}

/* Before the batch is answered (answering may free its jobs). */
static void note_withdrawals(struct writer *w, const struct job *batch, int rc)
{
	if (rc < 0 || w->scrub_pending)
		return;
	for (const struct job *j = batch; j; j = j->next)
		if (j->kind != JOB_PUT && j->result == 0) {
			w->scrub_pending = true;
			clock_gettime(CLOCK_MONOTONIC, &w->scrub_since);
			return;
		}
}

/* Under the lock. At shutdown a pending scrub runs once, due or not. */
static bool scrub_now(struct writer *w)
{
	return w->scrub_pending && (w->stopping || reached(&w->scrub_due));
}

/* Under the lock, which it drops while the store works. */
static void scrub(struct writer *w)
{
	struct timespec now;
	int rc;

	pthread_mutex_unlock(&w->lock);
	pthread_mutex_lock(&w->db_lock);
	/* A file gone holds every report acknowledged before: it is copied
	 * beside the path before its WAL is cut, or it would go with the
	 * process (store_keep_replaced). Once: it logs either way. */
	if (w->file_gone && !w->file_kept) {
		store_keep_replaced(w->store);
		w->file_kept = true;
	}
	/* The withdrawn reports' deltas (their install and columns) go from
	 * the store with them, and their counts from the summary's (a file
	 * gone refuses the fold: only the checkpoint runs). */
	store_fold(w->store, 0);
	rc = store_scrub(w->store);
	pthread_mutex_unlock(&w->db_lock);
	pthread_mutex_lock(&w->lock);
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (rc == -EBUSY && !w->stopping) {
		w->scrub_due = after_ms(now, SCRUB_RETRY_MS);
		if (!w->scrub_warned &&
		    now.tv_sec - w->scrub_since.tv_sec >= SCRUB_WARN_MS / 1000) {
			cgfb_log(LOG_WARNING, "database: withdrawn reports stay in the WAL while a"
				 " reader keeps an older snapshot open (an export?)");
			w->scrub_warned = true;
		}
		return;
	}
	/* An error was logged by the store; the next withdrawal tries again. */
	w->scrub_pending = w->scrub_warned = false;
	w->scrub_due = after_ms(now, SCRUB_GAP_MS);
}

/* Under the lock: the first time the file was found replaced or removed,
 * its WAL is checkpointed into it and cut to nothing (a scrub, due now):
 * a WAL left with frames at the path is applied to whatever file is there
 * when the collector restarts, and corrupts it. The store refuses every
 * write from then on; the file at the path is not touched. */
static void note_file(struct writer *w, int rc)
{
	if (rc != -ESTALE || w->file_gone)
		return;
	w->file_gone = w->scrub_pending = true;
	w->scrub_due = (struct timespec){ 0 };
	clock_gettime(CLOCK_MONOTONIC, &w->scrub_since);
	pthread_cond_signal(&w->work);
}

/* Under the lock: until there is work, or a scrub is due. */
static void wait_for_work(struct writer *w)
{
	if (w->scrub_pending)
		pthread_cond_timedwait(&w->work, &w->lock, &w->scrub_due);
	else
		pthread_cond_wait(&w->work, &w->lock);
}

/* The jobs of one transaction; a fold runs alone, in transactions of its
 * own. */
static struct job *take_batch(struct writer *w)
{
	struct job *batch = w->head, *last = w->head;
	unsigned n = 1;

	while (batch->kind != JOB_FOLD && last->next && last->next->kind != JOB_FOLD &&
	       n < BATCH_MAX) {
		last = last->next;
		n++;
	}
	w->head = last->next;
	if (!w->head)
		w->tail = NULL;
	last->next = NULL;
	return batch;
}

/* Tell each requester its own outcome. Under the lock. */
static void finish(struct job *list, int fail)
{
	for (struct job *j = list, *next; j; j = next) {
		next = j->next;
		if (fail)
			j->result = fail;
		j->done(j);
	}
}

/* Under the lock, once a batch is durable: 0 when it may be answered as
 * it came out, or -ESTALE when the file was replaced or removed since its
 * commit began: it is then in no file at the path, and is not
 * acknowledged (a read-only file still holds it: answered). */
static int answerable(struct writer *w)
{
	const int rc = store_file_check(w->store) == -ESTALE ? -ESTALE : 0;

	note_file(w, rc);
	return rc;
}

/* Under the lock: committed jobs go to the syncer (pipelined) or are
 * answered now (the commit itself was synchronous). */
static void hand_over(struct writer *w, struct job *batch, int rc)
{
	struct job *last = batch;

	if (!w->pipelined || rc < 0) {
		finish(batch, rc < 0 ? 0 : answerable(w));
		return;
	}
	while (last->next)
		last = last->next;
	last->next = w->unsynced;
	w->unsynced = batch;
	pthread_cond_signal(&w->synced);
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct job *batch;
		int rc;

		while (!w->head && !w->stopping && !scrub_now(w))
			wait_for_work(w);
		/* A file swapped while nothing was written (and no checkpointer
		 * looked): found before the WAL is left at the path for good. */
		if (w->stopping && !w->head)
			note_file(w, store_file_check(w->store));
		if (scrub_now(w)) {
			scrub(w);
			continue;
		}
		if (!w->head)
			break;
		batch = take_batch(w);
		if (w->failed) {
			finish(batch, -EIO);
			continue;
		}
		pthread_mutex_unlock(&w->lock);
		pthread_mutex_lock(&w->db_lock);
		if (batch->kind == JOB_FOLD)
			rc = batch->result = store_fold(w->store, 1);
		else
			rc = run_batch(w, batch);
		pthread_mutex_unlock(&w->db_lock);
		pthread_mutex_lock(&w->lock);
		if (batch->kind == JOB_FOLD) {
			/* Nothing to make durable first: a fold lost in a crash is
			 * done again from the deltas it did not remove. */
			finish(batch, 0);
			continue;
		}
		note_withdrawals(w, batch, rc);
		note_file(w, rc);
		hand_over(w, batch, rc);
	}
	w->writer_done = true;
	pthread_cond_signal(&w->synced);
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* fsync(2) of the WAL: whatever was written to the file before this call,
 * by any descriptor, is on disk when it returns. */
static int sync_wal(struct writer *w)
{
	if (w->wal_fd < 0)
		w->wal_fd = open(w->wal_path, O_RDONLY | O_CLOEXEC);
	if (w->wal_fd < 0 || fdatasync(w->wal_fd) < 0)
		return -errno;
	return 0;
}

/* The syncer: while one fsync runs, the writer already commits the next
 * batch; the fsync after that covers every batch committed meanwhile. A
 * request is answered only after an fsync that began after its commit. */
static void *sync_main(void *arg)
{
	struct writer *w = arg;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct job *list;
		int rc;

		while (!w->unsynced && !w->writer_done)
			pthread_cond_wait(&w->synced, &w->lock);
		if (!w->unsynced)
			break;
		list = w->unsynced;
		w->unsynced = NULL;
		pthread_mutex_unlock(&w->lock);
		rc = sync_wal(w);
		pthread_mutex_lock(&w->lock);
		if (rc < 0 && !w->failed) {
			/* Like a database after a failed fsync: acknowledge nothing
			 * more, rather than risk a 201 for data not on disk. */
			cgfb_log(LOG_CRIT, "%s: fsync: %s; refusing all further writes",
				 w->wal_path, strerror(-rc));
			w->failed = true;
		}
		finish(list, rc < 0 ? -EIO : answerable(w));
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* Checkpoints in their own thread: an automatic one inside a commit made
 * the requests of that batch wait tens of milliseconds. But a checkpoint
 * that runs beside a busy writer never catches up with it, and SQLite
 * starts the WAL over only after a complete one: the WAL then grows for
 * as long as the load lasts, and every commit appends to new blocks the
 * file system must allocate and zero. So the bulk of the copying runs
 * beside the writer, and the few frames committed meanwhile are copied
 * between two batches, which makes the checkpoint complete; the next
 * batch rewrites the WAL from its start, in place. */
static void checkpoint(struct writer *w)
{
	store_checkpoint(w->ckpt);
	pthread_mutex_lock(&w->db_lock);
	store_checkpoint(w->ckpt);
	pthread_mutex_unlock(&w->db_lock);
}

static void *checkpoint_main(void *arg)
{
	struct writer *w = arg;
	struct timespec until;

	pthread_mutex_lock(&w->lock);
	while (!w->stopping) {
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += CHECKPOINT_MS * 1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		pthread_cond_timedwait(&w->tick, &w->lock, &until);
		pthread_mutex_unlock(&w->lock);
		checkpoint(w);
		pthread_mutex_lock(&w->lock);
		/* A file swapped while no request writes is found here, within
		 * a tick, not at the next request or never. */
		note_file(w, store_file_check(w->store));
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* The checkpointer and the syncer are optional: without them commits
 * checkpoint and fsync inline, slower but just as safe. */
static void start_helpers(struct writer *w, struct store *ckpt)
{
	if (ckpt && store_manual_checkpoints(w->store) == 0 &&
	    pthread_create(&w->ckpt_thread, NULL, checkpoint_main, w) == 0)
		w->ckpt = ckpt;
	else
		store_close(ckpt);
	if (!w->ckpt)
		return;
	if (store_wal_path(w->store, w->wal_path, sizeof(w->wal_path)) == 0 &&
	    pthread_create(&w->sync_thread, NULL, sync_main, w) == 0) {
		w->sync_started = true;
		w->pipelined = store_defer_sync(w->store) == 0;
	}
}

int writer_start(struct writer **out, struct store *s, struct store *ckpt)
{
	struct writer *w = calloc(1, sizeof(*w));
	pthread_condattr_t mono;
	int rc;

	if (!w) {
		store_close(s);
		store_close(ckpt);
		return -ENOMEM;
	}
	w->store = s;
	w->wal_fd = -1;
	pthread_mutex_init(&w->lock, NULL);
	pthread_mutex_init(&w->db_lock, NULL);
	pthread_condattr_init(&mono);
	pthread_condattr_setclock(&mono, CLOCK_MONOTONIC);
	pthread_cond_init(&w->work, &mono);
	pthread_cond_init(&w->tick, &mono);
	pthread_condattr_destroy(&mono);
	pthread_cond_init(&w->synced, NULL);
	start_helpers(w, ckpt);
	rc = pthread_create(&w->thread, NULL, writer_main, w);
	if (rc) {
		w->thread = pthread_self();
		w->writer_done = true;
		writer_stop(w);
		return -rc;
	}
	*out = w;
	return 0;
}

void writer_queue(struct writer *w, struct job *j)
{
	j->next = NULL;
	pthread_mutex_lock(&w->lock);
	if (w->stopping) {
		pthread_mutex_unlock(&w->lock);
		j->result = -ESHUTDOWN;
		j->done(j);
		return;
	}
	if (w->tail)
		w->tail->next = j;
	else
		w->head = j;
	w->tail = j;
	pthread_cond_signal(&w->work);
	pthread_mutex_unlock(&w->lock);
}

/* glibc's sem_post is safe against the waiter destroying the semaphore
 * as soon as sem_wait returns. */
static void post(struct job *j)
{
	sem_post(j->ud);
}

int writer_submit(struct writer *w, struct job *j)
{
	sem_t done;

	sem_init(&done, 0, 0);
	j->done = post;
	j->ud = &done;
	writer_queue(w, j);
	while (sem_wait(&done) < 0)
		;
	sem_destroy(&done);
	return j->result;
}

/* A chunk per job: the requests queued meanwhile wait for one chunk at
 * most, not for all that is pending (an import of many mails, say). */
int writer_fold(struct writer *w)
{
	struct job j;
	int rc;

	do {
		j = (struct job){ .kind = JOB_FOLD };
		rc = writer_submit(w, &j);
	} while (rc == 1);
	return rc;
}

void writer_stop(struct writer *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stopping = true;
	pthread_cond_signal(&w->work);
	pthread_cond_signal(&w->tick);
	pthread_mutex_unlock(&w->lock);
	if (!pthread_equal(w->thread, pthread_self()))
		pthread_join(w->thread, NULL);
	if (w->sync_started) {
		pthread_mutex_lock(&w->lock);
		pthread_cond_signal(&w->synced);
		pthread_mutex_unlock(&w->lock);
		pthread_join(w->sync_thread, NULL);
	}
	if (w->ckpt) {
		pthread_join(w->ckpt_thread, NULL);
		store_close(w->ckpt);
	}
	if (w->wal_fd >= 0)
		close(w->wal_fd);
	store_close(w->store);
	pthread_cond_destroy(&w->work);
	pthread_cond_destroy(&w->tick);
	pthread_cond_destroy(&w->synced);
	pthread_mutex_destroy(&w->lock);
	pthread_mutex_destroy(&w->db_lock);
	free(w);
}
