/* The PostgreSQL backend (libpq): the database that several collector
 * instances share. The same tables as SQLite's (store_sqlite.c), with
 * text columns in the "C" collation so that comparisons and orderings are
 * byte-wise, as SQLite's are, whatever the database's locale.
 *
 * A connection that breaks (a restart or a fail-over of the server) or
 * does not answer within its deadline (a frozen server: store_pg_conn.c)
 * makes the call in progress fail, which the API answers 503 with
 * Retry-After; the next transaction connects again and prepares its
 * statements again.
 *
 * This file: sessions, the schema and its migrations, transactions. The
 * shutdown's flags are in store_pg_readers.c, the connection and its
 * deadlines in store_pg_conn.c, writes in store_pg_write.c, reads in store_pg_read.c,
 * the readers' list in store_pg_readers.c, the table of operations that
 * store.c calls in store_pg_ops.c: each uses only the ones before it. */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgfb/log.h"
#include "store/store_pg.h"
#include "store/tally_sql.h"

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
	/* Where a report comes from (report_meta.origin): every report before
	 * check --report existed was a kernel's warning. A constant default:
	 * no rewrite of the table. */
	"ALTER TABLE reports ADD COLUMN origin TEXT COLLATE \"C\" NOT NULL DEFAULT 'kernel'"
	" CHECK (origin IN ('kernel', 'check'));"
	/* The stored summary was made before check_catalog_id existed. */
	"DELETE FROM summary_snapshot;",
	/* The hash of the token an id was withdrawn with: a squatter's
	 * withdrawal does not keep the id from its owner (store_put). The
	 * markers of before have none, and keep the id from everyone. */
	"ALTER TABLE withdrawn ADD COLUMN token_sha256 TEXT COLLATE \"C\";",
	/* The summary's counts kept as reports come and go (tally_sql.h):
	 * the tables, the trigger that logs each report in and out, and the
	 * reports already stored as deltas, which the first fold counts. */
	"CREATE TABLE tally_delta (seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
	" d INTEGER NOT NULL, install TEXT COLLATE \"C\" NOT NULL, catalog_id TEXT COLLATE \"C\" NOT NULL,"
	" kernel_series TEXT COLLATE \"C\" NOT NULL, distribution TEXT COLLATE \"C\" NOT NULL,"
	" cgroup_mode TEXT COLLATE \"C\" NOT NULL, software TEXT COLLATE \"C\" NOT NULL, verdict TEXT COLLATE \"C\" NOT NULL,"
	" reorganisation TEXT COLLATE \"C\" NOT NULL, month TEXT COLLATE \"C\" NOT NULL, origin TEXT COLLATE \"C\" NOT NULL);"
	"CREATE TABLE tally (dim INTEGER NOT NULL, key TEXT COLLATE \"C\" NOT NULL,"
	" install TEXT COLLATE \"C\" NOT NULL, n BIGINT NOT NULL, PRIMARY KEY (dim, key, install));"
	"CREATE TABLE tally_groups (dim INTEGER NOT NULL, key TEXT COLLATE \"C\" NOT NULL,"
	" reports BIGINT NOT NULL, installs BIGINT NOT NULL, capped BIGINT NOT NULL,"
	" PRIMARY KEY (dim, key));"
	"CREATE FUNCTION cgfb_tally() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
	" IF TG_OP = 'INSERT' THEN"
	" INSERT INTO tally_delta (d, " TALLY_COLS ") VALUES (1, " TALLY_ROW("NEW") ");"
	" ELSE"
	" INSERT INTO tally_delta (d, " TALLY_COLS ") VALUES (-1, " TALLY_ROW("OLD") ");"
	" END IF; RETURN NULL; END $$;"
	"CREATE TRIGGER reports_tally AFTER INSERT OR DELETE ON reports"
	" FOR EACH ROW EXECUTE FUNCTION cgfb_tally();"
	"INSERT INTO tally_delta (d, " TALLY_COLS ") SELECT 1, " TALLY_COLS
	" FROM reports ORDER BY seq;",
	/* Keys the collectors sharing the database keep with it
	 * (store_secret): the public summary's noise is drawn under one key
	 * by every instance, for the store's life. */
	"CREATE TABLE secrets (name TEXT COLLATE \"C\" PRIMARY KEY, value TEXT COLLATE \"C\" NOT NULL);",
};

