#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/crypto.h>

#include "cgfb/canon.h"
#include "cgfb/sha256.h"
#include "cgfb/jsonget.h"
#include "cgfb/report_id.h"
#include "cgfb/utf8.h"
#include "ingest/ingest.h"

static void copy(char *dst, size_t dstsz, json_object *o, const char *path)
{
	const char *v = cgfb_json_str(o, path);

	snprintf(dst, dstsz, "%s", v ? v : "");
}

/* Free-text answers fold into a few buckets so that they can be counted
 * (and so that no free text becomes a public group key). */
static void normalise_answer(char *dst, size_t dstsz, json_object *v)
{
	static const char *const known[] = { "yes", "no", "unsure" };
	const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;

	if (!s) {
		snprintf(dst, dstsz, "unanswered");
		return;
	}
	while (*s == ' ')
		s++;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		const size_t n = strlen(known[i]);

		if (strncasecmp(s, known[i], n) == 0 && (s[n] == '\0' || strchr(" .,;:!", s[n]))) {
			snprintf(dst, dstsz, "%s", known[i]);
			return;
		}
	}
	snprintf(dst, dstsz, "other");
}

static void verdict(char *dst, size_t dstsz, json_object *flat)
{
	const char *v = "none";

	for (size_t i = 0; i < json_object_array_length(flat); i++) {
		json_object *st = json_object_array_get_idx(flat, i);

		v = "unaffected";
		if (strcmp(json_object_get_string(cgfb_json_get(st, "verdict")), "affected") == 0) {
			v = "affected";
			break;
		}
	}
	snprintf(dst, dstsz, "%s", v);
}

/* The schema's closed enum: every source but "check" is a line the kernel
 * printed, read from one place or another; check's findings are counted
 * apart (the summary's check_catalog_id). */
static void origin(char *dst, size_t dstsz, const char *source)
{
	snprintf(dst, dstsz, "%s", source && strcmp(source, "check") == 0 ? "check" : "kernel");
}

static int fill_meta(json_object *doc, struct report_meta *m)
{
	json_object *uc = cgfb_json_get(doc, "use_case");

	copy(m->id, sizeof(m->id), doc, "report_id");
	copy(m->token_sha256, sizeof(m->token_sha256), doc, "deletion.token_sha256");
	copy(m->catalog_id, sizeof(m->catalog_id), doc, "detection.catalog_id");
	origin(m->origin, sizeof(m->origin), cgfb_json_str(doc, "detection.source"));
	copy(m->kernel_series, sizeof(m->kernel_series), doc, "system.kernel.series");
	snprintf(m->distribution, sizeof(m->distribution), "%s %s",
		 json_object_get_string(cgfb_json_get(doc, "system.distribution.id")),
		 json_object_get_string(cgfb_json_get(doc, "system.distribution.version_id")));
	copy(m->cgroup_mode, sizeof(m->cgroup_mode), doc, "system.cgroup_mode");
	copy(m->software, sizeof(m->software), doc, "detection.fields.comm");
	/* A token names one machine's process: no group for the public view. */
	if (strncmp(m->software, "h:", 2) == 0)
		m->software[0] = '\0';
	verdict(m->verdict, sizeof(m->verdict), cgfb_json_get(doc, "analysis.flat_subtrees"));
	normalise_answer(m->reorganisation, sizeof(m->reorganisation),
			 cgfb_json_get(uc, "answers.reorganisation"));
	snprintf(m->month, sizeof(m->month), "%.7s", json_object_get_string(cgfb_json_get(doc, "created")));
	/* An empty text is no use case: both stores keep it as NULL, so that
	 * "with a use case" selects the same reports on each. */
	if (json_object_is_type(cgfb_json_get(uc, "text"), json_type_string) &&
	    json_object_get_string_len(cgfb_json_get(uc, "text")) > 0) {
		m->use_case = strdup(json_object_get_string(cgfb_json_get(uc, "text")));
		if (!m->use_case)
			return -ENOMEM;
	}
	/* The client's pseudonym for itself on this collector: one machine on
	 * five kernels is one install. */
	copy(m->install, sizeof(m->install), doc, "consent.install");
	return 0;
}

int ingest_report(const struct cgfb_schema *schema, const char *body, size_t len,
		  struct report_meta *m, char *err, size_t errsz)
{
	json_object *doc = NULL;
	char why[256];
	int rc;

	memset(m, 0, sizeof(*m));
	if (len > CGFB_REPORT_MAX_BYTES) {
		snprintf(err, errsz, "/: larger than %d bytes", CGFB_REPORT_MAX_BYTES);
		return -E2BIG;
	}
	/* Before the parser builds an object of each (issue 41). */
	if (cgfb_json_values(body, len) > CGFB_REPORT_VALUES_MAX) {
		snprintf(err, errsz, "/: %s", CGFB_REPORT_TOO_MANY);
		return -EMSGSIZE;
	}
	if (!cgfb_utf8_valid(body, len)) {
		snprintf(err, errsz, "/: not valid UTF-8");
		return -EINVAL;
	}
	rc = cgfb_canon_parse(body, len, CGFB_REPORT_DEPTH_MAX, &doc, why, sizeof(why));
	if (rc < 0) {
		snprintf(err, errsz, "/: %s", why);
		return rc == -ENOMEM ? rc : -EINVAL;
	}
	/* Only a consented report is stored and counted: a pending one's null
	 * consent says nobody agreed to send it. */
	rc = cgfb_schema_validate_sent(schema, doc, err, errsz);
	if (rc < 0)
		goto out;
	cgfb_sha256_hex(body, len, m->sha256);
	rc = fill_meta(doc, m);
	if (rc < 0)
		ingest_meta_free(m);
out:
	json_object_put(doc);
	return rc;
}

void ingest_meta_free(struct report_meta *m)
{
	free(m->use_case);
	m->use_case = NULL;
}

int ingest_claim(struct report_meta *m, const char *token, size_t len, bool proof_required)
{
	char got[65];

	m->claim = CLAIM_NONE;
	if (!cgfb_report_id_bound(m->id, m->token_sha256))
		return 0;
	if (!token && !proof_required) {
		m->claim = CLAIM_BOUND;
		return 0;
	}
	if (!token || len != 64)
		return -EACCES;
	cgfb_sha256_hex(token, len, got);
	if (CRYPTO_memcmp(got, m->token_sha256, 64) != 0)
		return -EACCES;
	m->claim = CLAIM_PROVEN;
	return 0;
}
