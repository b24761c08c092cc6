/* The collector's HTTP server (http.h) on libmicrohttpd: connections and
 * their per-address limits, the request head's framing, bodies and their
 * deadline, replies, TLS. Over 600 lines, on purpose: libmicrohttpd's
 * callbacks share the request and connection structures private to this
 * file; what can be judged without it is outside (framing.c, conntrack.c,
 * peer.c). */
#include <arpa/inet.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <netdb.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include <openssl/ssl.h>

#include "cgfb/atomic.h"
#include "cgfb/buf.h"
#include "cgfb/log.h"
#include "cgfb/readfile.h"
#include "http/backlog.h"
#include "http/conntrack.h"
#include "http/framing.h"
#include "http/http.h"
#include "http/peer.h"
#include "http/proxy.h"
#include "http/refusals.h"

/* Headers and security policy of the dashboard: everything from this
 * origin, nothing inline, nothing from anywhere else. */
#define PAGE_CSP "default-src 'none'; script-src 'self'; style-src 'self'; " \
	"connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; " \
	"frame-ancestors 'none'"

struct http_server {
	struct MHD_Daemon *d;
	struct http_app app;
	const struct server_opts *o;
	atomic_int active;           /* requests between first header and completion */
	atomic_int suspended;        /* deferred, not yet resumed */
	struct conntrack *ct;        /* open connections, across all event loops */
	struct refusals *refused;    /* 429s, counted instead of logged each */
	struct refusals *refused_conns;   /* connections refused at accept, likewise */
	atomic_bool closing;
	char *cert, *key;            /* PEM text, kept for the daemon's lifetime */
	struct proxies proxies;      /* --trusted-proxy */
	atomic_bool proxy_warned;    /* a proxy's bad X-Forwarded-For, said once */
};

struct req {
	struct http_request rq;
	struct http_server *h;
	struct timespec start;
	char method[16];
	char path[256];
	char client[INET6_ADDRSTRLEN];
	char client_key[PEER_KEY_MAX];
	unsigned status;
	size_t bytes;
	size_t received;             /* body bytes, kept or not */
	bool begun;                  /* the head is in: counted in active */
	bool replied;
	bool too_big;
	/* The target as sent, judged before libmicrohttpd decodes it in
	 * place (on_uri): why it is refused, and where it ended. */
	const char *target_why;
	const char *target_end;
	bool deferred;
	void *state;                 /* the application's, while deferred */
	void (*state_free)(void *);
};

static struct req *req_of(const struct http_request *rq)
{
	return (struct req *)((char *)rq - offsetof(struct req, rq));
}

void http_defer(const struct http_request *rq, void *state, void (*state_free)(void *))
{
	struct req *r = req_of(rq);

	r->deferred = true;
	r->state = state;
	r->state_free = state_free;
	atomic_fetch_add(&r->h->suspended, 1);
	MHD_suspend_connection(rq->conn);
}

void http_resume(const struct http_request *rq)
{
	struct http_server *h = req_of(rq)->h;

	/* Resumed requests are MHD's to finish even while it stops; only
	 * suspended ones would make MHD_stop_daemon abort. */
	MHD_resume_connection(rq->conn);
	atomic_fetch_sub(&h->suspended, 1);
}

const char *http_header(const struct http_request *rq, const char *name)
{
	return MHD_lookup_connection_value(rq->conn, MHD_HEADER_KIND, name);
}

const char *http_query(const struct http_request *rq, const char *name)
{
	return MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND, name);
}

static double elapsed_ms(const struct req *r)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - r->start.tv_sec) * 1e3 +
	       (double)(now.tv_nsec - r->start.tv_nsec) / 1e6;
}

static const struct sockaddr *peer_sockaddr(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);

	return ci ? ci->client_addr : NULL;
}

static void peer_address(struct MHD_Connection *c, char *out, size_t outsz)
{
	const struct sockaddr *sa = peer_sockaddr(c);
	const socklen_t len = sa && sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
		sizeof(struct sockaddr_in);

	if (!sa || getnameinfo(sa, len, out, (socklen_t)outsz, NULL, 0, NI_NUMERICHOST) != 0)
		snprintf(out, outsz, "unknown");
}

static struct conn *conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

/* The path as the log shows it: a refused target as it was sent, each
 * byte outside visible ASCII as '?', so that no line of the log is cut
 * or started by it. */
static void shown_target(char *out, size_t outsz, const char *target)
{
	size_t i;

	for (i = 0; i + 1 < outsz && target[i]; i++)
		out[i] = target[i] > 0x20 && target[i] < 0x7f ? target[i] : '?';
	out[i] = '\0';
}

