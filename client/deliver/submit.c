#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <json-c/json.h>

#include "base/urlshow.h"
#include "cgfb/utf8.h"
#include "cgfb/wire.h"
#include "deliver/submit.h"

/* A receipt is a few hundred bytes; a server sending more is not ours. */
#define RESPONSE_MAX (64u << 10)
#define BACKOFF_BASE 60L
#define BACKOFF_CAP  (6L * 3600)
#define RETRY_AFTER_CAP (24L * 3600)

struct body {
	char data[RESPONSE_MAX + 1];
	size_t len;
	bool overflow;
	/* curl's own words: "certificate has expired" says more than its
	 * generic "SSL peer certificate ... was not OK". */
	char curl_error[CURL_ERROR_SIZE];
	char location[160];          /* of a redirect, which is never followed */
};

int cgfb_submit_init(void)
{
	return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -EIO;
}

void cgfb_submit_cleanup(void)
{
	curl_global_cleanup();
}

static bool loopback_host(const char *host)
{
	struct in6_addr a6;
	struct in_addr a4;
	char buf[64];
	size_t n = strlen(host);

	if (strcmp(host, "localhost") == 0)
		return true;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	/* curl gives IPv6 hosts in brackets. */
	if (n > 2 && n < sizeof(buf) && host[0] == '[' && host[n - 1] == ']') {
		memcpy(buf, host + 1, n - 2);
		buf[n - 2] = '\0';
		return inet_pton(AF_INET6, buf, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
	}
	return false;
}

/* Whether url's host is this machine's loopback (a URL curl cannot parse
 * is not: it reaches no network either). */
static bool url_is_loopback(const char *url)
{
	CURLU *u = curl_url();
	char *host = NULL;
	bool yes = false;

	if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK)
		yes = loopback_host(host);
	curl_free(host);
	curl_url_cleanup(u);
	return yes;
}

int cgfb_endpoint_check(const char *url, char *err, size_t errsz)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL, *user = NULL, shown[512];
	int rc = -EINVAL;

	cgfb_url_shown(shown, sizeof(shown), url);

	if (!u)
		return -ENOMEM;
	if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
		snprintf(err, errsz, "endpoint '%s' is not a URL", shown);
		goto out;
	}
	if (curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_OK)
		snprintf(err, errsz, "endpoint: user information (user:password@) is not allowed; "
			 "it would be recorded in every report");
	else if (strcmp(scheme, "https") == 0 ||
		 (strcmp(scheme, "http") == 0 && loopback_host(host)))
		rc = 0;
	else
		snprintf(err, errsz, "endpoint '%s': only https, or http to a loopback address, "
			 "may carry a report", shown);
out:
	curl_free(scheme);
	curl_free(host);
	curl_free(user);
	curl_url_cleanup(u);
	return rc;
}

static size_t collect(char *ptr, size_t size, size_t nmemb, void *arg)
{
	struct body *b = arg;
	const size_t n = size * nmemb;

	if (b->len + n > RESPONSE_MAX) {
		b->overflow = true;
		return 0;            /* abort the transfer */
	}
	memcpy(b->data + b->len, ptr, n);
	b->len += n;
	b->data[b->len] = '\0';
	return n;
}

static CURL *easy_for(const struct cgfb_config *c, const char *url, struct body *b,
		      struct curl_slist *headers)
{
	CURL *h = curl_easy_init();

	if (!h)
		return NULL;
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "https,http");
	/* Verification is not configurable: a report goes to who it says. */
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
	if (c->ca_file[0])
		curl_easy_setopt(h, CURLOPT_CAINFO, c->ca_file);
	if (c->pinned_public_key[0])
		curl_easy_setopt(h, CURLOPT_PINNEDPUBLICKEY, c->pinned_public_key);
	/* Plain http is allowed only because the bytes stay on this machine
	 * (cgfb_endpoint_check): a proxy, configured or taken by libcurl from
	 * http_proxy/all_proxy (which hosts set for every process in
	 * /etc/environment or systemd's DefaultEnvironment), would get the
	 * report and X-Deletion-Token in clear. "" disables every proxy,
	 * the environment's included (CURLOPT_PROXY(3)). Elsewhere (https)
	 * the configured proxy, else libcurl's https_proxy/no_proxy. */
	if (url_is_loopback(url))
		curl_easy_setopt(h, CURLOPT_PROXY, "");
	else if (c->proxy[0])
		curl_easy_setopt(h, CURLOPT_PROXY, c->proxy);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, c->connect_timeout);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, c->timeout);
	/* A redirect could take consented bytes somewhere not consented to. */
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "cgroup-feedback/" CGFB_VERSION);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, b);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, b->curl_error);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
	return h;
}

