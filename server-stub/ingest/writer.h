/* Group commit: one thread owns the writing database connection and runs
 * whatever requests are waiting as one transaction, made durable by one
 * fsync, then tells each requester its own outcome (a callback: the HTTP
 * side resumes a suspended request). Under load a batch grows to the
 * number of waiting requests, so the fsyncs per second stay few while
 * every answer still waits for its own durable commit. */
#ifndef CGFB_SERVER_WRITER_H
#define CGFB_SERVER_WRITER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "store/store.h"

struct writer;

enum job_kind { JOB_PUT, JOB_DELETE, JOB_FOLD };

struct job {
	enum job_kind kind;
	/* JOB_PUT */
	const struct report_meta *meta;
	const char *body;
	size_t len;
	const char *via;
	/* JOB_DELETE */
	const char *id;
	const char *token;
	/* out: an enum store_put_result, 0 for a delete, or a negative errno */
	int result;
	struct receipt receipt;
	/* Called once result is final, from the writer's or syncer's thread
	 * (or from writer_queue itself when the writer is stopping); the job
	 * is the caller's again from that moment. Must not block. */
	void (*done)(struct job *j);
	void *ud;
	/* private */
	struct job *next;
};

/* Takes ownership of s (the writing connection) and of ckpt (a second
 * connection to the same file). With ckpt, two helper threads keep the
 * writer's commits short: a checkpointer, so that no commit runs a
 * checkpoint, and a syncer that fsyncs the WAL while the writer already
 * commits the next batch; a request is answered after an fsync begun after
 * its commit. With NULL, each commit checkpoints and fsyncs itself. */
int writer_start(struct writer **out, struct store *s, struct store *ckpt);
/* Queue j; j->done(j) runs when its batch has committed and is durable (or
 * has failed): the way for an event loop that cannot wait. A job queued
 * once the writer is stopping ends at once with -ESHUTDOWN. */
void writer_queue(struct writer *w, struct job *j);
/* Queue j and wait for its outcome: returns j->result. Sets j->done. */
int writer_submit(struct writer *w, struct job *j);
/* store_fold on the writing connection until nothing is left, a chunk
 * between two batches at a time; waits for it. 0, or a negative errno
 * (-ESHUTDOWN once the writer is stopping). */
int writer_fold(struct writer *w);
/* Finish the queued jobs, stop the thread, close the database. */
void writer_stop(struct writer *w);

/* Current time: RFC 3339 UTC, milliseconds (the digest's window, a
 * withdrawal's time). */
void writer_now(char buf[32]);
/* An RFC 3339 time as a report's receipt keeps and shows it: to the hour
 * ("2026-12-05T20:00:00Z"), no finer than the report's own created and
 * consent.time (docs/PRIVACY.md): to the minute, over many reports the
 * receipts would give a boot's minute and the administrator's working
 * hours. A stored time of an older collector is shown so too. */
void writer_hour(char out[32], const char *t);

#endif
