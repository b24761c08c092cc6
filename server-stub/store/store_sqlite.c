/* The SQLite backend (store_impl.h): one file in WAL mode. Over 600
 * lines, on purpose: it is one table of operations over one connection
 * type and its prepared statements, private to this file. PostgreSQL's
 * backend is five files because it also has sessions that break and come
 * back, and readers cancelled from another thread. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "cgfb/buf.h"
#include "cgfb/log.h"
#include "store/dbfile.h"
#include "store/store_impl.h"
#include "store/tally_sql.h"

/* Each entry moves the schema from version i to i + 1. Never edit one that
 * has shipped: add the next. */
static const char *const migrations[] = {
	"CREATE TABLE reports ("
	" seq INTEGER PRIMARY KEY,"
	" id TEXT NOT NULL UNIQUE,"
	" sha256 TEXT NOT NULL,"
	" body BLOB NOT NULL,"
	" received_at TEXT NOT NULL,"
	" via TEXT NOT NULL,"
	" token_sha256 TEXT,"
	" install TEXT NOT NULL,"
	" catalog_id TEXT NOT NULL,"
	" kernel_series TEXT NOT NULL,"
	" distribution TEXT NOT NULL,"
	" cgroup_mode TEXT NOT NULL,"
	" software TEXT NOT NULL,"
	" verdict TEXT NOT NULL,"
	" reorganisation TEXT NOT NULL,"
	" month TEXT NOT NULL,"
	" use_case TEXT);"
	"CREATE INDEX reports_received ON reports(received_at);"
	"CREATE TABLE withdrawn (id TEXT PRIMARY KEY, at TEXT NOT NULL) WITHOUT ROWID;",
	/* Where a report comes from (report_meta.origin): every report before
	 * check --report existed was a kernel's warning. */
	"ALTER TABLE reports ADD COLUMN origin TEXT NOT NULL DEFAULT 'kernel'"
	" CHECK (origin IN ('kernel', 'check'));",
	/* The hash of the token an id was withdrawn with: a squatter's
	 * withdrawal does not keep the id from its owner (store_put). The
	 * markers of before have none, and keep the id from everyone. */
	"ALTER TABLE withdrawn ADD COLUMN token_sha256 TEXT;",
	/* The summary's counts kept as reports come and go (tally_sql.h):
	 * the tables, the triggers that log each report in and out, and the
	 * reports already stored as deltas, which the first fold counts. */
	"CREATE TABLE tally_delta (seq INTEGER PRIMARY KEY, d INTEGER NOT NULL,"
	" install TEXT NOT NULL, catalog_id TEXT NOT NULL, kernel_series TEXT NOT NULL,"
	" distribution TEXT NOT NULL, cgroup_mode TEXT NOT NULL, software TEXT NOT NULL,"
	" verdict TEXT NOT NULL, reorganisation TEXT NOT NULL, month TEXT NOT NULL,"
	" origin TEXT NOT NULL);"
	"CREATE TABLE tally (dim INTEGER NOT NULL, key TEXT NOT NULL, install TEXT NOT NULL,"
	" n INTEGER NOT NULL, PRIMARY KEY (dim, key, install)) WITHOUT ROWID;"
	"CREATE TABLE tally_groups (dim INTEGER NOT NULL, key TEXT NOT NULL,"
	" reports INTEGER NOT NULL, installs INTEGER NOT NULL, capped INTEGER NOT NULL,"
	" PRIMARY KEY (dim, key)) WITHOUT ROWID;"
	"CREATE TRIGGER reports_tally_in AFTER INSERT ON reports BEGIN"
	" INSERT INTO tally_delta (d, " TALLY_COLS ") VALUES (1, " TALLY_ROW("NEW") "); END;"
	"CREATE TRIGGER reports_tally_out AFTER DELETE ON reports BEGIN"
	" INSERT INTO tally_delta (d, " TALLY_COLS ") VALUES (-1, " TALLY_ROW("OLD") "); END;"
	"INSERT INTO tally_delta (d, " TALLY_COLS ") SELECT 1, " TALLY_COLS
	" FROM reports ORDER BY seq;",
	/* Keys the collector keeps with its data (store_secret): the public
	 * summary's noise is drawn under one key for the store's life. */
	"CREATE TABLE secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL);",
};

/* The summary's columns of the reports in its window, copied into a
 * temporary table by one scan: the nine group-bys below then read these
 * small rows, not nine times every report with its body (a summary of
 * 50,000 reports took 1.4 s that way). */
#define GROUPS_SRC_COLS "catalog_id, kernel_series, distribution, cgroup_mode, software," \
	" verdict, reorganisation, month, install, origin"
static const char groups_src_sql[] =
	"CREATE TEMP TABLE IF NOT EXISTS groups_src AS SELECT " GROUPS_SRC_COLS
	" FROM main.reports WHERE 0";

/* Group-by columns, indexed by enum store_dim: SQL identifiers cannot be
 * bound, so they come from this fixed list only. */
/* Per install first, so that each install's reports can be capped. */
#define GROUP_BY(col, where, order) \
	"SELECT k, sum(n), count(*), sum(min(n, " STORE_CAP_TEXT ")) FROM (SELECT " col \
	" AS k, install, count(*) AS n FROM temp.groups_src" where " GROUP BY 1, 2)" \
	" GROUP BY 1 ORDER BY " order
#define ONE_GROUP(key, where) \
	"SELECT '" key "', coalesce(sum(n), 0), count(*), coalesce(sum(min(n, " STORE_CAP_TEXT \
	")), 0) FROM (SELECT install, count(*) AS n FROM temp.groups_src" where " GROUP BY 1)"

