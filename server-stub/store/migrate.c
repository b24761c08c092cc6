/* cgroup-feedback-server migrate --from SQLITE_FILE --to POSTGRESQL: every
 * report of a SQLite collector copied as it is (bytes, hash, receipt time,
 * how it came, token hash) into a PostgreSQL database, oldest first so
 * that the order of the list and the export stays, one transaction per
 * page; then every withdrawn id; then each report read back from the
 * destination and compared with the source, so that the count printed is
 * of reports verified, not of reports sent. Run again, it copies what is
 * missing and verifies all. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cgfb/buf.h"
#include "cgfb/log.h"
#include "cgfb/sha256.h"
#include "store/migrate.h"
#include "store/store.h"

/* Reports per transaction and per read of the source. */
#define MIGRATE_PAGE 500

struct copy {
	struct store *dst;
	int64_t last;                /* seq of the last source row handled */
	unsigned rows, created, present, conflicts, withdrawn;
	unsigned verified, mismatched;
	struct cgfb_buf got;         /* verify: the destination's bytes */
};

static int copy_row(const struct store_row *row, void *ud)
{
	struct copy *c = ud;
	const int rc = store_put_row(c->dst, row);

	c->last = row->seq;
	c->rows++;
	if (rc == STORE_CREATED)
		c->created++;
	else if (rc == STORE_SAME)
		c->present++;
	else if (rc == STORE_CONFLICT) {
		c->conflicts++;
		cgfb_log(LOG_ERR, "migrate: report %s: the destination has other bytes under "
			 "this id", row->id);
	}
	return rc < 0 ? rc : 0;
}

/* One page, one transaction: 1 when there was a page, 0 at the end. */
static int copy_page(struct store *src, struct copy *c)
{
	const int64_t was = c->last;
	int rc = store_begin(c->dst);

	if (rc == 0)
		rc = store_scan(src, c->last, MIGRATE_PAGE, copy_row, c);
	if (rc == 0)
		rc = store_commit(c->dst);
	if (rc < 0) {
		store_rollback(c->dst);
		return rc;
	}
	return c->last != was;
}

static int copy_withdrawn(const char *id, const char *at, const char *token_sha256, void *ud)
{
	struct copy *c = ud;
	const int rc = store_put_withdrawn(c->dst, id, at, token_sha256);

	if (rc == 0)
		c->withdrawn++;
	return rc;
}

static int copy_all(struct store *src, struct copy *c)
{
	int rc;

	while ((rc = copy_page(src, c)) == 1)
		if (c->rows % 10000 < MIGRATE_PAGE)
			fprintf(stderr, "migrate: %u reports copied\n", c->rows);
	if (rc < 0)
		return rc;
	rc = store_begin(c->dst);
	if (rc == 0)
		rc = store_withdrawn_list(src, copy_withdrawn, c);
	if (rc == 0)
		rc = store_commit(c->dst);
	if (rc < 0)
		store_rollback(c->dst);
	return rc;
}

/* The destination's copy of row: the same bytes, the same recorded hash,
 * which is the hash of those bytes, and the same receipt time. */
static int verify_row(const struct store_row *row, void *ud)
{
	struct copy *c = ud;
	struct receipt r;
	char sha[65];
	int rc = store_get(c->dst, row->id, &c->got, &r);

	c->last = row->seq;
	if (rc < 0 && rc != -ENOENT)
		return rc;
	if (rc == 0)
		cgfb_sha256_hex(c->got.data, c->got.len, sha);
	if (rc == 0 && c->got.len == row->body_len &&
	    memcmp(c->got.data, row->body, row->body_len) == 0 &&
	    strcmp(r.sha256, row->sha256) == 0 && strcmp(sha, row->sha256) == 0 &&
	    strcmp(r.received_at, row->received_at) == 0) {
		c->verified++;
		return 0;
	}
	c->mismatched++;
	cgfb_log(LOG_ERR, "migrate: report %s: %s in the destination", row->id,
		 rc == -ENOENT ? "missing" : "not the same");
	return 0;
}

static int verify_all(struct store *src, struct copy *c)
{
	int64_t was;
	int rc;

	c->last = 0;
	do {
		was = c->last;
		rc = store_scan(src, c->last, MIGRATE_PAGE, verify_row, c);
	} while (rc == 0 && c->last != was);
	return rc;
}

static int parse(int argc, char **argv, const char **from, const char **to)
{
	static const struct option opts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	*from = *to = NULL;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (opt == 'f')
			*from = optarg;
		else if (opt == 't')
			*to = optarg;
		else {
			fputs("Usage: cgroup-feedback-server migrate --from SQLITE_FILE "
			      "--to POSTGRESQL_URI\n", opt == 'h' ? stdout : stderr);
			return opt == 'h' ? 1 : -EINVAL;
		}
	}
	if (!*from || !*to || optind < argc || store_is_postgres(*from) ||
	    !store_is_postgres(*to)) {
		cgfb_log(LOG_ERR, "migrate: --from takes a SQLite file, --to a PostgreSQL "
			 "database (postgresql://... or key=value)");
		return -EINVAL;
	}
	return 0;
}

int server_migrate(int argc, char **argv)
{
	struct store *src = NULL;
	struct copy c = { 0 };
	const char *from, *to;
	int rc = parse(argc, argv, &from, &to);

	if (rc)
		return rc > 0 ? 0 : 2;
	rc = store_open(&src, from, true);
	if (rc < 0)
		cgfb_log(LOG_ERR, "migrate: %s: cannot open the database", from);
	if (rc == 0 && (rc = store_open(&c.dst, to, false)) < 0)
		cgfb_log(LOG_ERR, "migrate: cannot open the destination database");
	if (rc == 0 && (rc = copy_all(src, &c)) < 0)
		cgfb_log(LOG_ERR, "migrate: stopped after %u reports: %s", c.rows, strerror(-rc));
	if (rc == 0 && (rc = verify_all(src, &c)) < 0)
		cgfb_log(LOG_ERR, "migrate: verification stopped: %s", strerror(-rc));
	store_close(c.dst);
	store_close(src);
	cgfb_buf_free(&c.got);
	if (rc < 0)
		return 2;
	printf("migrate: %u reports: %u copied, %u already there, %u conflicting; "
	       "%u withdrawn ids; %u verified (bytes, hash, receipt), %u not\n", c.rows,
	       c.created, c.present, c.conflicts, c.withdrawn, c.verified, c.mismatched);
	return c.conflicts || c.mismatched || c.verified != c.rows ? 1 : 0;
}
