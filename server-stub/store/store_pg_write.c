/* The PostgreSQL backend's writes: reports in (one round trip for a new
 * one), withdrawals with the token, and rows as another store had them
 * (migrate). Inside the writer's transaction, on its connection. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "store/store_pg.h"

/* 1 when id exists (its receipt and stored hash into r), 0 when not. */
static int find(struct pg_store *s, const char *id, struct receipt *r)
{
	int rc;
	PGresult *res = pg_run(s, P_FIND, 1, &id, NULL, NULL, "find", &rc);

	if (!res)
		return rc;
	rc = PQntuples(res) > 0;
	if (rc) {
		snprintf(r->id, sizeof(r->id), "%s", id);
		pg_copy_at(res, 0, 0, r->sha256, sizeof(r->sha256));
		pg_copy_at(res, 0, 1, r->received_at, sizeof(r->received_at));
	}
	PQclear(res);
	return rc;
}

void pg_insert_params(const struct report_meta *m, const char *body, size_t len,
		      const char *received_at, const char *via, const char *vals[PG_INSERT_N],
		      int lens[PG_INSERT_N], int fmts[PG_INSERT_N])
{
	const char *v[PG_INSERT_N] = { m->id, m->sha256, body, received_at, via,
				       pg_nonempty(m->token_sha256), m->install, m->catalog_id,
				       m->kernel_series, m->distribution, m->cgroup_mode,
				       m->software, m->verdict, m->reorganisation, m->month,
				       pg_nonempty(m->use_case), m->origin };

	/* Absent fields are stored as '' as in SQLite, but for the two
	 * that may be NULL. */
	for (int i = 0; i < PG_INSERT_N; i++) {
		vals[i] = v[i] || i == 5 || i == 15 ? v[i] : "";
		lens[i] = 0;
		fmts[i] = 0;
	}
	lens[2] = (int)len;
	fmts[2] = 1;
}

int pg_insert_answer(const PGresult *res)
{
	if (PQntuples(res) != 1)
		return -EIO;
	if (pg_int8_at(res, 0, 0) > 0)
		return 2;
	return pg_int8_at(res, 0, 1) > 0;
}

/* 1 stored, 2 withdrawn before, 0 the id is there already. */
static int insert(struct pg_store *s, const struct report_meta *m, const char *body, size_t len,
		  const char *received_at, const char *via)
{
	const char *vals[PG_INSERT_N];
	int lens[PG_INSERT_N], fmts[PG_INSERT_N];
	PGresult *res;
	int rc;

	pg_insert_params(m, body, len, received_at, via, vals, lens, fmts);
	res = pg_run(s, P_INSERT, PG_INSERT_N, vals, lens, fmts, "insert", &rc);
	if (!res)
		return rc;
	rc = pg_insert_answer(res);
	PQclear(res);
	return rc;
}

