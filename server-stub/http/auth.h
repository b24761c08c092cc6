/* Who may see what: the admin tokens, the dashboard's login sessions, and
 * the per-report deletion token. Secrets are compared by their SHA-256 in
 * constant time, so that neither their length nor the position of the
 * first wrong byte shows.
 *
 * A browser never keeps an admin token: the dashboard trades it once (POST
 * /api/v1/session) for a session cookie (HttpOnly, SameSite=Strict; over
 * TLS named with the __Host- prefix, Secure, Path=/) that is good for reads
 * only. The cookie's value is 256 random bits naming an entry of a table
 * this process keeps (AUTH_SESSIONS entries, each ending AUTH_SESSION_TTL
 * seconds after the login on the monotonic clock): logging out removes the
 * entry, so a copy of the cookie taken before is worth nothing, and a
 * restart ends every session. The browser sends a cookie to every port of
 * the host and SameSite does not tell ports apart, so a cookie counts only
 * with a same-origin proof (auth_same_origin); and another port may plant
 * a cookie of the same name, so every one of that name is tried. */
#ifndef CGFB_SERVER_AUTH_H
#define CGFB_SERVER_AUTH_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "http/http.h"

#define AUTH_MAX_TOKENS   16
#define AUTH_SESSION_TTL  3600
/* Live sessions at once; a login past it ends the one closest to its end. */
#define AUTH_SESSIONS     64
/* Plain HTTP (a proxy ending TLS in front): a cookie the proxy marks
 * Secure. With --tls-cert: the __Host- prefix makes the browser refuse
 * the name unless it is Secure, Path=/ and without Domain (RFC 6265bis
 * 4.1.3.2), so a page of another port over plain HTTP cannot set it. */
#define AUTH_COOKIE       "cgfb_session"
#define AUTH_COOKIE_TLS   "__Host-cgfb_session"
/* 64 hex digits and the NUL */
#define AUTH_SESSION_MAX  65
/* A token file's token carries at least this many bits by
 * auth_token_bits's estimate: 22 characters of the 64 of base64, or 32 hex
 * digits (what `od -An -N32 -tx1 /dev/urandom` makes has 256). */
#define AUTH_TOKEN_BITS   128

struct auth_token {
	unsigned char key[32];       /* SHA-256 of the token */
	unsigned line;               /* in the token file, for the log */
};

struct auth_session {
	unsigned char key[32];       /* SHA-256 of the cookie's value */
	int64_t end;                 /* monotonic seconds; 0: a free entry */
	unsigned line;               /* of the token it was opened with */
};

struct auth {
	bool admin_enabled;
	size_t n;
	struct auth_token tok[AUTH_MAX_TOKENS];
	/* Read from the reader threads too (GET /api/v1/reports). */
	pthread_mutex_t lock;
	struct auth_session sess[AUTH_SESSIONS];
};

/* What a request shows of itself, for auth_is_admin (NULL: absent). */
struct auth_request {
	const char *method;
	const char *authorization;
	const char *cookie;          /* the Cookie header */
	const char *cookie_name;     /* AUTH_COOKIE or AUTH_COOKIE_TLS */
	const char *sec_fetch_site, *origin, *host;
};

/* Read the tokens: one a line (RFC 6750's b64token, with at least
 * AUTH_TOKEN_BITS by auth_token_bits), blank lines and lines starting with
 * '#' skipped. NULL path: the admin API stays disabled. Returns 0 or a
 * negative errno, logged. */
int auth_load(struct auth *a, const char *path);
void auth_free(struct auth *a);
/* The bits a token of n bytes carries if each character was drawn at
 * random from the character classes it uses (hex digits 16, digits 10,
 * each case of letters 26, "-._~+/" 6; '=' at the end counts for nothing);
 * 0 when it has fewer than 8 different characters, which a random token of
 * 22 characters or more has with a chance under 1 in 10^7. */
unsigned auth_token_bits(const char *t, size_t n);
/* The admin: a Bearer token of the file (any method), or, for GET and HEAD
 * only and with auth_same_origin, one of the cookies named cookie_name
 * naming a live session. now: monotonic seconds. */
bool auth_is_admin(struct auth *a, const struct auth_request *r, int64_t now);
/* Whether the Authorization header holds a Bearer token (right or wrong):
 * a guess to count. */
bool auth_has_bearer(const char *authorization);
/* Whether the request comes from a page of the collector's own origin:
 * Sec-Fetch-Site "same-origin" (Chromium 76, Firefox 90, Safari 16.4 send
 * it on every request); without it, an Origin whose host and port are the
 * Host header's. */
bool auth_same_origin(const struct auth_request *r);
/* For POST /api/v1/session: a new session for the Authorization header's
 * Bearer token, ending at now + AUTH_SESSION_TTL, its cookie value in out.
 * Returns the token's line in the file, or 0 when it is no admin token;
 * *evicted is set when a live session was ended to make room. */
unsigned auth_session_new(struct auth *a, const char *authorization, int64_t now,
			  char out[AUTH_SESSION_MAX], bool *evicted);
/* Whether value (len bytes) names a live session at now. */
bool auth_session_valid(struct auth *a, const char *value, size_t len, int64_t now);
/* Logging out: ends every session that a cookie named name in the Cookie
 * header names. Returns how many. */
unsigned auth_session_end(struct auth *a, const char *cookie, const char *name);
/* The value of the first cookie name in a Cookie header (RFC 6265 5.4),
 * *len bytes; NULL when absent. The next one of the name:
 * auth_cookie(value + *len, name, len). */
const char *auth_cookie(const char *header, const char *name, size_t *len);
/* The deletion token presented with a DELETE: X-Deletion-Token, or an
 * Authorization: Bearer header, *len bytes long (white space at the end of
 * the header is not part of it). NULL when there is none, or when it has
 * bytes no token has. */
const char *auth_deletion_token(const struct http_request *rq, size_t *len);

#endif
