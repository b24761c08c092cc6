/* Delivery to the collector over HTTP(S) with libcurl. Only the commands an
 * administrator runs (submit, flush, withdraw) call this; the watcher never
 * opens a network connection. */
#ifndef CGFB_SUBMIT_H
#define CGFB_SUBMIT_H

#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"

/* What a failure that is the configuration's says to check; such a
 * failure is not retried (transient false, -EINVAL). */
#define CGFB_SUBMIT_CHECK_TLS "a configuration error, not retried: is the endpoint https:// " \
	"with TLS there, its certificate trusted (ca-file) and pinned right?"
#define CGFB_SUBMIT_CHECK_PATH "a configuration error, not retried: no collector takes " \
	"reports at this URL (it ends in /api/v1/reports)"

struct cgfb_submit_result {
	long http_status;            /* 0 when no HTTP answer came */
	bool transient;              /* worth retrying: network, 5xx, 429 */
	long retry_after;            /* seconds the server asked for, -1 none */
	char receipt_id[80];
	char receipt_sha256[65];
	char receipt_time[40];
	char error[256];
};

/* Global libcurl setup, once per process. */
int cgfb_submit_init(void);
void cgfb_submit_cleanup(void);

/* Refuse endpoints that would send a report in the clear over a network:
 * https anywhere, http only to a loopback address. */
int cgfb_endpoint_check(const char *url, char *err, size_t errsz);

/* POST the exact bytes; on 200/201 the receipt is parsed and its SHA-256
 * must equal sha256 (what we sent), else it is an error. Returns 0 when the
 * collector holds exactly these bytes, a negative errno otherwise. The
 * report's deletion token, when not NULL or "", goes with it in
 * X-Deletion-Token: the proof that the report's id is the sender's
 * (cgfb/report_id.h); a collector that held a squatter's report
 * under it replaces that. It is never printed. */
int cgfb_submit_post(const struct cgfb_config *c, const char *url, const char *body, size_t len,
		     const char *sha256, const char *token, struct cgfb_submit_result *res);

/* DELETE <url>/<id> presenting the deletion token. 0 when it is gone (or was
 * never there: 404). */
int cgfb_submit_delete(const struct cgfb_config *c, const char *url, const char *id,
		       const char *token, struct cgfb_submit_result *res);

/* When to try again after attempt number attempts (1-based) failed:
 * exponential from 1 minute, capped at 6 hours, with jitter, and never
 * earlier than Retry-After. Seconds from now. */
long cgfb_backoff_delay(int attempts, long retry_after, unsigned random);

#endif
