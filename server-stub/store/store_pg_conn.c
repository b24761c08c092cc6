/* The PostgreSQL backend's connection: every call to the server has a
 * deadline on the collector's side. A server that is frozen (a hung
 * postmaster, a hung disk, a paused VM whose kernel still acknowledges
 * TCP) enforces none of its own timeouts, and libpq's blocking calls
 * (PQconnectdb, PQexec, PQcancel) wait for it without end: every POST
 * waited unanswered and SIGTERM took 35 s (issue 41).
 *
 * So nothing here blocks inside libpq. A connection is made with
 * PQconnectStartParams and PQconnectPoll, a command sent with PQsend* on a
 * connection in nonblocking mode, and its results collected with
 * PQconsumeInput and PQisBusy, each wait a poll() on PQsocket() bounded
 * by a deadline (libpq, "Connecting to the Database Server" and
 * "Asynchronous Command Processing", postgresql.org/docs/15/libpq-connect.html
 * and libpq-async.html; connect_timeout is ignored by PQconnectPoll, the
 * same page: the deadline below replaces it). Past the deadline, or once
 * the shutdown gave up on the session (store_pg_readers.c), the
 * connection is closed where it stands: no cancel request, since
 * libpq 15's PQcancel connects and then waits for the server to close
 * that connection, which a frozen server never does (PQcancelStart, the
 * nonblocking cancel, came with libpq 17). PQfinish on a nonblocking
 * connection does not wait either: its Terminate message is written only
 * as far as the socket takes it (fe-connect.c sendTerminateConn, fe-misc.c
 * pqSendSome). The server rolls back what was not committed; whether the
 * last COMMIT made it is unknown, and its requests were not acknowledged
 * (answered 503), so a client's retry finds the report stored (200) or
 * stores it (201). */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "cgfb/log.h"
#include "store/store_pg.h"

/* How often a wait looks at the shutdown: the bound it adds to a SIGTERM. */
#define PG_WAIT_SLICE_MS 100

/* --db-deadline (store.h's default). */
static unsigned deadline_ms = STORE_DEADLINE_MS;

void pg_set_deadline(unsigned ms)
{
	deadline_ms = ms;
}

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The shutdown gave up on this session: readers at SIGTERM, the writer
 * past its grace. */
static bool abandoned(const struct pg_store *s)
{
	return s->readonly ? pg_reads_aborted() : pg_writes_aborted();
}

/* Until c's socket is ready for events (or has an error for libpq to
 * find), within end: 0, -ETIMEDOUT past end, -ESHUTDOWN once abandoned.
 * What the server sent by then counts, however late we look (as libpq's
 * own connect_timeout, pqSocketCheck): the time a slow client spends
 * computing (SCRAM under valgrind on a loaded machine took more than 5 s)
 * is not the server's. */
static int wait_socket(const struct pg_store *s, PGconn *c, short events, int64_t end)
{
	for (;;) {
		struct pollfd p = { .fd = PQsocket(c), .events = events };
		const int64_t left = end - now_ms();
		int n;

		if (abandoned(s))
			return -ESHUTDOWN;
		if (p.fd < 0)
			return -ENOTCONN;
		n = poll(&p, 1, left <= 0 ? 0 : (int)(left < PG_WAIT_SLICE_MS ? left : PG_WAIT_SLICE_MS));
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
		if (left <= 0)
			return -ETIMEDOUT;
	}
}

/* The line that says why the connection went, once per call. */
static void log_gone(const struct pg_store *s, const char *what, int rc, unsigned ms)
{
	const char *msg = PQerrorMessage(s->conn);

	if (rc == -ESHUTDOWN)
		cgfb_log(LOG_WARNING, "database: %s: abandoned at shutdown; connection closed", what);
	else if (rc == -ETIMEDOUT)
		cgfb_log(LOG_ERR, "database: %s: no answer within %u ms; connection closed", what, ms);
	else
		cgfb_log(LOG_ERR, "database: %s: %.*s", what, (int)strcspn(msg, "\n"), msg);
}

void pg_drop(struct pg_store *s)
{
	if (!s->conn)
		return;
	/* Nonblocking since it connected: PQfinish writes its Terminate
	 * message as far as the socket takes it, and closes. */
	PQfinish(s->conn);
	s->conn = NULL;
}

/* Defaults that the database option may override (its values come
 * last): a connection whose peer vanished is noticed by TCP within
 * seconds (tcp_user_timeout), beside the deadline that covers a peer
 * whose kernel still answers. The password comes from PGPASSFILE, a
 * service file or the environment, never from the command line
 * (docs/man). */
