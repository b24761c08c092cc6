#include <stdio.h>
#include <time.h>

#include "cgfb/log.h"

#include "api/api_util.h"

void api_error(struct http_reply *rp, unsigned status, const char *error, const char *message)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "error", json_object_new_string(error));
	json_object_object_add(o, "message", json_object_new_string(message));
	api_json(rp, status, o);
	/* Every 503 is temporary: a client is told when to try again (a
	 * caller with a better idea sets its own afterwards). */
	if (status == 503 && !rp->retry_after)
		rp->retry_after = 1;
}

void api_json(struct http_reply *rp, unsigned status, json_object *o)
{
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						       JSON_C_TO_STRING_NOSLASHESCAPE);

	rp->status = status;
	rp->content_type = "application/json";
	rp->body.len = 0;
	if (cgfb_buf_adds(&rp->body, s) < 0 || cgfb_buf_add(&rp->body, "\n", 1) < 0)
		rp->status = 500;
	json_object_put(o);
}

struct store *api_reader(struct api *a, struct http_reply *rp)
{
	struct store *s = NULL;
	int rc = 0;

	pthread_mutex_lock(&a->lock);
	if (a->n_readers)
		s = a->readers[--a->n_readers];
	pthread_mutex_unlock(&a->lock);
	if (!s)
		rc = store_open(&s, a->o->db_path, true);
	if (rc < 0) {
		api_error(rp, 503, "unavailable", "the database cannot be read right now");
		return NULL;
	}
	store_read_deadline(s, STORE_READ_MS);
	return s;
}

void api_reader_put(struct api *a, struct store *s)
{
	pthread_mutex_lock(&a->lock);
	if (a->n_readers < API_READERS) {
		a->readers[a->n_readers++] = s;
		s = NULL;
	}
	pthread_mutex_unlock(&a->lock);
	store_close(s);
}

int64_t api_mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec;
}

struct auth_request api_auth_request(const struct api *a, const struct http_request *rq)
{
	return (struct auth_request){
		.method = rq->method,
		.authorization = http_header(rq, "Authorization"),
		.cookie = http_header(rq, "Cookie"),
		.cookie_name = a->o->tls_cert ? AUTH_COOKIE_TLS : AUTH_COOKIE,
		.sec_fetch_site = http_header(rq, "Sec-Fetch-Site"),
		.origin = http_header(rq, "Origin"),
		.host = http_header(rq, "Host"),
	};
}

bool api_guess_allowed(struct api *a, const struct http_request *rq, struct http_reply *rp)
{
	const unsigned mine = ratelimit_peek(a->rl_login, rq->client_key);
	const unsigned all = ratelimit_peek(a->rl_login_all, "*");
	const unsigned wait = mine > all ? mine : all;
	const int64_t now = api_mono_s();
	int64_t last;

	if (!wait)
		return true;
	/* Refused unchecked: a guess that would have been right learns
	 * nothing either. One line per API_GUESS_LOG_S, not one a guess. */
	last = __atomic_load_n(&a->guess_logged, __ATOMIC_RELAXED);
	if (now - last >= API_GUESS_LOG_S &&
	    __atomic_compare_exchange_n(&a->guess_logged, &last, now, false, __ATOMIC_RELAXED,
					__ATOMIC_RELAXED))
		cgfb_log(LOG_WARNING, "admin token guesses over the limit (%s: %s; every address: "
			 "%s): admin tokens are not checked for %u s", rq->client,
			 mine ? "over its own" : "within its own", all ? "over" : "within", wait);
	api_error(rp, 429, "rate_limited", "too many wrong admin tokens; retry later");
	rp->retry_after = wait;
	return false;
}

void api_guess_failed(struct api *a, const struct http_request *rq)
{
	ratelimit_take(a->rl_login, rq->client_key);
	ratelimit_take(a->rl_login_all, "*");
}

bool api_admin(struct api *a, const struct http_request *rq, struct http_reply *rp)
{
	const struct auth_request r = api_auth_request(a, rq);
	const bool guess = auth_has_bearer(r.authorization);

	if (!a->auth.admin_enabled) {
		api_error(rp, 403, "forbidden", "the admin API is disabled on this server");
		return false;
	}
	if (guess && !api_guess_allowed(a, rq, rp))
		return false;
	if (!auth_is_admin(&a->auth, &r, api_mono_s())) {
		if (guess)
			api_guess_failed(a, rq);
		api_error(rp, 401, "unauthorized", "this needs the admin token");
		rp->www_authenticate = true;
		return false;
	}
	return true;
}

bool api_heavy_take(struct api *a, const struct http_request *rq, struct http_reply *rp)
{
	bool ok;

	/* A flood of digests costs the sender its rate, like a flood of
	 * anything else, but in proportion to what each one costs (the
	 * precheck took one request already). */
	ratelimit_charge(a->rl_read, rq->client_key, API_HEAVY_COST - 1);
	pthread_mutex_lock(&a->lock);
	ok = a->heavy < API_HEAVY_MAX;
	if (ok)
		a->heavy++;
	pthread_mutex_unlock(&a->lock);
	if (!ok) {
		api_error(rp, 503, "busy", "too many digests and exports at once; retry later");
		rp->retry_after = API_HEAVY_RETRY_AFTER;
	}
	return ok;
}

void api_heavy_put(struct api *a)
{
	pthread_mutex_lock(&a->lock);
	a->heavy--;
	pthread_mutex_unlock(&a->lock);
}