static const char *const dim_sql[DIM_COUNT] = {
	GROUP_BY("catalog_id", " WHERE origin = 'kernel'", "2 DESC, 1"),
	GROUP_BY("kernel_series", "", "2 DESC, 1"),
	GROUP_BY("distribution", "", "2 DESC, 1"),
	GROUP_BY("cgroup_mode", "", "2 DESC, 1"),
	GROUP_BY("software", " WHERE software != ''", "2 DESC, 1"),
	GROUP_BY("verdict", "", "2 DESC, 1"),
	GROUP_BY("reorganisation", "", "2 DESC, 1"),
	GROUP_BY("month", "", "1"),
	GROUP_BY("catalog_id", " WHERE origin = 'check'", "2 DESC, 1"),
	ONE_GROUP("all", ""),
	ONE_GROUP("check", " WHERE origin = 'check'"),
};


enum stmt {
	ST_BEGIN, ST_COMMIT, ST_ROLLBACK, ST_READ, ST_SRC_FILL, ST_SRC_CLEAR, ST_FIND,
	ST_WITHDRAWN, ST_INSERT, ST_TOKEN, ST_DELETE, ST_FORGET, ST_GET, ST_LIST, ST_SCAN,
	ST_WITHDRAWN_ALL, ST_MARKER, ST_UNWITHDRAW, ST_COUNT
};

static const char *const stmt_sql[ST_COUNT] = {
	[ST_BEGIN] = "BEGIN IMMEDIATE",
	[ST_COMMIT] = "COMMIT",
	[ST_ROLLBACK] = "ROLLBACK",
	[ST_READ] = "BEGIN",
	[ST_SRC_FILL] = "INSERT INTO temp.groups_src SELECT " GROUPS_SRC_COLS
			" FROM reports WHERE received_at >= ?1",
	[ST_SRC_CLEAR] = "DELETE FROM temp.groups_src",
	[ST_FIND] = "SELECT sha256, received_at FROM reports WHERE id = ?1",
	[ST_WITHDRAWN] = "SELECT 1 FROM withdrawn WHERE id = ?1",
	[ST_INSERT] = "INSERT INTO reports (id, sha256, body, received_at, via, token_sha256,"
		      " install, catalog_id, kernel_series, distribution, cgroup_mode, software,"
		      " verdict, reorganisation, month, use_case, origin)"
		      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,"
		      " ?17)",
	[ST_TOKEN] = "SELECT token_sha256, via FROM reports WHERE id = ?1",
	[ST_DELETE] = "DELETE FROM reports WHERE id = ?1",
	[ST_FORGET] = "INSERT OR IGNORE INTO withdrawn (id, at, token_sha256) VALUES (?1, ?2, ?3)",
	[ST_MARKER] = "SELECT token_sha256 FROM withdrawn WHERE id = ?1",
	[ST_UNWITHDRAW] = "DELETE FROM withdrawn WHERE id = ?1",
	[ST_GET] = "SELECT body, sha256, received_at FROM reports WHERE id = ?1",
	/* NULL filters match everything; ?8 is the seq cursor; ?10 keeps only
	 * reports with a use case, in the query: a burst without one must not
	 * fill a page and hide the use cases behind it. */
	[ST_LIST] = "SELECT seq, id, sha256, received_at, via, catalog_id, kernel_series,"
		    " distribution, cgroup_mode, software, verdict, reorganisation, use_case, body"
		    " FROM reports WHERE (?1 IS NULL OR catalog_id = ?1)"
		    " AND (?2 IS NULL OR kernel_series = ?2) AND (?3 IS NULL OR distribution = ?3)"
		    " AND (?4 IS NULL OR cgroup_mode = ?4) AND (?5 IS NULL OR verdict = ?5)"
		    " AND (?6 IS NULL OR received_at >= ?6) AND (?7 IS NULL OR received_at < ?7)"
		    " AND seq < iif(?8 = 0, 9223372036854775807, ?8)"
		    " AND (?10 = 0 OR use_case IS NOT NULL) ORDER BY seq DESC LIMIT ?9",
	/* For migrate: oldest first, every column. */
	[ST_SCAN] = "SELECT seq, id, sha256, received_at, via, catalog_id, kernel_series,"
		    " distribution, cgroup_mode, software, verdict, reorganisation, use_case, body,"
		    " token_sha256, install, month, origin FROM reports WHERE seq > ?1 ORDER BY seq"
		    " LIMIT ?2",
	[ST_WITHDRAWN_ALL] = "SELECT id, at, token_sha256 FROM withdrawn ORDER BY at, id",
};

struct sq_store {
	struct store base;       /* first: what store.c sees */
	sqlite3 *db;
	sqlite3_stmt *st[ST_COUNT];
	sqlite3_stmt *dim[DIM_COUNT];
	/* The summary of all reports reads tally_groups (tally_sql.h) with
	 * these, prepared at first use: a read-only connection to a file of
	 * before migration 4 (migrate's source) never has the table. */
	sqlite3_stmt *tally[DIM_COUNT];
	bool whole;                  /* store_groups_begin(NULL): from tally */
	struct timespec deadline;    /* reads: interrupted after this; 0: none */
	struct dbfile file;          /* read-write connections: the file they write */
};

/* The file the process's first read-write connection opened (the
 * writer's, at start, before any other thread): every later connection
 * must open the same one, or it would pair another file with the
 * writer's WAL and shared memory (dbfile.h). Set once, then only read. */
static struct dbfile first = { .pinned = false, .fd = -1 };

