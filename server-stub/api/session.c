#include <stdio.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>

#include "api/handlers.h"
#include "cgfb/log.h"

/* Path=/api/v1/: the page and its assets never see it; HttpOnly: no
 * script reads it; SameSite=Strict: no other site's page sends it. Over
 * plain HTTP (behind a proxy that ends TLS) the proxy adds Secure. */
static void set_cookie(const struct api *a, struct http_reply *rp, const char *value,
		       unsigned max_age)
{
	snprintf(rp->set_cookie, sizeof(rp->set_cookie),
		 AUTH_COOKIE "=%s; Path=/api/v1/; Max-Age=%u; HttpOnly; SameSite=Strict%s", value,
		 max_age, a->o->tls_cert ? "; Secure" : "");
}

static void login(struct api *a, const struct http_request *rq, struct http_reply *rp)
{
	char value[AUTH_SESSION_MAX];
	const time_t now = time(NULL);
	const unsigned line = auth_session_new(&a->auth, http_header(rq, "Authorization"), now,
						value);
	json_object *o;

	if (!line) {
		api_error(rp, 401, "unauthorized", "this needs an admin token");
		rp->www_authenticate = true;
		return;
	}
	set_cookie(a, rp, value, AUTH_SESSION_TTL);
	OPENSSL_cleanse(value, sizeof(value));
	/* Which token, never the token: the line of the file it is on. */
	cgfb_log(LOG_NOTICE, "admin session opened from %s with the token of line %u, for %d s",
		 rq->client, line, AUTH_SESSION_TTL);
	o = json_object_new_object();
	json_object_object_add(o, "expires_in", json_object_new_int(AUTH_SESSION_TTL));
	api_json(rp, 200, o);
}

void api_session(struct api *a, const struct http_request *rq, struct http_reply *rp)
{
	if (!a->auth.admin_enabled) {
		api_error(rp, 403, "forbidden", "the admin API is disabled on this server");
	} else if (strcmp(rq->method, "POST") == 0) {
		login(a, rq, rp);
	} else if (strcmp(rq->method, "DELETE") == 0) {
		/* The cookie is stateless: logging out is the browser forgetting
		 * it. A copy taken before dies at its expiry. */
		set_cookie(a, rp, "", 0);
		api_json(rp, 200, json_object_new_object());
	} else {
		api_error(rp, 405, "method_not_allowed", "this resource does not take that method");
		rp->allow = "POST, DELETE";
	}
}