/* libmicrohttpd's first look at a request, with the target as the client
 * sent it: it percent-decodes the target in place right after, so that
 * "%00" cuts the path the handler sees. The request's structure is made
 * here, to carry the verdict; it is counted (req_begin) only once the
 * whole head is in, so a head that never completes holds nothing up. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct req *r = calloc(1, sizeof(*r));

	if (!r || !uri)
		return r;
	r->target_end = uri + strlen(uri);
	r->target_why = framing_target(uri, (size_t)(r->target_end - uri));
	if (r->target_why)
		shown_target(r->path, sizeof(r->path), uri);
	return r;
}

struct xff {
	char text[1024];
	size_t len;
};

/* Every X-Forwarded-For field, in order, joined with ",". Past the
 * buffer, the latest fields win: the client is the rightmost. */
static enum MHD_Result add_xff(void *cls, enum MHD_ValueKind kind, const char *key,
			       const char *value)
{
	struct xff *x = cls;
	const size_t n = value ? strlen(value) : 0;

	if (!key || strcasecmp(key, "X-Forwarded-For") != 0)
		return MHD_YES;
	if (x->len + n + 2 > sizeof(x->text))
		x->len = 0;
	if (n + 2 > sizeof(x->text))
		return MHD_YES;
	if (x->len)
		x->text[x->len++] = ',';
	memcpy(x->text + x->len, value, n);
	x->len += n;
	x->text[x->len] = '\0';
	return MHD_YES;
}

/* A request from a trusted proxy is counted and logged as the client the
 * proxy names; without a name, as the proxy. */
static void from_proxy(struct req *r, struct http_server *h, struct MHD_Connection *c)
{
	struct xff x = { .len = 0 };
	struct sockaddr_storage ss;
	int rc;

	x.text[0] = '\0';
	MHD_get_connection_values(c, MHD_HEADER_KIND, add_xff, &x);
	rc = proxies_client(&h->proxies, x.text, &ss);
	if (rc == 0) {
		inet_ntop(ss.ss_family, ss.ss_family == AF_INET ?
			  (const void *)&((const struct sockaddr_in *)&ss)->sin_addr :
			  (const void *)&((const struct sockaddr_in6 *)&ss)->sin6_addr,
			  r->client, sizeof(r->client));
		peer_key((const struct sockaddr *)&ss, r->client_key);
	} else if (rc == -EINVAL && !atomic_exchange(&h->proxy_warned, true)) {
		cgfb_log(LOG_WARNING, "trusted proxy %s sent an X-Forwarded-For whose last "
			 "address is no address: its requests are counted as its own "
			 "(said once)", r->client);
	}
}

static void req_begin(struct req *r, struct http_server *h, struct MHD_Connection *c,
		      const char *url, const char *method)
{
	r->begun = true;
	clock_gettime(CLOCK_MONOTONIC, &r->start);
	snprintf(r->method, sizeof(r->method), "%s", method);
	if (!r->target_why)
		snprintf(r->path, sizeof(r->path), "%s", url);
	peer_address(c, r->client, sizeof(r->client));
	peer_key(peer_sockaddr(c), r->client_key);
	if (h->proxies.n && proxies_trusted(&h->proxies, peer_sockaddr(c)))
		from_proxy(r, h, c);
	r->h = h;
	/* HEAD is GET without the body, which libmicrohttpd drops: the
	 * application routes it as GET, the log says HEAD. */
	r->rq.method = strcmp(method, MHD_HTTP_METHOD_HEAD) == 0 ? MHD_HTTP_METHOD_GET : r->method;
	r->rq.path = url;
	r->rq.client = r->client;
	r->rq.client_key = r->client_key;
	r->rq.conn = c;
	atomic_fetch_add(&h->active, 1);
}