/* Set at shutdown: every read in progress stops at its next progress
 * callback, so that SIGTERM does not wait for a long digest or export. */
static atomic_bool aborting;

static void sq_close(struct store *base);

/* base is the first member: NULL stays NULL. */
static struct sq_store *sq(struct store *base)
{
	return (struct sq_store *)base;
}

/* The reason goes to the log only: SQL text and SQLite messages never
 * reach a client. */
static int db_error(struct sq_store *s, const char *what)
{
	const int code = sqlite3_extended_errcode(s->db);

	cgfb_log(LOG_ERR, "database: %s: %s", what, sqlite3_errmsg(s->db));
	switch (code & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_INTERRUPT:
		return -ETIMEDOUT;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_READONLY:
		return -EROFS;
	default:
		return -EIO;
	}
}

/* Run constant SQL (several statements allowed), still prepared one
 * statement at a time. */
static int exec_const(struct sq_store *s, const char *sql)
{
	while (sql && *sql) {
		sqlite3_stmt *st = NULL;
		const char *tail = NULL;
		int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, &tail);

		if (rc != SQLITE_OK)
			return db_error(s, "prepare");
		if (st) {
			do
				rc = sqlite3_step(st);
			while (rc == SQLITE_ROW);
			sqlite3_finalize(st);
			if (rc != SQLITE_DONE)
				return db_error(s, "schema");
		}
		sql = tail;
	}
	return 0;
}

static int user_version(struct sq_store *s, int *v)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
		return db_error(s, "user_version");
	rc = sqlite3_step(st);
	*v = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : db_error(s, "user_version");
}

static int migrate(struct sq_store *s)
{
	const int latest = (int)(sizeof(migrations) / sizeof(migrations[0]));
	static const char *const set_version[] = { "PRAGMA user_version = 1",
						   "PRAGMA user_version = 2",
						   "PRAGMA user_version = 3",
						   "PRAGMA user_version = 4",
						   "PRAGMA user_version = 5" };
	_Static_assert(sizeof(set_version) == sizeof(migrations), "a version per migration");
	int v, rc;

	rc = user_version(s, &v);
	if (rc < 0)
		return rc;
	if (v > latest) {
		cgfb_log(LOG_ERR, "database schema version %d is newer than this server's %d", v,
			 latest);
		return -EPROTO;
	}
	for (; v < latest; v++) {
		/* Each step and its version bump commit together or not at all. */
		rc = exec_const(s, "BEGIN IMMEDIATE");
		if (rc == 0)
			rc = exec_const(s, migrations[v]);
		if (rc == 0)
			rc = exec_const(s, set_version[v]);
		if (rc == 0)
			rc = exec_const(s, "COMMIT");
		if (rc < 0) {
			exec_const(s, "ROLLBACK");
			return rc;
		}
		cgfb_log(LOG_INFO, "database schema migrated to version %d", v + 1);
	}
	return 0;
}

static int prepare_all(struct sq_store *s)
{
	/* Per connection, in the temporary database: a read-only connection
	 * may write there. */
	const int rc = exec_const(s, groups_src_sql);

	if (rc < 0)
		return rc;
	for (int i = 0; i < ST_COUNT; i++)
		if (sqlite3_prepare_v3(s->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &s->st[i],
				       NULL) != SQLITE_OK)
			return db_error(s, "prepare");
	for (int i = 0; i < DIM_COUNT; i++)
		if (sqlite3_prepare_v3(s->db, dim_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &s->dim[i],
				       NULL) != SQLITE_OK)
			return db_error(s, "prepare");
	return 0;
}

/* A read connection's progress handler, every READ_PROGRESS_OPS virtual
 * machine steps: nonzero interrupts the statement. A read transaction that
 * runs on and on keeps the WAL from being checkpointed back to its start
 * (the file then grows for as long as it lasts); a deadline bounds it. */
#define READ_PROGRESS_OPS 1000

static int read_progress(void *arg)
{
	const struct sq_store *s = arg;
	struct timespec now;

	if (atomic_load_explicit(&aborting, memory_order_relaxed))
		return 1;
	if (s->deadline.tv_sec == 0)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > s->deadline.tv_sec ||
	       (now.tv_sec == s->deadline.tv_sec && now.tv_nsec > s->deadline.tv_nsec);
}

static void sq_read_deadline(struct store *base, unsigned ms)
{
	struct sq_store *s = sq(base);

	if (!ms) {
		s->deadline.tv_sec = 0;
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &s->deadline);
	s->deadline.tv_sec += ms / 1000;
	s->deadline.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (s->deadline.tv_nsec >= 1000000000L) {
		s->deadline.tv_sec++;
		s->deadline.tv_nsec -= 1000000000L;
	}
}

static void sq_abort_reads(void)
{
	atomic_store(&aborting, true);
}

/* A read-write connection pins the file it opened (dbfile.h), checked
 * against SQLite's own: fileHasMoved (os_unix.c) compares the inode of
 * SQLite's descriptor with the path's. */
static int pin(struct sq_store *s, const char *path)
{
	const char *db = sqlite3_db_filename(s->db, "main");
	int moved = 0, rc;

	if (!db || !*db)
		return 0;
	rc = dbfile_pin(&s->file, db);
	if (rc == 0 && (sqlite3_file_control(s->db, "main", SQLITE_FCNTL_HAS_MOVED, &moved) !=
			SQLITE_OK || moved || !dbfile_same(&first, path)))
		rc = -ESTALE;
	if (rc < 0) {
		cgfb_log(LOG_ERR, "database: %s: cannot hold the file open: %s", db, strerror(-rc));
		return rc;
	}
	if (!first.pinned) {
		/* The inode stays pinned by this connection's descriptor. */
		first = s->file;
		first.fd = -1;
		/* Compared with the path later connections are opened by. */
		snprintf(first.path, sizeof(first.path), "%s", path);
	}
	return 0;
}

