/* The collector's storage, one interface with two backends (store_impl.h):
 * one SQLite file in WAL mode (store_sqlite.c, the default), or a
 * PostgreSQL database that several collectors share (store_pg.c). Both
 * use prepared statements only and version their schema. A connection is
 * used by one thread at a time; the writer thread owns the only writing
 * one of its process. */
#ifndef CGFB_SERVER_STORE_H
#define CGFB_SERVER_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgfb/canon.h"
#include "cgfb/wire.h"

struct store;

/* The columns a report is stored with besides its bytes (taken out by
 * ingest.c), the same for both backends. */
/* Installs are counted by the pseudonym a client derives for this collector
 * from its per-install secret (consent.install): the same machine across
 * boots and kernels is one install, two collectors cannot link it. */
/* What a report may claim of its id (cgfb/report_id.h): an id bound to
 * its deletion hash is its sender's, and a sender who shows the token
 * proves it. A claim takes the id from a report whose id is not bound to
 * its own hash (a squatter's, or an earlier client's). A proof also takes
 * it from a bound report that came by mail: a mail shows no token, so
 * anyone who read the owner's mail could have sent a forged copy first. */
enum report_claim {
	CLAIM_NONE,        /* unbound: first come, first stored */
	CLAIM_BOUND,       /* bound, without proof (a mail): takes an unbound row's id */
	CLAIM_PROVEN,      /* bound, its token shown: also takes a mailed row's id and an
			    * id a squatter withdrew */
};

/* The way a report came (the via column): a POST, or the mail import,
 * whose bound reports were never proven. */
#define STORE_VIA_HTTP "http"
#define STORE_VIA_MAIL "mail"
#define STORE_VIA_MAX 16

struct report_meta {
	char id[CGFB_REPORT_ID_LEN + 1];
	char sha256[65];
	char token_sha256[65];       /* "" when the report has no deletion token */
	char install[65];            /* consent.install, the client's pseudonym */
	char catalog_id[16];
	char kernel_series[16];
	char distribution[72];       /* "<id> <version_id>" */
	char cgroup_mode[16];
	char software[72];           /* detection.fields.comm, "" if none */
	char verdict[16];            /* affected | unaffected | none */
	char reorganisation[32];     /* use_case.answers.reorganisation, normalised */
	char month[8];               /* YYYY-MM of "created" */
	char origin[8];              /* "check": found by cgroup-feedback check, the
				      * kernel printed nothing; else "kernel" */
	char *use_case;              /* use_case.text or NULL; owned */
	enum report_claim claim;     /* set by ingest_claim (ingest.h) */
};

struct receipt {
	char id[CGFB_REPORT_ID_LEN + 1];
	char sha256[65];
	char received_at[32];
};

/* Outcome of store_put, besides negative errnos. */
enum store_put_result {
	STORE_CREATED,     /* new report stored */
	STORE_SAME,        /* this id with these bytes is already there */
	STORE_CONFLICT,    /* this id with other bytes is already there */
	STORE_WITHDRAWN,   /* this id was deleted by its owner; not stored again */
};

/* True when the database option names a PostgreSQL database (a
 * postgresql:// or postgres:// URI, or libpq key=value pairs), false for
 * a SQLite file. */
bool store_is_postgres(const char *where);

/* Open (and create or migrate) the database. Returns -EPROTO for a database
 * written by a newer version; the reason goes to the log. */
int store_open(struct store **out, const char *path, bool readonly);
void store_close(struct store *s);

/* Read connections: what is read from now on must be done within ms
 * milliseconds (0: no bound), or it fails with -ETIMEDOUT. */
#define STORE_READ_MS 15000
/* What the WAL is cut back to after a complete checkpoint (64 MiB). */
#define STORE_WAL_LIMIT_TEXT "67108864"
void store_read_deadline(struct store *s, unsigned ms);
/* Shutdown: every read, now and later, fails with -ETIMEDOUT. */
void store_abort_reads(void);
/* Before opening: how long a write on PostgreSQL may wait for a lock and
 * run, in ms (lock_timeout, statement_timeout of the writer's session;
 * lock_timeout of every session); past it, it fails with -ETIMEDOUT and
 * its request is answered 503. SQLite waits for its lock by busy_timeout. */
#define STORE_LOCK_MS 2000
#define STORE_WRITE_MS 10000
/* And on the collector's side, for a server that enforces nothing (a
 * frozen one): each step of a (re)connection is answered within
 * deadline_ms, a statement
 * answered within its statement timeout + deadline_ms (15 s for a write,
 * 20 s for a read by default), or the connection is closed and the call
 * fails with -ETIMEDOUT. A schema migration has no deadline. */
#define STORE_DEADLINE_MS 5000
void store_write_timeouts(unsigned lock_ms, unsigned statement_ms, unsigned deadline_ms);
/* Shutdown, past its grace: the write in progress is cancelled and every
 * later one fails with -ETIMEDOUT, whatever the database does. */
