/* Inside the PostgreSQL backend: what store_pg.c (connection, session,
 * schema, transactions), store_pg_write.c (reports in, withdrawals,
 * migration) and store_pg_read.c (reports out, summaries) share. */
#ifndef CGFB_SERVER_STORE_PG_H
#define CGFB_SERVER_STORE_PG_H

#include <libpq-fe.h>

#include "cgfb/buf.h"
#include "store/store_impl.h"

/* Advisory lock keys (two int4): the migrations, and the computation of
 * the public summary that one instance at a time does for all. */
#define LOCK_SPACE   1667721826  /* "cgfb" */
#define LOCK_MIGRATE 1
#define LOCK_SUMMARY 2
#define LOCK_FOLD    3

/* The prepared statements, named "c<index>" in every session. */
enum pst {
	P_FIND, P_INSERT, P_TOKEN, P_DELETE, P_FORGET, P_GET, P_LIST, P_SRC_FILL,
	P_SNAP_FRESH, P_SNAP_GET, P_SNAP_PUT, P_PUT_ROW, P_MARKER, P_UNWITHDRAW, P_TALLY,
	P_TALLY_MONTH, P_TALLY_ONE, P_FOLD, P_FOLD_EMPTY, P_DIM0,
	P_COUNT = P_DIM0 + DIM_COUNT
};

struct pg_store {
	struct store base;       /* first: what store.c sees */
	PGconn *conn;
	char *conninfo;
	bool readonly;
	bool whole;              /* pg_groups_begin(NULL): from tally_groups */
	bool down;               /* the last (re)connection failed: logged once */
	bool migrating;          /* the schema's migration: no deadline (store_pg_conn.c) */
	int64_t retry_at;        /* after a failed connection: none tried before (ms) */
	int tx_err;              /* first error inside the open transaction */
	unsigned timeout_ms;     /* statement_timeout of the session */
};

/* base is the first member: NULL stays NULL. */
static inline struct pg_store *pgs(struct store *base)
{
	return (struct pg_store *)base;
}

/* store_pg_conn.c: the connection, every call to the server within a
 * deadline on the collector's side (--db-deadline): each step of a
 * (re)connection within it, a statement within the session's
 * statement_timeout and it. Past it, or once the shutdown gave up on the session, the connection
 * is closed (s->conn NULL), the call fails with -ETIMEDOUT or -ESHUTDOWN
 * (logged there), and the next pg_ensure connects again. A call fails
 * with -ENOTCONN, unlogged, on a closed session. Otherwise a result as
 * PQexec gives it (NULL with *rc 0: see PQerrorMessage). */
void pg_set_deadline(unsigned ms);
int pg_connect(struct pg_store *s, const char *what);
void pg_drop(struct pg_store *s);
PGresult *pg_call_sql(struct pg_store *s, const char *what, const char *sql, int *rc);
PGresult *pg_call_params(struct pg_store *s, const char *what, const char *sql, int n,
			 const char *const *vals, int *rc);
PGresult *pg_call_prepared(struct pg_store *s, const char *what, const char *name, int n,
			   const char *const *vals, const int *lens, const int *fmts, int *rc);
PGresult *pg_call_prepare(struct pg_store *s, const char *name, const char *sql, int *rc);
/* A pipeline's calls under the same deadline (store_pg_pipe.c): its end,
 * set when the pipeline starts; the queued commands written out within
 * it; each next result read within it (NULL as PQgetResult gives it
 * between the queries' results). Past the end, or abandoned at shutdown:
 * the connection closed and logged, *rc < 0, s->conn NULL. */
int64_t pg_call_end(const struct pg_store *s);
int pg_flush_within(struct pg_store *s, const char *what, int64_t end);
PGresult *pg_next_result(struct pg_store *s, const char *what, int64_t end, int *rc);
int pg_ready(const struct pg_store *s);

/* Log what failed (the reason goes to the log only) and return it as a
 * negative errno; inside a transaction the first one is kept for COMMIT. */
int pg_db_error(struct pg_store *s, const char *what, const PGresult *res);
int pg_exec_const(struct pg_store *s, const char *what, const char *sql);
/* A call's outcome: 0 when res has status ok (TUPLES_OK, or COMMAND_OK
 * too when any), else the error, logged once and kept for COMMIT. */
