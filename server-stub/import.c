/* cgroup-feedback-server import: e-mails written by the client's offline
 * export (single .eml files or mboxes) into the same database as the HTTP
 * path, through the same admission and the same writer, so a report that
 * came both ways is stored once. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cgfb/buf.h"
#include "cgfb/log.h"
#include "cgfb/readfile.h"
#include "cgfb/mail.h"
#include "import.h"
#include "ingest.h"
#include "writer.h"

/* Mailboxes bigger than this are split first; it bounds memory. */
#define IMPORT_FILE_MAX (1024u * 1024 * 1024)

struct counts {
	unsigned imported, present, withdrawn, empty, failed;
};

int import_admit(const struct cgfb_schema *schema, const char *msg, size_t len,
		 struct cgfb_buf *json, struct report_meta *m, char *err, size_t errsz)
{
	int rc = cgfb_mail_extract(msg, len, json, err, errsz);

	memset(m, 0, sizeof(*m));
	if (rc == 0)
		rc = ingest_report(schema, json->data, json->len, m, err, errsz);
	return rc;
}

static void import_one(struct writer *w, const struct cgfb_schema *schema, const char *file,
		       unsigned n, const char *msg, size_t len, struct counts *c)
{
	struct cgfb_buf json = { 0 };
	struct report_meta m = { 0 };
	struct job j = { .kind = JOB_PUT, .via = "mail" };
	char err[512];
	int rc;

	rc = import_admit(schema, msg, len, &json, &m, err, sizeof(err));
	if (rc == -ENOENT) {
		c->empty++;
		goto out;
	}
	if (rc == 0) {
		j.meta = &m;
		j.body = json.data;
		j.len = json.len;
		rc = writer_submit(w, &j);
		snprintf(err, sizeof(err), "%s", rc == STORE_CONFLICT ?
			 "another report with this id is stored" : strerror(-rc));
	}
	if (rc == STORE_CREATED)
		c->imported++;
	else if (rc == STORE_SAME)
		c->present++;
	else if (rc == STORE_WITHDRAWN)
		c->withdrawn++;
	else {
		c->failed++;
		cgfb_log(LOG_ERR, "%s: message %u: %s", file, n, err);
	}
out:
	ingest_meta_free(&m);
	cgfb_buf_free(&json);
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
	struct counts c = { 0 };
	struct writer *w = NULL;
	struct store *s = NULL;
	const char *db;
	int rc = parse(argc, argv, &db);

	if (rc)
		return rc > 0 ? 0 : 2;
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
	printf("import: %u imported, %u already stored, %u withdrawn, %u without a report, "
	       "%u failed\n", c.imported, c.present, c.withdrawn, c.empty, c.failed);
	return c.failed ? 1 : 0;
}