void store_abort_writes(void);

/* For the writer's connection: no checkpoints in its commits; a
 * checkpointer (store_checkpoint from another connection) copies the WAL
 * back into the database without making a commit wait for it. */
int store_manual_checkpoints(struct store *s);
/* A PASSIVE checkpoint: as much as can be copied without blocking anyone. */
int store_checkpoint(struct store *s);

/* For a writer that makes commits durable itself: commits write the WAL
 * but do not fsync it (synchronous=NORMAL); whoever answers a request must
 * first fsync the file named by store_wal_path. */
int store_defer_sync(struct store *s);
int store_wal_path(struct store *s, char *buf, size_t bufsz);

/* After withdrawals, outside a transaction: make the deleted reports
 * unreadable in the store's own files, as far as the backend allows.
 * SQLite: a TRUNCATE checkpoint copies the WAL, whose frames still hold
 * the inserted pages, into the database file (where secure_delete zeroed
 * the deleted cells and freed pages) and cuts the WAL to zero bytes.
 * PostgreSQL: VACUUM of the reports table (and its TOAST table) prunes
 * the dead tuples. Returns 0, -EBUSY when a reader's snapshot still needs
 * the old frames (try again later), or an error (logged). */
int store_scrub(struct store *s);

/* A writing connection's file (SQLite: store/dbfile.h) is still the
 * database at its path and writable: 0; -EROFS while it or its directory
 * is read-only; -ESTALE, for the rest of the process's life, once another
 * file was put at the path or the file was removed (restarting opens
 * what is there then). Checked by every begin and commit too; safe from
 * any thread. PostgreSQL: always 0. */
int store_file_check(struct store *s);
/* Once store_file_check said -ESTALE, on the writer's connection and
 * before the old file's WAL is cut (store_scrub): what the old file holds
 * (every report acknowledged before) is copied into a new file beside the
 * path ("<path>.replaced-<UTC time>", O_EXCL, fsynced with its directory),
 * since the old file goes with the process; one log line names it, with
 * its reports and how many of them the file now at the path lacks, or
 * says why it could not be made. 0 or a negative errno. PostgreSQL: 0. */
int store_keep_replaced(struct store *s);

int store_begin(struct store *s);
int store_commit(struct store *s);
void store_rollback(struct store *s);

/* Inside a transaction. received_at is used only for a new report; r gets
 * the stored receipt for STORE_CREATED and STORE_SAME. A claim (m->claim)
 * changes two answers: a row under the id whose id is not bound to its own
 * hash, and for CLAIM_PROVEN also a bound row that came by mail (via
 * STORE_VIA_MAIL), is replaced (STORE_CREATED; logged with both hashes'
 * first 12 digits) where it was STORE_CONFLICT; a bound row that came by
 * a proven POST stays STORE_CONFLICT, and so does any bound row against
 * CLAIM_BOUND (between two unproven copies the first stays). And, for
 * CLAIM_PROVEN, an id withdrawn with another token than this report's
 * (the squatter's) is stored again (STORE_CREATED, the marker gone) where
 * it was STORE_WITHDRAWN. A marker of before the markers kept a hash
 * holds. */
int store_put(struct store *s, const struct report_meta *m, const char *body, size_t len,
	      const char *received_at, const char *via, struct receipt *r);
/* Several store_put in one go, inside a transaction: items[i].rc gets
 * what store_put would have returned for it, in order. A backend that can
 * send them together does (PostgreSQL's pipeline: one round trip for the
 * batch instead of one a report); the others put them one by one. 0, or a
 * negative errno when the batch as a whole failed (then every rc is it). */
struct store_put_item {
	const struct report_meta *m;
	const char *body;
	size_t len;
	const char *received_at;
	const char *via;
	struct receipt *r;
	int rc;
};
int store_put_batch(struct store *s, struct store_put_item *items, size_t n);
/* Delete report id if token's SHA-256 matches the stored one (constant-time
 * compare). Returns 0, -ENOENT, -EACCES (wrong token) or -EPERM (the report
 * carries no deletion token). The id is remembered as withdrawn, with the
 * SHA-256 of the token it was withdrawn with. */
int store_delete(struct store *s, const char *id, const char *token, const char *when);

/* The stored bytes and receipt of one report; -ENOENT if absent. */
int store_get(struct store *s, const char *id, struct cgfb_buf *body, struct receipt *r);

struct store_filter {
	const char *catalog_id, *kernel_series, *distribution, *cgroup_mode, *verdict;
	const char *since, *until;   /* received_at bounds, inclusive / exclusive */
	int64_t before;              /* seq cursor: only older rows; 0 none */
	bool with_use_case;          /* only reports that carry a use case */
	unsigned limit;
};