static void add_headers(struct http_server *h, struct MHD_Response *resp,
			const struct http_reply *rp)
{
	char num[16];

	MHD_add_response_header(resp, "Content-Type",
				rp->content_type ? rp->content_type : "application/json");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "Cache-Control",
				rp->cache_control[0] ? rp->cache_control : "no-store");
	MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
	if (rp->page) {
		MHD_add_response_header(resp, "Content-Security-Policy", PAGE_CSP);
		MHD_add_response_header(resp, "X-Frame-Options", "DENY");
	}
	if (rp->retry_after) {
		snprintf(num, sizeof(num), "%u", rp->retry_after);
		MHD_add_response_header(resp, "Retry-After", num);
	}
	if (rp->allow)
		MHD_add_response_header(resp, "Allow", rp->allow);
	if (rp->www_authenticate)
		MHD_add_response_header(resp, "WWW-Authenticate", "Bearer realm=\"cgroup-feedback\"");
	if (rp->location[0])
		MHD_add_response_header(resp, "Location", rp->location);
	if (rp->etag[0])
		MHD_add_response_header(resp, "ETag", rp->etag);
	if (rp->set_cookie[0])
		MHD_add_response_header(resp, "Set-Cookie", rp->set_cookie);
	/* Shutting down: no keep-alive, so nobody starts another request.
	 * A request whose framing is in doubt: nothing after it on this
	 * connection can be trusted to start where it seems to. */
	if (atomic_load(&h->closing) || rp->close)
		MHD_add_response_header(resp, "Connection", "close");
}

struct stream {
	ssize_t (*read)(void *cls, char *buf, size_t max);
	void (*free)(void *cls);
	void *cls;
};

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	const struct stream *st = cls;
	const ssize_t n = st->read(st->cls, buf, max);

	if (n == 0)
		return MHD_CONTENT_READER_END_OF_STREAM;
	return n < 0 ? MHD_CONTENT_READER_END_WITH_ERROR : n;
}

static void stream_free(void *cls)
{
	struct stream *st = cls;

	st->free(st->cls);
	free(st);
}

/* Hands the stream of rp to MHD, which frees it (or frees it now). */
static struct MHD_Response *stream_response(struct http_reply *rp)
{
	struct stream *st = malloc(sizeof(*st));
	struct MHD_Response *resp = NULL;

	if (st) {
		*st = (struct stream){ rp->stream_read, rp->stream_free, rp->stream_cls };
		resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 64 * 1024, stream_read,
							 st, stream_free);
		if (!resp)
			free(st);
	}
	if (!resp)
		rp->stream_free(rp->stream_cls);
	rp->stream_read = NULL;
	return resp;
}

static ssize_t no_body(void *cls, uint64_t pos, char *buf, size_t max)
{
	return MHD_CONTENT_READER_END_OF_STREAM;
}

/* The answer to HEAD where GET streams (the mbox export): the same status
 * and header fields, no body (RFC 9110 9.3.2). libmicrohttpd 0.9.75 frames
 * a stream of unknown length as chunked and sends the last chunk
 * ("0" CRLF CRLF) even to HEAD, a body the client reads as the start of
 * the next answer. Without chunked the end of a body of unknown length is
 * the connection's end, so libmicrohttpd sends neither Transfer-Encoding
 * (which HEAD may leave out, RFC 9112 6.1) nor a Content-Length (which it
 * must not send unless it is GET's, RFC 9110 8.6) and closes. Nothing is
 * read: the stream is freed unread. */
static struct MHD_Response *head_of_stream(struct http_reply *rp)
{
	struct MHD_Response *resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 1024,
								       no_body, NULL, NULL);

	rp->stream_free(rp->stream_cls);
	rp->stream_read = NULL;
	if (resp && MHD_set_response_options(resp, MHD_RF_HTTP_1_0_COMPATIBLE_STRICT,
					     MHD_RO_END) != MHD_YES) {
		MHD_destroy_response(resp);
		resp = NULL;
	}
	return resp;
}

static enum MHD_Result reply(struct req *r, struct http_reply *rp)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	if (rp->stream_read && strcmp(r->method, MHD_HTTP_METHOD_HEAD) == 0)
		resp = head_of_stream(rp);
	else if (rp->stream_read)
		resp = stream_response(rp);
	else
		resp = MHD_create_response_from_buffer(rp->body.len, rp->body.data,
						       MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		cgfb_buf_free(&rp->body);
		return MHD_NO;
	}
	rp->body.data = NULL;
	add_headers(r->h, resp, rp);
	ret = MHD_queue_response(r->rq.conn, rp->status, resp);
	MHD_destroy_response(resp);
	r->replied = true;
	r->status = rp->status;
	r->bytes = rp->body.len;
	return ret;
}

static enum MHD_Result reply_error(struct req *r, unsigned status, const char *error,
				   const char *message)
{
	struct http_reply rp = { .status = status };

	cgfb_buf_printf(&rp.body, "{\"error\":\"%s\",\"message\":\"%s\"}\n", error, message);
	return reply(r, &rp);
}