#define GROUPS_SRC_COLS "catalog_id, kernel_series, distribution, cgroup_mode, software," \
	" verdict, reorganisation, month, install, origin"
/* Per session, emptied by every commit: the summary's small rows, copied
 * by one scan, which the nine group-bys then read (as in SQLite). */
static const char groups_src_sql[] =
	"CREATE TEMP TABLE IF NOT EXISTS groups_src ON COMMIT DELETE ROWS AS SELECT "
	GROUPS_SRC_COLS " FROM reports WHERE false";

/* Per install first, so that each install's reports can be capped;
 * bigint, as the readers take it (sum of bigint is numeric). */
#define GROUP_BY(col, where, order) \
	"SELECT k, sum(n)::bigint, count(*), sum(least(n, " STORE_CAP_TEXT "))::bigint FROM" \
	" (SELECT " col " AS k, install, count(*) AS n FROM pg_temp.groups_src" where \
	" GROUP BY 1, 2) AS per_install GROUP BY 1 ORDER BY " order
#define ONE_GROUP(key, where) \
	"SELECT '" key "', coalesce(sum(n), 0)::bigint, count(*), coalesce(sum(least(n, " \
	STORE_CAP_TEXT ")), 0)::bigint FROM (SELECT install, count(*) AS n" \
	" FROM pg_temp.groups_src" where " GROUP BY 1) AS per_install"


