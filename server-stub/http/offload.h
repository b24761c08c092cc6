/* A few threads for work that blocks (database reads of the admin and
 * summary endpoints): run there, it cannot stall an event loop and every
 * connection on it. */
#ifndef CGFB_SERVER_OFFLOAD_H
#define CGFB_SERVER_OFFLOAD_H

struct offload;

struct offload_job {
	void (*run)(struct offload_job *j);   /* on an offload thread; may free j */
	/* Instead of run once offload_cancel was called: answer without
	 * doing the work. */
	void (*cancel)(struct offload_job *j);
	struct offload_job *next;             /* private */
};

/* Returns 0 or a negative errno. */
int offload_start(struct offload **out, unsigned threads);
/* Queue j; it runs even if offload_stop has begun. */
void offload_run(struct offload *o, struct offload_job *j);
/* Shutdown: what is queued now or later is cancelled, not run. */
void offload_cancel(struct offload *o);
/* Run (or cancel) what is queued, then join the threads. */
void offload_stop(struct offload *o);

#endif