/* Whether libmicrohttpd 0.9.75 made this field of one line. It keeps a
 * field where it was read, the value after the name, its colon (now a
 * NUL) and the white space it skipped; a field it joined from folded lines
 * (obs-fold) has its name copied elsewhere in the connection's memory pool
 * with the continuation appended to it, and its value left where it was
 * (seen: "Content-Length7" and "4" for "Content-Length: 4" CRLF " 7"). The
 * bytes between are read only when the value lies after the name, both in
 * the one pool. */
static bool one_line(const char *key, size_t key_size, const char *value)
{
	const char *p = key + key_size + 1;

	if (!value || value < p || key[key_size] != '\0')
		return false;
	while (p < value && (*p == ' ' || *p == '\t'))
		p++;
	return p == value;
}

static enum MHD_Result judge_field(void *cls, enum MHD_ValueKind kind, const char *key,
				   size_t key_size, const char *value, size_t value_size)
{
	framing_field(cls, key, key_size, value ? value : "", value ? value_size : 0,
		      !one_line(key, key_size, value));
	return MHD_YES;
}

/* The head's verdict (framing.c) on the target and the fields
 * libmicrohttpd parsed, before any byte of the body is read: 0 or the
 * status of the refusal. A NUL in the target ended what on_uri saw: the
 * version, which follows the target and one space, is then further on. */
static unsigned head_verdict(const struct req *r, struct MHD_Connection *c,
			     const char *version, const char **why)
{
	struct framing f = { 0 };

	*why = r->target_why;
	if (!*why && r->target_end && version[0] && version != r->target_end + 1)
		*why = "a request target with a NUL";
	if (*why)
		return 400;
	MHD_get_connection_values_n(c, MHD_HEADER_KIND, judge_field, &f);
	return framing_verdict(&f, strcmp(version, MHD_HTTP_VERSION_1_1) == 0, why);
}

static enum MHD_Result refuse_head(struct req *r, unsigned status, const char *why)
{
	struct http_reply rp = { .status = status, .close = true };

	cgfb_buf_printf(&rp.body, "{\"error\":\"%s\",\"message\":\"%s\"}\n",
			status == 501 ? "not_implemented" : "bad_request", why);
	return reply(r, &rp);
}

/* How much of a body over max_body is read (and dropped) so that its
 * sender gets the 413, in multiples of max_body. */
#define HTTP_DISCARD_MAX 4

static enum MHD_Result take_body(struct req *r, const char *data, size_t *size)
{
	const struct server_opts *o = r->h->o;

	if (elapsed_ms(r) > o->request_timeout * 1e3) {
		/* Dropping the connection is the answer to a body that
		 * trickles in: it frees the thread for someone else. */
		r->status = 408;
		return MHD_NO;
	}
	if (!r->too_big && r->rq.body.len + *size > r->h->app.max_body) {
		r->too_big = true;
		cgfb_buf_free(&r->rq.body);
	}
	/* A chunked body says its size one chunk at a time, in a chunk-size
	 * line libmicrohttpd 0.9.75 reads itself: a chunk announcing 2^63
	 * bytes is neither shown to us nor refused, and an answer can be
	 * queued only with the head or after the whole body. So a body far
	 * over the limit ends the connection, unanswered, instead of being
	 * read until the request timeout (4 connections pushed 39 GB in
	 * 15 s); one a little over still gets its 413. */
	r->received += *size;
	if (r->too_big && r->received > HTTP_DISCARD_MAX * r->h->app.max_body) {
		r->status = 413;
		return MHD_NO;
	}
	if (!r->too_big && cgfb_buf_add(&r->rq.body, data, *size) < 0)
		return MHD_NO;
	*size = 0;
	return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct http_server *h = cls;
	struct req *r = *con_cls;
	struct http_reply rp = { 0 };
	const char *why;
	unsigned status;

	/* No request structure: on_uri could not allocate one. */
	if (!r)
		return MHD_NO;
	if (!r->begun) {
		req_begin(r, h, c, url, method);
		conntrack_head_done(h->ct, conn_of(c));
		status = head_verdict(r, c, version, &why);
		if (status)
			return refuse_head(r, status, why);
		/* A request that starts after SIGTERM is answered, not served:
		 * the listening socket stays with libmicrohttpd until it stops
		 * (http_stop says why), so connections keep coming in. */
		if (atomic_load(&h->closing)) {
			rp.status = 503;
			rp.retry_after = HTTP_SHUTDOWN_RETRY_AFTER;
			cgfb_buf_printf(&rp.body, "{\"error\":\"unavailable\",\"message\":\"the "
					"collector is stopping; retry later\"}\n");
			return reply(r, &rp);
		}
		if (h->app.precheck(h->app.ud, &r->rq, &rp))
			return reply(r, &rp);
		return MHD_YES;
	}
	if (*upload_size && r->replied) {
		*upload_size = 0;
		return MHD_YES;
	}
	if (*upload_size)
		return take_body(r, upload, upload_size);
	if (r->replied)
		return MHD_YES;
	if (r->too_big)
		return reply_error(r, 413, "too_large", r->h->app.too_large);
	if (r->deferred) {
		h->app.finish(h->app.ud, &r->rq, r->state, &rp);
		return reply(r, &rp);
	}
	h->app.handle(h->app.ud, &r->rq, &rp);
	if (r->deferred)
		return MHD_YES;
	return reply(r, &rp);
}

