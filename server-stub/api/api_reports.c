/* POST, DELETE and the admin's GETs of /api/v1/reports. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/answers.h"
#include "api/handlers.h"
#include "cgfb/buf.h"
#include "cgfb/canon.h"
#include "ingest/ingest.h"
#include "api/params.h"

#define LIST_DEFAULT 50
#define LIST_MAX     500
/* One answer of the list holds the items of at most this many bytes of
 * stored reports (at least one item), and the store is read this many
 * rows at a time (PostgreSQL holds a read's rows in memory at once): 500
 * reports of the largest size made a peak of 411 MB, four lists at once
 * 1.2 GB. The rest is left to next_cursor, as a shorter limit is. */
#define LIST_BYTES   (8u << 20)
#define LIST_PAGE    32

static json_object *receipt_json(const struct receipt *r)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "id", json_object_new_string(r->id));
	json_object_object_add(o, "sha256", json_object_new_string(r->sha256));
	char hour[32];

	writer_hour(hour, r->received_at);
	json_object_object_add(o, "received_at", json_object_new_string(hour));
	return o;
}

/* 400 naming the field: err is "<json pointer>: <reason>". */
static void invalid(struct http_reply *rp, const char *err)
{
	const char *sep = strstr(err, ": ");
	json_object *o = json_object_new_object();

	json_object_object_add(o, "error", json_object_new_string("invalid_report"));
	json_object_object_add(o, "field", sep ? json_object_new_string_len(err, (int)(sep - err)) :
			       json_object_new_string("/"));
	json_object_object_add(o, "message", json_object_new_string(sep ? sep + 2 : err));
	api_json(rp, 400, o);
}

static void answer_put(struct http_reply *rp, const struct job *j)
{
	switch (j->result) {
	case STORE_CREATED:
		snprintf(rp->location, sizeof(rp->location), "/api/v1/reports/%s", j->receipt.id);
		api_json(rp, 201, receipt_json(&j->receipt));
		return;
	case STORE_SAME:
		api_json(rp, 200, receipt_json(&j->receipt));
		return;
	case STORE_CONFLICT:
		api_error(rp, 409, "conflict", "a different report with this id is already stored");
		return;
	case STORE_WITHDRAWN:
		api_error(rp, 410, "withdrawn", "this report was deleted by its sender");
		return;
	}
	/* Logged where it happened; the client only needs to retry later. */
	api_error(rp, 503, "unavailable", "the report could not be stored; retry later");
	rp->retry_after = 1;
}

/* A write waiting for its commit: the request is suspended meanwhile. */
/* Longer than any deletion token a client makes (64 hex digits): a longer
 * one cannot match and is refused without a database lookup. */
#define DELETION_TOKEN_MAX 128

struct pending {
	struct api_deferred d;       /* first: what api_finish calls */
	struct job j;
	struct report_meta m;
	const struct http_request *rq;
	char token[DELETION_TOKEN_MAX + 1];
};

static void pending_free(void *p)
{
	struct pending *w = p;

	ingest_meta_free(&w->m);
	free(w);
}

static void pending_done(struct job *j)
{
	const struct pending *w = j->ud;

	http_resume(w->rq);
}

static void finish_put(struct api *a, void *state, struct http_reply *rp)
{
	const struct pending *w = state;

	answer_put(rp, &w->j);
}

/* Suspend the request and hand j to the writer; finish answers it. */
static void defer_write(struct api *a, const struct http_request *rq, struct pending *w,
			void (*finish)(struct api *, void *, struct http_reply *))
{
	w->d.finish = finish;
	w->rq = rq;
	w->j.done = pending_done;
	w->j.ud = w;
	http_defer(rq, w, pending_free);
	writer_queue(a->writer, &w->j);
}

/* A report whose id is bound to its deletion hash is stored only with
 * the proof, its token (cgfb/report_id.h): else anyone who read it could
 * send it first. Answered 403 here when it is missing or wrong. */
static int claim(const struct http_request *rq, struct report_meta *m, struct http_reply *rp)
{
	size_t len = 0;
	const char *token = auth_deletion_token(rq, &len);
	int rc;

	if (token && len > DELETION_TOKEN_MAX)
		len = DELETION_TOKEN_MAX + 1;   /* cannot match; hashed no further */
	rc = ingest_claim(m, token, len, true);
	if (rc == -EACCES)
		api_error(rp, 403, "proof_required", token ?
			  "wrong deletion token: this report's id is bound to its deletion token, "
			  "send the token in X-Deletion-Token" :
			  "this report's id is bound to its deletion token; send the token in "
			  "X-Deletion-Token");
	return rc;
}

