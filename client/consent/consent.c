#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "cgfb/hex.h"
#include "cgfb/log.h"
#include "cgfb/sha256.h"
#include "consent/consent.h"
#include "consent/destination.h"
#include "privacy/deltoken.h"
#include "privacy/rekey.h"
#include "privacy/secret.h"


static int cgfb_random_hex(char *out, size_t nbytes)
{
	unsigned char raw[64];

	if (nbytes > sizeof(raw))
		return -EINVAL;
	if (getrandom(raw, nbytes, 0) != (ssize_t)nbytes)
		return -EIO;
	cgfb_hex(raw, nbytes, out);
	return 0;
}

/* The report's deletion token: the one kept from an earlier consent (a
 * re-consent keeps it), else the token its id is bound to (derived from
 * the raw secret: the collector then lets only this install claim the
 * id), else, for an id of an earlier client, a random one. */
static int deletion_token(const struct cgfb_statedir *sd, const char *id, const char *keep,
			  char token[65])
{
	uint8_t raw[CGFB_SECRET_LEN];
	char err[256];
	bool bound = false;

	if (keep && strlen(keep) == 64) {
		memcpy(token, keep, 65);
		return 0;
	}
	/* The machine-bound key's token; for a report an earlier client made
	 * under the stored secret itself, that one's. */
	if (id && cgfb_secret_load(sd, raw, err, sizeof(err)) == 0)
		bound = cgfb_deltoken_of(raw, id, token);
	if (id && !bound && cgfb_secret_load_raw(sd, raw, err, sizeof(err)) == 0)
		bound = cgfb_deltoken_of(raw, id, token);
	explicit_bzero(raw, sizeof(raw));
	return bound ? 0 : cgfb_random_hex(token, 32);
}

/* To the hour: minutes and seconds of a yes, compared with a log of
 * logins or deliveries, would single out the machine and its
 * administrator. */
static void utc_now(char *buf, size_t sz)
{
	const time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, sz, "%Y-%m-%dT%H:00:00Z", &tm);
}

int cgfb_consent_endpoint(const char *endpoint, char *out, size_t outsz)
{
	const char *scheme_end, *auth, *path;
	size_t alen;

	if (strncmp(endpoint, "mailto:", 7) == 0) {
		/* Any recipient but the public lists the kernel messages
		 * name is someone's own address: the report says only "mail". */
		snprintf(out, outsz, "%s", endpoint[7] && cgfb_mail_public(endpoint + 7, true) ?
			 endpoint : "mail");
		return 0;
	}
	scheme_end = strstr(endpoint, "://");
	if (!scheme_end || (strncmp(endpoint, "https://", 8) != 0 &&
			    strncmp(endpoint, "http://", 7) != 0))
		return -EINVAL;
	auth = scheme_end + 3;
	alen = strcspn(auth, "/?#");
	if (alen == 0 || memchr(auth, '@', alen))
		return -EINVAL;
	path = auth + alen;
	if ((size_t)snprintf(out, outsz, "%.*s%.*s", (int)(auth - endpoint + alen), endpoint,
			     (int)(*path == '/' ? strcspn(path, "?#") : 0), path) >= outsz)
		return -ENAMETOOLONG;
	return 0;
}

/* Every token of the report's strings as endpoint sees them; a report
 * already consented for another endpoint is first taken back to the
 * snapshot's tokens. What the administrator wrote and the consent and
 * deletion records are not the snapshot's and are left alone. */
static void rekey_strings(json_object *o, struct cgfb_rekey *from, struct cgfb_rekey *to)
{
	if (json_object_is_type(o, json_type_string)) {
		const size_t len = (size_t)json_object_get_string_len(o);
		/* A copy of all len bytes: strndup would stop at a \u0000. */
		char *s = malloc(len + 1);
		size_t n = 0;

		if (!s)
			return;
		memcpy(s, json_object_get_string(o), len + 1);
		if (from)
			n = cgfb_rekey_text(from, s, len, false);
		n += cgfb_rekey_text(to, s, len, true);
		if (n)
			json_object_set_string_len(o, s, (int)len);
		free(s);
	} else if (json_object_is_type(o, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(o); i++)
			rekey_strings(json_object_array_get_idx(o, i), from, to);
	} else if (json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, k, v) {
			if (strcmp(k, "use_case") != 0 && strcmp(k, "consent") != 0 &&
			    strcmp(k, "deletion") != 0)
				rekey_strings(v, from, to);
		}
	}
}

