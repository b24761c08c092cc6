/* Who may see what: the admin tokens, the dashboard's login sessions, and
 * the per-report deletion token. Secrets are compared by their SHA-256 in
 * constant time, so that neither their length nor the position of the
 * first wrong byte shows.
 *
 * A browser never keeps an admin token: the dashboard trades it once (POST
 * /api/v1/session) for a session cookie (HttpOnly, SameSite=Strict, Secure
 * over TLS) that expires after AUTH_SESSION_TTL seconds and is good for
 * reads only. The cookie is stateless, an expiry signed with a key derived
 * from the token it was made with: every instance with the same token file
 * accepts it, and removing the token from the file (and restarting)
 * revokes its sessions with it. */
#ifndef CGFB_SERVER_AUTH_H
#define CGFB_SERVER_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "http/http.h"

#define AUTH_MAX_TOKENS   16
#define AUTH_SESSION_TTL  3600
#define AUTH_COOKIE       "cgfb_session"
/* "v1." 16 hex "." expiry "." 64 hex */
#define AUTH_SESSION_MAX  112

struct auth_token {
	unsigned char key[32];       /* SHA-256 of the token */
	char id[17];                 /* names the token in a cookie, reveals nothing */
	unsigned line;               /* in the token file, for the log */
};

struct auth {
	bool admin_enabled;
	size_t n;
	struct auth_token tok[AUTH_MAX_TOKENS];
};

/* Read the tokens: one a line (at least 16 characters of RFC 6750's
 * b64token), blank lines and lines starting with '#' skipped. NULL path:
 * the admin API stays disabled. Returns 0 or a negative errno, logged. */
int auth_load(struct auth *a, const char *path);
/* The admin, from a request's method and its Authorization and Cookie
 * headers (NULL: absent): a Bearer token of the file, or, for GET and HEAD
 * only, a live session cookie. */
bool auth_is_admin(const struct auth *a, const char *method, const char *authorization,
		   const char *cookie, time_t now);
/* For POST /api/v1/session: the session value of the Authorization
 * header's Bearer token, expiring at now + AUTH_SESSION_TTL, in out.
 * Returns the token's line in the file, or 0 when it is no admin token. */
unsigned auth_session_new(const struct auth *a, const char *authorization, time_t now,
			  char out[AUTH_SESSION_MAX]);
/* Whether value (the cookie's, len bytes) is a session of one of a's
 * tokens that has not expired at now. */
bool auth_session_valid(const struct auth *a, const char *value, size_t len, time_t now);
/* The value of cookie name in a Cookie header (RFC 6265 5.4), *len bytes;
 * NULL when absent. */
const char *auth_cookie(const char *header, const char *name, size_t *len);
/* The deletion token presented with a DELETE: X-Deletion-Token, or an
 * Authorization: Bearer header, *len bytes long (white space at the end of
 * the header is not part of it). NULL when there is none, or when it has
 * bytes no token has. */
const char *auth_deletion_token(const struct http_request *rq, size_t *len);

#endif
