/* cgroup-feedback-server import: e-mails written by the client's offline
 * export (single .eml files or mboxes) into the same database as the HTTP
 * path, through the same admission and the same writer, so a report that
 * came both ways is stored once. */
#include <errno.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgfb/buf.h"
#include "cgfb/canon.h"
#include "cgfb/log.h"
#include "cgfb/readfile.h"
#include "cgfb/wire.h"
#include "cgfb/mail.h"
#include "ingest/import.h"
#include "ingest/ingest.h"
#include "ingest/writer.h"

/* Mailboxes bigger than this are split first; it bounds memory. */
#define IMPORT_FILE_MAX (1024u * 1024 * 1024)

struct counts {
	unsigned imported, present, withdrawn, empty, failed;
	unsigned other_channel;     /* of present: stored as sent by the other way */
	const char *db;
	struct store *reader;       /* opened at the first conflict */
};

/* Stored and admitted reports are canonical JSON: the project's parser. */
static json_object *parse_json(const char *s, size_t len)
{
	json_object *o = NULL;
	char err[128];

	return cgfb_canon_parse(s, len, CGFB_REPORT_DEPTH_MAX, &o, err, sizeof(err)) == 0 ? o : NULL;
}

/* The text of a report with its keyed tokens ("h:" + 12 hex) blanked:
 * the client keys them per endpoint, so the two copies' tokens differ. */
static char *blank_tokens(json_object *o)
{
	char *s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));

	for (char *p = s; p && (p = strstr(p, "h:")) != NULL; p += 2)
		if (strspn(p + 2, "0123456789abcdef") == 12)
			memset(p + 2, '-', 12);
	return s;
}

/* Two copies of one report: the client's HTTP copy and its e-mail copy
 * differ only in the consent record, which names the channel (the endpoint
 * or mailto:) and when the yes was given, and in the keys of their tokens;
 * everything the administrator approved (report id, snapshot, use case,
 * answers, deletion token) is the same. */
static bool same_report(const char *a, size_t alen, const char *b, size_t blen)
{
	json_object *ja = parse_json(a, alen), *jb = parse_json(b, blen);
	bool same = false;

	if (json_object_is_type(ja, json_type_object) && json_object_is_type(jb, json_type_object)) {
		json_object_object_del(ja, "consent");
		json_object_object_del(jb, "consent");
		char *sa = blank_tokens(ja), *sb = blank_tokens(jb);

		same = sa && sb && strcmp(sa, sb) == 0;
		free(sa);
		free(sb);
	}
	json_object_put(ja);
	json_object_put(jb);
	return same;
}

/* A conflict on the report id: the stored report, read back, may be this
 * very report sent the other way. */
static bool stored_by_other_channel(struct counts *c, const struct report_meta *m,
				    const struct cgfb_buf *json)
{
	struct cgfb_buf stored = { 0 };
	struct receipt r;
	bool same = false;

	if (!c->reader && store_open(&c->reader, c->db, true) < 0) {
		c->reader = NULL;
		return false;
	}
	if (store_get(c->reader, m->id, &stored, &r) == 0)
		same = same_report(stored.data, stored.len, json->data, json->len);
	cgfb_buf_free(&stored);
	return same;
}

int import_admit(const struct cgfb_schema *schema, const char *msg, size_t len,
		 struct cgfb_buf *json, struct report_meta *m, char *err, size_t errsz)
{
	int rc = cgfb_mail_extract(msg, len, json, err, errsz);

	memset(m, 0, sizeof(*m));
	if (rc == 0)
		rc = ingest_report(schema, json->data, json->len, m, err, errsz);
	return rc;
}

/* Where a message is, for the administrator: its number in the file and
 * its Message-ID (cgfb_log escapes whatever the sender put there). */
static void where(char *out, size_t outsz, const char *file, unsigned n, const char *msg,
		  size_t len)
{
	char mid[256];

	if (cgfb_mail_header(msg, len, "Message-ID", mid, sizeof(mid)) && mid[0])
		snprintf(out, outsz, "%s: message %u %s", file, n, mid);
	else
		snprintf(out, outsz, "%s: message %u", file, n);
}

