#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>

#include "api/handlers.h"
#include "cgfb/log.h"

/* HttpOnly: no script reads it; SameSite=Strict: no other site's page
 * sends it (another port of the host is the same site: auth_same_origin
 * is what keeps those out). Over TLS, __Host-: Secure, Path=/ and no
 * Domain, or the browser drops it (RFC 6265bis 4.1.3.2), so a plain-HTTP
 * page of another port can neither set nor shadow it. Over plain HTTP
 * (behind a proxy that ends TLS) the proxy adds Secure; the path keeps
 * it off the page's own requests. */
static void set_cookie(const struct api *a, struct http_reply *rp, const char *value,
		       unsigned max_age)
{
	if (a->o->tls_cert)
		snprintf(rp->set_cookie, sizeof(rp->set_cookie),
			 AUTH_COOKIE_TLS "=%s; Path=/; Max-Age=%u; HttpOnly; SameSite=Strict; "
			 "Secure", value, max_age);
	else
		snprintf(rp->set_cookie, sizeof(rp->set_cookie),
			 AUTH_COOKIE "=%s; Path=/api/v1/; Max-Age=%u; HttpOnly; SameSite=Strict",
			 value, max_age);
}

static void login(struct api *a, const struct http_request *rq, struct http_reply *rp)
{
	char value[AUTH_SESSION_MAX];
	const char *authorization = http_header(rq, "Authorization");
	bool evicted;
	unsigned line;
	json_object *o;

	if (auth_has_bearer(authorization) && !api_guess_allowed(a, rq, rp))
		return;
	line = auth_session_new(&a->auth, authorization, api_mono_s(), value, &evicted);
	if (!line) {
		if (auth_has_bearer(authorization))
			api_guess_failed(a, rq);
		api_error(rp, 401, "unauthorized", "this needs an admin token");
		rp->www_authenticate = true;
		return;
	}
	set_cookie(a, rp, value, AUTH_SESSION_TTL);
	OPENSSL_cleanse(value, sizeof(value));
	/* Which token, never the token: the line of the file it is on. */
	cgfb_log(LOG_NOTICE, "admin session opened from %s with the token of line %u, for %d s",
		 rq->client, line, AUTH_SESSION_TTL);
	if (evicted)
		cgfb_log(LOG_WARNING, "admin sessions: %d live already; the one closest to its "
			 "end was ended for this one", AUTH_SESSIONS);
	o = json_object_new_object();
	json_object_object_add(o, "expires_in", json_object_new_int(AUTH_SESSION_TTL));
	api_json(rp, 200, o);
}

/* The sessions the cookies name end here, whatever copy of them exists:
 * only from the collector's own page, so that another port cannot log the
 * maintainer out either. */
static void logout(struct api *a, const struct http_request *rq, struct http_reply *rp)
{
	const struct auth_request r = api_auth_request(a, rq);
	unsigned n;

	if (!auth_same_origin(&r)) {
		api_error(rp, 403, "forbidden", "a session ends from the dashboard's own page");
		return;
	}
	n = auth_session_end(&a->auth, r.cookie, r.cookie_name);
	if (n)
		cgfb_log(LOG_NOTICE, "admin session closed from %s", rq->client);
	set_cookie(a, rp, "", 0);
	api_json(rp, 200, json_object_new_object());
}

void api_session(struct api *a, const struct http_request *rq, struct http_reply *rp)
{
	if (!a->auth.admin_enabled) {
		api_error(rp, 403, "forbidden", "the admin API is disabled on this server");
	} else if (strcmp(rq->method, "POST") == 0) {
		login(a, rq, rp);
	} else if (strcmp(rq->method, "DELETE") == 0) {
		logout(a, rq, rp);
	} else {
		api_error(rp, 405, "method_not_allowed", "this resource does not take that method");
		rp->allow = "POST, DELETE";
	}
}