struct store_row {
	int64_t seq;
	const char *id, *sha256, *received_at, *via, *catalog_id, *kernel_series;
	const char *distribution, *cgroup_mode, *software, *verdict, *reorganisation, *use_case;
	const char *body;
	size_t body_len;
	/* Only from store_scan: the rest of what is stored. */
	const char *token_sha256, *install, *month, *origin;
};

/* Call fn for each matching row, newest first; stops early when fn returns
 * non-zero and returns that value. Row strings live only during the call. */
int store_list(struct store *s, const struct store_filter *f,
	       int (*fn)(const struct store_row *row, void *ud), void *ud);

/* Migration (migrate.c). Every stored row with seq > after, oldest first,
 * at most limit of them, with every column (SQLite only). */
int store_scan(struct store *s, int64_t after, unsigned limit,
	       int (*fn)(const struct store_row *row, void *ud), void *ud);
/* Every withdrawn id, when it was withdrawn and the hash of the token it
 * was withdrawn with (NULL for a withdrawal of before: schema version 3)
 * (SQLite only). */
int store_withdrawn_list(struct store *s,
			 int (*fn)(const char *id, const char *at, const char *token_sha256,
				   void *ud),
			 void *ud);
/* Inside a transaction: row stored as it is, its received_at and via
 * kept (PostgreSQL only). STORE_CREATED, STORE_SAME (this id with these
 * bytes is there), STORE_CONFLICT, or a negative errno. */
int store_put_row(struct store *s, const struct store_row *row);
int store_put_withdrawn(struct store *s, const char *id, const char *at,
			const char *token_sha256);

/* Aggregation: for each value of one dimension, the number of reports and
 * of distinct installs (see report_meta), counting reports received at or
 * after since (NULL: all). The catalog ids of the kernel's warnings and of
 * check's findings are two dimensions: a finding is an install that would
 * break, not one whose kernel warned. */
enum store_dim {
	DIM_CATALOG_ID,        /* origin "kernel" only */
	DIM_KERNEL_SERIES,
	DIM_DISTRIBUTION,
	DIM_CGROUP_MODE,
	DIM_SOFTWARE,
	DIM_VERDICT,
	DIM_REORGANISATION,
	DIM_MONTH,
	DIM_CHECK_CATALOG_ID,  /* origin "check" only */
	DIM_ALL,               /* one group, key "all" */
	DIM_CHECK_ALL,         /* one group, key "check": origin "check" only */
	DIM_COUNT
};

const char *store_dim_name(enum store_dim d);

/* What one report contributes to a group's capped count: the public
 * summary's noise is scaled to what one install can change (summary.h). */
#define STORE_CAP_PER_INSTALL 3
#define STORE_CAP_TEXT "3"

/* One group of a dimension: its reports, its distinct installs, and its
 * reports counted at most STORE_CAP_PER_INSTALL per install. */
struct store_group {
	const char *key;
	int64_t reports, installs, capped;
};

/* Outside a transaction, on the writing connection: count the reports
 * stored and deleted since the last fold into the counts a summary of all
 * reports reads (store/tally_sql.h), a bounded chunk per transaction, at
 * most chunks of them (0: until none is left). A summary of all reports
 * is as recent as the last fold; its cost is the number of keys, not of
 * reports. The collector folds at start, before each recomputation of the
 * public summary, and before a scrub (a withdrawn report's counts go with
 * it). 0 when nothing is left, 1 when chunks were folded and more may be,
 * or a negative errno (logged). */
int store_fold(struct store *s, unsigned chunks);

/* The window of reports received since `since` (NULL: all, as of the
 * last store_fold) that the following store_groups calls count, all from
 * one snapshot of the database; store_groups_end releases it. A window is
 * a scan of its reports. */
int store_groups_begin(struct store *s, const char *since);
void store_groups_end(struct store *s);
int store_groups(struct store *s, enum store_dim d,
		 int (*fn)(const struct store_group *g, void *ud), void *ud);

#define STORE_SECRET_HEX 64

/* The secret called name that the store keeps for every collector using
 * it, 64 lower-case hex digits (32 bytes) into out: the one stored, or
 * candidate stored now when there is none (the first instance to store
 * one wins; every instance, and every restart, reads the same). On a
 * read-write store. 0 or a negative errno. */
int store_secret(struct store *s, const char *name, const char *candidate,
		 char out[STORE_SECRET_HEX + 1]);

/* The public summary into out, made by compute(s, out, ud) (which may run
 * store_groups). SQLite: computed now. PostgreSQL, which several collectors
 * share: the one instance that holds an advisory lock recomputes it when
 * the stored copy is older than half of max_age seconds and stores it;
 * every instance serves the stored copy, so all serve the same bytes. */
int store_summary_shared(struct store *s, unsigned max_age,
			 int (*compute)(struct store *s, struct cgfb_buf *out, void *ud), void *ud,
			 struct cgfb_buf *out);

#endif
