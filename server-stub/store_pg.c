/* The PostgreSQL backend (libpq): the database that several collector
 * instances share. The same tables as SQLite's (store_sqlite.c), with
 * text columns in the "C" collation so that comparisons and orderings are
 * byte-wise, as SQLite's are, whatever the database's locale.
 *
 * A connection that breaks (a restart or a fail-over of the server) makes
 * the call in progress fail, which the API answers 503 with Retry-After;
 * the next call reconnects (PQreset) and prepares its statements again. */
#include <endian.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>
#include <openssl/crypto.h>

#include "cgfb/buf.h"
#include "cgfb/log.h"
#include "cgfb/sha256.h"
#include "store_impl.h"

/* Advisory lock keys (two int4): the migrations, and the computation of
 * the public summary that one instance at a time does for all. */
#define LOCK_SPACE   1667721826  /* "cgfb" */
#define LOCK_MIGRATE 1
#define LOCK_SUMMARY 2

/* Each entry moves the schema from version i to i + 1. Never edit one that
 * has shipped: add the next. */
static const char *const migrations[] = {
	"CREATE TABLE reports ("
	" seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
	" id TEXT COLLATE \"C\" NOT NULL UNIQUE,"
	" sha256 TEXT COLLATE \"C\" NOT NULL,"
	" body BYTEA NOT NULL,"
	" received_at TEXT COLLATE \"C\" NOT NULL,"
	" via TEXT COLLATE \"C\" NOT NULL,"
	" token_sha256 TEXT COLLATE \"C\","
	" install TEXT COLLATE \"C\" NOT NULL,"
	" catalog_id TEXT COLLATE \"C\" NOT NULL,"
	" kernel_series TEXT COLLATE \"C\" NOT NULL,"
	" distribution TEXT COLLATE \"C\" NOT NULL,"
	" cgroup_mode TEXT COLLATE \"C\" NOT NULL,"
	" software TEXT COLLATE \"C\" NOT NULL,"
	" verdict TEXT COLLATE \"C\" NOT NULL,"
	" reorganisation TEXT COLLATE \"C\" NOT NULL,"
	" month TEXT COLLATE \"C\" NOT NULL,"
	" use_case TEXT COLLATE \"C\");"
	"CREATE INDEX reports_received ON reports(received_at);"
	"CREATE TABLE withdrawn (id TEXT COLLATE \"C\" PRIMARY KEY, at TEXT NOT NULL);"
	/* What one instance computed for all (see pg_summary_shared). */
	"CREATE TABLE summary_snapshot (name TEXT PRIMARY KEY, body TEXT NOT NULL,"
	" computed_at TIMESTAMPTZ NOT NULL);",
};

#define GROUPS_SRC_COLS "catalog_id, kernel_series, distribution, cgroup_mode, software," \
	" verdict, reorganisation, month, install"
/* Per session, emptied by every commit: the summary's small rows, copied
 * by one scan, which the nine group-bys then read (as in SQLite). */
static const char groups_src_sql[] =
	"CREATE TEMP TABLE IF NOT EXISTS groups_src ON COMMIT DELETE ROWS AS SELECT "
	GROUPS_SRC_COLS " FROM reports WHERE false";

#define GROUP_BY(col, where, order) \
	"SELECT " col ", count(*), count(DISTINCT install) FROM pg_temp.groups_src" \
	where " GROUP BY 1 ORDER BY " order

enum pst {
	P_FIND, P_INSERT, P_TOKEN, P_DELETE, P_FORGET, P_GET, P_LIST, P_SRC_FILL,
	P_SNAP_FRESH, P_SNAP_GET, P_SNAP_PUT, P_PUT_ROW, P_DIM0,
	P_COUNT = P_DIM0 + DIM_COUNT
};

