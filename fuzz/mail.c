/* The mail importer (lib/mail_read.c, server-stub/ingest/import.c):
 * `cgroup-feedback-server import FILE`, an mbox or one .eml, as the mail
 * path delivered it (CRLF, quoted-printable, mboxrd quoting).
 *
 * Properties: the mbox splitter moves forward and stays inside the data;
 * a report taken from a message is the one its SHA-256 header names; and
 * an admitted report, mailed again (formatted, appended to an mbox, split
 * out, admitted), comes back with the same bytes and the same columns. */
#include <errno.h>

#include "cgfb/mail.h"
#include "cgfb/schema.h"
#include "fuzz.h"
#include "ingest/import.h"
#include "ingest/ingest.h"

static struct cgfb_schema *schema;

FUZZ_INIT_BUILTIN(cgfb_schema_load_builtin, schema, "schema")

static void again(const struct cgfb_buf *json, const struct report_meta *m)
{
	struct cgfb_buf mail = { 0 }, mbox = { 0 }, json2 = { 0 };
	struct report_meta m2;
	const char *msg;
	size_t pos = 0, mlen;
	char err[512];

	PROPERTY(cgfb_mail_format(json->data, json->len, NULL, &mail) == 0, "no e-mail form");
	PROPERTY(cgfb_mbox_append(&mbox, mail.data, mail.len, 1700000000) == 0, "append");
	PROPERTY(cgfb_mbox_next(mbox.data, mbox.len, &pos, &msg, &mlen) == 1, "no message");
	PROPERTY(import_admit(schema, msg, mlen, &json2, &m2, err, sizeof(err)) == 0,
		 "mailed again, it is refused: %s", err);
	PROPERTY(json2.len == json->len && memcmp(json2.data, json->data, json->len) == 0,
		 "mailed again, other bytes");
	PROPERTY(strcmp(m->sha256, m2.sha256) == 0 && strcmp(m->id, m2.id) == 0 &&
		 strcmp(m->verdict, m2.verdict) == 0 && strcmp(m->month, m2.month) == 0 &&
		 (m->use_case ? m2.use_case && !strcmp(m->use_case, m2.use_case) : !m2.use_case),
		 "mailed again, other columns");
	ingest_meta_free(&m2);
	cgfb_buf_free(&json2);
	cgfb_buf_free(&mbox);
	cgfb_buf_free(&mail);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	const char *msg;
	size_t pos = 0, mlen, last = 0;
	unsigned n = 0;

	memcpy(buf, data, size);
	while (size && cgfb_mbox_next(buf, size, &pos, &msg, &mlen) == 1) {
		struct cgfb_buf json = { 0 };
		struct report_meta m;
		char err[512] = "", sha[65];
		int rc;

		PROPERTY(msg >= buf && msg + mlen <= buf + size, "message outside the mbox");
		PROPERTY(pos > last && pos <= size, "no progress at %zu", pos);
		PROPERTY(++n <= size + 1, "more messages than bytes");
		last = pos;
		rc = import_admit(schema, msg, mlen, &json, &m, err, sizeof(err));
		PROPERTY(memchr(err, '\0', sizeof(err)), "error not terminated");
		if (rc == 0) {
			cgfb_sha256_hex(json.data, json.len, sha);
			PROPERTY(strcmp(sha, m.sha256) == 0, "sha256");
			again(&json, &m);
		} else {
			PROPERTY(rc == -ENOENT || rc == -EBADMSG || rc == -EINVAL || rc == -E2BIG,
				 "refusal %d", rc);
		}
		ingest_meta_free(&m);
		cgfb_buf_free(&json);
	}
	free(buf);
	return 0;
}