static int sq_open(struct store **out, const char *path, bool readonly)
{
	const int flags = readonly ? SQLITE_OPEN_READONLY :
		SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	struct sq_store *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		return -ENOMEM;
	s->file.fd = -1;
	s->file.pinned = false;
	if (!dbfile_same(&first, path)) {
		static atomic_bool said;

		/* The writer has said why (dbfile_check); said once here too. */
		if (!atomic_exchange(&said, true))
			cgfb_log(LOG_ERR, "database: %s is not the file the collector opened at "
				 "start; no connection opens it until the collector is restarted",
				 path);
		free(s);
		return -ESTALE;
	}
	if (sqlite3_open_v2(path, &s->db, flags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		rc = s->db ? db_error(s, path) : -ENOMEM;
		goto fail;
	}
	sqlite3_busy_timeout(s->db, 10000);
	sqlite3_extended_result_codes(s->db, 1);
	if (readonly)
		sqlite3_progress_handler(s->db, READ_PROGRESS_OPS, read_progress, s);
	/* WAL: readers never block the writer. synchronous=FULL: a commit
	 * is on disk (WAL fsync'd) before it returns, so a 201 that follows
	 * it survives a crash or a power cut. secure_delete: a withdrawn
	 * report is overwritten, not left in a free page of the file (its
	 * WAL frames go at the TRUNCATE checkpoint of sq_scrub).
	 * journal_size_limit: a WAL that grew while a long read held its
	 * checkpoints off (bounded by STORE_READ_MS) is cut back to this
	 * size at the next complete checkpoint instead of keeping its
	 * high-water mark until shutdown. */
	rc = readonly ? 0 : exec_const(s, "PRAGMA journal_mode = WAL;"
					  "PRAGMA synchronous = FULL;"
					  "PRAGMA secure_delete = ON;"
					  "PRAGMA journal_size_limit = " STORE_WAL_LIMIT_TEXT ";");
	if (rc == 0 && !readonly)
		rc = migrate(s);
	if (rc == 0 && !readonly)
		rc = pin(s, path);
	if (rc == 0)
		rc = prepare_all(s);
	if (rc < 0)
		goto fail;
	s->base.ops = &store_sqlite_ops;
	*out = &s->base;
	return 0;
fail:
	sq_close(&s->base);
	return rc;
}

static void sq_close(struct store *base)
{
	struct sq_store *s = sq(base);

	if (!s)
		return;
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(s->st[i]);
	for (int i = 0; i < DIM_COUNT; i++) {
		sqlite3_finalize(s->dim[i]);
		sqlite3_finalize(s->tally[i]);
	}
	/* The last connection to close checkpoints and removes the WAL. */
	if (sqlite3_close(s->db) != SQLITE_OK)
		cgfb_log(LOG_ERR, "database: close: %s", sqlite3_errmsg(s->db));
	dbfile_unpin(&s->file);
	free(s);
}

static int step_done(struct sq_store *s, enum stmt i, const char *what)
{
	const int rc = sqlite3_step(s->st[i]);

	sqlite3_reset(s->st[i]);
	sqlite3_clear_bindings(s->st[i]);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : db_error(s, what);
}

static int sq_manual_checkpoints(struct store *base)
{
	struct sq_store *s = sq(base);

	return exec_const(s, "PRAGMA wal_autocheckpoint = 0");
}

static int sq_checkpoint(struct store *base)
{
	struct sq_store *s = sq(base);
	const int rc = sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);

	return rc == SQLITE_OK || rc == SQLITE_BUSY ? 0 : db_error(s, "checkpoint");
}

/* TRUNCATE waits for readers through the busy handler: here it must not,
 * since the writer holds its lock meanwhile; a reader on an old snapshot
 * makes it -EBUSY and the writer tries again a moment later. */
static int sq_scrub(struct store *base)
{
	struct sq_store *s = sq(base);
	int rc;

	sqlite3_busy_timeout(s->db, 0);
	rc = sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	sqlite3_busy_timeout(s->db, 10000);
	if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
		return -EBUSY;
	return rc == SQLITE_OK ? 0 : db_error(s, "checkpoint after a withdrawal");
}

static int sq_defer_sync(struct store *base)
{
	struct sq_store *s = sq(base);

	return exec_const(s, "PRAGMA synchronous = NORMAL");
}

static int sq_wal_path(struct store *base, char *buf, size_t bufsz)
{
	struct sq_store *s = sq(base);
	const char *db = sqlite3_db_filename(s->db, "main");

	if (!db || !*db || (size_t)snprintf(buf, bufsz, "%s-wal", db) >= bufsz)
		return -ENAMETOOLONG;
	return 0;
}

/* "file:" and path as a URI (RFC 3986 unreserved and '/' kept, the rest
 * %XX), with query: SQLite reads ?immutable only from a URI. */
static int file_uri(char *out, size_t outsz, const char *path, const char *query)
{
	size_t n = (size_t)snprintf(out, outsz, "file:");

	for (const unsigned char *p = (const unsigned char *)path; *p && n + 4 < outsz; p++)
		n += (size_t)snprintf(out + n, outsz - n, (isalnum(*p) || strchr("/._-~", *p)) ?
				      "%c" : "%%%02X", *p);
	if (n + strlen(query) + 1 >= outsz)
		return -ENAMETOOLONG;
	snprintf(out + n, outsz - n, "%s", query);
	return 0;
}

