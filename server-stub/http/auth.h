/* Who may see what: the admin bearer token, and the per-report deletion
 * token. Secrets are compared by their SHA-256 in constant time, so that
 * neither their length nor the position of the first wrong byte shows. */
#ifndef CGFB_SERVER_AUTH_H
#define CGFB_SERVER_AUTH_H

#include <stdbool.h>

#include "http/http.h"

struct auth {
	bool admin_enabled;
	char admin_sha256[65];
};

/* Read the token (first line of path; at least 16 characters). NULL path:
 * the admin API stays disabled. Returns 0 or a negative errno, logged. */
int auth_load(struct auth *a, const char *path);
bool auth_is_admin(const struct auth *a, const struct http_request *rq);
/* The deletion token presented with a DELETE: X-Deletion-Token, or an
 * Authorization: Bearer header, *len bytes long (white space at the end of
 * the header is not part of it). NULL when there is none, or when it has
 * bytes no token has. */
const char *auth_deletion_token(const struct http_request *rq, size_t *len);

#endif