int pg_outcome(struct pg_store *s, const char *what, const PGresult *res, int rc, bool any);
/* A prepared statement, every result column binary; NULL with *rc set on
 * failure. */
PGresult *pg_run(struct pg_store *s, enum pst i, int n, const char *const *vals,
		 const int *lens, const int *fmts, const char *what, int *rc);
int64_t pg_int8_at(const PGresult *res, int row, int col);
/* A live connection, reset once if it broke. */
int pg_ensure(struct pg_store *s);
const char *pg_nonempty(const char *v);
void pg_copy_at(const PGresult *res, int row, int col, char *dst, size_t dstsz);

/* store_pg.c: a session to the database where names, its schema migrated
 * first unless readonly, with ops as its table; closing; a statement
 * timeout for the session; the transaction. */
int pg_open_ops(struct store **out, const char *where, bool readonly,
		const struct store_ops *ops);
void pg_close(struct store *base);
int pg_set_timeout(struct pg_store *s, unsigned ms);
int pg_begin(struct store *base);
int pg_commit(struct store *base);
void pg_rollback(struct store *base);
/* store_pg_write.c */
/* P_INSERT's parameters for one report, and its answer: 1 stored, 2
 * withdrawn before, 0 the id is there already, or -EIO. pg_put_answer
 * turns that answer into pg_put's (a receipt; for an id already there a
 * second statement reads its row). */
#define PG_INSERT_N 17
void pg_insert_params(const struct report_meta *m, const char *body, size_t len,
		      const char *received_at, const char *via, const char *vals[PG_INSERT_N],
		      int lens[PG_INSERT_N], int fmts[PG_INSERT_N]);
int pg_insert_answer(const PGresult *res);
int pg_put_answer(struct pg_store *s, const struct report_meta *m, const char *received_at,
		  int rc, struct receipt *r);
/* store_pg_pipe.c: store_put_batch in one pipeline (libpq 14+). */
int pg_put_batch(struct store *base, struct store_put_item *items, size_t n);
int pg_put(struct store *base, const struct report_meta *m, const char *body, size_t len,
	   const char *received_at, const char *via, struct receipt *r);
int pg_token(struct store *base, const char *id, char want[65], char via[STORE_VIA_MAX]);
int pg_delete(struct store *base, const char *id, const char *token_sha256, const char *when);
int pg_remove(struct store *base, const char *id);
int pg_withdrawn_token(struct store *base, const char *id, char out[65]);
int pg_unwithdraw(struct store *base, const char *id);
int pg_secret(struct store *base, const char *name, const char *candidate,
	      char out[STORE_SECRET_HEX + 1]);
int pg_put_row(struct store *base, const struct store_row *row);
int pg_put_withdrawn(struct store *base, const char *id, const char *at,
		     const char *token_sha256);
/* store_pg_readers.c. Shutdown: reads fail from now on, and the
 * statements readers wait for now are abandoned, their connections closed
 * (store_pg_conn.c; SQLite's readers stop at their progress handler). */
void pg_abort_reads(void);
/* Whether pg_abort_reads ran. */
bool pg_reads_aborted(void);
/* The read-write sessions (the writer's): what they wait for is abandoned
 * by pg_abort_writes, and their transactions fail to begin after it
 * (-ETIMEDOUT). */
void pg_abort_writes(void);
bool pg_writes_aborted(void);
/* store_pg.c: the settings of the sessions opened from now on (store.h). */
void pg_write_timeouts(unsigned lock_ms, unsigned statement_ms, unsigned deadline_ms);
/* store_pg_read.c */
int pg_get(struct store *base, const char *id, struct cgfb_buf *body, struct receipt *r);
int pg_list(struct store *base, const struct store_filter *f,
	    int (*fn)(const struct store_row *row, void *ud), void *ud);
int pg_groups_begin(struct store *base, const char *since);
void pg_groups_end(struct store *base);
int pg_groups(struct store *base, enum store_dim d,
	      int (*fn)(const struct store_group *g, void *ud), void *ud);
int pg_fold_chunk(struct store *base);
int pg_summary_shared(struct store *base, unsigned max_age,
		      int (*compute)(struct store *s, struct cgfb_buf *out, void *ud), void *ud,
		      struct cgfb_buf *out);

#endif
