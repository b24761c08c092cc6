/* What every handler of the collector's API shares: the API's state and
 * the helpers that answer with an error or JSON, lend a read connection,
 * and check the admin token. Handlers include this, never the route
 * table (api.h), so the dependency runs one way. */
#ifndef CGFB_SERVER_API_UTIL_H
#define CGFB_SERVER_API_UTIL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "http/auth.h"
#include "cgfb/catalog.h"
#include "cgfb/schema.h"
#include "http/http.h"
#include "http/offload.h"
#include "conf/options.h"
#include "api/pubsum.h"
#include "http/ratelimit.h"
#include "store/store.h"
#include "store/summary.h"
#include "ingest/writer.h"

#define API_READERS 4
/* Admin token guesses (a Bearer header that is no admin token, on any
 * admin request or a login): API_GUESS_BURST from an address, then one per
 * API_GUESS_EVERY_S seconds; API_GUESS_ALL_BURST from every address
 * together, then API_GUESS_ALL_RATE a second. Past either, Bearer tokens
 * are refused (429, Retry-After) without being checked, and a warning is
 * logged at most every API_GUESS_LOG_S seconds. A token of 128 bits
 * (auth.h) is out of reach at any rate; the limit keeps a weaker one that
 * slipped by, and the CPU, from a botnet's pace. */
#define API_GUESS_BURST     20
#define API_GUESS_EVERY_S   10
#define API_GUESS_ALL_BURST 50
#define API_GUESS_ALL_RATE  1
#define API_GUESS_LOG_S     10
/* Heavy requests (the digest, the mbox export) at once: each holds a
 * reader for its whole download, a summary of the period and its stream's
 * buffer (api/pager.h); past this bound a heavy request is a 503 with
 * Retry-After, so that the collector's memory has a bound by design and
 * two readers of the pool stay for everything else. */
#define API_HEAVY_MAX 2
#define API_HEAVY_RETRY_AFTER 5
/* What a heavy request costs of the sender's read rate, in requests: a
 * digest or an export is a few seconds of a reader and of a core. */
#define API_HEAVY_COST 20
/* A report is charged one report of its sender's write rate per this many
 * JSON values past the first that many: a normal report (a few thousand)
 * costs one, one at CGFB_REPORT_VALUES_MAX nine. */
#define API_VALUES_PER_REPORT 8192

struct api {
	const struct server_opts *o;
	struct cgfb_schema *schema;
	struct cgfb_catalog *catalog;    /* titles for the digest */
	struct writer *writer;           /* NULL with o->no_store */
	struct offload *offload;         /* NULL: reads run on the event loop */
	struct ratelimit *rl;            /* report writes */
	struct ratelimit *rl_read;       /* everything else */
	/* Wrong admin tokens, per address and all together (API_GUESS_*). */
	struct ratelimit *rl_login, *rl_login_all;
	int64_t guess_logged;            /* monotonic s of the last warning */
	struct pubsum *pubsum;           /* the public summary, served from memory */
	struct summary_policy policy;    /* what the summary and the digest publish */
	struct auth auth;
	/* Read-only connections, reused between requests. */
	pthread_mutex_t lock;
	unsigned n_readers;
	struct store *readers[API_READERS];
	unsigned heavy;                  /* heavy requests running, under lock */
};

/* A deferred request's state starts with this. */
struct api_deferred {
	void (*finish)(struct api *a, void *state, struct http_reply *rp);
};

void api_error(struct http_reply *rp, unsigned status, const char *error, const char *message);
void api_json(struct http_reply *rp, unsigned status, json_object *o);   /* takes o */
/* A read connection (reported as 503 to rp on failure) and its return. */
struct store *api_reader(struct api *a, struct http_reply *rp);
void api_reader_put(struct api *a, struct store *s);
/* A heavy request's slot: false (and a 503 with Retry-After to rp) when
 * API_HEAVY_MAX run already. Every slot taken is given back once with
 * api_heavy_put, when the answer is sent or dropped. The request is
 * charged API_HEAVY_COST of its sender's read rate either way. */
bool api_heavy_take(struct api *a, const struct http_request *rq, struct http_reply *rp);
void api_heavy_put(struct api *a);
/* false (and a 401/403 reply) unless the request carries the admin token. */
bool api_admin(struct api *a, const struct http_request *rq, struct http_reply *rp);
/* The request as the admin check sees it (auth.h). */
struct auth_request api_auth_request(const struct api *a, const struct http_request *rq);
/* Before a Bearer token is checked: false (and a 429 reply, and a logged
 * warning) when wrong tokens are over their limit; after a wrong one,
 * api_guess_failed counts it. */
bool api_guess_allowed(struct api *a, const struct http_request *rq, struct http_reply *rp);
void api_guess_failed(struct api *a, const struct http_request *rq);
int64_t api_mono_s(void);

#endif
