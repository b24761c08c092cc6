#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cgfb/log.h"
#include "writer.h"

/* A batch this large is already one fsync per many milliseconds of work;
 * bigger ones only make the first requester wait longer. */
#define BATCH_MAX 512
/* How often the WAL is copied back into the database file. */
#define CHECKPOINT_MS 250

struct writer {
	struct store *store;
	struct store *ckpt;      /* NULL: no checkpointer thread */
	pthread_t thread;
	pthread_t ckpt_thread;
	pthread_mutex_t lock;
	pthread_cond_t work;     /* the queue became non-empty, or stop */
	pthread_cond_t tick;     /* the checkpointer's timer, or stop */
	struct job *head, *tail;
	bool stopping;
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

static void run_job(struct writer *w, struct job *j, const char *now)
{
	if (j->kind == JOB_PUT)
		j->result = store_put(w->store, j->meta, j->body, j->len, now, j->via,
				      &j->receipt);
	else
		j->result = store_delete(w->store, j->id, j->token, now);
}

/* One transaction for the whole batch. A job that failed on its own (a
 * wrong token, say) does not spoil the others; a failed commit fails all. */
static void run_batch(struct writer *w, struct job *batch)
{
	char now[32];
	int rc;

	writer_now(now);
	rc = store_begin(w->store);
	for (struct job *j = batch; j && rc == 0; j = j->next)
		run_job(w, j, now);
	if (rc == 0)
		rc = store_commit(w->store);
	if (rc < 0) {
		store_rollback(w->store);
		for (struct job *j = batch; j; j = j->next)
			j->result = rc;
	}
}

static struct job *take_batch(struct writer *w)
{
	struct job *batch = w->head, *last = w->head;
	unsigned n = 1;

	while (last->next && n < BATCH_MAX) {
		last = last->next;
		n++;
	}
	w->head = last->next;
	if (!w->head)
		w->tail = NULL;
	last->next = NULL;
	return batch;
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct job *batch;

		while (!w->head && !w->stopping)
			pthread_cond_wait(&w->work, &w->lock);
		if (!w->head)
			break;
		batch = take_batch(w);
		pthread_mutex_unlock(&w->lock);
		run_batch(w, batch);
		pthread_mutex_lock(&w->lock);
		/* Wake exactly the requesters of this batch: a broadcast to
		 * everyone waiting would wake all 64 connections per commit. */
		for (struct job *j = batch, *next; j; j = next) {
			next = j->next;
			j->done = true;
			pthread_cond_signal(&j->wake);
		}
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* Checkpoints in their own thread: an automatic one inside a commit made
 * the requests of that batch wait tens of milliseconds. */
static void *checkpoint_main(void *arg)
{
	struct writer *w = arg;
	struct timespec until;

	pthread_mutex_lock(&w->lock);
	while (!w->stopping) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += CHECKPOINT_MS * 1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		pthread_cond_timedwait(&w->tick, &w->lock, &until);
		pthread_mutex_unlock(&w->lock);
		store_checkpoint(w->ckpt);
		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int writer_start(struct writer **out, struct store *s, struct store *ckpt)
{
	struct writer *w = calloc(1, sizeof(*w));
	int rc;

	if (!w) {
		store_close(s);
		store_close(ckpt);
		return -ENOMEM;
	}
	w->store = s;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->work, NULL);
	pthread_cond_init(&w->tick, NULL);
	/* Without a checkpointer, SQLite checkpoints inside commits. */
	if (ckpt && store_manual_checkpoints(s) == 0 &&
	    pthread_create(&w->ckpt_thread, NULL, checkpoint_main, w) == 0)
		w->ckpt = ckpt;
	else
		store_close(ckpt);
	rc = pthread_create(&w->thread, NULL, writer_main, w);
	if (rc) {
		w->thread = pthread_self();
		writer_stop(w);
		return -rc;
	}
	*out = w;
	return 0;
}

int writer_submit(struct writer *w, struct job *j)
{
	j->done = false;
	j->next = NULL;
	pthread_mutex_lock(&w->lock);
	if (w->stopping) {
		pthread_mutex_unlock(&w->lock);
		return j->result = -ESHUTDOWN;
	}
	pthread_cond_init(&j->wake, NULL);
	if (w->tail)
		w->tail->next = j;
	else
		w->head = j;
	w->tail = j;
	pthread_cond_signal(&w->work);
	while (!j->done)
		pthread_cond_wait(&j->wake, &w->lock);
	pthread_mutex_unlock(&w->lock);
	pthread_cond_destroy(&j->wake);
	return j->result;
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
	if (w->ckpt) {
		pthread_join(w->ckpt_thread, NULL);
		store_close(w->ckpt);
	}
	store_close(w->store);
	pthread_cond_destroy(&w->work);
	pthread_cond_destroy(&w->tick);
	pthread_mutex_destroy(&w->lock);
	free(w);
}