static int rekey_report(json_object *r, const uint8_t key[CGFB_SECRET_LEN], const char *endpoint)
{
	struct cgfb_rekey *from = NULL, *to = NULL;
	json_object *c, *e;
	int rc = 0;

	if (json_object_object_get_ex(r, "consent", &c) &&
	    json_object_object_get_ex(c, "endpoint", &e) && json_object_get_string(e))
		rc = cgfb_rekey_new(key, json_object_get_string(e), &from);
	if (rc == 0)
		rc = cgfb_rekey_new(key, endpoint, &to);
	if (rc == 0)
		rekey_strings(r, from, to);
	cgfb_rekey_free(from);
	cgfb_rekey_free(to);
	return rc;
}

static json_object *use_case_json(const struct cgfb_use_case *uc)
{
	json_object *o = json_object_new_object(), *a = json_object_new_object();

	json_object_object_add(o, "text", json_object_new_string(uc && uc->text ? uc->text : ""));
	for (size_t i = 0; uc && i < uc->n_answers; i++)
		json_object_object_add(a, uc->keys[i], json_object_new_string(uc->values[i]));
	json_object_object_add(o, "answers", a);
	return o;
}

int cgfb_consent_build(const struct cgfb_schema *schema, const struct cgfb_statedir *sd,
		       const struct cgfb_buf *report, const struct cgfb_use_case *uc,
		       const char *endpoint, const char *keep_token, struct cgfb_buf *out,
		       char token[65], char *err, size_t errsz)
{
	json_object *r = NULL, *consent, *deletion;
	char now[32], token_sha[65], install[CGFB_PSEUDONYM_HEX + 1], named[512];
	uint8_t key[CGFB_SECRET_LEN];
	int rc;

	rc = cgfb_consent_endpoint(endpoint, named, sizeof(named));
	if (rc < 0) {
		snprintf(err, errsz, "the endpoint is no URL a report may name (it holds user "
			 "information, or names no host)");
		return rc;
	}
	rc = cgfb_secret_load(sd, key, err, errsz);
	if (rc < 0)
		return rc;
	rc = cgfb_install_pseudonym(key, named, install);
	if (rc < 0) {
		snprintf(err, errsz, "no install pseudonym for %s", named);
		goto out;
	}
	rc = cgfb_canon_parse(report->data, report->len, CGFB_REPORT_DEPTH_MAX, &r, err, errsz);
	if (rc < 0)
		goto out;
	rc = rekey_report(r, key, named);
	if (rc < 0) {
		snprintf(err, errsz, "the tokens for %s: %s", named, strerror(-rc));
		goto out;
	}
	rc = deletion_token(sd, json_object_get_string(json_object_object_get(r, "report_id")),
			    keep_token, token);
	if (rc < 0) {
		snprintf(err, errsz, "no random bytes for the deletion token");
		goto out;
	}
	cgfb_sha256_hex(token, 64, token_sha);
	utc_now(now, sizeof(now));
	consent = json_object_new_object();
	json_object_object_add(consent, "given", json_object_new_boolean(1));
	json_object_object_add(consent, "time", json_object_new_string(now));
	json_object_object_add(consent, "endpoint", json_object_new_string(named));
	json_object_object_add(consent, "schema_sha256",
			       json_object_new_string(cgfb_schema_sha256(schema)));
	json_object_object_add(consent, "install", json_object_new_string(install));
	deletion = json_object_new_object();
	json_object_object_add(deletion, "token_sha256", json_object_new_string(token_sha));
	json_object_object_add(r, "use_case", use_case_json(uc));
	if (uc->message) {
		json_object *det = json_object_object_get(r, "detection");

		if (det)
			json_object_object_add(det, "message", json_object_new_string(uc->message));
	}
	json_object_object_add(r, "consent", consent);
	json_object_object_add(r, "deletion", deletion);
	rc = cgfb_schema_validate_sent(schema, r, err, errsz);
	if (rc < 0)
		goto out;
	rc = cgfb_canon_serialize(r, CGFB_REPORT_MAX_BYTES, out);
	if (rc == -E2BIG)
		snprintf(err, errsz, "the report with this use case is larger than %u KiB",
			 CGFB_REPORT_MAX_BYTES >> 10);
	else if (rc < 0)
		snprintf(err, errsz, "the use case is not valid UTF-8");
out:
	explicit_bzero(key, sizeof(key));
	json_object_put(r);
	return rc;
}