void api_post_report(struct api *a, const struct http_request *rq, struct http_reply *rp)
{
	struct report_meta m;
	struct job j = { .kind = JOB_PUT, .via = STORE_VIA_HTTP };
	struct pending *w;
	char err[512];
	int rc;
	const char *body = rq->body.data ? rq->body.data : "";

	/* What a report costs the event loop grows with its values, not only
	 * its bytes: one with many is charged to its sender's rate as that
	 * many reports' worth (the precheck took one). */
	ratelimit_charge(a->rl, rq->client_key,
			 (unsigned)(cgfb_json_values(body, rq->body.len) / API_VALUES_PER_REPORT));
	rc = ingest_report(a->schema, body, rq->body.len, &m, err, sizeof(err));
	if (rc == -E2BIG) {
		api_error(rp, 413, "too_large", CGFB_REPORT_TOO_LARGE);
		return;
	}
	if (rc == -EMSGSIZE) {
		api_error(rp, 413, "too_large", CGFB_REPORT_TOO_MANY);
		return;
	}
	if (rc < 0) {
		invalid(rp, err);
		return;
	}
	if (claim(rq, &m, rp) < 0) {
		ingest_meta_free(&m);
		return;
	}
	if (!a->writer) {
		/* Benchmark ceiling only: validated, answered, not stored. */
		snprintf(j.receipt.id, sizeof(j.receipt.id), "%s", m.id);
		snprintf(j.receipt.sha256, sizeof(j.receipt.sha256), "%s", m.sha256);
		writer_now(j.receipt.received_at);
		j.result = STORE_CREATED;
		answer_put(rp, &j);
		ingest_meta_free(&m);
		return;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		ingest_meta_free(&m);
		api_error(rp, 503, "unavailable", "out of memory; retry later");
		rp->retry_after = 1;
		return;
	}
	w->m = m;
	w->j = j;
	w->j.meta = &w->m;
	w->j.body = rq->body.data;
	w->j.len = rq->body.len;
	defer_write(a, rq, w, finish_put);
}

static void finish_delete(struct api *a, void *state, struct http_reply *rp)
{
	const struct pending *w = state;
	json_object *o;

	switch (w->j.result) {
	case 0:
		o = json_object_new_object();
		json_object_object_add(o, "id", json_object_new_string(w->j.id));
		json_object_object_add(o, "deleted", json_object_new_boolean(1));
		api_json(rp, 200, o);
		return;
	case -ENOENT:
		api_error(rp, 404, "not_found", "no such report");
		return;
	case -EACCES:
		api_error(rp, 403, "forbidden", "wrong deletion token");
		return;
	case -EPERM:
		api_error(rp, 403, "forbidden", "this report was sent without a deletion token");
		return;
	}
	api_error(rp, 503, "unavailable", "the report could not be deleted; retry later");
	rp->retry_after = 1;
}

void api_delete_report(struct api *a, const struct http_request *rq, struct http_reply *rp,
		       const char *id)
{
	size_t len = 0;
	const char *token = auth_deletion_token(rq, &len);
	struct pending *w;

	if (!token) {
		api_error(rp, 401, "unauthorized", "send the report's deletion token "
			  "in X-Deletion-Token");
		return;
	}
	if (len > DELETION_TOKEN_MAX) {
		api_error(rp, 403, "forbidden", "wrong deletion token");
		return;
	}
	if (!a->writer) {
		api_error(rp, 503, "unavailable", "this server stores nothing");
		return;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		api_error(rp, 503, "unavailable", "out of memory; retry later");
		rp->retry_after = 1;
		return;
	}
	/* The id lives in the request, which outlives the job; the token is
	 * copied without the white space that may follow it in the header. */
	memcpy(w->token, token, len);
	w->token[len] = '\0';
	w->j = (struct job){ .kind = JOB_DELETE, .id = id, .token = w->token };
	defer_write(a, rq, w, finish_delete);
}