int pg_connect(struct pg_store *s, const char *what)
{
	static const char *const keys[] = { "application_name", "tcp_user_timeout", "dbname",
					    NULL };
	const char *const vals[] = { "cgroup-feedback-server", "10000", s->conninfo, NULL };
	const int64_t start = now_ms();
	int64_t end = start + deadline_ms;
	PostgresPollingStatusType st = PGRES_POLLING_WRITING;
	int rc = 0;

	pg_drop(s);
	/* One attempt per deadline after one that timed out: every
	 * transaction queued behind it (a batch, a fold) would otherwise wait
	 * for one of its own, and a POST's 503 for all of them. An attempt
	 * refused at once (a server restarting) costs no one a wait. */
	if (start < s->retry_at)
		return -ENOTCONN;
	s->conn = PQconnectStartParams(keys, vals, 1);
	if (!s->conn)
		return -ENOMEM;
	if (PQstatus(s->conn) == CONNECTION_BAD)
		st = PGRES_POLLING_FAILED;
	/* As the libpq manual says: before the first PQconnectPoll, as if it
	 * had asked for writing; the socket may change between calls (one
	 * host after another). The deadline is for each step: a server that
	 * answers each one is alive, however slow the whole (a handful of
	 * steps: SCRAM's two round trips took over 5 s under valgrind on a
	 * loaded machine); a frozen one answers none. */
	while (st != PGRES_POLLING_OK && st != PGRES_POLLING_FAILED) {
		rc = wait_socket(s, s->conn, st == PGRES_POLLING_READING ? POLLIN : POLLOUT, end);
		if (rc < 0)
			break;
		st = PQconnectPoll(s->conn);
		end = now_ms() + deadline_ms;
	}
	if (rc == 0 && st == PGRES_POLLING_OK && PQsetnonblocking(s->conn, 1) == 0) {
		s->retry_at = 0;
		return 0;
	}
	if (rc == -ETIMEDOUT)
		s->retry_at = now_ms() + deadline_ms;
	if (rc == 0)
		rc = -ENOTCONN;     /* refused, failed: PQerrorMessage says why */
	if (!s->down)
		log_gone(s, what, rc, deadline_ms);
	pg_drop(s);
	return rc;
}

/* A statement runs on the server for its statement_timeout at most: the
 * server answers (with its error) within it, and the deadline comes on
 * top of it for the way there and back. A schema migration has none: on
 * a large store it may take minutes, at startup (0: no deadline). */
static unsigned call_ms(const struct pg_store *s)
{
	return s->migrating ? 0 : s->timeout_ms + deadline_ms;
}

int64_t pg_call_end(const struct pg_store *s)
{
	const unsigned ms = call_ms(s);

	return ms ? now_ms() + ms : INT64_MAX;
}

/* The manual: after a command on a nonblocking connection, PQflush until
 * 0, consuming input whenever the socket is readable. A flush that fails
 * is left for the results to say (PQgetResult gives the error, as PQexec
 * would); only a wait past end drops the connection. */
int pg_flush_within(struct pg_store *s, const char *what, int64_t end)
{
	int rc = 0;

	while (PQflush(s->conn) == 1) {
		rc = wait_socket(s, s->conn, POLLIN | POLLOUT, end);
		if (rc < 0)
			goto gone;
		if (!PQconsumeInput(s->conn))
			break;
	}
	return 0;
gone:
	log_gone(s, what, rc, call_ms(s));
	pg_drop(s);
	return rc;
}

PGresult *pg_next_result(struct pg_store *s, const char *what, int64_t end, int *rc)
{
	*rc = 0;
	while (PQisBusy(s->conn)) {
		*rc = wait_socket(s, s->conn, POLLIN, end);
		if (*rc < 0)
			goto gone;
		/* A connection that broke is no longer busy: PQgetResult
		 * gives its error at once. */
		if (!PQconsumeInput(s->conn) && PQstatus(s->conn) == CONNECTION_OK) {
			*rc = -EIO;
			goto gone;
		}
	}
	return PQgetResult(s->conn);
gone:
	log_gone(s, what, *rc, call_ms(s));
	pg_drop(s);
	return NULL;
}

/* The command written out, then every result read, the last one kept (as
 * PQexec keeps it; the first error if there was one), all within the
 * call's deadline. */
static PGresult *collect(struct pg_store *s, const char *what, int *rc)
{
	const int64_t end = pg_call_end(s);
	PGresult *keep = NULL, *r;

	*rc = pg_flush_within(s, what, end);
	if (*rc < 0)
		return NULL;
	for (;;) {
		r = pg_next_result(s, what, end, rc);
		if (*rc < 0) {
			PQclear(keep);
			return NULL;
		}
		if (!r)
			return keep;
		if (keep && PQresultStatus(keep) == PGRES_FATAL_ERROR) {
			PQclear(r);
		} else {
			PQclear(keep);
			keep = r;
		}
		/* Nothing follows a connection that broke. */
		if (PQstatus(s->conn) != CONNECTION_OK)
			return keep;
	}
}

/* Not sent when the session is closed or abandoned: -ENOTCONN (the next
 * begin reconnects), -ESHUTDOWN. */
int pg_ready(const struct pg_store *s)
{
	if (abandoned(s))
		return -ESHUTDOWN;
	return s->conn && PQstatus(s->conn) == CONNECTION_OK ? 0 : -ENOTCONN;
}

PGresult *pg_call_sql(struct pg_store *s, const char *what, const char *sql, int *rc)
{
	*rc = pg_ready(s);
	if (*rc < 0)
		return NULL;
	if (!PQsendQuery(s->conn, sql))
		return NULL;
	return collect(s, what, rc);
}

PGresult *pg_call_params(struct pg_store *s, const char *what, const char *sql, int n,
			 const char *const *vals, int *rc)
{
	*rc = pg_ready(s);
	if (*rc < 0)
		return NULL;
	if (!PQsendQueryParams(s->conn, sql, n, NULL, vals, NULL, NULL, 0))
		return NULL;
	return collect(s, what, rc);
}

PGresult *pg_call_prepared(struct pg_store *s, const char *what, const char *name, int n,
			   const char *const *vals, const int *lens, const int *fmts, int *rc)
{
	*rc = pg_ready(s);
	if (*rc < 0)
		return NULL;
	if (!PQsendQueryPrepared(s->conn, name, n, vals, lens, fmts, 1))
		return NULL;
	return collect(s, what, rc);
}

PGresult *pg_call_prepare(struct pg_store *s, const char *name, const char *sql, int *rc)
{
	*rc = pg_ready(s);
	if (*rc < 0)
		return NULL;
	if (!PQsendPrepare(s->conn, name, sql, 0, NULL))
		return NULL;
	return collect(s, "prepare", rc);
}
