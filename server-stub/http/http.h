/* HTTP glue on libmicrohttpd: one event loop (epoll) per CPU; a request
 * that waits for its group commit is suspended, not a blocked thread, so
 * the threads that parse are as many as the CPUs and the writer never waits
 * behind them. Limits on connections, idle time, body size and body time,
 * one log line per request, and a shutdown that lets requests in flight
 * finish. The API sees plain structs, never libmicrohttpd. */
#ifndef CGFB_SERVER_HTTP_H
#define CGFB_SERVER_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cgfb/canon.h"
#include "conf/options.h"

struct http_request {
	const char *method;
	const char *path;
	const char *client;          /* the peer's address, text */
	const char *client_key;      /* what it is counted by (peer.h) */
	struct cgfb_buf body;
	void *conn;                  /* for http_header/http_query */
};

/* Retry-After of the 503 that requests get while the collector stops. */
#define HTTP_SHUTDOWN_RETRY_AFTER 10
/* After the grace, how long answers already decided (a resumed request's
 * 503) may take to leave before the connections are closed. */
#define HTTP_STOP_FLUSH_MS 1000

struct http_reply {
	unsigned status;
	const char *content_type;    /* NULL: application/json */
	struct cgfb_buf body;
	unsigned retry_after;        /* seconds; 0: no Retry-After */
	const char *allow;           /* Allow header for 405 */
	bool www_authenticate;       /* 401: Bearer challenge */
	bool page;                   /* HTML/JS/CSS: Content-Security-Policy */
	char location[96];
	char etag[72];
	char cache_control[48];      /* "": no-store */
	char set_cookie[256];        /* "": none */
	bool close;                  /* Connection: close after this answer */
	/* A body too large to build in memory (the mbox export): instead of
	 * body, stream_read fills buf with at most max bytes, on the event
	 * loop, and returns how many, 0 at the end, or < 0 to abort the
	 * connection; stream_free(stream_cls) runs once, whatever happens. */
	ssize_t (*stream_read)(void *cls, char *buf, size_t max);
	void (*stream_free)(void *cls);
	void *stream_cls;
};

const char *http_header(const struct http_request *rq, const char *name);
const char *http_query(const struct http_request *rq, const char *name);

/* The application's side. precheck runs when the headers are in, before
 * any body is read; it may fill in a reply (and return true) to refuse the
 * request early. handle runs with the whole body and fills in the reply, or
 * defers it: it calls http_defer, hands its work to another thread, and
 * that thread calls http_resume when the answer can be made; finish then
 * fills in the reply, on the event loop again. */
struct http_app {
	bool (*precheck)(void *ud, const struct http_request *rq, struct http_reply *rp);
	void (*handle)(void *ud, const struct http_request *rq, struct http_reply *rp);
	void (*finish)(void *ud, const struct http_request *rq, void *state,
		       struct http_reply *rp);
	void *ud;
	/* A body over max_body bytes is not kept: 413 with this message. */
	size_t max_body;
	const char *too_large;
	/* Shutdown, the grace over with requests still waiting for their
	 * work (a commit the database holds up): make that work end now,
	 * failed if need be. NULL: wait for it. */
	void (*past_grace)(void *ud);
};

/* From handle only, before the work is handed over: suspend the request.
 * state is passed to finish and freed with state_free when the request
 * ends (whether or not it was answered). */
void http_defer(const struct http_request *rq, void *state, void (*state_free)(void *));
/* From any thread, once per http_defer. */
void http_resume(const struct http_request *rq);

struct http_server;

/* Returns 0 or a negative errno after logging why. */
int http_start(struct http_server **out, const struct server_opts *o,
	       const struct http_app *app);
/* Stop accepting, wait up to grace_ms for requests in flight, then stop. */
void http_stop(struct http_server *h, unsigned grace_ms);

#endif