void api_get_report(struct api *a, const struct http_request *rq, struct http_reply *rp,
		    const char *id)
{
	struct receipt r;
	struct store *s;
	int rc;

	if (!api_admin(a, rq, rp) || !(s = api_reader(a, rp)))
		return;
	/* The exact stored bytes: their SHA-256 is the receipt's. */
	rc = store_get(s, id, &rp->body, &r);
	api_reader_put(a, s);
	if (rc == -ENOENT) {
		api_error(rp, 404, "not_found", "no such report");
	} else if (rc < 0) {
		api_error(rp, 503, "unavailable", "the database cannot be read right now");
	} else {
		rp->status = 200;
		rp->content_type = "application/json";
		snprintf(rp->etag, sizeof(rp->etag), "\"%s\"", r.sha256);
	}
}

struct list_ctx {
	const struct cgfb_catalog *cat;
	json_object *arr;
	unsigned limit, n;
	unsigned page;               /* rows the store gave in this read */
	size_t bytes;                /* of the stored reports listed */
	int64_t last_seq;
	bool more;
};

static void add_str(json_object *o, const char *key, const char *v)
{
	json_object_object_add(o, key, v ? json_object_new_string(v) : NULL);
}

static int list_row(const struct store_row *row, void *ud)
{
	struct list_ctx *c = ud;
	char hour[32];
	json_object *o;

	c->page++;
	if (c->n == c->limit || (c->n && c->bytes + row->body_len > LIST_BYTES)) {
		c->more = true;
		return 1;
	}
	c->bytes += row->body_len;
	o = json_object_new_object();
	add_str(o, "id", row->id);
	add_str(o, "sha256", row->sha256);
	writer_hour(hour, row->received_at);
	add_str(o, "received_at", hour);
	add_str(o, "via", row->via);
	add_str(o, "catalog_id", row->catalog_id);
	add_str(o, "kernel_series", row->kernel_series);
	add_str(o, "distribution", row->distribution);
	add_str(o, "cgroup_mode", row->cgroup_mode);
	add_str(o, "software", row->software);
	add_str(o, "verdict", row->verdict);
	add_str(o, "reorganisation", row->reorganisation);
	add_str(o, "use_case", row->use_case);
	json_object_object_add(o, "answers", answers_of(c->cat, row->catalog_id, row->body,
							row->body_len));
	json_object_array_add(c->arr, o);
	c->n++;
	c->last_seq = row->seq;
	return 0;
}

/* The rows after f->before, LIST_PAGE at a time, until list_row has
 * its limit (and saw one more) or the rows run out. */
static int list_pages(struct store *s, struct store_filter *f, struct list_ctx *c)
{
	int rc;

	do {
		c->page = 0;
		f->limit = LIST_PAGE;
		rc = store_list(s, f, list_row, c);
		f->before = c->last_seq;
	} while (rc >= 0 && !c->more && c->page == LIST_PAGE);
	return rc;
}

void api_list_reports(struct api *a, const struct http_request *rq, struct http_reply *rp)
{
	struct store_filter f = {
		.catalog_id = http_query(rq, "catalog_id"),
		.kernel_series = http_query(rq, "kernel_series"),
		.distribution = http_query(rq, "distribution"),
		.cgroup_mode = http_query(rq, "cgroup_mode"),
		.verdict = http_query(rq, "verdict"),
		.since = http_query(rq, "since"),
		.until = http_query(rq, "until"),
	};
	struct list_ctx c = { .cat = a->catalog };
	uint64_t limit, cursor, with_use_case;
	struct store *s;
	json_object *o;
	char next[24];
	int rc;

	if (!api_admin(a, rq, rp))
		return;
	if (!params_uint(http_query(rq, "limit"), LIST_MAX, LIST_DEFAULT, &limit) || limit == 0 ||
	    !params_uint(http_query(rq, "cursor"), INT64_MAX, 0, &cursor) ||
	    !params_uint(http_query(rq, "use_case"), 1, 0, &with_use_case)) {
		api_error(rp, 400, "bad_query",
			  "limit is 1 to 500, cursor a number from next_cursor, use_case 0 or 1");
		return;
	}
	if (!(s = api_reader(a, rp)))
		return;
	c.arr = json_object_new_array();
	c.limit = (unsigned)limit;
	f.before = (int64_t)cursor;
	f.with_use_case = with_use_case == 1;
	rc = list_pages(s, &f, &c);
	api_reader_put(a, s);
	if (rc < 0) {
		json_object_put(c.arr);
		api_error(rp, 503, "unavailable", "the database cannot be read right now");
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "reports", c.arr);
	snprintf(next, sizeof(next), "%" PRId64, c.last_seq);
	json_object_object_add(o, "next_cursor", c.more ? json_object_new_string(next) : NULL);
	api_json(rp, 200, o);
}
