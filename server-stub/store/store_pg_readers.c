/* The PostgreSQL backend's shutdown: at SIGTERM the readers' sessions are
 * given up (no read starts, what a reader waits for is abandoned), and
 * the writer's once the shutdown's grace is over (a table locked by
 * someone else held a SIGTERM for 23 s). Only flags: the waits of
 * store_pg_conn.c look at them every PG_WAIT_SLICE_MS and close the
 * connection. Not PQcancel, as before: libpq 15's waits for the server to
 * close the cancel connection, and a frozen server never does (issue
 * 41: SIGTERM took 35 s). Below the rest of the backend. */
#include <stdatomic.h>
#include <stdbool.h>

#include "store/store_pg.h"

static atomic_bool aborting_reads, aborting_writes;

void pg_abort_reads(void)
{
	atomic_store(&aborting_reads, true);
}

bool pg_reads_aborted(void)
{
	return atomic_load_explicit(&aborting_reads, memory_order_relaxed);
}

void pg_abort_writes(void)
{
	atomic_store(&aborting_writes, true);
}

bool pg_writes_aborted(void)
{
	return atomic_load_explicit(&aborting_writes, memory_order_relaxed);
}
