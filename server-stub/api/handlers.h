/* The collector's request handlers, each in a file of its own; the route
 * table (api.c) calls them. */
#ifndef CGFB_SERVER_HANDLERS_H
#define CGFB_SERVER_HANDLERS_H

#include <stdbool.h>

#include "api/api_util.h"

/* api_reports.c */
void api_post_report(struct api *a, const struct http_request *rq, struct http_reply *rp);
void api_delete_report(struct api *a, const struct http_request *rq, struct http_reply *rp,
		       const char *id);
void api_get_report(struct api *a, const struct http_request *rq, struct http_reply *rp,
		    const char *id);
void api_list_reports(struct api *a, const struct http_request *rq, struct http_reply *rp);
/* digest.c, export.c (the public summary is served by pubsum.c) */
void api_digest(struct api *a, const struct http_request *rq, struct http_reply *rp);
void api_export_mbox(struct api *a, const struct http_request *rq, struct http_reply *rp);
/* POST /api/v1/session: an admin token for a session cookie; DELETE: the
 * cookie cleared. */
void api_session(struct api *a, const struct http_request *rq, struct http_reply *rp);
/* dashboard.c: GET / and its assets; false when path is not one of them. */
bool dashboard_serve(const char *path, struct http_reply *rp);

#endif