/* One report found in a message, admitted and written. */
static void import_report(struct writer *w, const struct cgfb_schema *schema, const char *at,
			  unsigned index, const struct cgfb_buf *json, struct counts *c)
{
	struct report_meta m = { 0 };
	struct job j = { .kind = JOB_PUT, .via = STORE_VIA_MAIL };
	char err[512];
	int rc = ingest_report(schema, json->data, json->len, &m, err, sizeof(err));

	/* A mail carries no token: a bound id takes its place from an
	 * unbound report under it (a squatter's), nothing more. */
	if (rc == 0)
		rc = ingest_claim(&m, NULL, 0, false);
	if (rc == 0) {
		j.meta = &m;
		j.body = json->data;
		j.len = json->len;
		rc = writer_submit(w, &j);
		snprintf(err, sizeof(err), "%s", rc == STORE_CONFLICT ?
			 "another report with this id is stored" : strerror(-rc));
	}
	if (rc == STORE_CONFLICT && stored_by_other_channel(c, &m, json)) {
		c->other_channel++;
		rc = STORE_SAME;
	}
	if (rc == STORE_CREATED)
		c->imported++;
	else if (rc == STORE_SAME)
		c->present++;
	else if (rc == STORE_WITHDRAWN)
		c->withdrawn++;
	else {
		c->failed++;
		cgfb_log(LOG_ERR, "%s: report %u not imported: %s", at, index, err);
	}
	ingest_meta_free(&m);
}

/* A sender's withdrawal of a report that went out by e-mail (the client
 * writes one when it has no collector to reach): its id and deletion token
 * are presented like a DELETE, checked against the stored hash. A report
 * that is not stored counts as withdrawn too, so that importing an archive
 * again is quiet; the log says it, since the report's own e-mail may just
 * not have been imported yet. false when msg is no withdrawal. */
static bool import_withdrawal(struct writer *w, const char *at, const char *msg, size_t len,
			      struct counts *c)
{
	char id[80], token[80];
	struct job j = { .kind = JOB_DELETE, .id = id, .token = token };
	int rc;

	if (!cgfb_mail_header(msg, len, CGFB_MAIL_HDR_WITHDRAW, id, sizeof(id)))
		return false;
	if (!cgfb_report_id_valid(id) ||
	    !cgfb_mail_header(msg, len, CGFB_MAIL_HDR_TOKEN, token, sizeof(token))) {
		c->failed++;
		cgfb_log(LOG_ERR, "%s: a withdrawal without a valid report id and deletion token", at);
		return true;
	}
	rc = writer_submit(w, &j);
	if (rc == 0 || rc == -ENOENT)
		c->withdrawn++;
	else
		c->failed++;
	if (rc == 0)
		cgfb_log(LOG_NOTICE, "%s: report %s withdrawn by its sender", at, id);
	else if (rc == -ENOENT)
		cgfb_log(LOG_NOTICE, "%s: withdrawal of report %s, which is not stored (withdrawn "
			 "already, or its own e-mail is not imported yet: then import this again "
			 "after it)", at, id);
	else
		cgfb_log(LOG_ERR, "%s: withdrawal of report %s refused: %s", at, id,
			 rc == -EACCES ? "the deletion token does not match" :
			 rc == -EPERM ? "the report carries no deletion token" : strerror(-rc));
	return true;
}

/* Every report of one message; a message that has a report's header or
 * marker but yields none, or a damaged report in it, is counted as failed
 * and said why, never passed over as "without a report". */