/* The kept file's reports, and how many of them the file now at the path
 * lacks (0 reports there when nothing is; -1 when it cannot be read).
 * Both read immutable: no lock, no -wal or -shm (the one at the path is
 * still the old file's). */
static void count_kept(const char *kept, const char *path, long long *held, long long *missing)
{
	char uri[2 * PATH_MAX];
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	struct stat at;
	const bool none = stat(path, &at) < 0 && errno == ENOENT;

	*held = *missing = -1;
	if (file_uri(uri, sizeof(uri), kept, "?immutable=1") < 0 ||
	    sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK)
		goto out;
	if (!none && (file_uri(uri, sizeof(uri), path, "?immutable=1") < 0 ||
		      sqlite3_prepare_v2(db, "ATTACH ?1 AS now", -1, &st, NULL) != SQLITE_OK ||
		      sqlite3_bind_text(st, 1, uri, -1, SQLITE_STATIC) != SQLITE_OK ||
		      sqlite3_step(st) != SQLITE_DONE))
		goto held;
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(db, none ? "SELECT count(*), count(*) FROM main.reports" :
			       "SELECT count(*), count(*) FILTER (WHERE id NOT IN "
			       "(SELECT id FROM now.reports)) FROM main.reports",
			       -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
		*held = sqlite3_column_int64(st, 0);
		*missing = sqlite3_column_int64(st, 1);
		goto out;
	}
held:
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM main.reports", -1, &st, NULL) ==
	    SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		*held = sqlite3_column_int64(st, 0);
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* The writer's connection, its file found replaced or removed: what it
 * holds, through the connection that still reads it (its descriptor, its
 * WAL), into a new file beside the path, before its WAL is cut. */
static int sq_keep_replaced(struct store *base)
{
	struct sq_store *s = sq(base);
	char kept[PATH_MAX];
	sqlite3_stmt *st = NULL;
	long long held = -1, missing = -1;
	int fd = -1, rc;

	if (s->file.fd < 0)
		return 0;
	rc = dbfile_kept_name(&s->file, kept, sizeof(kept));
	if (rc == 0)
		rc = fd = dbfile_create_kept(&s->file, kept);
	if (rc < 0)
		goto out;
	/* VACUUM INTO accepts an empty file, which O_EXCL made ours; it
	 * writes with synchronous=OFF (https://sqlite.org/lang_vacuum.html,
	 * "VACUUM INTO"): the fsyncs are ours. */
	if (sqlite3_prepare_v2(s->db, "VACUUM INTO ?1", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_bind_text(st, 1, kept, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_DONE) {
		rc = db_error(s, "keeping the replaced file");
		unlink(kept);
		goto out;
	}
	rc = dbfile_sync_kept(&s->file, fd);
	if (rc == 0)
		count_kept(kept, s->file.path, &held, &missing);
out:
	sqlite3_finalize(st);
	if (fd >= 0)
		close(fd);
	dbfile_say_kept(&s->file, kept, rc, held, missing);
	return rc;
}

/* Any thread: it reads only the pinned file (dbfile_check is atomic). */
static int sq_file_check(struct store *base)
{
	return dbfile_errno(dbfile_check(&sq(base)->file));
}

/* Nothing is written into a file that is no longer the database at its
 * path, or that was made read-only. */
static int sq_begin(struct store *base)
{
	struct sq_store *s = sq(base);
	const int rc = sq_file_check(base);

	return rc < 0 ? rc : step_done(s, ST_BEGIN, "begin");
}

static int sq_commit(struct store *base)
{
	struct sq_store *s = sq(base);
	const int rc = sq_file_check(base);

	return rc < 0 ? rc : step_done(s, ST_COMMIT, "commit");
}

static void sq_rollback(struct store *base)
{
	struct sq_store *s = sq(base);

	if (!sqlite3_get_autocommit(s->db))
		step_done(s, ST_ROLLBACK, "rollback");
}

static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v && *v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

static void column_copy(sqlite3_stmt *st, int i, char *dst, size_t dstsz)
{
	const unsigned char *v = sqlite3_column_text(st, i);

	snprintf(dst, dstsz, "%s", v ? (const char *)v : "");
}

/* 1 when id exists (its receipt and stored hash into r), 0 when not. */
static int find(struct sq_store *s, const char *id, struct receipt *r)
{
	sqlite3_stmt *st = s->st[ST_FIND];
	int rc;

	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		snprintf(r->id, sizeof(r->id), "%s", id);
		column_copy(st, 0, r->sha256, sizeof(r->sha256));
		column_copy(st, 1, r->received_at, sizeof(r->received_at));
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc == SQLITE_ROW)
		return 1;
	return rc == SQLITE_DONE ? 0 : db_error(s, "find");
}

static int withdrawn(struct sq_store *s, const char *id)
{
	sqlite3_stmt *st = s->st[ST_WITHDRAWN];
	int rc;

	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc == SQLITE_ROW)
		return 1;
	return rc == SQLITE_DONE ? 0 : db_error(s, "withdrawn");
}

static int insert(struct sq_store *s, const struct report_meta *m, const char *body, size_t len,
		  const char *received_at, const char *via)
{
	sqlite3_stmt *st = s->st[ST_INSERT];
	const char *cols[] = { m->id, m->sha256, NULL, received_at, via, m->token_sha256,
			       m->install, m->catalog_id, m->kernel_series, m->distribution,
			       m->cgroup_mode, m->software, m->verdict, m->reorganisation,
			       m->month, m->use_case, m->origin };

	for (int i = 0; i < (int)(sizeof(cols) / sizeof(cols[0])); i++)
		sqlite3_bind_text(st, i + 1, cols[i] ? cols[i] : "", -1, SQLITE_STATIC);
	sqlite3_bind_blob(st, 3, body, (int)len, SQLITE_STATIC);
	bind_text(st, 6, m->token_sha256);
	bind_text(st, 16, m->use_case);
	return step_done(s, ST_INSERT, "insert");
}

static int sq_put(struct store *base, const struct report_meta *m, const char *body, size_t len,
	      const char *received_at, const char *via, struct receipt *r)
{
	struct sq_store *s = sq(base);
	int rc = find(s, m->id, r);

	if (rc < 0)
		return rc;
	if (rc == 1)
		return strcmp(r->sha256, m->sha256) == 0 ? STORE_SAME : STORE_CONFLICT;
	rc = withdrawn(s, m->id);
	if (rc != 0)
		return rc < 0 ? rc : STORE_WITHDRAWN;
	rc = insert(s, m, body, len, received_at, via);
	if (rc < 0)
		return rc;
	snprintf(r->id, sizeof(r->id), "%s", m->id);
	snprintf(r->sha256, sizeof(r->sha256), "%s", m->sha256);
	snprintf(r->received_at, sizeof(r->received_at), "%s", received_at);
	return STORE_CREATED;
}

/* The text of statement which's one column for id into out (65 bytes):
 * 0, -ENOENT without a row, or the database's error about what. */
/* The text of the first column (and, unless out2 is NULL, the second) of
 * which's row for id: 0 or -ENOENT. */
static int id_text(struct sq_store *s, enum stmt which, const char *id, char out[65],
		   char *out2, size_t out2sz, const char *what)
{
	sqlite3_stmt *st = s->st[which];
	int rc;

	out[0] = '\0';
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		column_copy(st, 0, out, 65);
	if (rc == SQLITE_ROW && out2)
		column_copy(st, 1, out2, out2sz);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc == SQLITE_ROW)
		return 0;
	return rc == SQLITE_DONE ? -ENOENT : db_error(s, what);
}

