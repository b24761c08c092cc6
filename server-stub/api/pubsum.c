#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cgfb/buf.h"
#include "cgfb/log.h"
#include "cgfb/sha256.h"
#include "api/pubsum.h"
#include "store/store.h"
#include "store/summary.h"

struct pubsum {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop, started;
	const char *db_path;
	unsigned interval;
	const struct summary_policy *policy;
	/* Before each recomputation of the thread: the newest reports
	 * counted (store_fold, on the writer's connection). */
	int (*fold)(void *ud);
	void *fold_ud;
	/* What requests get, replaced whole under lock. */
	struct cgfb_buf body;
	char etag[72];
	/* When the next recomputation is due, on CLOCK_MONOTONIC (the wait
	 * too, pubsum_start): a wall clock stepped back an hour must not hold
	 * the summary for an hour. Only "computed" is wall time: it is shown. */
	struct timespec next;
};

/* Under the lock: the next recomputation an interval from now. */
static void schedule(struct pubsum *p)
{
	clock_gettime(CLOCK_MONOTONIC, &p->next);
	p->next.tv_sec += p->interval;
}

/* The summary as served, into out: store_summary_shared's compute. */
static int build(struct store *s, struct cgfb_buf *out, void *ud)
{
	const struct pubsum *p = ud;
	json_object *o = NULL;
	char when[32];
	const time_t now = time(NULL);
	struct tm tm;
	int rc = summary_build(s, NULL, p->policy, &o);

	if (rc < 0)
		return rc;
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_object_object_add(o, "computed", json_object_new_string(when));
	json_object_object_add(o, "interval_seconds", json_object_new_int64(p->interval));
	out->len = 0;
	rc = cgfb_buf_adds(out, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							      JSON_C_TO_STRING_NOSLASHESCAPE));
	if (rc == 0)
		rc = cgfb_buf_add(out, "\n", 1);
	json_object_put(o);
	return rc;
}

static int compute(struct pubsum *p, struct cgfb_buf *out, char etag[72])
{
	struct store *s = NULL;
	char sha[65];
	const char *computed;
	int rc;

	rc = store_open(&s, p->db_path, true);
	if (rc == 0) {
		store_read_deadline(s, STORE_READ_MS);
		/* Several collectors on one PostgreSQL serve the same summary,
		 * computed by one of them at a time. */
		rc = store_summary_shared(s, p->interval, build, p, out);
	}
	store_close(s);
	if (rc < 0)
		return rc;
	/* The counts, not the time they were computed, make the tag: an
	 * unchanged summary stays cached across recomputations. */
	computed = strstr(out->data, ",\"computed\"");
	cgfb_sha256_hex(out->data, computed ? (size_t)(computed - out->data) : out->len, sha);
	snprintf(etag, 72, "\"%.32s\"", sha);
	return 0;
}

/* Seconds since t0. */
static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* fold: count the newest reports first (not at start, before the writer
 * runs: the caller has folded). */
static int refresh(struct pubsum *p, bool fold)
{
	struct cgfb_buf b = { 0 }, old;
	char etag[72];
	struct timespec t0;
	double took;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* A fold that failed leaves the newest reports to the next one: the
	 * summary is served as of the last. */
	if (fold && p->fold && (rc = p->fold(p->fold_ud)) < 0)
		cgfb_log(LOG_WARNING, "public summary: the newest reports are not counted yet: %s",
			 strerror(-rc));
	rc = compute(p, &b, etag);
	took = since(&t0);
	/* A slow one is said, with its deadline: the store's growth shows
	 * here long before the deadline is passed. */
	if (rc == 0 && took >= 1.0)
		cgfb_log(LOG_INFO, "public summary recomputed in %.1f s (the deadline is %u s)",
			 took, STORE_READ_MS / 1000);

	if (rc < 0) {
		/* The last summary stays up; the next interval tries again. */
		cgfb_log(LOG_ERR, "public summary: not recomputed: %s", strerror(-rc));
		cgfb_buf_free(&b);
		pthread_mutex_lock(&p->lock);
		schedule(p);
		pthread_mutex_unlock(&p->lock);
		return rc;
	}
	pthread_mutex_lock(&p->lock);
	old = p->body;
	p->body = b;
	memcpy(p->etag, etag, sizeof(p->etag));
	schedule(p);
	pthread_mutex_unlock(&p->lock);
	cgfb_buf_free(&old);
	return 0;
}

static void *run(void *arg)
{
	struct pubsum *p = arg;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		const struct timespec until = p->next;

		if (pthread_cond_timedwait(&p->wake, &p->lock, &until) == ETIMEDOUT && !p->stop) {
			pthread_mutex_unlock(&p->lock);
			refresh(p, true);
			pthread_mutex_lock(&p->lock);
		}
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int pubsum_start(struct pubsum **out, const char *db_path, unsigned interval,
		 const struct summary_policy *policy, int (*fold)(void *ud), void *fold_ud)
{
	struct pubsum *p = calloc(1, sizeof(*p));
	pthread_condattr_t ca;
	int rc;

	if (!p)
		return -ENOMEM;
	p->db_path = db_path;
	p->interval = interval;
	p->policy = policy;
	p->fold = fold;
	p->fold_ud = fold_ud;
	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->wake, &ca);
	pthread_condattr_destroy(&ca);
	refresh(p, false);
	rc = -pthread_create(&p->thread, NULL, run, p);
	if (rc < 0) {
		cgfb_log(LOG_ERR, "public summary: no thread: %s", strerror(-rc));
		pubsum_stop(p);
		return rc;
	}
	p->started = true;
	*out = p;
	return 0;
}

void pubsum_stop(struct pubsum *p)
{
	if (!p)
		return;
	if (p->started) {
		pthread_mutex_lock(&p->lock);
		p->stop = true;
		pthread_cond_signal(&p->wake);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->thread, NULL);
	}
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	cgfb_buf_free(&p->body);
	free(p);
}

void pubsum_reply(struct pubsum *p, const char *if_none_match, struct http_reply *rp)
{
	struct timespec now;
	long max_age;

	pthread_mutex_lock(&p->lock);
	clock_gettime(CLOCK_MONOTONIC, &now);
	max_age = (long)(p->next.tv_sec - now.tv_sec);
	if (max_age < 0)
		max_age = 0;
	snprintf(rp->cache_control, sizeof(rp->cache_control), "public, max-age=%ld", max_age);
	rp->content_type = "application/json";
	if (!p->body.len) {
		rp->status = 503;
		rp->retry_after = p->interval;
		cgfb_buf_adds(&rp->body, "{\"error\":\"unavailable\",\"message\":\"the summary is "
			      "not computed yet\"}\n");
	} else if (if_none_match && strcmp(if_none_match, p->etag) == 0) {
		rp->status = 304;
		memcpy(rp->etag, p->etag, sizeof(rp->etag));
	} else {
		rp->status = 200;
		memcpy(rp->etag, p->etag, sizeof(rp->etag));
		if (cgfb_buf_add(&rp->body, p->body.data, p->body.len) < 0)
			rp->status = 500;
	}
	pthread_mutex_unlock(&p->lock);
}
