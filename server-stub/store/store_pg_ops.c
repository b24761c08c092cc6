/* The PostgreSQL backend as store.c sees it: the table of its operations,
 * each implemented by the file that owns it (store_pg.c). */
#include <errno.h>
#include <stddef.h>

#include "store/store_pg.h"

static int pg_open(struct store **out, const char *where, bool readonly)
{
	return pg_open_ops(out, where, readonly, &store_pg_ops);
}

static void pg_read_deadline(struct store *base, unsigned ms)
{
	struct pg_store *s = pgs(base);

	/* Each statement is bounded by it: an export's page, a summary's
	 * group-by. A failure shows in the read that follows. */
	if (PQstatus(s->conn) == CONNECTION_OK)
		pg_set_timeout(s, ms);
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

/* VACUUM (never inside a transaction: the writer calls this between
 * batches) prunes the deleted rows' tuples and their TOAST chunks, so
 * they are no longer in a live page as a dead tuple waiting for
 * autovacuum; the same for the counts the fold before it removed (their
 * install pseudonym and columns). Not VACUUM FULL: that rewrites the table under an exclusive
 * lock. What PostgreSQL keeps regardless is in docs/PRIVACY.md. */
static int pg_scrub(struct store *base)
{
	return pg_exec_const(pgs(base), "vacuum after a withdrawal",
			     "VACUUM reports, tally_delta, tally");
}

const struct store_ops store_pg_ops = {
	.name = "postgresql",
	.open = pg_open,
	.close = pg_close,
	.read_deadline = pg_read_deadline,
	.abort_reads = pg_abort_reads,
	.write_timeouts = pg_write_timeouts,
	.abort_writes = pg_abort_writes,
	.manual_checkpoints = pg_unsupported,
	.checkpoint = pg_unsupported,
	.defer_sync = pg_unsupported,
	.wal_path = pg_wal_path,
	.scrub = pg_scrub,
	.fold_chunk = pg_fold_chunk,
	.begin = pg_begin,
	.commit = pg_commit,
	.rollback = pg_rollback,
	.put = pg_put,
	.put_batch = pg_put_batch,
	.token = pg_token,
	.del = pg_delete,
	.remove = pg_remove,
	.withdrawn_token = pg_withdrawn_token,
	.secret = pg_secret,
	.unwithdraw = pg_unwithdraw,
	.get = pg_get,
	.list = pg_list,
	.groups_begin = pg_groups_begin,
	.groups_end = pg_groups_end,
	.groups = pg_groups,
	.summary_shared = pg_summary_shared,
	.put_row = pg_put_row,
	.put_withdrawn = pg_put_withdrawn,
};