static int sq_token(struct store *base, const char *id, char want[65],
		    char via[STORE_VIA_MAX])
{
	const int rc = id_text(sq(base), ST_TOKEN, id, want, via, STORE_VIA_MAX, "token");

	if (rc < 0)
		return rc;
	return strlen(want) == 64 ? 0 : -EPERM;
}

static int sq_remove(struct store *base, const char *id)
{
	struct sq_store *s = sq(base);

	sqlite3_bind_text(s->st[ST_DELETE], 1, id, -1, SQLITE_STATIC);
	return step_done(s, ST_DELETE, "delete");
}

static int sq_delete(struct store *base, const char *id, const char *token_sha256,
		     const char *when)
{
	struct sq_store *s = sq(base);
	int rc = sq_remove(base, id);

	if (rc < 0)
		return rc;
	sqlite3_bind_text(s->st[ST_FORGET], 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_text(s->st[ST_FORGET], 2, when, -1, SQLITE_STATIC);
	bind_text(s->st[ST_FORGET], 3, token_sha256);
	return step_done(s, ST_FORGET, "withdraw");
}

static int sq_withdrawn_token(struct store *base, const char *id, char out[65])
{
	return id_text(sq(base), ST_MARKER, id, out, NULL, 0, "withdrawal marker");
}

static int sq_unwithdraw(struct store *base, const char *id)
{
	struct sq_store *s = sq(base);

	sqlite3_bind_text(s->st[ST_UNWITHDRAW], 1, id, -1, SQLITE_STATIC);
	return step_done(s, ST_UNWITHDRAW, "forget a withdrawal");
}

static int sq_get(struct store *base, const char *id, struct cgfb_buf *body, struct receipt *r)
{
	struct sq_store *s = sq(base);
	sqlite3_stmt *st = s->st[ST_GET];
	int rc;

	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		body->len = 0;
		rc = cgfb_buf_add(body, sqlite3_column_blob(st, 0),
					 (size_t)sqlite3_column_bytes(st, 0));
		snprintf(r->id, sizeof(r->id), "%s", id);
		column_copy(st, 1, r->sha256, sizeof(r->sha256));
		column_copy(st, 2, r->received_at, sizeof(r->received_at));
	} else if (rc == SQLITE_DONE) {
		rc = -ENOENT;
	} else {
		rc = db_error(s, "get");
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc;
}

static int sq_secret(struct store *base, const char *name, const char *candidate,
		     char out[STORE_SECRET_HEX + 1])
{
	static const char *const sql[] = {
		"INSERT OR IGNORE INTO secrets (name, value) VALUES (?1, ?2)",
		"SELECT value FROM secrets WHERE name = ?1",
	};
	struct sq_store *s = sq(base);
	int rc = 0;

	out[0] = '\0';
	for (size_t i = 0; i < 2 && rc == 0; i++) {
		sqlite3_stmt *st = NULL;
		int r = sqlite3_prepare_v2(s->db, sql[i], -1, &st, NULL);

		if (r == SQLITE_OK) {
			sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
			if (i == 0)
				sqlite3_bind_text(st, 2, candidate, -1, SQLITE_STATIC);
			r = sqlite3_step(st);
		}
		if (r == SQLITE_ROW)
			column_copy(st, 0, out, STORE_SECRET_HEX + 1);
		else if (r != SQLITE_DONE)
			rc = db_error(s, "the store's secret");
		sqlite3_finalize(st);
	}
	if (rc == 0 && strlen(out) != STORE_SECRET_HEX)
		rc = -EBADMSG;
	return rc;
}

static const char *col(sqlite3_stmt *st, int i)
{
	const unsigned char *v = sqlite3_column_text(st, i);

	return v ? (const char *)v : "";
}

/* Column i, or NULL when it is NULL. */
static const char *col_or_null(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NULL : col(st, i);
}

/* The columns ST_LIST and ST_SCAN share, in the same order (0 to 13). */
static struct store_row row_at(sqlite3_stmt *st)
{
	return (struct store_row){
		.seq = sqlite3_column_int64(st, 0), .id = col(st, 1), .sha256 = col(st, 2),
		.received_at = col(st, 3), .via = col(st, 4), .catalog_id = col(st, 5),
		.kernel_series = col(st, 6), .distribution = col(st, 7),
		.cgroup_mode = col(st, 8), .software = col(st, 9), .verdict = col(st, 10),
		.reorganisation = col(st, 11), .use_case = col_or_null(st, 12),
		.body = sqlite3_column_blob(st, 13),
		.body_len = (size_t)sqlite3_column_bytes(st, 13),
	};
}

static int sq_list(struct store *base, const struct store_filter *f,
	       int (*fn)(const struct store_row *row, void *ud), void *ud)
{
	struct sq_store *s = sq(base);
	sqlite3_stmt *st = s->st[ST_LIST];
	const char *binds[] = { f->catalog_id, f->kernel_series, f->distribution, f->cgroup_mode,
				f->verdict, f->since, f->until };
	int rc, ret = 0;

	for (int i = 0; i < (int)(sizeof(binds) / sizeof(binds[0])); i++)
		bind_text(st, i + 1, binds[i]);
	sqlite3_bind_int64(st, 8, f->before);
	sqlite3_bind_int64(st, 9, f->limit);
	sqlite3_bind_int(st, 10, f->with_use_case);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const struct store_row row = row_at(st);

		ret = fn(&row, ud);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = db_error(s, "list");
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret;
}

static int sq_groups_begin(struct store *base, const char *since)
{
	struct sq_store *s = sq(base);
	int rc = step_done(s, ST_READ, "summary");

	/* All reports: the folded counts, a row per key. */
	s->whole = !since;
	if (rc < 0 || s->whole)
		return rc;
	rc = step_done(s, ST_SRC_CLEAR, "summary");
	if (rc == 0) {
		sqlite3_bind_text(s->st[ST_SRC_FILL], 1, since ? since : "", -1, SQLITE_STATIC);
		rc = step_done(s, ST_SRC_FILL, "summary");
	}
	if (rc < 0)
		sq_rollback(base);
	return rc;
}

static void sq_groups_end(struct store *base)
{
	struct sq_store *s = sq(base);

	if (!s->whole)
		step_done(s, ST_SRC_CLEAR, "summary");
	s->whole = false;
	if (step_done(s, ST_COMMIT, "summary") < 0)
		sq_rollback(base);
}

/* tally_groups' rows of dimension d, as dim_sql[d] gives the scan's. */
static int tally_stmt(struct sq_store *s, enum store_dim d, sqlite3_stmt **out)
{
	static const char *const sql[] = {
		"SELECT key, reports, installs, capped FROM tally_groups WHERE dim = ?1"
		" ORDER BY reports DESC, key",
		"SELECT key, reports, installs, capped FROM tally_groups WHERE dim = ?1"
		" ORDER BY key",
		"SELECT iif(?1 = 9, 'all', 'check'), coalesce(sum(reports), 0),"
		" coalesce(sum(installs), 0), coalesce(sum(capped), 0) FROM tally_groups"
		" WHERE dim = ?1",
	};
	const char *q = d >= DIM_ALL ? sql[2] : d == DIM_MONTH ? sql[1] : sql[0];

	if (!s->tally[d] && sqlite3_prepare_v3(s->db, q, -1, SQLITE_PREPARE_PERSISTENT,
					       &s->tally[d], NULL) != SQLITE_OK)
		return db_error(s, "prepare");
	sqlite3_bind_int(s->tally[d], 1, (int)d);
	*out = s->tally[d];
	return 0;
}

static int sq_groups(struct store *base, enum store_dim d,
		     int (*fn)(const struct store_group *g, void *ud), void *ud)
{
	struct sq_store *s = sq(base);
	sqlite3_stmt *st = s->dim[d];
	int rc, ret = 0;

	if (s->whole && (rc = tally_stmt(s, d, &st)) < 0)
		return rc;

	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const struct store_group g = { col(st, 0), sqlite3_column_int64(st, 1),
					       sqlite3_column_int64(st, 2),
					       sqlite3_column_int64(st, 3) };

		ret = fn(&g, ud);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = db_error(s, "summary");
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret;
}

/* The fold (tally_sql.h), one chunk: the deltas up to seq ?1 become
 * per-install changes (each with the install's count before, o), which
 * move tally_groups and tally, and go. */
static const char *const fold_sql[] = {
	"CREATE TEMP TABLE IF NOT EXISTS tally_change (dim INTEGER, key TEXT, install TEXT,"
	" d INTEGER, o INTEGER)",
	"WITH g AS MATERIALIZED (SELECT * FROM main.tally_delta WHERE seq <= ?1),"
	" x AS (" TALLY_EXPAND("g") "),"
	" c AS (SELECT dim, key, install, sum(d) AS d FROM x GROUP BY 1, 2, 3)"
	" INSERT INTO temp.tally_change SELECT c.dim, c.key, c.install, c.d, coalesce(t.n, 0)"
	" FROM c LEFT JOIN main.tally AS t"
	" ON t.dim = c.dim AND t.key = c.key AND t.install = c.install",
	"INSERT INTO main.tally_groups (dim, key, reports, installs, capped)"
	" SELECT dim, key, sum(d), sum((o + d > 0) - (o > 0)),"
	" sum(min(o + d, " STORE_CAP_TEXT ") - min(o, " STORE_CAP_TEXT "))"
	" FROM temp.tally_change WHERE true GROUP BY dim, key"
	" ON CONFLICT (dim, key) DO UPDATE SET reports = reports + excluded.reports,"
	" installs = installs + excluded.installs, capped = capped + excluded.capped",
	"INSERT INTO main.tally (dim, key, install, n) SELECT dim, key, install, o + d"
	" FROM temp.tally_change WHERE o + d > 0"
	" ON CONFLICT (dim, key, install) DO UPDATE SET n = excluded.n",
	"DELETE FROM main.tally WHERE (dim, key, install) IN"
	" (SELECT dim, key, install FROM temp.tally_change WHERE o + d <= 0)",
	"DELETE FROM main.tally_groups WHERE reports <= 0 AND (dim, key) IN"
	" (SELECT dim, key FROM temp.tally_change)",
	"DELETE FROM main.tally_delta WHERE seq <= ?1",
	"DELETE FROM temp.tally_change",
};

/* One statement of the fold, ?1 (when it has one) bound to hi. */
static int fold_step(struct sq_store *s, const char *sql, int64_t hi)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_error(s, "summary counts");
	if (sqlite3_bind_parameter_count(st) > 0)
		sqlite3_bind_int64(st, 1, hi);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_error(s, "summary counts");
}

