/* The PostgreSQL backend's readers: every reader's session is known, so
 * that a shutdown can cancel the statements they run (PQcancel), and no
 * read starts once it did. And the writer's session, which a shutdown
 * cancels once its grace is over: a table locked by someone else held a
 * SIGTERM for 23 s. Below the rest of the backend: the sessions
 * (store_pg.c) join and leave the list, the reads (store_pg_read.c) ask. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "store/store_pg.h"

/* Shutdown: reads fail at once from now on. */
static atomic_bool aborting;
/* Every reader's session, for pg_abort_reads; under readers_lock, which
 * also guards each one's cancel object against its reconnection. */
static pthread_mutex_t readers_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pg_store *readers;

int pg_reader_track(struct pg_store *s)
{
	PGcancel *fresh, *old;

	/* A reader that connects once the server is stopping would run its
	 * statements after the cancellations went out. */
	if (atomic_load(&aborting))
		return -ETIMEDOUT;
	fresh = PQgetCancel(s->conn);
	pthread_mutex_lock(&readers_lock);
	old = s->cancel;
	s->cancel = fresh;
	if (!s->tracked) {
		s->next_reader = readers;
		readers = s;
		s->tracked = true;
	}
	pthread_mutex_unlock(&readers_lock);
	PQfreeCancel(old);
	return 0;
}

void pg_reader_untrack(struct pg_store *s)
{
	pthread_mutex_lock(&readers_lock);
	for (struct pg_store **p = &readers; *p; p = &(*p)->next_reader)
		if (*p == s) {
			*p = s->next_reader;
			break;
		}
	s->tracked = false;
	pthread_mutex_unlock(&readers_lock);
	PQfreeCancel(s->cancel);
	s->cancel = NULL;
}

void pg_abort_reads(void)
{
	char err[256];

	atomic_store(&aborting, true);
	/* PQcancel is made for this: another thread, a blocking call. A
	 * statement between two checks of aborting is bounded by
	 * statement_timeout (STORE_READ_MS). */
	pthread_mutex_lock(&readers_lock);
	for (struct pg_store *s = readers; s; s = s->next_reader)
		if (s->cancel)
			PQcancel(s->cancel, err, sizeof(err));
	pthread_mutex_unlock(&readers_lock);
}

bool pg_reads_aborted(void)
{
	return atomic_load_explicit(&aborting, memory_order_relaxed);
}

/* The writer's session and what cancels its statement; under
 * readers_lock. */
static atomic_bool aborting_writes;
static struct pg_store *writer;
static PGcancel *writer_cancel;

int pg_writer_track(struct pg_store *s)
{
	PGcancel *fresh, *old;

	if (atomic_load(&aborting_writes))
		return -ETIMEDOUT;
	fresh = PQgetCancel(s->conn);
	pthread_mutex_lock(&readers_lock);
	old = writer_cancel;
	writer_cancel = fresh;
	writer = s;
	s->writer = true;
	pthread_mutex_unlock(&readers_lock);
	PQfreeCancel(old);
	return 0;
}

void pg_writer_untrack(struct pg_store *s)
{
	PGcancel *old = NULL;

	pthread_mutex_lock(&readers_lock);
	if (writer == s) {
		old = writer_cancel;
		writer_cancel = NULL;
		writer = NULL;
	}
	s->writer = false;
	pthread_mutex_unlock(&readers_lock);
	PQfreeCancel(old);
}

void pg_abort_writes(void)
{
	char err[256];

	atomic_store(&aborting_writes, true);
	pthread_mutex_lock(&readers_lock);
	if (writer_cancel)
		PQcancel(writer_cancel, err, sizeof(err));
	pthread_mutex_unlock(&readers_lock);
}

bool pg_writes_aborted(void)
{
	return atomic_load(&aborting_writes);
}