static const char *const pst_sql[P_COUNT] = {
	[P_FIND] = "SELECT sha256, received_at FROM reports WHERE id = $1",
	/* One round trip for a new report: not if withdrawn, and DO NOTHING
	 * when the id is there (stored earlier, or by another instance at
	 * this moment: the INSERT waits for its commit). (withdrawn, stored)
	 * come back as counts; (0, 0) means "look it up". */
	[P_INSERT] = "WITH w AS (SELECT 1 FROM withdrawn WHERE id = $1),"
		     " ins AS (INSERT INTO reports (id, sha256, body, received_at, via, token_sha256,"
		     " install, catalog_id, kernel_series, distribution, cgroup_mode, software,"
		     " verdict, reorganisation, month, use_case)"
		     " SELECT $1, $2, $3::bytea, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,"
		     " $15, $16 WHERE NOT EXISTS (SELECT 1 FROM w)"
		     " ON CONFLICT (id) DO NOTHING RETURNING seq)"
		     " SELECT (SELECT count(*) FROM w), (SELECT count(*) FROM ins)",
	[P_TOKEN] = "SELECT token_sha256 FROM reports WHERE id = $1",
	[P_DELETE] = "DELETE FROM reports WHERE id = $1",
	[P_FORGET] = "INSERT INTO withdrawn (id, at) VALUES ($1, $2) ON CONFLICT DO NOTHING",
	[P_GET] = "SELECT body, sha256, received_at FROM reports WHERE id = $1",
	[P_LIST] = "SELECT seq, id, sha256, received_at, via, catalog_id, kernel_series,"
		   " distribution, cgroup_mode, software, verdict, reorganisation, use_case, body"
		   " FROM reports WHERE ($1::text IS NULL OR catalog_id = $1)"
		   " AND ($2::text IS NULL OR kernel_series = $2)"
		   " AND ($3::text IS NULL OR distribution = $3)"
		   " AND ($4::text IS NULL OR cgroup_mode = $4) AND ($5::text IS NULL OR verdict = $5)"
		   " AND ($6::text IS NULL OR received_at >= $6)"
		   " AND ($7::text IS NULL OR received_at < $7)"
		   " AND seq < CASE WHEN $8::bigint = 0 THEN 9223372036854775807 ELSE $8 END"
		   " ORDER BY seq DESC LIMIT $9",
	[P_SRC_FILL] = "INSERT INTO pg_temp.groups_src SELECT " GROUPS_SRC_COLS
		       " FROM reports WHERE received_at >= $1",
	[P_SNAP_FRESH] = "SELECT body FROM summary_snapshot WHERE name = 'public'"
			 " AND computed_at > now() - make_interval(secs => $1::int)",
	[P_SNAP_GET] = "SELECT body FROM summary_snapshot WHERE name = 'public'",
	[P_SNAP_PUT] = "INSERT INTO summary_snapshot (name, body, computed_at)"
		       " VALUES ('public', $1, now()) ON CONFLICT (name)"
		       " DO UPDATE SET body = excluded.body, computed_at = excluded.computed_at",
	/* migrate: a row as it was stored elsewhere, its receipt kept. */
	[P_PUT_ROW] = "INSERT INTO reports (id, sha256, body, received_at, via, token_sha256,"
		      " install, catalog_id, kernel_series, distribution, cgroup_mode, software,"
		      " verdict, reorganisation, month, use_case)"
		      " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)"
		      " ON CONFLICT (id) DO NOTHING RETURNING seq",
	[P_DIM0 + DIM_CATALOG_ID] = GROUP_BY("catalog_id", "", "2 DESC, 1"),
	[P_DIM0 + DIM_KERNEL_SERIES] = GROUP_BY("kernel_series", "", "2 DESC, 1"),
	[P_DIM0 + DIM_DISTRIBUTION] = GROUP_BY("distribution", "", "2 DESC, 1"),
	[P_DIM0 + DIM_CGROUP_MODE] = GROUP_BY("cgroup_mode", "", "2 DESC, 1"),
	[P_DIM0 + DIM_SOFTWARE] = GROUP_BY("software", " WHERE software != ''", "2 DESC, 1"),
	[P_DIM0 + DIM_VERDICT] = GROUP_BY("verdict", "", "2 DESC, 1"),
	[P_DIM0 + DIM_REORGANISATION] = GROUP_BY("reorganisation", "", "2 DESC, 1"),
	[P_DIM0 + DIM_MONTH] = GROUP_BY("month", "", "1"),
	[P_DIM0 + DIM_ALL] = "SELECT 'all', count(*), count(DISTINCT install)"
			     " FROM pg_temp.groups_src",
};

struct pg_store {
	struct store base;       /* first: what store.c sees */
	PGconn *conn;
	char *conninfo;
	bool readonly;
	bool down;               /* the last (re)connection failed: logged once */
	int tx_err;              /* first error inside the open transaction */
	unsigned timeout_ms;     /* statement_timeout of the session */
};

/* Shutdown: reads fail at once from now on. */
static atomic_bool aborting;

static void pg_close(struct store *base);

static struct pg_store *pgs(struct store *base)
{
	return (struct pg_store *)base;
}