/* The first seq pending into lo: 1, or 0 when nothing is. */
static int fold_pending(struct sq_store *s, int64_t *lo)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (sqlite3_prepare_v2(s->db, "SELECT min(seq) FROM tally_delta", -1, &st, NULL) !=
	    SQLITE_OK)
		return db_error(s, "summary counts");
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*lo = sqlite3_column_int64(st, 0);
		rc = 1;
	} else {
		rc = rc == SQLITE_ROW ? 0 : db_error(s, "summary counts");
	}
	sqlite3_finalize(st);
	return rc;
}

/* One transaction, one chunk: 1 when a chunk was folded, 0 when none was
 * pending. */
static int fold_chunk(struct sq_store *s)
{
	int64_t lo = 0;
	int rc = sq_begin(&s->base);

	if (rc == 0)
		rc = fold_pending(s, &lo);
	for (size_t i = 0; rc == 1 && i < sizeof(fold_sql) / sizeof(fold_sql[0]); i++) {
		const int r = fold_step(s, fold_sql[i], lo + TALLY_CHUNK - 1);

		rc = r < 0 ? r : rc;
	}
	if (rc >= 0) {
		const int r = sq_commit(&s->base);

		rc = r < 0 ? r : rc;
	}
	if (rc < 0)
		sq_rollback(&s->base);
	return rc;
}