/* A client that went away while its request was deferred gets no answer,
 * but the work was done (its report stored, say): log the answer it would
 * have had, so that the 201s in the log still count the reports stored.
 * The work is finished by now: a suspended request never completes. */
static void log_unanswered(struct http_server *h, struct req *r)
{
	struct http_reply rp = { 0 };

	h->app.finish(h->app.ud, &r->rq, r->state, &rp);
	cgfb_buf_free(&rp.body);
	if (rp.stream_read)
		rp.stream_free(rp.stream_cls);
	if (!h->o->quiet)
		cgfb_log(LOG_INFO, "%s %s %u 0 %.1fms (client left before its answer)",
			 r->method, r->path, rp.status, elapsed_ms(r));
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Whether the request's line goes to the log: a 429 does only when it is
 * its key's first in the interval (refusals.h). */
static bool worth_a_line(struct http_server *h, const struct req *r)
{
	if (h->o->quiet)
		return false;
	return r->status != 429 || refusals_note(h->refused, r->client_key, "rate limit", now_s());
}

/* ud: what was refused, "requests" or "connections". */
static void log_refused(void *ud, const char *key, const char *why, unsigned long n,
			unsigned seconds)
{
	cgfb_log(LOG_WARNING, "refused %lu %s from %s in the last %u s (%s)", n, (const char *)ud,
		 key, seconds, why);
}

static void flush_refusals(struct http_server *h, bool all)
{
	const double now = now_s();

	refusals_flush(h->refused, now, all, log_refused, "requests");
	refusals_flush(h->refused_conns, now, all, log_refused, "connections");
}

static void on_tick(void *cls)
{
	flush_refusals(cls, false);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct http_server *h = cls;
	struct req *r = *con_cls;

	if (!r)
		return;
	/* A head libmicrohttpd refused itself, or a connection closed in
	 * the middle of one: nothing was counted. */
	if (!r->begun) {
		free(r);
		*con_cls = NULL;
		return;
	}
	if (r->deferred && !r->replied)
		log_unanswered(h, r);
	else if (worth_a_line(h, r))
		cgfb_log(LOG_INFO, "%s %s %u %zu %.1fms%s", r->method, r->path, r->status,
			 r->bytes, elapsed_ms(r),
			 toe == MHD_REQUEST_TERMINATED_COMPLETED_OK ? "" : " (aborted)");
	if (r->state_free)
		r->state_free(r->state);
	cgfb_buf_free(&r->rq.body);
	free(r);
	*con_cls = NULL;
	conntrack_wait_head(h->ct, conn_of(c));
	atomic_fetch_sub(&h->active, 1);
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	size_t n;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && msg[n - 1] == '\n')
		msg[--n] = '\0';
	cgfb_log(LOG_WARNING, "http: %s", msg);
}

/* A refused connection has no request to log: an attack at accept would
 * leave no trace. Its key's first refusal of an interval is a line, the
 * rest are counted (refusals.h), as for 429s. */
static void log_refused_connection(struct http_server *h, const struct sockaddr *addr,
				   const char *why)
{
	char key[PEER_KEY_MAX];

	if (peer_key(addr, key) < 0)
		snprintf(key, sizeof(key), "an address of family %d", addr->sa_family);
	if (refusals_note(h->refused_conns, key, why, now_s()))
		cgfb_log(LOG_WARNING, "refused a connection from %s (%s)", key, why);
}

/* --max-connections for the whole server and --max-per-ip per address
 * key (conntrack.h): libmicrohttpd would split the first between its
 * event loops, so that one loop could refuse while another had room, and
 * keys the second by full address. Loops that accept at the same instant
 * may each pass the check (at most one connection over per extra loop). */
static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
	struct http_server *h = cls;
	const char *why;
	const bool ok = proxies_trusted(&h->proxies, addr) ? conntrack_admit_proxy(h->ct, addr, &why) :
							     conntrack_admit(h->ct, addr, &why);

	if (!ok)
		log_refused_connection(h, addr, why);
	return ok ? MHD_YES : MHD_NO;
}