/* The reason goes to the log only, on one line. */
static void log_pg(const char *what, const char *msg)
{
	const size_t n = strcspn(msg ? msg : "", "\n");

	cgfb_log(LOG_ERR, "database: %s: %.*s", what, (int)n, msg ? msg : "");
}

/* A SQLSTATE as the errno the rest of the server understands. */
static int sqlstate_errno(const char *state)
{
	if (!state)
		return -EIO;
	if (strcmp(state, "40P01") == 0 || strcmp(state, "40001") == 0)
		return -EDEADLK;        /* the writer runs its batch again */
	if (strcmp(state, "57014") == 0)
		return -ETIMEDOUT;      /* statement_timeout */
	if (strcmp(state, "53100") == 0)
		return -ENOSPC;
	if (strcmp(state, "53200") == 0)
		return -ENOMEM;
	if (strcmp(state, "25006") == 0)
		return -EROFS;
	if (strncmp(state, "08", 2) == 0 || strncmp(state, "57P", 3) == 0)
		return -ENOTCONN;
	return -EIO;
}

/* Log what failed and return it as a negative errno; the first error of a
 * transaction is kept for its commit (PostgreSQL aborts the whole
 * transaction at the first failed statement). */
static int db_error(struct pg_store *s, const char *what, const PGresult *res)
{
	int rc;

	if (PQstatus(s->conn) != CONNECTION_OK) {
		log_pg(what, PQerrorMessage(s->conn));
		rc = -ENOTCONN;
	} else {
		log_pg(what, res ? PQresultErrorMessage(res) : PQerrorMessage(s->conn));
		rc = sqlstate_errno(res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL);
	}
	if (!s->tx_err)
		s->tx_err = rc;
	return rc;
}

/* Constant SQL, several statements allowed; only for setup and schema. */
static int exec_const(struct pg_store *s, const char *what, const char *sql)
{
	PGresult *res = PQexec(s->conn, sql);
	const ExecStatusType st = PQresultStatus(res);
	int rc = 0;

	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		rc = db_error(s, what, res);
	PQclear(res);
	return rc;
}

/* One prepared statement; text parameters (NULL is SQL NULL) except where
 * fmts says binary, every result column binary (text comes as its bytes,
 * bytea as its bytes, bigint as 8 big-endian bytes). NULL on failure, *rc
 * set. */
static PGresult *run(struct pg_store *s, enum pst i, int n, const char *const *vals,
		     const int *lens, const int *fmts, const char *what, int *rc)
{
	char name[16];
	PGresult *res;
	ExecStatusType st;

	snprintf(name, sizeof(name), "c%d", (int)i);
	res = PQexecPrepared(s->conn, name, n, vals, lens, fmts, 1);
	st = PQresultStatus(res);
	if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
		*rc = 0;
		return res;
	}
	*rc = db_error(s, what, res);
	PQclear(res);
	return NULL;
}

static int64_t int8_at(const PGresult *res, int row, int col)
{
	uint64_t v = 0;

	if (PQgetlength(res, row, col) == 8)
		memcpy(&v, PQgetvalue(res, row, col), 8);
	return (int64_t)be64toh(v);
}

static int schema_version(struct pg_store *s, int *v)
{
	PGresult *res = PQexec(s->conn, "SELECT coalesce(max(version), 0) FROM cgfb_schema");
	int rc = 0;

	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1)
		rc = db_error(s, "schema version", res);
	else
		*v = atoi(PQgetvalue(res, 0, 0));
	PQclear(res);
	return rc;
}

static int migrate_step(struct pg_store *s, int v)
{
	char bump[96];
	int rc;

	snprintf(bump, sizeof(bump), "DELETE FROM cgfb_schema; INSERT INTO cgfb_schema VALUES (%d)",
		 v + 1);
	/* Each step and its version bump commit together or not at all. */
	rc = exec_const(s, "migrate", "BEGIN");
	if (rc == 0)
		rc = exec_const(s, "migrate", migrations[v]);
	if (rc == 0)
		rc = exec_const(s, "migrate", bump);
	if (rc == 0)
		rc = exec_const(s, "migrate", "COMMIT");
	if (rc < 0)
		exec_const(s, "migrate", "ROLLBACK");
	else
		cgfb_log(LOG_INFO, "database schema migrated to version %d", v + 1);
	return rc;
}

/* Under a session advisory lock: two instances starting together would
 * otherwise both see version 0 and both create the tables. */
