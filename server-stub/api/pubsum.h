/* The public summary as it is served: computed when the collector starts
 * and then every --summary-interval seconds by a thread of its own, kept
 * as bytes in memory, and handed out with an ETag. A request never touches
 * the database, so a flood of summary requests cannot starve the readers
 * or hold a WAL checkpoint off; and comparing the summary before and after
 * one submission shows nothing until the next recomputation, which mixes
 * that report with everything else that arrived in the interval
 * (docs/PRIVACY.md). */
#ifndef CGFB_SERVER_PUBSUM_H
#define CGFB_SERVER_PUBSUM_H

#include <stddef.h>

#include "http/http.h"
#include "store/summary.h"

struct pubsum;

/* Compute the first summary from db_path now (the caller has folded the
 * store: store_fold), then every interval seconds, each after
 * fold(fold_ud) (NULL: none). 0 or a negative errno after logging why. */
int pubsum_start(struct pubsum **out, const char *db_path, unsigned interval,
		 const struct summary_policy *policy, int (*fold)(void *ud), void *fold_ud);
void pubsum_stop(struct pubsum *p);

/* The current summary into rp: 200 with the bytes, ETag and Cache-Control
 * (max-age the time to the next recomputation), or 304 when if_none_match
 * names the current ETag; 503 before the first one exists. */
void pubsum_reply(struct pubsum *p, const char *if_none_match, struct http_reply *rp);

#endif