static const char *const pst_sql[P_COUNT] = {
	[P_FIND] = "SELECT sha256, received_at FROM reports WHERE id = $1",
	/* One round trip for a new report: not if withdrawn, and DO NOTHING
	 * when the id is there (stored earlier, or by another instance at
	 * this moment: the INSERT waits for its commit). (withdrawn, stored)
	 * come back as counts; (0, 0) means "look it up". */
	[P_INSERT] = "WITH w AS (SELECT 1 FROM withdrawn WHERE id = $1),"
		     " ins AS (INSERT INTO reports (id, sha256, body, received_at, via, token_sha256,"
		     " install, catalog_id, kernel_series, distribution, cgroup_mode, software,"
		     " verdict, reorganisation, month, use_case, origin)"
		     " SELECT $1, $2, $3::bytea, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,"
		     " $15, $16, $17 WHERE NOT EXISTS (SELECT 1 FROM w)"
		     " ON CONFLICT (id) DO NOTHING RETURNING seq)"
		     " SELECT (SELECT count(*) FROM w), (SELECT count(*) FROM ins)",
	[P_TOKEN] = "SELECT token_sha256, via FROM reports WHERE id = $1",
	[P_DELETE] = "DELETE FROM reports WHERE id = $1",
	[P_FORGET] = "INSERT INTO withdrawn (id, at, token_sha256) VALUES ($1, $2, $3)"
		     " ON CONFLICT DO NOTHING",
	[P_MARKER] = "SELECT coalesce(token_sha256, '') FROM withdrawn WHERE id = $1",
	[P_UNWITHDRAW] = "DELETE FROM withdrawn WHERE id = $1",
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
		   " AND (NOT $10::boolean OR use_case IS NOT NULL)"
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
		      " verdict, reorganisation, month, use_case, origin)"
		      " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,"
		      " $17)"
		      " ON CONFLICT (id) DO NOTHING RETURNING seq",
	/* The summary of all reports: tally_groups (tally_sql.h). */
	[P_TALLY] = "SELECT key, reports, installs, capped FROM tally_groups WHERE dim = $1::int"
		    " ORDER BY reports DESC, key",
	[P_TALLY_MONTH] = "SELECT key, reports, installs, capped FROM tally_groups"
			  " WHERE dim = $1::int ORDER BY key",
	[P_TALLY_ONE] = "SELECT CASE WHEN $1::int = 9 THEN 'all' ELSE 'check' END,"
			" coalesce(sum(reports), 0)::bigint, coalesce(sum(installs), 0)::bigint,"
			" coalesce(sum(capped), 0)::bigint FROM tally_groups WHERE dim = $1::int",
	/* One chunk of the fold, one statement: the deltas taken (by the one
	 * folder the advisory lock lets in) become per-install changes, with
	 * each install's count before (o), which move tally and
	 * tally_groups. The CTEs see one snapshot: up and gone touch
	 * disjoint rows. The number of deltas taken comes back. */
	[P_FOLD] = "WITH g AS (DELETE FROM tally_delta WHERE seq < (SELECT min(seq)"
		   " FROM tally_delta) + " TALLY_CHUNK_TEXT " RETURNING *),"
		   " x AS (" TALLY_EXPAND("g") "),"
		   " c AS (SELECT dim, key, install, sum(d)::bigint AS d FROM x GROUP BY 1, 2, 3),"
		   " o AS (SELECT c.dim, c.key, c.install, c.d, coalesce(t.n, 0) AS o FROM c"
		   " LEFT JOIN tally AS t ON t.dim = c.dim AND t.key = c.key"
		   " AND t.install = c.install),"
		   " up AS (INSERT INTO tally (dim, key, install, n)"
		   " SELECT dim, key, install, o + d FROM o WHERE o + d > 0"
		   " ON CONFLICT (dim, key, install) DO UPDATE SET n = excluded.n),"
		   " gone AS (DELETE FROM tally AS t USING o WHERE o.o + o.d <= 0"
		   " AND t.dim = o.dim AND t.key = o.key AND t.install = o.install),"
		   " grp AS (INSERT INTO tally_groups (dim, key, reports, installs, capped)"
		   " SELECT dim, key, sum(d), sum((o + d > 0)::int - (o > 0)::int),"
		   " sum(least(o + d, " STORE_CAP_TEXT ") - least(o, " STORE_CAP_TEXT "))"
		   " FROM o GROUP BY dim, key ON CONFLICT (dim, key) DO UPDATE SET"
		   " reports = tally_groups.reports + excluded.reports,"
		   " installs = tally_groups.installs + excluded.installs,"
		   " capped = tally_groups.capped + excluded.capped)"
		   " SELECT count(*) FROM g",
	[P_FOLD_EMPTY] = "DELETE FROM tally_groups WHERE reports <= 0",
	[P_DIM0 + DIM_CATALOG_ID] = GROUP_BY("catalog_id", " WHERE origin = 'kernel'", "2 DESC, 1"),
	[P_DIM0 + DIM_KERNEL_SERIES] = GROUP_BY("kernel_series", "", "2 DESC, 1"),
	[P_DIM0 + DIM_DISTRIBUTION] = GROUP_BY("distribution", "", "2 DESC, 1"),
	[P_DIM0 + DIM_CGROUP_MODE] = GROUP_BY("cgroup_mode", "", "2 DESC, 1"),
	[P_DIM0 + DIM_SOFTWARE] = GROUP_BY("software", " WHERE software != ''", "2 DESC, 1"),
	[P_DIM0 + DIM_VERDICT] = GROUP_BY("verdict", "", "2 DESC, 1"),
	[P_DIM0 + DIM_REORGANISATION] = GROUP_BY("reorganisation", "", "2 DESC, 1"),
	[P_DIM0 + DIM_MONTH] = GROUP_BY("month", "", "1"),
	[P_DIM0 + DIM_CHECK_CATALOG_ID] = GROUP_BY("catalog_id", " WHERE origin = 'check'",
						   "2 DESC, 1"),
	[P_DIM0 + DIM_ALL] = ONE_GROUP("all", ""),
	[P_DIM0 + DIM_CHECK_ALL] = ONE_GROUP("check", " WHERE origin = 'check'"),
};



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
	if (strcmp(state, "57014") == 0 || strcmp(state, "55P03") == 0)
		return -ETIMEDOUT;      /* statement_timeout, a cancel, lock_timeout */
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
int pg_db_error(struct pg_store *s, const char *what, const PGresult *res)
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

int pg_outcome(struct pg_store *s, const char *what, const PGresult *res, int rc, bool any)
{
	const ExecStatusType st = PQresultStatus(res);

	if (rc < 0) {
		/* Logged by store_pg_conn.c, or a closed session. */
		if (!s->tx_err)
			s->tx_err = rc;
		return rc;
	}
	if (st == PGRES_TUPLES_OK || (any && st == PGRES_COMMAND_OK))
		return 0;
	return pg_db_error(s, what, res);
}

/* Constant SQL, several statements allowed; only for setup and schema. */
int pg_exec_const(struct pg_store *s, const char *what, const char *sql)
{
	int rc;
	PGresult *res = pg_call_sql(s, what, sql, &rc);

	rc = pg_outcome(s, what, res, rc, true);
	PQclear(res);
	return rc;
}