/* The report left by the way it names: sent (or withdrawn after), or
 * written as an e-mail (an export consents to mail as it writes one). */
static bool went(const struct cgfb_spool_entry *e)
{
	return e->state == CGFB_R_SENT || e->state == CGFB_R_WITHDRAWN ||
	       (e->state == CGFB_R_CONSENTED && strncmp(e->endpoint, "mailto:", 7) == 0);
}

/* A delivery tried and to be retried (a timeout, a 5xx) may have been
 * stored; one refused for good (next_attempt < 0: a wrong URL, TLS to a
 * plain server) was not. */
static bool maybe_stored(const struct cgfb_spool_entry *e)
{
	return e->state == CGFB_R_CONSENTED && strncmp(e->endpoint, "mailto:", 7) != 0 &&
	       e->attempts > 0 && e->next_attempt >= 0;
}

int cgfb_consent_one_way(const struct cgfb_spool_entry *e, const char *endpoint, char *err,
			 size_t errsz)
{
	const bool mail_now = strncmp(endpoint, "mailto:", 7) == 0;
	const bool mail_then = strncmp(e->endpoint, "mailto:", 7) == 0;

	/* Mail to other recipients is the same way; so is the same URL. A
	 * report retried at one collector may go to another: that would link
	 * two collectors' copies only if the first stored it unanswered (said
	 * in PRIVACY.md); never the public list. */
	if ((mail_now && mail_then) || strcmp(e->endpoint, endpoint) == 0 ||
	    !(went(e) || (mail_now && maybe_stored(e))))
		return 0;
	snprintf(err, errsz, "report %s %s %s%s; each report goes one way: %s would carry the "
		 "same report id, which links %s. Nothing was %s", e->id,
		 mail_then ? "was written as an e-mail for" :
		 e->state == CGFB_R_CONSENTED ? "was tried at" : "went to",
		 mail_then ? e->endpoint + 7 : e->endpoint,
		 e->state == CGFB_R_CONSENTED && !mail_then ? " (it may have been stored there)" : "",
		 mail_now ? "an e-mail of it" : "a collector's copy",
		 mail_then || mail_now ? "the e-mail, and the name it is sent under, to every "
					 "report of this machine at that collector" :
					 "the two collectors' reports of this machine",
		 mail_now ? "written" : "sent");
	return -EPERM;
}

int cgfb_consent_record(struct cgfb_spool *sp, struct cgfb_spool_entry *e,
			const struct cgfb_buf *bytes, const char *endpoint, const char *token)
{
	char err[1024];
	int rc = cgfb_consent_one_way(e, endpoint, err, sizeof(err));

	if (rc < 0) {
		cgfb_log(LOG_ERR, "%s", err);
		return rc;
	}
	/* Under the senders' lock, and only over the state this consent was
	 * given on: a withdrawal or decline made meanwhile keeps the report
	 * as it was, bytes and all. */
	rc = cgfb_spool_lock_send(sp);
	if (rc < 0)
		return rc;
	rc = cgfb_spool_unchanged(sp, e);
	if (rc == 0)
		rc = cgfb_spool_save_report(sp, e->id, bytes->data, bytes->len);
	if (rc < 0)
		goto out;
	e->state = CGFB_R_CONSENTED;
	e->attempts = 0;
	e->next_attempt = 0;
	e->last_error[0] = '\0';
	snprintf(e->endpoint, sizeof(e->endpoint), "%s", endpoint);
	snprintf(e->deletion_token, sizeof(e->deletion_token), "%s", token);
	cgfb_sha256_hex(bytes->data, bytes->len, e->sha256);
	rc = cgfb_spool_save_state(sp, e);
out:
	cgfb_spool_unlock_send(sp);
	return rc;
}

int cgfb_consent_schema(const struct cgfb_buf *report, char out[65])
{
	json_object *r = json_tokener_parse(report->data), *c, *h;

	out[0] = '\0';
	if (r && json_object_object_get_ex(r, "consent", &c) &&
	    json_object_object_get_ex(c, "schema_sha256", &h))
		snprintf(out, 65, "%s", json_object_get_string(h));
	json_object_put(r);
	return out[0] ? 0 : -ENOENT;
}