static int sq_fold_chunk(struct store *base)
{
	return fold_chunk(sq(base));
}

static int sq_scan(struct store *base, int64_t after, unsigned limit,
		   int (*fn)(const struct store_row *row, void *ud), void *ud)
{
	struct sq_store *s = sq(base);
	sqlite3_stmt *st = s->st[ST_SCAN];
	int rc, ret = 0;

	sqlite3_bind_int64(st, 1, after);
	sqlite3_bind_int64(st, 2, limit);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_row row = row_at(st);

		row.token_sha256 = col_or_null(st, 14);
		row.install = col(st, 15);
		row.month = col(st, 16);
		row.origin = col(st, 17);

		ret = fn(&row, ud);
	}
	if (!ret && rc != SQLITE_DONE)
		ret = db_error(s, "scan");
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret;
}

static int sq_withdrawn_list(struct store *base,
			     int (*fn)(const char *id, const char *at, const char *token_sha256,
				       void *ud),
			     void *ud)
{
	struct sq_store *s = sq(base);
	sqlite3_stmt *st = s->st[ST_WITHDRAWN_ALL];
	int rc, ret = 0;

	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW)
		ret = fn(col(st, 0), col(st, 1), col_or_null(st, 2), ud);
	if (!ret && rc != SQLITE_DONE)
		ret = db_error(s, "withdrawn");
	sqlite3_reset(st);
	return ret;
}

const struct store_ops store_sqlite_ops = {
	.name = "sqlite",
	.open = sq_open,
	.close = sq_close,
	.read_deadline = sq_read_deadline,
	.abort_reads = sq_abort_reads,
	.manual_checkpoints = sq_manual_checkpoints,
	.checkpoint = sq_checkpoint,
	.defer_sync = sq_defer_sync,
	.wal_path = sq_wal_path,
	.scrub = sq_scrub,
	.file_check = sq_file_check,
	.keep_replaced = sq_keep_replaced,
	.begin = sq_begin,
	.commit = sq_commit,
	.rollback = sq_rollback,
	.put = sq_put,
	.token = sq_token,
	.del = sq_delete,
	.remove = sq_remove,
	.withdrawn_token = sq_withdrawn_token,
	.secret = sq_secret,
	.unwithdraw = sq_unwithdraw,
	.get = sq_get,
	.list = sq_list,
	.groups_begin = sq_groups_begin,
	.groups_end = sq_groups_end,
	.groups = sq_groups,
	.fold_chunk = sq_fold_chunk,
	.scan = sq_scan,
	.withdrawn_list = sq_withdrawn_list,
};
