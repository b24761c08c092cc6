/* The PostgreSQL backend's reports in by the batch: every INSERT of a
 * store_put_batch sent at once in libpq's pipeline mode (libpq 14+; the
 * extended query protocol always allowed it), their answers read after one
 * sync. One round trip for the writer's batch where pg_put makes one a
 * report, and the collector and PostgreSQL no longer wake each other once
 * a report. Inside the writer's transaction, on its connection: a failed
 * INSERT fails the transaction as it would one by one (the rest of the
 * pipeline is skipped by the server, PGRES_PIPELINE_ABORTED), and the
 * COMMIT that follows says so. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "store/store_pg.h"

/* Send the INSERTs of items[0..n) and a sync; the number sent (all, or
 * those before a failure, *rc then set). */
static size_t send_all(struct pg_store *s, struct store_put_item *items, size_t n, int *rc)
{
	char name[16];
	size_t i;

	snprintf(name, sizeof(name), "c%d", (int)P_INSERT);
	for (i = 0; i < n; i++) {
		const char *vals[PG_INSERT_N];
		int lens[PG_INSERT_N], fmts[PG_INSERT_N];

		pg_insert_params(items[i].m, items[i].body, items[i].len, items[i].received_at,
				 items[i].via, vals, lens, fmts);
		if (!PQsendQueryPrepared(s->conn, name, PG_INSERT_N, vals, lens, fmts, 1)) {
			*rc = pg_db_error(s, "insert (pipeline)", NULL);
			break;
		}
	}
	if (PQpipelineSync(s->conn) != 1 && *rc == 0)
		*rc = pg_db_error(s, "insert (pipeline sync)", NULL);
	return i;
}

/* Each sent query's result (then the NULL that ends it), then the sync's,
 * each within end (a frozen server costs the deadline, not the writer:
 * the connection is then closed, *rc < 0). The answers into items[].rc;
 * the first failure into *rc. true once the sync was read: the pipeline
 * is empty. */
static bool read_all(struct pg_store *s, struct store_put_item *items, size_t sent,
		     int64_t end, int *rc)
{
	size_t i = 0;
	int nulls = 0;

	for (;;) {
		int wrc;
		PGresult *res = pg_next_result(s, "insert (pipeline)", end, &wrc);

		if (wrc < 0) {
			*rc = wrc;
			return false;
		}
		if (!res) {
			/* Two in a row: nothing more will come (a broken
			 * connection, or no sync was queued). */
			if (PQstatus(s->conn) != CONNECTION_OK || ++nulls > 1)
				return false;
			continue;
		}
		nulls = 0;
		switch (PQresultStatus(res)) {
		case PGRES_PIPELINE_SYNC:
			PQclear(res);
			return true;
		case PGRES_TUPLES_OK:
			if (i < sent)
				items[i++].rc = pg_insert_answer(res);
			break;
		case PGRES_PIPELINE_ABORTED:
			i++;
			if (*rc == 0)
				*rc = -EIO;
			break;
		default:
			i++;
			if (*rc == 0)
				*rc = pg_db_error(s, "insert (pipeline)", res);
		}
		PQclear(res);
	}
}

int pg_put_batch(struct store *base, struct store_put_item *items, size_t n)
{
	struct pg_store *s = pgs(base);
	size_t sent;
	int rc = 0;

	int64_t end;

	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		items[i].rc = -EIO;
	rc = pg_ready(s);
	if (rc < 0)
		return rc;
	/* One deadline for the whole pipeline: one round trip's worth of
	 * statements, as one statement has (store_pg_conn.c). */
	end = pg_call_end(s);
	if (PQenterPipelineMode(s->conn) != 1)
		return pg_db_error(s, "insert (pipeline mode)", NULL);
	sent = send_all(s, items, n, &rc);
	if (rc == 0)
		rc = pg_flush_within(s, "insert (pipeline)", end);
	if (!s->conn)
		return rc;                /* closed past the deadline: logged */
	if (!read_all(s, items, sent, end, &rc) && rc == 0)
		rc = pg_db_error(s, "insert (pipeline results)", NULL);
	if (!s->conn)
		return rc;
	if (PQexitPipelineMode(s->conn) != 1) {
		/* Results still queued: this session cannot run a statement
		 * again; the next transaction connects anew (PQreset would
		 * wait without a deadline; the transaction is the server's to
		 * roll back). */
		if (rc == 0)
			rc = pg_db_error(s, "insert (leaving pipeline mode)", NULL);
		pg_drop(s);
	}
	if (rc < 0)
		return rc;
	/* The ids already there: their rows, one statement each, as pg_put. */
	for (size_t i = 0; i < n; i++)
		items[i].rc = pg_put_answer(s, items[i].m, items[i].received_at, items[i].rc,
					    items[i].r);
	return 0;
}