static int migrate(struct pg_store *s)
{
	const int latest = (int)(sizeof(migrations) / sizeof(migrations[0]));
	char lock[96], unlock[96];
	int v = 0, rc;

	snprintf(lock, sizeof(lock), "SELECT pg_advisory_lock(%d, %d)", LOCK_SPACE, LOCK_MIGRATE);
	snprintf(unlock, sizeof(unlock), "SELECT pg_advisory_unlock(%d, %d)", LOCK_SPACE,
		 LOCK_MIGRATE);
	rc = exec_const(s, "migration lock", lock);
	if (rc < 0)
		return rc;
	rc = exec_const(s, "migrate", "CREATE TABLE IF NOT EXISTS cgfb_schema (version INTEGER NOT NULL)");
	if (rc == 0)
		rc = schema_version(s, &v);
	if (rc == 0 && v > latest) {
		cgfb_log(LOG_ERR, "database schema version %d is newer than this server's %d", v,
			 latest);
		rc = -EPROTO;
	}
	for (; rc == 0 && v < latest; v++)
		rc = migrate_step(s, v);
	exec_const(s, "migration unlock", unlock);
	return rc;
}

/* Drop PostgreSQL's NOTICEs ("relation already exists, skipping"): they
 * are not the operator's business, and errors come back in results. */
static void quiet_notice(void *arg, const char *msg)
{
}

static int set_timeout(struct pg_store *s, unsigned ms)
{
	char sql[64];
	int rc;

	if (ms == s->timeout_ms)
		return 0;
	snprintf(sql, sizeof(sql), "SET statement_timeout = %u", ms);
	rc = exec_const(s, "statement_timeout", sql);
	if (rc == 0)
		s->timeout_ms = ms;
	return rc;
}

/* What every new session needs: its settings, its temporary table, its
 * prepared statements. Run again after a reconnection. */
static int session_setup(struct pg_store *s)
{
	int rc;

	PQsetNoticeProcessor(s->conn, quiet_notice, NULL);
	s->timeout_ms = 0;
	/* A 201 follows a commit that is on the server's disk (and on its
	 * synchronous standbys), whatever the database's default says. */
	rc = exec_const(s, "session", "SET synchronous_commit = on; SET client_encoding = 'UTF8'");
	if (rc == 0 && s->readonly)
		rc = set_timeout(s, STORE_READ_MS);
	if (rc == 0)
		rc = exec_const(s, "session", groups_src_sql);
	for (int i = 0; rc == 0 && i < P_COUNT; i++) {
		char name[16];
		PGresult *res;

		snprintf(name, sizeof(name), "c%d", i);
		res = PQprepare(s->conn, name, pst_sql[i], 0, NULL);
		if (PQresultStatus(res) != PGRES_COMMAND_OK)
			rc = db_error(s, "prepare", res);
		PQclear(res);
	}
	return rc;
}

/* Before each use: a broken connection is reset (one attempt; the caller
 * answers 503 and the next request tries again). Logged once per outage. */
static int ensure(struct pg_store *s)
{
	int rc;

	if (PQstatus(s->conn) == CONNECTION_OK)
		return 0;
	PQreset(s->conn);
	if (PQstatus(s->conn) != CONNECTION_OK) {
		if (!s->down)
			log_pg("reconnect", PQerrorMessage(s->conn));
		s->down = true;
		return -ENOTCONN;
	}
	rc = session_setup(s);
	if (rc == 0) {
		cgfb_log(LOG_NOTICE, "database: reconnected");
		s->down = false;
	}
	return rc;
}

/* Defaults that the database option may override (its values come
 * last): a server that does not answer fails a (re)connection within
 * seconds and a connection whose peer vanished within seconds, so that
 * requests are answered 503 instead of waiting for TCP's minutes. The
 * password comes from PGPASSFILE, a service file or the environment,
 * never from the command line (docs/man). */
static PGconn *connect_db(const char *conninfo)
{
	static const char *const keys[] = { "application_name", "connect_timeout",
					    "tcp_user_timeout", "dbname", NULL };
	const char *const vals[] = { "cgroup-feedback-server", "5", "10000", conninfo, NULL };

	return PQconnectdbParams(keys, vals, 1);
}

