/* The collector's admission of a report (server-stub/ingest/ingest.c with
 * lib/schema.c and lib/canon.c): the body of POST /api/v1/reports.
 *
 * Properties: an admitted report is canonical JSON that serialises to
 * exactly its bytes, its SHA-256 is the one recorded, its id has the
 * shape of a report id, the summary's columns hold only their
 * vocabularies; and its e-mail form (lib/mail.c), written and read back
 * through an mbox, gives back the same bytes and the same columns. */
#include <errno.h>

#include "cgfb/canon.h"
#include "cgfb/mail.h"
#include "cgfb/schema.h"
#include "cgfb/wire.h"
#include "fuzz.h"
#include "ingest/import.h"
#include "ingest/ingest.h"

static struct cgfb_schema *schema;

FUZZ_INIT_BUILTIN(cgfb_schema_load_builtin, schema, "schema")

static bool one_of(const char *s, const char *const *words)
{
	for (; *words; words++)
		if (strcmp(s, *words) == 0)
			return true;
	return false;
}

static bool same_meta(const struct report_meta *a, const struct report_meta *b)
{
	return !strcmp(a->id, b->id) && !strcmp(a->sha256, b->sha256) &&
	       !strcmp(a->token_sha256, b->token_sha256) && !strcmp(a->install, b->install) &&
	       !strcmp(a->catalog_id, b->catalog_id) && !strcmp(a->kernel_series, b->kernel_series) &&
	       !strcmp(a->distribution, b->distribution) && !strcmp(a->cgroup_mode, b->cgroup_mode) &&
	       !strcmp(a->software, b->software) && !strcmp(a->verdict, b->verdict) &&
	       !strcmp(a->reorganisation, b->reorganisation) && !strcmp(a->month, b->month) &&
	       !strcmp(a->origin, b->origin) &&
	       (a->use_case ? b->use_case && !strcmp(a->use_case, b->use_case) : !b->use_case);
}

/* Through the mail and back: format, append to an mbox, take the message
 * out again, admit it. */
static void mail_round_trip(const char *report, size_t len, const struct report_meta *m)
{
	struct cgfb_buf mail = { 0 }, mbox = { 0 }, json = { 0 };
	struct report_meta m2;
	const char *msg;
	size_t pos = 0, mlen;
	char err[512];
	int rc;

	rc = cgfb_mail_format(report, len, NULL, &mail);
	PROPERTY(rc == 0, "an admitted report has no e-mail form: %d", rc);
	rc = cgfb_mbox_append(&mbox, mail.data, mail.len, 0);
	PROPERTY(rc == 0, "mbox append: %d", rc);
	PROPERTY(cgfb_mbox_next(mbox.data, mbox.len, &pos, &msg, &mlen) == 1, "no message");
	rc = import_admit(schema, msg, mlen, &json, &m2, err, sizeof(err));
	PROPERTY(rc == 0, "its e-mail form is refused: %s", err);
	PROPERTY(json.len == len && memcmp(json.data, report, len) == 0,
		 "the mail gives other bytes back");
	PROPERTY(same_meta(m, &m2), "the mail gives other columns");
	PROPERTY(cgfb_mbox_next(mbox.data, mbox.len, &pos, &msg, &mlen) == 0 ||
		 mlen == 0, "a second message in an mbox of one");
	ingest_meta_free(&m2);
	cgfb_buf_free(&json);
	cgfb_buf_free(&mbox);
	cgfb_buf_free(&mail);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const verdicts[] = { "affected", "unaffected", "none", NULL };
	static const char *const answers[] = { "yes", "no", "unsure", "other", "unanswered", NULL };
	struct report_meta m;
	struct cgfb_buf b = { 0 };
	json_object *doc = NULL;
	char err[512] = "", sha[65];
	char *body = malloc(size ? size : 1);
	int rc;

	memcpy(body, data, size);
	rc = ingest_report(schema, body, size, &m, err, sizeof(err));
	PROPERTY(memchr(err, '\0', sizeof(err)), "error not terminated");
	if (rc < 0) {
		PROPERTY((rc == -EINVAL || rc == -E2BIG || rc == -EMSGSIZE) && err[0] == '/',
			 "refusal %d: '%s'", rc, err);
		goto out;
	}
	PROPERTY(cgfb_canon_parse(body, size, CGFB_REPORT_DEPTH_MAX, &doc, err, sizeof(err)) == 0 &&
		 cgfb_canon_serialize(doc, CGFB_REPORT_MAX_BYTES, &b) == 0 && b.len == size &&
		 memcmp(b.data, body, size) == 0, "admitted, but not its own canonical form");
	cgfb_sha256_hex(body, size, sha);
	PROPERTY(strcmp(sha, m.sha256) == 0, "sha256 %s, not %s", m.sha256, sha);
	PROPERTY(cgfb_report_id_valid(m.id), "report id '%s'", m.id);
	PROPERTY(one_of(m.verdict, verdicts), "verdict '%s'", m.verdict);
	PROPERTY(one_of(m.reorganisation, answers), "answer '%s'", m.reorganisation);
	PROPERTY(strncmp(m.software, "h:", 2) != 0, "a token as software");
	mail_round_trip(body, size, &m);
	ingest_meta_free(&m);
out:
	json_object_put(doc);
	cgfb_buf_free(&b);
	free(body);
	return 0;
}