/* The client's Finished is in: its TLS handshake is complete. libmicrohttpd
 * says nothing of a handshake's end (it only moves on to read the head,
 * connection_https.c:148-153), so GnuTLS, which runs it, says it: the
 * session's pointer is the libmicrohttpd connection (daemon.c:2635), whose
 * socket context is conntrack's. */
static int on_handshake_msg(gnutls_session_t session, unsigned int htype, unsigned when,
			    unsigned int incoming, const gnutls_datum_t *msg)
{
	struct MHD_Connection *c = gnutls_session_get_ptr(session);
	const union MHD_ConnectionInfo *ctx;

	if (c && incoming && htype == GNUTLS_HANDSHAKE_FINISHED &&
	    (ctx = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT)) != NULL)
		conntrack_handshake_done(ctx->socket_context);
	return 0;
}

/* libmicrohttpd 0.9.75 reports CLOSED before it closes the socket, so the
 * reaper never shuts down a descriptor number that was reused. STARTED
 * comes after the TLS session is set up and before its handshake
 * (daemon.c:2588-2680, 2811-2815). */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_ctx,
			  enum MHD_ConnectionNotificationCode code)
{
	struct http_server *h = cls;
	const union MHD_ConnectionInfo *fd, *tls;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		fd = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		*socket_ctx = fd ? conntrack_add(h->ct, peer_sockaddr(c), fd->connect_fd) : NULL;
		tls = h->cert ? MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION) : NULL;
		if (tls && tls->tls_session)
			gnutls_handshake_set_hook_function(tls->tls_session, GNUTLS_HANDSHAKE_FINISHED,
							   GNUTLS_HOOK_POST, on_handshake_msg);
	} else {
		conntrack_remove(h->ct, *socket_ctx);
		*socket_ctx = NULL;
	}
}

/* ADDR:PORT or [ADDR6]:PORT, numeric only. */
static int parse_listen(const char *spec, struct sockaddr_storage *ss)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon = strrchr(spec, ':');
	char *end;
	long port;
	size_t n;

	if (!colon || (n = (size_t)(colon - spec)) == 0 || n >= sizeof(host))
		return -EINVAL;
	memcpy(host, spec, n);
	host[n] = '\0';
	port = strtol(colon + 1, &end, 10);
	if (colon[1] == '\0' || *end || port < 0 || port > 65535)
		return -EINVAL;
	memset(ss, 0, sizeof(*ss));
	if (host[0] == '[' && host[n - 1] == ']') {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		host[n - 1] = '\0';
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		return inet_pton(AF_INET6, host + 1, &s6->sin6_addr) == 1 ? 0 : -EINVAL;
	}
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	s4->sin_family = AF_INET;
	s4->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, host, &s4->sin_addr) == 1 ? 0 : -EINVAL;
}

/* Certificate or key text, NUL-terminated as libmicrohttpd wants it. */
static int read_file(const char *path, char **out)
{
	struct cgfb_buf b = { 0 };
	const int rc = cgfb_read_file(path, 1 << 20, 0, &b);

	if (rc < 0 || !b.data) {
		cgfb_buf_free(&b);
		return rc < 0 ? rc : -ENODATA;
	}
	*out = b.data;
	return 0;
}

/* libmicrohttpd's TLS errors say little; OpenSSL tells which file is wrong
 * and whether the key belongs to the certificate, before we start. */
static int check_tls(const struct server_opts *o)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	int rc = -EINVAL;

	if (!ctx)
		return -ENOMEM;
	/* The key first: loading it after the certificate would fail on a
	 * mismatch with a misleading "not a key". */
	if (SSL_CTX_use_PrivateKey_file(ctx, o->tls_key, SSL_FILETYPE_PEM) != 1)
		cgfb_log(LOG_ERR, "%s: not a PEM private key", o->tls_key);
	else if (SSL_CTX_use_certificate_chain_file(ctx, o->tls_cert) != 1)
		cgfb_log(LOG_ERR, "%s: not a PEM certificate", o->tls_cert);
	else if (SSL_CTX_check_private_key(ctx) != 1)
		cgfb_log(LOG_ERR, "%s does not belong to %s", o->tls_key, o->tls_cert);
	else
		rc = 0;
	SSL_CTX_free(ctx);
	return rc;
}