static int pg_open(struct store **out, const char *where, bool readonly)
{
	struct pg_store *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		return -ENOMEM;
	s->base.ops = &store_pg_ops;
	s->readonly = readonly;
	s->conninfo = strdup(where);
	if (!s->conninfo) {
		rc = -ENOMEM;
		goto fail;
	}
	s->conn = connect_db(s->conninfo);
	if (!s->conn) {
		rc = -ENOMEM;
		goto fail;
	}
	if (PQstatus(s->conn) != CONNECTION_OK) {
		log_pg("connect", PQerrorMessage(s->conn));
		rc = -ENOTCONN;
		goto fail;
	}
	PQsetNoticeProcessor(s->conn, quiet_notice, NULL);
	rc = readonly ? 0 : migrate(s);
	if (rc == 0)
		rc = session_setup(s);
	if (rc < 0)
		goto fail;
	*out = &s->base;
	return 0;
fail:
	pg_close(&s->base);
	return rc;
}

static void pg_close(struct store *base)
{
	struct pg_store *s = pgs(base);

	if (!s)
		return;
	PQfinish(s->conn);
	free(s->conninfo);
	free(s);
}

static void pg_read_deadline(struct store *base, unsigned ms)
{
	struct pg_store *s = pgs(base);

	/* Each statement is bounded by it: an export's page, a summary's
	 * group-by. A failure shows in the read that follows. */
	if (PQstatus(s->conn) == CONNECTION_OK)
		set_timeout(s, ms);
}

static void pg_abort_reads(void)
{
	atomic_store(&aborting, true);
}

/* The WAL and checkpoints are the server's business, not ours. */
static int pg_unsupported(struct store *base)
{
	return -EOPNOTSUPP;
}

static int pg_wal_path(struct store *base, char *buf, size_t bufsz)
{
	return -EOPNOTSUPP;
}

static int pg_begin(struct store *base)
{
	struct pg_store *s = pgs(base);
	int rc = ensure(s);

	if (rc == 0)
		rc = exec_const(s, "begin", "BEGIN");
	s->tx_err = 0;
	return rc;
}

/* A COMMIT of a transaction in which a statement failed is answered
 * "ROLLBACK", not an error: only the command tag says it committed. */
static int pg_commit(struct store *base)
{
	struct pg_store *s = pgs(base);
	PGresult *res = PQexec(s->conn, "COMMIT");
	int rc = 0;

	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		rc = db_error(s, "commit", res);
	else if (strcmp(PQcmdStatus(res), "COMMIT") != 0)
		rc = s->tx_err ? s->tx_err : -EIO;
	PQclear(res);
	s->tx_err = 0;
	return rc;
}

static void pg_rollback(struct store *base)
{
	struct pg_store *s = pgs(base);

	if (PQstatus(s->conn) == CONNECTION_OK && PQtransactionStatus(s->conn) != PQTRANS_IDLE)
		PQclear(PQexec(s->conn, "ROLLBACK"));
	s->tx_err = 0;
}

static const char *nonempty(const char *v)
{
	return v && *v ? v : NULL;
}

static void copy_at(const PGresult *res, int row, int col, char *dst, size_t dstsz)
{
	snprintf(dst, dstsz, "%s", PQgetisnull(res, row, col) ? "" : PQgetvalue(res, row, col));
}

/* 1 when id exists (its receipt and stored hash into r), 0 when not. */
static int find(struct pg_store *s, const char *id, struct receipt *r)
{
	int rc;
	PGresult *res = run(s, P_FIND, 1, &id, NULL, NULL, "find", &rc);

	if (!res)
		return rc;
	rc = PQntuples(res) > 0;
	if (rc) {
		snprintf(r->id, sizeof(r->id), "%s", id);
		copy_at(res, 0, 0, r->sha256, sizeof(r->sha256));
		copy_at(res, 0, 1, r->received_at, sizeof(r->received_at));
	}
	PQclear(res);
	return rc;
}

/* 1 stored, 2 withdrawn before, 0 the id is there already. */
static int insert(struct pg_store *s, const struct report_meta *m, const char *body, size_t len,
		  const char *received_at, const char *via)
{
	const char *vals[16] = { m->id, m->sha256, body, received_at, via,
				 nonempty(m->token_sha256), m->install, m->catalog_id,
				 m->kernel_series, m->distribution, m->cgroup_mode, m->software,
				 m->verdict, m->reorganisation, m->month, nonempty(m->use_case) };
	int lens[16] = { 0 }, fmts[16] = { 0 };
	PGresult *res;
	int rc;

	/* Absent fields are stored as '' as in SQLite, but for the two
	 * that may be NULL. */
	for (int i = 0; i < 16; i++)
		if (!vals[i] && i != 5 && i != 15)
			vals[i] = "";
	lens[2] = (int)len;
	fmts[2] = 1;
	res = run(s, P_INSERT, 16, vals, lens, fmts, "insert", &rc);
	if (!res)
		return rc;
	if (PQntuples(res) != 1)
		rc = -EIO;
	else if (int8_at(res, 0, 0) > 0)
		rc = 2;
	else
		rc = int8_at(res, 0, 1) > 0;
	PQclear(res);
	return rc;
}