/* s as the .state may keep it, valid JSON text: a C0 control, DEL or a
 * byte that is not UTF-8 becomes '?' (the rest, C1 and bidi controls
 * among it, is escaped by whoever prints it). */
static void keep_text(char *s)
{
	for (size_t i = 0, len = strlen(s); i < len;) {
		const unsigned char c = (unsigned char)s[i];
		const size_t n = cgfb_utf8_lead_len(c);

		if (c < 0x20 || c == 0x7f || n > len - i || !cgfb_utf8_valid(s + i, n)) {
			s[i++] = '?';
			continue;
		}
		i += n;
	}
}

static void server_error(const struct body *b, struct cgfb_submit_result *res)
{
	json_object *o = json_tokener_parse(b->data), *e;
	const char *msg = NULL;
	char shown[256];

	if (o && json_object_object_get_ex(o, "error", &e) && json_object_is_type(e, json_type_string))
		msg = json_object_get_string(e);
	/* The server's words are kept in the report's .state and printed:
	 * no line break or other C0 control in the state; every printer
	 * escapes what else they hold (cgfb/utf8.h). */
	if (res->http_status >= 300 && res->http_status < 400 && b->location[0])
		snprintf(res->error, sizeof(res->error), "HTTP %ld: redirected to %.120s; not followed: "
			 "a report goes only where consent said",
			 res->http_status, cgfb_url_shown(shown, sizeof(shown), b->location));
	else
		snprintf(res->error, sizeof(res->error), "HTTP %ld%s%.200s", res->http_status,
			 msg ? ": " : "", msg ? msg : "");
	keep_text(res->error);
	json_object_put(o);
}

static bool printable_ascii(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return false;
	return true;
}

static int copy_member(json_object *o, const char *key, char *dst, size_t dstsz)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string) ||
	    (size_t)json_object_get_string_len(v) >= dstsz)
		return -EBADMSG;
	snprintf(dst, dstsz, "%s", json_object_get_string(v));
	return 0;
}

static int parse_receipt(const struct body *b, const char *sha256, struct cgfb_submit_result *res)
{
	json_object *o = json_tokener_parse(b->data);
	int rc = -EBADMSG;

	/* The receipt is kept in the report's .state and printed by submit,
	 * review, list and status ever after: its id must be what docs/API.md
	 * says it is, the report's id (a UUID), and its time printable ASCII
	 * (the printers escape anyway, for state files of older clients). */
	if (!o || copy_member(o, "id", res->receipt_id, sizeof(res->receipt_id)) < 0 ||
	    !cgfb_report_id_valid(res->receipt_id) ||
	    copy_member(o, "sha256", res->receipt_sha256, sizeof(res->receipt_sha256)) < 0 ||
	    copy_member(o, "received_at", res->receipt_time, sizeof(res->receipt_time)) < 0 ||
	    !printable_ascii(res->receipt_time)) {
		res->receipt_id[0] = '\0';
		snprintf(res->error, sizeof(res->error), "HTTP %ld but no valid receipt",
			 res->http_status);
		/* A proxy's page or a half-deployed collector: the same bytes
		 * again are safe (a retry gets the original receipt, docs/API.md)
		 * and are the only way to learn whether it was stored. */
		res->transient = true;
		goto out;
	}
	if (strcmp(res->receipt_sha256, sha256) != 0) {
		snprintf(res->error, sizeof(res->error),
			 "the collector's receipt names SHA-256 %.64s, but %.64s was sent",
			 res->receipt_sha256, sha256);
		goto out;
	}
	rc = 0;
out:
	json_object_put(o);
	return rc;
}

/* Failures that waiting does not cure, for only this machine's
 * configuration can: the endpoint's scheme or form, the local ca-file and
 * pin. A certificate the collector's side got wrong (expired, another
 * name) may be renewed there: that is retried. A TLS handshake that broke
 * (35) can be the network's doing; not when the other end answered in
 * plain text ("wrong version number"). */
static bool config_error(CURLcode cc, const char *text)
{
	switch (cc) {
	case CURLE_UNSUPPORTED_PROTOCOL:
	case CURLE_URL_MALFORMAT:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CRL_BADFILE:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
		return true;
	case CURLE_SSL_CONNECT_ERROR:
		return strstr(text, "wrong version number") != NULL ||
		       strstr(text, "packet length too long") != NULL;
	default:
		return false;
	}
}