static int load_tls(struct http_server *h)
{
	const struct server_opts *o = h->o;
	int rc;

	if (!MHD_is_feature_supported(MHD_FEATURE_TLS)) {
		cgfb_log(LOG_ERR, "this libmicrohttpd has no TLS support");
		return -ENOTSUP;
	}
	rc = check_tls(o);
	if (rc < 0)
		return rc;
	rc = read_file(o->tls_cert, &h->cert);
	if (rc == 0)
		rc = read_file(o->tls_key, &h->key);
	if (rc < 0)
		cgfb_log(LOG_ERR, "TLS files: %s", strerror(-rc));
	return rc;
}

static int write_port(const char *path, unsigned port)
{
	char d[PATH_MAX], b[PATH_MAX], text[16];
	const int n = snprintf(text, sizeof(text), "%u\n", port);

	snprintf(d, sizeof(d), "%s", path);
	snprintf(b, sizeof(b), "%s", path);
	return cgfb_atomic_write(dirname(d), basename(b), text, (size_t)n, 0644);
}

static struct MHD_Daemon *start_daemon(struct http_server *h, const struct sockaddr_storage *ss)
{
	const struct server_opts *o = h->o;
	const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	const unsigned loops = (unsigned)(cpus > 1 && cpus < 256 ? cpus : 1);
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
			 MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;

	/* [::] is every address, IPv4 ones too (as IPv4-mapped peers, which
	 * peer.c counts as IPv4); a given IPv6 address is that one only. */
	if (ss->ss_family == AF_INET6)
		flags |= IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)ss)->sin6_addr) ?
			 MHD_USE_DUAL_STACK : MHD_USE_IPv6;
	if (h->cert)
		flags |= MHD_USE_TLS;
	return MHD_start_daemon(
		flags, 0, on_accept, h, on_request, h,
		MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, h,
		MHD_OPTION_SOCK_ADDR, ss,
		MHD_OPTION_THREAD_POOL_SIZE, loops,
		/* Each loop may take them all; on_accept keeps the total. */
		MHD_OPTION_CONNECTION_LIMIT, o->max_connections * loops,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
		MHD_OPTION_CONNECTION_TIMEOUT, o->idle_timeout,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
		MHD_OPTION_URI_LOG_CALLBACK, on_uri, h,
		/* Not MHD_OPTION_LISTENING_ADDRESS_REUSE: set to 1 it adds
		 * SO_REUSEPORT (libmicrohttpd 0.9.75 daemon.c:6754-6794), and a
		 * second collector started on the same port silently took half
		 * of the connections into its own database. Left at 0, only
		 * SO_REUSEADDR (daemon.c:6734-6752): a restart binds over
		 * TIME_WAIT, a port with a listener is EADDRINUSE. */
		h->cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, h->cert,
		MHD_OPTION_HTTPS_MEM_KEY, h->key,
		MHD_OPTION_HTTPS_PRIORITIES, o->tls_priorities,
		MHD_OPTION_END);
}

/* Why libmicrohttpd could not listen on ss: it logs bind's error but
 * does not keep errno (daemon.c:6912-6921 closes the socket first), so
 * the bind is tried again here, as it does it (SO_REUSEADDR only), to
 * name the reason. A negative errno. */
static int why_not_listening(const struct sockaddr_storage *ss)
{
	const socklen_t len = ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
							  sizeof(struct sockaddr_in);
	const int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	const int on = 1;
	int rc = -EADDRNOTAVAIL;

	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) == 0 &&
	    bind(fd, (const struct sockaddr *)ss, len) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