static int pg_put(struct store *base, const struct report_meta *m, const char *body, size_t len,
		  const char *received_at, const char *via, struct receipt *r)
{
	struct pg_store *s = pgs(base);
	int rc = insert(s, m, body, len, received_at, via);

	if (rc == 2)
		return STORE_WITHDRAWN;
	if (rc == 1) {
		snprintf(r->id, sizeof(r->id), "%s", m->id);
		snprintf(r->sha256, sizeof(r->sha256), "%s", m->sha256);
		snprintf(r->received_at, sizeof(r->received_at), "%s", received_at);
		return STORE_CREATED;
	}
	/* The id is there, committed: if another instance stored it at this
	 * moment, our INSERT waited for its commit, and this new statement
	 * sees its row and its receipt. */
	if (rc == 0)
		rc = find(s, m->id, r);
	if (rc == 0)
		return -EAGAIN;   /* stored and withdrawn meanwhile: retried later */
	if (rc < 0)
		return rc;
	return strcmp(r->sha256, m->sha256) == 0 ? STORE_SAME : STORE_CONFLICT;
}

/* -ENOENT, -EPERM (no token stored) or 0 with the stored hash in want. */
static int stored_token(struct pg_store *s, const char *id, char want[65])
{
	int rc;
	PGresult *res = run(s, P_TOKEN, 1, &id, NULL, NULL, "token", &rc);

	if (!res)
		return rc;
	if (PQntuples(res) == 0)
		rc = -ENOENT;
	else
		copy_at(res, 0, 0, want, 65);
	PQclear(res);
	if (rc < 0)
		return rc;
	return strlen(want) == 64 ? 0 : -EPERM;
}

static int pg_delete(struct store *base, const char *id, const char *token, const char *when)
{
	struct pg_store *s = pgs(base);
	const char *forget[2] = { id, when };
	char want[65], got[65];
	PGresult *res;
	int rc = stored_token(s, id, want);

	if (rc < 0)
		return rc;
	cgfb_sha256_hex(token, strlen(token), got);
	/* Both are 64 hex digits: compare all of them, whatever differs. */
	if (CRYPTO_memcmp(want, got, 64) != 0)
		return -EACCES;
	res = run(s, P_DELETE, 1, &id, NULL, NULL, "delete", &rc);
	PQclear(res);
	if (rc < 0)
		return rc;
	res = run(s, P_FORGET, 2, forget, NULL, NULL, "withdraw", &rc);
	PQclear(res);
	return rc;
}

/* Reads: not once the server is stopping, and on a live connection. */
static int read_ready(struct pg_store *s)
{
	if (atomic_load_explicit(&aborting, memory_order_relaxed))
		return -ETIMEDOUT;
	return ensure(s);
}

static int pg_get(struct store *base, const char *id, struct cgfb_buf *body, struct receipt *r)
{
	struct pg_store *s = pgs(base);
	PGresult *res;
	int rc = read_ready(s);

	if (rc < 0)
		return rc;
	res = run(s, P_GET, 1, &id, NULL, NULL, "get", &rc);
	if (!res)
		return rc;
	if (PQntuples(res) == 0) {
		rc = -ENOENT;
	} else {
		body->len = 0;
		rc = cgfb_buf_add(body, PQgetvalue(res, 0, 0), (size_t)PQgetlength(res, 0, 0));
		snprintf(r->id, sizeof(r->id), "%s", id);
		copy_at(res, 0, 1, r->sha256, sizeof(r->sha256));
		copy_at(res, 0, 2, r->received_at, sizeof(r->received_at));
	}
	PQclear(res);
	return rc;
}

static const char *col(const PGresult *res, int row, int i)
{
	return PQgetisnull(res, row, i) ? "" : PQgetvalue(res, row, i);
}

