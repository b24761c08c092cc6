#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/handlers.h"
#include "cgfb/buf.h"
#include "api/params.h"
#include "api/pubsum.h"

#define REPORTS "/api/v1/reports"

static bool is_write(const struct http_request *rq)
{
	return (strcmp(rq->method, "POST") == 0 && strcmp(rq->path, REPORTS) == 0) ||
	       (strcmp(rq->method, "DELETE") == 0 &&
		strncmp(rq->path, REPORTS "/", strlen(REPORTS) + 1) == 0);
}

bool api_precheck(void *ud, const struct http_request *rq, struct http_reply *rp)
{
	struct api *a = ud;
	const char *len;
	unsigned wait;

	/* Reads too, the public summary and dashboard included: each is
	 * cheap, but a flood of them still takes event-loop time from
	 * everyone else. */
	if (!is_write(rq)) {
		wait = ratelimit_take(a->rl_read, rq->client_key);
		if (wait) {
			api_error(rp, 429, "rate_limited", "too many requests from this address; "
				  "retry later");
			rp->retry_after = wait;
		}
		return wait != 0;
	}
	wait = ratelimit_take(a->rl, rq->client_key);
	if (wait) {
		api_error(rp, 429, "rate_limited", "too many reports from this address; retry later");
		rp->retry_after = wait;
		return true;
	}
	if (strcmp(rq->method, "POST") != 0)
		return false;
	if (!params_json_content_type(http_header(rq, "Content-Type"))) {
		api_error(rp, 415, "unsupported_media_type", "send Content-Type: application/json");
		return true;
	}
	len = http_header(rq, "Content-Length");
	if (len && strtoull(len, NULL, 10) > CGFB_REPORT_MAX_BYTES) {
		api_error(rp, 413, "too_large", CGFB_REPORT_TOO_LARGE);
		return true;
	}
	return false;
}

static void method_not_allowed(struct http_reply *rp, const char *allow)
{
	api_error(rp, 405, "method_not_allowed", "this resource does not take that method");
	rp->allow = allow;
}

typedef void handler_fn(struct api *a, const struct http_request *rq, struct http_reply *rp);

/* A handler that reads the database, run on an offload thread while the
 * request is suspended: a summary of a large database takes seconds. */
struct read {
	struct api_deferred d;          /* first: what api_finish calls */
	struct offload_job job;
	struct api *a;
	const struct http_request *rq;
	handler_fn *fn;
	struct http_reply rp;
};

static void read_run(struct offload_job *job)
{
	struct read *r = (struct read *)((char *)job - offsetof(struct read, job));

	r->fn(r->a, r->rq, &r->rp);
	http_resume(r->rq);
}

/* Shutting down: a read still queued is answered at once. */
static void read_cancel(struct offload_job *job)
{
	struct read *r = (struct read *)((char *)job - offsetof(struct read, job));

	api_error(&r->rp, 503, "shutting_down", "the collector is stopping; retry later");
	r->rp.retry_after = HTTP_SHUTDOWN_RETRY_AFTER;
	http_resume(r->rq);
}

static void read_finish(struct api *a, void *state, struct http_reply *rp)
{
	struct read *r = state;

	*rp = r->rp;
	memset(&r->rp.body, 0, sizeof(r->rp.body));
}

static void read_free(void *state)
{
	struct read *r = state;

	cgfb_buf_free(&r->rp.body);
	free(r);
}

static void offload_read(struct api *a, const struct http_request *rq, struct http_reply *rp,
			 handler_fn *fn)
{
	struct read *r = a->offload ? calloc(1, sizeof(*r)) : NULL;

	if (!r) {
		fn(a, rq, rp);
		return;
	}
	r->d.finish = read_finish;
	r->job.run = read_run;
	r->job.cancel = read_cancel;
	r->a = a;
	r->rq = rq;
	r->fn = fn;
	http_defer(rq, r, read_free);
	offload_run(a->offload, &r->job);
}

/* GET /api/v1/reports/{id}, the id checked by route_report. */
static void get_report(struct api *a, const struct http_request *rq, struct http_reply *rp)
{
	api_get_report(a, rq, rp, rq->path + strlen(REPORTS) + 1);
}

static void route_report(struct api *a, const struct http_request *rq, struct http_reply *rp,
			 const char *id)
{
	if (!cgfb_report_id_valid(id))
		api_error(rp, 404, "not_found", "no such report");
	else if (strcmp(rq->method, "DELETE") == 0)
		api_delete_report(a, rq, rp, id);
	else if (strcmp(rq->method, "GET") == 0)
		offload_read(a, rq, rp, get_report);
	else
		method_not_allowed(rp, "GET, HEAD, DELETE");
}

/* GET-only resources: path and handler. */
static const struct {
	const char *path;
	void (*fn)(struct api *a, const struct http_request *rq, struct http_reply *rp);
} get_routes[] = {
	{ "/api/v1/digest", api_digest },
	{ "/api/v1/export.mbox", api_export_mbox },
};

void api_shutdown(struct api *a)
{
	store_abort_reads();
	offload_cancel(a->offload);
}

void api_finish(void *ud, const struct http_request *rq, void *state, struct http_reply *rp)
{
	const struct api_deferred *d = state;

	d->finish(ud, state, rp);
}

void api_handle(void *ud, const struct http_request *rq, struct http_reply *rp)
{
	struct api *a = ud;
	const bool get = strcmp(rq->method, "GET") == 0;

	if (strcmp(rq->path, REPORTS) == 0) {
		if (strcmp(rq->method, "POST") == 0)
			api_post_report(a, rq, rp);
		else if (get)
			offload_read(a, rq, rp, api_list_reports);
		else
			method_not_allowed(rp, "GET, HEAD, POST");
		return;
	}
	if (strncmp(rq->path, REPORTS "/", strlen(REPORTS) + 1) == 0) {
		route_report(a, rq, rp, rq->path + strlen(REPORTS) + 1);
		return;
	}
	if (strcmp(rq->path, "/api/v1/session") == 0) {
		api_session(a, rq, rp);
		return;
	}
	/* From memory, on the event loop: no database read per request. */
	if (strcmp(rq->path, "/api/v1/summary") == 0) {
		if (get)
			pubsum_reply(a->pubsum, http_header(rq, "If-None-Match"), rp);
		else
			method_not_allowed(rp, "GET, HEAD");
		return;
	}
	for (size_t i = 0; i < sizeof(get_routes) / sizeof(get_routes[0]); i++) {
		if (strcmp(rq->path, get_routes[i].path) != 0)
			continue;
		if (get)
			offload_read(a, rq, rp, get_routes[i].fn);
		else
			method_not_allowed(rp, "GET, HEAD");
		return;
	}
	if (get && dashboard_serve(rq->path, rp))
		return;
	api_error(rp, 404, "not_found", "no such resource");
}