int http_start(struct http_server **out, const struct server_opts *o,
	       const struct http_app *app)
{
	struct http_server *h = calloc(1, sizeof(*h));
	struct sockaddr_storage ss;
	const union MHD_DaemonInfo *di;
	const unsigned log_interval = o->test_log_interval ? o->test_log_interval :
				      REFUSALS_INTERVAL;
	int rc;

	if (!h)
		return -ENOMEM;
	h->app = *app;
	h->o = o;
	rc = parse_listen(o->listen, &ss);
	if (rc < 0) {
		cgfb_log(LOG_ERR, "--listen %s: want ADDR:PORT or [ADDR6]:PORT", o->listen);
		goto fail;
	}
	for (unsigned i = 0; i < o->n_trusted_proxy; i++) {
		rc = proxies_parse(&h->proxies, o->trusted_proxy[i]);
		if (rc < 0) {
			cgfb_log(LOG_ERR, "--trusted-proxy %s: want IPv4 or IPv6 addresses or "
				 "networks, ADDR[/BITS] separated by commas, %d at most",
				 o->trusted_proxy[i], PROXY_MAX);
			goto fail;
		}
	}
	rc = o->tls_cert ? load_tls(h) : 0;
	if (rc < 0)
		goto fail;
	rc = refusals_new(&h->refused, log_interval);
	if (rc == 0)
		rc = refusals_new(&h->refused_conns, log_interval);
	if (rc == 0)
		rc = conntrack_start(&h->ct, o->max_connections, o->max_per_ip, o->head_timeout);
	if (rc < 0) {
		cgfb_log(LOG_ERR, "cannot start the connection reaper: %s", strerror(-rc));
		goto fail;
	}
	conntrack_on_tick(h->ct, on_tick, h);
	if (h->cert)
		conntrack_tls(h->ct);
	h->d = start_daemon(h, &ss);
	if (!h->d) {
		rc = why_not_listening(&ss);
		cgfb_log(LOG_ERR, "cannot listen on %s: %s%s", o->listen, strerror(-rc),
			 rc == -EADDRINUSE ? " (another program, or another collector, listens "
			 "there: refusing to share the port)" : "");
		goto fail;
	}
	di = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	cgfb_log(LOG_INFO, "listening on %s://%s (port %u)", h->cert ? "https" : "http", o->listen,
		 di ? di->port : 0);
	if (o->port_file && di && (rc = write_port(o->port_file, di->port)) < 0) {
		cgfb_log(LOG_ERR, "%s: %s", o->port_file, strerror(-rc));
		goto fail;
	}
	*out = h;
	return 0;
fail:
	http_stop(h, 0);
	return rc;
}

void http_stop(struct http_server *h, unsigned grace_ms)
{
	MHD_socket fd;

	if (!h)
		return;
	if (h->d) {
		/* Not MHD_quiesce_daemon(): with epoll event loops on threads of
		 * their own it races the loops for the listening socket's removal
		 * from their epoll sets, and the loser's ENOENT is a
		 * MHD_PANIC() (libmicrohttpd 0.9.75 daemon.c, seen aborting a
		 * stop: 'Failed to remove listen FD from epoll set'). The socket
		 * stays libmicrohttpd's: what it accepts from now on is answered
		 * 503 (on_request), and what the kernel queued is drained here
		 * beside it, then MHD_stop_daemon() closes it. */
		const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_LISTEN_FD);

		atomic_store(&h->closing, true);
		fd = info ? info->listen_fd : MHD_INVALID_SOCKET;
		if (fd != MHD_INVALID_SOCKET) {
			const unsigned n = backlog_refuse(fd, h->cert != NULL, HTTP_SHUTDOWN_RETRY_AFTER);

			if (n)
				cgfb_log(LOG_INFO, "answered %u queued connection%s 503", n,
					 n == 1 ? "" : "s");
		}
		/* A request already sent on an accepted connection but not yet
		 * parsed is in flight too: it is answered (503), not cut off.
		 * Quiet for 50 ms, not for one look: a connection accepted just
		 * before the quiesce is counted only once libmicrohttpd has told
		 * conntrack of it. */
		for (unsigned t = 0, quiet = 0; t < grace_ms && quiet < 5; t += 10) {
			const bool busy = atomic_load(&h->active) > 0 ||
					  conntrack_unread_heads(h->ct) > 0;

			quiet = busy ? 0 : quiet + 1;
			usleep(10000);
		}
		if (atomic_load(&h->active) > 0) {
			cgfb_log(LOG_WARNING, "%d requests still running at shutdown",
				 atomic_load(&h->active));
			if (h->app.past_grace)
				h->app.past_grace(h->app.ud);
		}
		/* A request waiting for its commit is answered whatever the
		 * grace (libmicrohttpd cannot stop with a suspended connection):
		 * past_grace made the writer give up what the database holds
		 * up. */
		while (atomic_load(&h->suspended) > 0)
			usleep(10000);
		/* A request just resumed has its answer still to be sent by its
		 * event loop, and MHD_stop_daemon() closes every connection as
		 * it is: wait (a little) for the requests to complete. The
		 * clean-clone run of c4f0b45 lost a resumed write's 503 so, on
		 * the ASan build. */
		for (unsigned t = 0; t < HTTP_STOP_FLUSH_MS && atomic_load(&h->active) > 0; t += 10)
			usleep(10000);
		MHD_stop_daemon(h->d);
	}
	conntrack_stop(h->ct);
	if (h->refused && h->refused_conns)
		flush_refusals(h, true);
	refusals_free(h->refused);
	refusals_free(h->refused_conns);
	free(h->cert);
	free(h->key);
	free(h);
}