/* One prepared statement; text parameters (NULL is SQL NULL) except where
 * fmts says binary, every result column binary (text comes as its bytes,
 * bytea as its bytes, bigint as 8 big-endian bytes). NULL on failure, *rc
 * set. */
PGresult *pg_run(struct pg_store *s, enum pst i, int n, const char *const *vals,
		     const int *lens, const int *fmts, const char *what, int *rc)
{
	char name[16];
	PGresult *res;

	snprintf(name, sizeof(name), "c%d", (int)i);
	res = pg_call_prepared(s, what, name, n, vals, lens, fmts, rc);
	*rc = pg_outcome(s, what, res, *rc, true);
	if (*rc == 0)
		return res;
	PQclear(res);
	return NULL;
}

int64_t pg_int8_at(const PGresult *res, int row, int col)
{
	uint64_t v = 0;

	if (PQgetlength(res, row, col) == 8)
		memcpy(&v, PQgetvalue(res, row, col), 8);
	return (int64_t)be64toh(v);
}

const char *pg_nonempty(const char *v)
{
	return v && *v ? v : NULL;
}

void pg_copy_at(const PGresult *res, int row, int col, char *dst, size_t dstsz)
{
	snprintf(dst, dstsz, "%s", PQgetisnull(res, row, col) ? "" : PQgetvalue(res, row, col));
}

static int schema_version(struct pg_store *s, int *v)
{
	int rc;
	PGresult *res = pg_call_sql(s, "schema version",
				    "SELECT coalesce(max(version), 0) FROM cgfb_schema", &rc);

	rc = pg_outcome(s, "schema version", res, rc, false);
	if (rc == 0 && PQntuples(res) != 1)
		rc = pg_db_error(s, "schema version", res);
	else if (rc == 0)
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
	rc = pg_exec_const(s, "migrate", "BEGIN");
	if (rc == 0)
		rc = pg_exec_const(s, "migrate", migrations[v]);
	if (rc == 0)
		rc = pg_exec_const(s, "migrate", bump);
	if (rc == 0)
		rc = pg_exec_const(s, "migrate", "COMMIT");
	if (rc < 0)
		pg_exec_const(s, "migrate", "ROLLBACK");
	else
		cgfb_log(LOG_INFO, "database schema migrated to version %d", v + 1);
	return rc;
}

/* Under a session advisory lock: two instances starting together would
 * otherwise both see version 0 and both create the tables. Without a
 * deadline (s->migrating): a step may take minutes on a large store, and
 * the other instance waits for the lock meanwhile. */
static int migrate(struct pg_store *s)
{
	const int latest = (int)(sizeof(migrations) / sizeof(migrations[0]));
	char lock[96], unlock[96];
	int v = 0, rc;

	snprintf(lock, sizeof(lock), "SELECT pg_advisory_lock(%d, %d)", LOCK_SPACE, LOCK_MIGRATE);
	snprintf(unlock, sizeof(unlock), "SELECT pg_advisory_unlock(%d, %d)", LOCK_SPACE,
		 LOCK_MIGRATE);
	s->migrating = true;
	rc = pg_exec_const(s, "migration lock", lock);
	if (rc < 0)
		goto out;
	rc = pg_exec_const(s, "migrate", "CREATE TABLE IF NOT EXISTS cgfb_schema (version INTEGER NOT NULL)");
	if (rc == 0)
		rc = schema_version(s, &v);
	if (rc == 0 && v > latest) {
		cgfb_log(LOG_ERR, "database schema version %d is newer than this server's %d", v,
			 latest);
		rc = -EPROTO;
	}
	for (; rc == 0 && v < latest; v++)
		rc = migrate_step(s, v);
	pg_exec_const(s, "migration unlock", unlock);
out:
	s->migrating = false;
	return rc;
}

/* Drop PostgreSQL's NOTICEs ("relation already exists, skipping"): they
 * are not the operator's business, and errors come back in results. */
static void quiet_notice(void *arg, const char *msg)
{
}

int pg_set_timeout(struct pg_store *s, unsigned ms)
{
	char sql[64];
	int rc;

	if (ms == s->timeout_ms)
		return 0;
	snprintf(sql, sizeof(sql), "SET statement_timeout = %u", ms);
	rc = pg_exec_const(s, "statement_timeout", sql);
	if (rc == 0)
		s->timeout_ms = ms;
	return rc;
}