static int list_rows(const PGresult *res, int (*fn)(const struct store_row *row, void *ud),
		     void *ud)
{
	int ret = 0;

	for (int i = 0; !ret && i < PQntuples(res); i++) {
		const struct store_row row = {
			.seq = int8_at(res, i, 0), .id = col(res, i, 1), .sha256 = col(res, i, 2),
			.received_at = col(res, i, 3), .via = col(res, i, 4),
			.catalog_id = col(res, i, 5), .kernel_series = col(res, i, 6),
			.distribution = col(res, i, 7), .cgroup_mode = col(res, i, 8),
			.software = col(res, i, 9), .verdict = col(res, i, 10),
			.reorganisation = col(res, i, 11),
			.use_case = PQgetisnull(res, i, 12) ? NULL : col(res, i, 12),
			.body = PQgetvalue(res, i, 13),
			.body_len = (size_t)PQgetlength(res, i, 13),
		};

		ret = fn(&row, ud);
	}
	return ret;
}

static int pg_list(struct store *base, const struct store_filter *f,
		   int (*fn)(const struct store_row *row, void *ud), void *ud)
{
	struct pg_store *s = pgs(base);
	char before[24], limit[24];
	const char *vals[9] = { nonempty(f->catalog_id), nonempty(f->kernel_series),
				nonempty(f->distribution), nonempty(f->cgroup_mode),
				nonempty(f->verdict), nonempty(f->since), nonempty(f->until),
				before, limit };
	PGresult *res;
	int rc = read_ready(s);

	if (rc < 0)
		return rc;
	snprintf(before, sizeof(before), "%lld", (long long)f->before);
	snprintf(limit, sizeof(limit), "%u", f->limit);
	res = run(s, P_LIST, 9, vals, NULL, NULL, "list", &rc);
	if (!res)
		return rc;
	rc = list_rows(res, fn, ud);
	PQclear(res);
	return rc;
}

/* One snapshot for the summary's nine group-bys: REPEATABLE READ. */
static int pg_groups_begin(struct store *base, const char *since)
{
	struct pg_store *s = pgs(base);
	const char *from = since ? since : "";
	PGresult *res;
	int rc = read_ready(s);

	if (rc == 0)
		rc = exec_const(s, "summary", "BEGIN ISOLATION LEVEL REPEATABLE READ");
	if (rc < 0)
		return rc;
	res = run(s, P_SRC_FILL, 1, &from, NULL, NULL, "summary", &rc);
	PQclear(res);
	if (rc < 0)
		pg_rollback(base);
	return rc;
}

static void pg_groups_end(struct store *base)
{
	struct pg_store *s = pgs(base);

	/* Read-only work: the commit only empties groups_src. */
	if (exec_const(s, "summary", "COMMIT") < 0)
		pg_rollback(base);
}

static int pg_groups(struct store *base, enum store_dim d,
		     int (*fn)(const char *key, int64_t reports, int64_t installs, void *ud),
		     void *ud)
{
	struct pg_store *s = pgs(base);
	int rc, ret = 0;
	PGresult *res = run(s, (enum pst)(P_DIM0 + d), 0, NULL, NULL, NULL, "summary", &rc);

	if (!res)
		return rc;
	for (int i = 0; !ret && i < PQntuples(res); i++)
		ret = fn(col(res, i, 0), int8_at(res, i, 1), int8_at(res, i, 2), ud);
	PQclear(res);
	return ret;
}

/* SELECT pg_[try_]advisory_[un]lock(...) of the summary: 1 when it
 * returned true. */
static int summary_lock(struct pg_store *s, const char *fn)
{
	char sql[96];
	PGresult *res;
	int rc;

	snprintf(sql, sizeof(sql), "SELECT %s(%d, %d)::int", fn, LOCK_SPACE, LOCK_SUMMARY);
	res = PQexec(s->conn, sql);
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1)
		rc = db_error(s, "summary lock", res);
	else
		rc = strcmp(PQgetvalue(res, 0, 0), "1") == 0 ? 1 : 0;
	PQclear(res);
	return rc;
}

/* The stored summary into out: 1 when there is one (younger than
 * max_age seconds with P_SNAP_FRESH), 0 when not. */
static int snapshot_get(struct pg_store *s, enum pst i, unsigned max_age, struct cgfb_buf *out)
{
	char age[16];
	const char *vals[1] = { age };
	PGresult *res;
	int rc;

	snprintf(age, sizeof(age), "%u", max_age);
	res = run(s, i, i == P_SNAP_FRESH ? 1 : 0, vals, NULL, NULL, "summary", &rc);
	if (!res)
		return rc;
	if (PQntuples(res) == 1) {
		out->len = 0;
		rc = cgfb_buf_add(out, PQgetvalue(res, 0, 0), (size_t)PQgetlength(res, 0, 0));
		if (rc == 0)
			rc = 1;
	}
	PQclear(res);
	return rc;
}

