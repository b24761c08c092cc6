/* The PostgreSQL backend's reads: one report, the list and its pages,
 * the summary's group-bys on one snapshot, and the public summary that one
 * instance at a time computes for all (an advisory lock). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "store/store_pg.h"

/* Reads: not once the server is stopping, and on a live connection. */
static int read_ready(struct pg_store *s)
{
	if (pg_reads_aborted())
		return -ETIMEDOUT;
	return pg_ensure(s);
}

int pg_get(struct store *base, const char *id, struct cgfb_buf *body, struct receipt *r)
{
	struct pg_store *s = pgs(base);
	PGresult *res;
	int rc = read_ready(s);

	if (rc < 0)
		return rc;
	res = pg_run(s, P_GET, 1, &id, NULL, NULL, "get", &rc);
	if (!res)
		return rc;
	if (PQntuples(res) == 0) {
		rc = -ENOENT;
	} else {
		body->len = 0;
		rc = cgfb_buf_add(body, PQgetvalue(res, 0, 0), (size_t)PQgetlength(res, 0, 0));
		snprintf(r->id, sizeof(r->id), "%s", id);
		pg_copy_at(res, 0, 1, r->sha256, sizeof(r->sha256));
		pg_copy_at(res, 0, 2, r->received_at, sizeof(r->received_at));
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
			.seq = pg_int8_at(res, i, 0), .id = col(res, i, 1), .sha256 = col(res, i, 2),
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

int pg_list(struct store *base, const struct store_filter *f,
		   int (*fn)(const struct store_row *row, void *ud), void *ud)
{
	struct pg_store *s = pgs(base);
	char before[24], limit[24];
	const char *vals[10] = { pg_nonempty(f->catalog_id), pg_nonempty(f->kernel_series),
				 pg_nonempty(f->distribution), pg_nonempty(f->cgroup_mode),
				 pg_nonempty(f->verdict), pg_nonempty(f->since), pg_nonempty(f->until),
				 before, limit, f->with_use_case ? "true" : "false" };
	PGresult *res;
	int rc = read_ready(s);

	if (rc < 0)
		return rc;
	snprintf(before, sizeof(before), "%lld", (long long)f->before);
	snprintf(limit, sizeof(limit), "%u", f->limit);
	res = pg_run(s, P_LIST, 10, vals, NULL, NULL, "list", &rc);
	if (!res)
		return rc;
	rc = list_rows(res, fn, ud);
	PQclear(res);
	return rc;
}

/* One snapshot for the summary's nine group-bys: REPEATABLE READ. */
int pg_groups_begin(struct store *base, const char *since)
{
	struct pg_store *s = pgs(base);
	const char *from = since ? since : "";
	PGresult *res;
	int rc = read_ready(s);

	if (rc == 0)
		rc = pg_exec_const(s, "summary", "BEGIN ISOLATION LEVEL REPEATABLE READ");
	/* All reports: the folded counts, a row per key. */
	s->whole = !since;
	if (rc < 0 || s->whole)
		return rc;
	res = pg_run(s, P_SRC_FILL, 1, &from, NULL, NULL, "summary", &rc);
	PQclear(res);
	if (rc < 0)
		pg_rollback(base);
	return rc;
}

void pg_groups_end(struct store *base)
{
	struct pg_store *s = pgs(base);

	/* Read-only work: the commit only empties groups_src. */
	s->whole = false;
	if (pg_exec_const(s, "summary", "COMMIT") < 0)
		pg_rollback(base);
}

int pg_groups(struct store *base, enum store_dim d,
	      int (*fn)(const struct store_group *g, void *ud), void *ud)
{
	struct pg_store *s = pgs(base);
	char dim[8];
	const char *vals[1] = { dim };
	const enum pst st = !s->whole ? (enum pst)(P_DIM0 + d) : d >= DIM_ALL ? P_TALLY_ONE :
			   d == DIM_MONTH ? P_TALLY_MONTH : P_TALLY;
	int rc, ret = 0;
	PGresult *res;

	snprintf(dim, sizeof(dim), "%d", (int)d);
	res = pg_run(s, st, s->whole ? 1 : 0, vals, NULL, NULL, "summary", &rc);

	if (!res)
		return rc;
	for (int i = 0; !ret && i < PQntuples(res); i++) {
		const struct store_group g = { col(res, i, 0), pg_int8_at(res, i, 1),
					       pg_int8_at(res, i, 2), pg_int8_at(res, i, 3) };

		ret = fn(&g, ud);
	}
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
	res = pg_call_sql(s, "summary lock", sql, &rc);
	rc = pg_outcome(s, "summary lock", res, rc, false);
	if (rc == 0 && PQntuples(res) != 1)
		rc = pg_db_error(s, "summary lock", res);
	else if (rc == 0)
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
	res = pg_run(s, i, i == P_SNAP_FRESH ? 1 : 0, vals, NULL, NULL, "summary", &rc);
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
	res = pg_run(s, P_SNAP_PUT, 1, vals, lens, NULL, "summary", &rc);
	PQclear(res);
	return rc;
}

int pg_summary_shared(struct store *base, unsigned max_age,
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