/* Run the transfer and sort the outcome into transient or not. */
static int perform(CURL *h, struct body *b, struct cgfb_submit_result *res)
{
	const CURLcode cc = curl_easy_perform(h);
	curl_off_t ra = -1;
	char *loc = NULL;

	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &res->http_status);
	if (curl_easy_getinfo(h, CURLINFO_REDIRECT_URL, &loc) == CURLE_OK && loc)
		snprintf(b->location, sizeof(b->location), "%s", loc);
	if (curl_easy_getinfo(h, CURLINFO_RETRY_AFTER, &ra) == CURLE_OK && ra > 0)
		res->retry_after = ra > RETRY_AFTER_CAP ? RETRY_AFTER_CAP : (long)ra;
	if (cc != CURLE_OK) {
		snprintf(res->error, sizeof(res->error), "%s", b->overflow ?
			 "the collector's answer is too large" :
			 b->curl_error[0] ? b->curl_error : curl_easy_strerror(cc));
		if (config_error(cc, res->error)) {
			const size_t n = strlen(res->error);

			snprintf(res->error + n, sizeof(res->error) - n, "; %s",
				 CGFB_SUBMIT_CHECK_TLS);
			res->transient = false;
			return -EINVAL;
		}
		res->transient = true;
		return -EIO;
	}
	if (res->http_status == 429 || res->http_status >= 500) {
		server_error(b, res);
		res->transient = true;
		return -EAGAIN;
	}
	return 0;
}

struct request {
	const char *url;
	const char *header;          /* one extra header, or NULL */
	const char *body;            /* POST body, or NULL for DELETE */
	size_t len;
};

/* One HTTP exchange; the answer's body is left in b. */
static int transfer(const struct cgfb_config *c, const struct request *rq, struct body *b,
		    struct cgfb_submit_result *res)
{
	struct curl_slist *hdr = NULL;
	CURL *h = NULL;
	int rc = -ENOMEM;

	memset(res, 0, sizeof(*res));
	res->retry_after = -1;
	if (rq->body) {
		hdr = curl_slist_append(hdr, "Content-Type: application/json");
		/* No "100 Continue" round trip for a few KiB. */
		hdr = hdr ? curl_slist_append(hdr, "Expect:") : NULL;
		if (hdr && rq->header)
			hdr = curl_slist_append(hdr, rq->header);
	} else {
		hdr = curl_slist_append(hdr, rq->header);
	}
	h = hdr ? easy_for(c, rq->url, b, hdr) : NULL;
	if (!h)
		goto out;
	if (rq->body) {
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, rq->body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)rq->len);
	} else {
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, "DELETE");
	}
	rc = perform(h, b, res);
out:
	curl_easy_cleanup(h);
	curl_slist_free_all(hdr);
	return rc;
}

int cgfb_submit_post(const struct cgfb_config *c, const char *url, const char *body, size_t len,
		     const char *sha256, const char *token, struct cgfb_submit_result *res)
{
	char proof[128];
	const struct request rq = { .url = url, .body = body, .len = len,
				    .header = token && *token ? proof : NULL };
	struct body *b = calloc(1, sizeof(*b));
	int rc;

	if (!b)
		return -ENOMEM;
	snprintf(proof, sizeof(proof), "X-Deletion-Token: %s", token ? token : "");
	rc = transfer(c, &rq, b, res);
	explicit_bzero(proof, sizeof(proof));
	if (rc == 0 && (res->http_status == 200 || res->http_status == 201)) {
		rc = parse_receipt(b, sha256, res);
	} else if (rc == 0) {
		server_error(b, res);
		rc = res->http_status == 409 ? -EEXIST : -EPROTO;
		if (res->http_status == 404 || res->http_status == 405) {
			const size_t n = strlen(res->error);

			snprintf(res->error + n, sizeof(res->error) - n, "; %s",
				 CGFB_SUBMIT_CHECK_PATH);
			rc = -EINVAL;
		}
	}
	free(b);
	return rc;
}

int cgfb_submit_delete(const struct cgfb_config *c, const char *url, const char *id,
		       const char *token, struct cgfb_submit_result *res)
{
	char target[1024], auth[128];
	const struct request rq = { .url = target, .header = auth };
	struct body *b = calloc(1, sizeof(*b));
	int rc;

	if (!b)
		return -ENOMEM;
	snprintf(target, sizeof(target), "%s/%s", url, id);
	snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
	rc = transfer(c, &rq, b, res);
	/* 404: already gone, which is what was asked for. */
	if (rc == 0 && res->http_status != 200 && res->http_status != 204 &&
	    res->http_status != 404) {
		server_error(b, res);
		rc = -EPROTO;
	}
	free(b);
	return rc;
}

long cgfb_backoff_delay(int attempts, long retry_after, unsigned random)
{
	long delay = BACKOFF_BASE;

	for (int i = 1; i < attempts && delay < BACKOFF_CAP; i++)
		delay *= 2;
	if (delay > BACKOFF_CAP)
		delay = BACKOFF_CAP;
	/* Equal jitter: half fixed, half random, so a fleet that failed
	 * together does not come back together. */
	delay = delay / 2 + (long)(random % (unsigned long)(delay / 2 + 1));
	if (retry_after > delay)
		delay = retry_after;
	return delay;
}