/* Under the lock: a copy recent enough, or a new one computed and stored. */
static int snapshot_refresh(struct pg_store *s, unsigned max_age,
			    int (*compute)(struct store *s, struct cgfb_buf *out, void *ud),
			    void *ud, struct cgfb_buf *out)
{
	PGresult *res;
	const char *vals[1];
	int lens[1];
	int rc = snapshot_get(s, P_SNAP_FRESH, max_age / 2, out);

	if (rc != 0)
		return rc < 0 ? rc : 0;
	rc = compute(&s->base, out, ud);
	if (rc < 0)
		return rc;
	vals[0] = out->data;
	lens[0] = (int)out->len;
	res = run(s, P_SNAP_PUT, 1, vals, lens, NULL, "summary", &rc);
	PQclear(res);
	return rc;
}

static int pg_summary_shared(struct store *base, unsigned max_age,
			     int (*compute)(struct store *s, struct cgfb_buf *out, void *ud),
			     void *ud, struct cgfb_buf *out)
{
	struct pg_store *s = pgs(base);
	int rc = read_ready(s), got = 0;

	if (rc == 0)
		got = rc = summary_lock(s, "pg_try_advisory_lock");
	if (rc == 0) {
		/* Another instance is computing: serve what it stored last;
		 * when there is nothing yet (a new database), wait for it. */
		rc = snapshot_get(s, P_SNAP_GET, 0, out);
		if (rc != 0)
			return rc < 0 ? rc : 0;
		got = rc = summary_lock(s, "pg_advisory_lock");
	}
	if (rc < 0)
		return rc;
	rc = snapshot_refresh(s, max_age, compute, ud, out);
	if (got)
		summary_lock(s, "pg_advisory_unlock");
	return rc;
}

static int pg_put_row(struct store *base, const struct store_row *row)
{
	struct pg_store *s = pgs(base);
	/* NULL stays NULL, '' stays '': the row as the source had it. */
	const char *vals[16] = { row->id, row->sha256, row->body, row->received_at, row->via,
				 row->token_sha256, row->install, row->catalog_id,
				 row->kernel_series, row->distribution, row->cgroup_mode,
				 row->software, row->verdict, row->reorganisation, row->month,
				 row->use_case };
	int lens[16] = { 0 }, fmts[16] = { 0 };
	struct receipt r = { 0 };
	PGresult *res;
	int rc;

	lens[2] = (int)row->body_len;
	fmts[2] = 1;
	res = run(s, P_PUT_ROW, 16, vals, lens, fmts, "migrate", &rc);
	if (!res)
		return rc;
	rc = PQntuples(res) > 0;
	PQclear(res);
	if (rc == 1)
		return STORE_CREATED;
	rc = find(s, row->id, &r);
	if (rc <= 0)
		return rc < 0 ? rc : -EIO;
	return strcmp(r.sha256, row->sha256) == 0 ? STORE_SAME : STORE_CONFLICT;
}

static int pg_put_withdrawn(struct store *base, const char *id, const char *at)
{
	struct pg_store *s = pgs(base);
	const char *vals[2] = { id, at };
	int rc;
	PGresult *res = run(s, P_FORGET, 2, vals, NULL, NULL, "migrate", &rc);

	PQclear(res);
	return rc;
}

const struct store_ops store_pg_ops = {
	.name = "postgresql",
	.open = pg_open,
	.close = pg_close,
	.read_deadline = pg_read_deadline,
	.abort_reads = pg_abort_reads,
	.manual_checkpoints = pg_unsupported,
	.checkpoint = pg_unsupported,
	.defer_sync = pg_unsupported,
	.wal_path = pg_wal_path,
	.begin = pg_begin,
	.commit = pg_commit,
	.rollback = pg_rollback,
	.put = pg_put,
	.del = pg_delete,
	.get = pg_get,
	.list = pg_list,
	.groups_begin = pg_groups_begin,
	.groups_end = pg_groups_end,
	.groups = pg_groups,
	.summary_shared = pg_summary_shared,
	.put_row = pg_put_row,
	.put_withdrawn = pg_put_withdrawn,
};