/* store.h's defaults, or --db-lock-timeout and --db-statement-timeout. */
static unsigned lock_ms = STORE_LOCK_MS, write_ms = STORE_WRITE_MS;

void pg_write_timeouts(unsigned lock, unsigned statement, unsigned deadline)
{
	lock_ms = lock;
	write_ms = statement;
	pg_set_deadline(deadline);
}

/* A session waits for a lock lock_ms at most, and the writer's statements
 * run write_ms at most: a table locked by someone else (LOCK TABLE, a
 * long migration) made writes wait 27 s holding their connections. The
 * requests are answered 503 with Retry-After instead. */
static int session_timeouts(struct pg_store *s)
{
	char sql[64];
	int rc;

	snprintf(sql, sizeof(sql), "SET lock_timeout = %u", lock_ms);
	rc = pg_exec_const(s, "lock_timeout", sql);
	if (rc == 0)
		rc = pg_set_timeout(s, s->readonly ? STORE_READ_MS : write_ms);
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
	rc = pg_exec_const(s, "session", "SET synchronous_commit = on; SET client_encoding = 'UTF8'");
	if (rc == 0)
		rc = session_timeouts(s);
	if (rc == 0)
		rc = pg_exec_const(s, "session", groups_src_sql);
	for (int i = 0; rc == 0 && i < P_COUNT; i++) {
		char name[16];
		PGresult *res;

		snprintf(name, sizeof(name), "c%d", i);
		res = pg_call_prepare(s, name, pst_sql[i], &rc);
		rc = pg_outcome(s, "prepare", res, rc, true);
		PQclear(res);
	}
	return rc;
}

/* Before each use: a broken or closed connection is made again (one
 * attempt within the deadline; the caller answers 503 and the next
 * request tries again). Logged once per outage. */
int pg_ensure(struct pg_store *s)
{
	int rc;

	if (PQstatus(s->conn) == CONNECTION_OK)
		return 0;
	/* A session the shutdown gave up on is not opened again. */
	if (s->readonly ? pg_reads_aborted() : pg_writes_aborted())
		return -ETIMEDOUT;
	rc = pg_connect(s, "reconnect");
	if (rc < 0) {
		s->down = true;
		return rc;
	}
	rc = session_setup(s);
	if (rc == 0) {
		cgfb_log(LOG_NOTICE, "database: reconnected");
		s->down = false;
	}
	return rc;
}

int pg_open_ops(struct store **out, const char *where, bool readonly,
		const struct store_ops *ops)
{
	struct pg_store *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		return -ENOMEM;
	s->base.ops = ops;
	s->readonly = readonly;
	s->conninfo = strdup(where);
	if (!s->conninfo) {
		rc = -ENOMEM;
		goto fail;
	}
	rc = pg_connect(s, "connect");
	if (rc < 0)
		goto fail;
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

void pg_close(struct store *base)
{
	struct pg_store *s = pgs(base);

	if (!s)
		return;
	pg_drop(s);
	free(s->conninfo);
	free(s);
}

int pg_begin(struct store *base)
{
	struct pg_store *s = pgs(base);
	int rc = pg_writes_aborted() && !s->readonly ? -ETIMEDOUT : pg_ensure(s);

	if (rc == 0)
		rc = pg_exec_const(s, "begin", "BEGIN");
	s->tx_err = 0;
	return rc;
}

/* A COMMIT of a transaction in which a statement failed is answered
 * "ROLLBACK", not an error: only the command tag says it committed. */
int pg_commit(struct store *base)
{
	struct pg_store *s = pgs(base);
	int rc;
	PGresult *res = pg_call_sql(s, "commit", "COMMIT", &rc);

	if (rc == 0 && PQresultStatus(res) != PGRES_COMMAND_OK)
		rc = pg_db_error(s, "commit", res);
	else if (rc == 0 && strcmp(PQcmdStatus(res), "COMMIT") != 0)
		rc = s->tx_err ? s->tx_err : -EIO;
	PQclear(res);
	s->tx_err = 0;
	return rc;
}

void pg_rollback(struct store *base)
{
	struct pg_store *s = pgs(base);

	int rc;

	if (PQstatus(s->conn) == CONNECTION_OK && PQtransactionStatus(s->conn) != PQTRANS_IDLE)
		PQclear(pg_call_sql(s, "rollback", "ROLLBACK", &rc));
	s->tx_err = 0;
}
