#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "cgfb/sha256.h"
#include "consent/consent.h"
#include "privacy/secret.h"


static int cgfb_random_hex(char *out, size_t nbytes)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char raw[64];

	if (nbytes > sizeof(raw))
		return -EINVAL;
	if (getrandom(raw, nbytes, 0) != (ssize_t)nbytes)
		return -EIO;
	for (size_t i = 0; i < nbytes; i++) {
		out[2 * i] = digits[raw[i] >> 4];
		out[2 * i + 1] = digits[raw[i] & 15];
	}
	out[2 * nbytes] = '\0';
	return 0;
}

static void utc_now(char *buf, size_t sz)
{
	const time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, sz, "%Y-%m-%dT%H:%M:%SZ", &tm);
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
	char now[32], token_sha[65], install[CGFB_PSEUDONYM_HEX + 1];
	uint8_t key[CGFB_SECRET_LEN];
	int rc;

	rc = cgfb_secret_load(sd, key, err, errsz);
	if (rc < 0)
		return rc;
	rc = cgfb_install_pseudonym(key, endpoint, install);
	explicit_bzero(key, sizeof(key));
	if (rc < 0) {
		snprintf(err, errsz, "no install pseudonym for %s", endpoint);
		return rc;
	}

	rc = cgfb_canon_parse(report->data, report->len, CGFB_REPORT_DEPTH_MAX, &r, err, errsz);
	if (rc < 0)
		return rc;
	if (keep_token && strlen(keep_token) == 64)
		memcpy(token, keep_token, 65);
	else
		rc = cgfb_random_hex(token, 32);
	if (rc < 0) {
		snprintf(err, errsz, "no random bytes for the deletion token");
		goto out;
	}
	cgfb_sha256_hex(token, 64, token_sha);
	utc_now(now, sizeof(now));
	consent = json_object_new_object();
	json_object_object_add(consent, "given", json_object_new_boolean(1));
	json_object_object_add(consent, "time", json_object_new_string(now));
	json_object_object_add(consent, "endpoint", json_object_new_string(endpoint));
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
	json_object_put(r);
	return rc;
}

int cgfb_consent_record(struct cgfb_spool *sp, struct cgfb_spool_entry *e,
			const struct cgfb_buf *bytes, const char *endpoint, const char *token)
{
	int rc = cgfb_spool_save_report(sp, e->id, bytes->data, bytes->len);

	if (rc < 0)
		return rc;
	e->state = CGFB_R_CONSENTED;
	e->attempts = 0;
	e->next_attempt = 0;
	e->last_error[0] = '\0';
	snprintf(e->endpoint, sizeof(e->endpoint), "%s", endpoint);
	snprintf(e->deletion_token, sizeof(e->deletion_token), "%s", token);
	cgfb_sha256_hex(bytes->data, bytes->len, e->sha256);
	return cgfb_spool_save_state(sp, e);
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