static void import_one(struct writer *w, const struct cgfb_schema *schema, const char *file,
		       unsigned n, const char *msg, size_t len, struct counts *c)
{
	struct cgfb_mail_reader r;
	struct cgfb_buf json = { 0 };
	char at[512], err[512];
	int rc;

	where(at, sizeof(at), file, n, msg, len);
	memset(&r, 0, sizeof(r));
	if (import_withdrawal(w, at, msg, len, c))
		goto out;
	rc = cgfb_mail_open(&r, msg, len, err, sizeof(err));
	if (rc == -ENOENT) {
		c->empty++;
		cgfb_log(LOG_NOTICE, "%s: skipped: no report in it", at);
		goto out;
	}
	if (rc < 0) {
		c->failed++;
		cgfb_log(LOG_ERR, "%s: not imported: %s", at, rc == -EBADMSG ? err : strerror(-rc));
		goto out;
	}
	while ((rc = cgfb_mail_next(&r, &json, err, sizeof(err))) != 0) {
		if (rc == 1) {
			import_report(w, schema, at, r.index, &json, c);
			continue;
		}
		c->failed++;
		cgfb_log(LOG_ERR, "%s: report %u not imported: %s", at, r.index,
			 rc == -EBADMSG ? err : strerror(-rc));
		if (rc != -EBADMSG)
			break;
	}
out:
	cgfb_mail_close(&r);
	cgfb_buf_free(&json);
}

/* A mailbox saved with CR line ends (classic Mac, some webmail exports)
 * would be one message with no line in it: a CR not before an LF is a
 * line end. Same length, in place. */
static void lone_cr_to_lf(char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] == '\r' && (i + 1 == len || s[i + 1] != '\n'))
			s[i] = '\n';
}

static int import_file(struct writer *w, const struct cgfb_schema *schema, const char *file,
		       struct counts *c)
{
	struct cgfb_buf data = { 0 };
	const char *msg;
	size_t pos = 0, len;
	unsigned n = 0;
	int rc = cgfb_read_file(file, IMPORT_FILE_MAX, 0, &data);

	if (rc < 0) {
		cgfb_log(LOG_ERR, "%s: %s", file, strerror(-rc));
		c->failed++;
		goto out;
	}
	lone_cr_to_lf(data.data, data.len);
	while (data.len && cgfb_mbox_next(data.data, data.len, &pos, &msg, &len) == 1)
		import_one(w, schema, file, ++n, msg, len, c);
out:
	cgfb_buf_free(&data);
	return rc;
}

static int parse(int argc, char **argv, const char **db)
{
	static const struct option opts[] = {
		{ "database", required_argument, NULL, 'd' },
		{ "db", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	*db = "collector.db";
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (opt == 'd') {
			*db = optarg;
			continue;
		}
		fputs("Usage: cgroup-feedback-server [--database FILE] import FILE...\n",
		      opt == 'h' ? stdout : stderr);
		return opt == 'h' ? 1 : -EINVAL;
	}
	if (optind >= argc) {
		cgfb_log(LOG_ERR, "import: no files given");
		return -EINVAL;
	}
	return 0;
}

int server_import(const struct cgfb_schema *schema, int argc, char **argv)
{
	struct counts c = { .db = NULL };
	struct writer *w = NULL;
	struct store *s = NULL;
	const char *db;
	int rc = parse(argc, argv, &db);

	if (rc)
		return rc > 0 ? 0 : 2;
	c.db = db;
	rc = store_open(&s, db, false);
	if (rc == 0)
		rc = writer_start(&w, s, NULL);
	if (rc < 0) {
		cgfb_log(LOG_ERR, "%s: cannot open the database", db);
		return 2;
	}
	for (int i = optind; i < argc; i++)
		import_file(w, schema, argv[i], &c);
	writer_stop(w);
	store_close(c.reader);
	if (c.other_channel)
		cgfb_log(LOG_NOTICE, "import: %u of the reports already stored came the other way "
			 "(the same report, sent over HTTP; only its consent record names the "
			 "other channel)", c.other_channel);
	printf("import: %u imported, %u already stored, %u withdrawn, %u without a report, "
	       "%u failed\n", c.imported, c.present, c.withdrawn, c.empty, c.failed);
	return c.failed ? 1 : 0;
}