int pg_put_answer(struct pg_store *s, const struct report_meta *m, const char *received_at,
		  int rc, struct receipt *r)
{
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

int pg_put(struct store *base, const struct report_meta *m, const char *body, size_t len,
		  const char *received_at, const char *via, struct receipt *r)
{
	struct pg_store *s = pgs(base);

	return pg_put_answer(s, m, received_at, insert(s, m, body, len, received_at, via), r);
}

int pg_token(struct store *base, const char *id, char want[65], char via[STORE_VIA_MAX])
{
	struct pg_store *s = pgs(base);
	int rc;
	PGresult *res = pg_run(s, P_TOKEN, 1, &id, NULL, NULL, "token", &rc);

	want[0] = '\0';
	if (!res)
		return rc;
	if (PQntuples(res) == 0) {
		rc = -ENOENT;
	} else {
		pg_copy_at(res, 0, 0, want, 65);
		if (via)
			pg_copy_at(res, 0, 1, via, STORE_VIA_MAX);
	}
	PQclear(res);
	if (rc < 0)
		return rc;
	return strlen(want) == 64 ? 0 : -EPERM;
}

int pg_remove(struct store *base, const char *id)
{
	int rc;
	PGresult *res = pg_run(pgs(base), P_DELETE, 1, &id, NULL, NULL, "delete", &rc);

	PQclear(res);
	return rc;
}

int pg_delete(struct store *base, const char *id, const char *token_sha256, const char *when)
{
	struct pg_store *s = pgs(base);
	const char *forget[3] = { id, when, pg_nonempty(token_sha256) };
	PGresult *res;
	int rc = pg_remove(base, id);

	if (rc < 0)
		return rc;
	res = pg_run(s, P_FORGET, 3, forget, NULL, NULL, "withdraw", &rc);
	PQclear(res);
	return rc;
}

int pg_withdrawn_token(struct store *base, const char *id, char out[65])
{
	int rc;
	PGresult *res = pg_run(pgs(base), P_MARKER, 1, &id, NULL, NULL, "withdrawal marker", &rc);

	out[0] = '\0';
	if (!res)
		return rc;
	if (PQntuples(res) == 0)
		rc = -ENOENT;
	else
		pg_copy_at(res, 0, 0, out, 65);
	PQclear(res);
	return rc;
}

int pg_secret(struct store *base, const char *name, const char *candidate,
	      char out[STORE_SECRET_HEX + 1])
{
	struct pg_store *s = pgs(base);
	const char *vals[2] = { name, candidate };
	PGresult *res;
	int rc = pg_ensure(s);

	out[0] = '\0';
	if (rc < 0)
		return rc;
	/* The row another instance stored first, or ours. An instance whose
	 * insert waited for another's to commit finds nothing the first time
	 * (its statement's snapshot is older than that row): the second time
	 * it does. */
	for (int tries = 0; rc == 0 && !out[0] && tries < 2; tries++) {
		res = pg_call_params(s, "the store's secret",
				     "WITH ins AS (INSERT INTO secrets (name, value) VALUES ($1, $2)"
				     " ON CONFLICT (name) DO NOTHING RETURNING value)"
				     " SELECT value FROM ins UNION ALL SELECT value FROM secrets"
				     " WHERE name = $1 AND NOT EXISTS (SELECT 1 FROM ins)",
				     2, vals, &rc);
		rc = pg_outcome(s, "the store's secret", res, rc, false);
		if (rc == 0 && PQntuples(res) == 1)
			pg_copy_at(res, 0, 0, out, STORE_SECRET_HEX + 1);
		PQclear(res);
	}
	if (rc == 0 && strlen(out) != STORE_SECRET_HEX)
		rc = -EBADMSG;
	return rc;
}

int pg_unwithdraw(struct store *base, const char *id)
{
	int rc;
	PGresult *res = pg_run(pgs(base), P_UNWITHDRAW, 1, &id, NULL, NULL,
			       "forget a withdrawal", &rc);

	PQclear(res);
	return rc;
}

int pg_put_row(struct store *base, const struct store_row *row)
{
	struct pg_store *s = pgs(base);
	/* NULL stays NULL, '' stays '': the row as the source had it. */
	const char *vals[17] = { row->id, row->sha256, row->body, row->received_at, row->via,
				 row->token_sha256, row->install, row->catalog_id,
				 row->kernel_series, row->distribution, row->cgroup_mode,
				 row->software, row->verdict, row->reorganisation, row->month,
				 row->use_case, row->origin };
	int lens[17] = { 0 }, fmts[17] = { 0 };
	struct receipt r = { 0 };
	PGresult *res;
	int rc;

	lens[2] = (int)row->body_len;
	fmts[2] = 1;
	res = pg_run(s, P_PUT_ROW, 17, vals, lens, fmts, "migrate", &rc);
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

int pg_put_withdrawn(struct store *base, const char *id, const char *at,
		     const char *token_sha256)
{
	struct pg_store *s = pgs(base);
	const char *vals[3] = { id, at, pg_nonempty(token_sha256) };
	int rc;
	PGresult *res = pg_run(s, P_FORGET, 3, vals, NULL, NULL, "migrate", &rc);

	PQclear(res);
	return rc;
}

/* One chunk in one transaction, under the fold's advisory lock (two
 * collectors folding at once would both count the same install's
 * change from the same count before): 1 when deltas were folded. */
static int fold_chunk(struct pg_store *s)
{
	char lock[96];
	PGresult *res = NULL;
	int rc = pg_begin(&s->base), n = 0;

	snprintf(lock, sizeof(lock), "SELECT pg_advisory_xact_lock(%d, %d)", LOCK_SPACE,
		 LOCK_FOLD);
	if (rc == 0)
		rc = pg_exec_const(s, "summary counts", lock);
	if (rc == 0)
		res = pg_run(s, P_FOLD, 0, NULL, NULL, NULL, "summary counts", &rc);
	if (res) {
		n = PQntuples(res) == 1 && pg_int8_at(res, 0, 0) > 0;
		PQclear(res);
	}
	if (rc == 0 && n)
		PQclear(pg_run(s, P_FOLD_EMPTY, 0, NULL, NULL, NULL, "summary counts", &rc));
	if (rc == 0)
		rc = pg_commit(&s->base);
	if (rc < 0) {
		pg_rollback(&s->base);
		return rc;
	}
	return n;
}

int pg_fold_chunk(struct store *base)
{
	return fold_chunk(pgs(base));
}
