/* The collector's HTTP API (docs/API.md): the route table, which main.c
 * hands to the HTTP layer. The handlers are in handlers.h, what they share
 * in api_util.h. */
#ifndef CGFB_SERVER_API_H
#define CGFB_SERVER_API_H

#include <stdbool.h>

#include "api/api_util.h"

bool api_precheck(void *ud, const struct http_request *rq, struct http_reply *rp);
void api_handle(void *ud, const struct http_request *rq, struct http_reply *rp);
void api_finish(void *ud, const struct http_request *rq, void *state, struct http_reply *rp);
/* SIGTERM: reads in progress are interrupted and reads still queued are
 * answered 503, so that stopping takes the writes' time, not the reads'. */
void api_shutdown(struct api *a);
/* http_app's past_grace: writes the database holds up fail (503). */
void api_past_grace(void *ud);

#endif
