/* The storage seam: the backend is chosen once, by the form of the
 * database option, and every call goes to it through its ops. */
#include <errno.h>
#include <string.h>

#include <openssl/crypto.h>

#include "cgfb/log.h"
#include "cgfb/report_id.h"
#include "cgfb/sha256.h"
#include "store/store_impl.h"

static const char *const dim_names[DIM_COUNT] = {
	"catalog_id", "kernel_series", "distribution", "cgroup_mode", "software", "verdict",
	"reorganisation", "month", "check_catalog_id", "all", "check",
};

bool store_is_postgres(const char *where)
{
	/* libpq's two forms: a URI, or key=value pairs. A file name never
	 * needs an '=' (and one that has it would be taken for a
	 * connection string, which the man page says). */
	return strncmp(where, "postgresql://", 13) == 0 || strncmp(where, "postgres://", 11) == 0 ||
	       strchr(where, '=') != NULL;
}

int store_open(struct store **out, const char *path, bool readonly)
{
	const struct store_ops *ops = store_is_postgres(path) ? &store_pg_ops : &store_sqlite_ops;

	return ops->open(out, path, readonly);
}

void store_close(struct store *s)
{
	if (s)
		s->ops->close(s);
}

void store_read_deadline(struct store *s, unsigned ms)
{
	s->ops->read_deadline(s, ms);
}

void store_abort_reads(void)
{
	store_sqlite_ops.abort_reads();
	store_pg_ops.abort_reads();
}

void store_write_timeouts(unsigned lock_ms, unsigned statement_ms, unsigned deadline_ms)
{
	store_pg_ops.write_timeouts(lock_ms, statement_ms, deadline_ms);
}

void store_abort_writes(void)
{
	store_pg_ops.abort_writes();
}

int store_manual_checkpoints(struct store *s)
{
	return s->ops->manual_checkpoints(s);
}

int store_checkpoint(struct store *s)
{
	return s->ops->checkpoint(s);
}

int store_scrub(struct store *s)
{
	return s->ops->scrub(s);
}

int store_defer_sync(struct store *s)
{
	return s->ops->defer_sync(s);
}

int store_wal_path(struct store *s, char *buf, size_t bufsz)
{
	return s->ops->wal_path(s, buf, bufsz);
}

int store_file_check(struct store *s)
{
	return s->ops->file_check ? s->ops->file_check(s) : 0;
}

int store_keep_replaced(struct store *s)
{
	return s->ops->keep_replaced ? s->ops->keep_replaced(s) : 0;
}

int store_begin(struct store *s)
{
	return s->ops->begin(s);
}

int store_commit(struct store *s)
{
	return s->ops->commit(s);
}

void store_rollback(struct store *s)
{
	s->ops->rollback(s);
}

/* Whether the row under a claim's id (token hash held, come by via)
 * gives way to it: a row whose id is not bound to its own hash gives way
 * to any claim; a bound row that came by mail was never proven, so it
 * gives way to the proof. A bound row that came by a proven POST was made
 * by the token's holder: it stays. */
static bool gives_way(const struct report_meta *m, const char *held, const char *via)
{
	if (!cgfb_report_id_bound(m->id, held))
		return true;
	return m->claim == CLAIM_PROVEN && strcmp(via, STORE_VIA_MAIL) == 0;
}

static void log_replaced(const struct report_meta *m, const char *held, const char *via)
{
	if (cgfb_report_id_bound(m->id, held))
		cgfb_log(LOG_NOTICE, "report %s: stored in place of an unproven copy under its id "
			 "that came by mail (token hash %.12s, other bytes), proven by its token",
			 m->id, held);
	else
		cgfb_log(LOG_NOTICE, "report %s: stored in place of a report under its id that "
			 "was not bound to it (token hash %.12s replaced by %.12s, %s)", m->id,
			 held[0] ? held : "none", m->token_sha256,
			 m->claim == CLAIM_PROVEN ? "proven" : "bound");
}

/* A claim against the row under m's id (other bytes): it goes when it
 * gives way, the claimant's report is stored instead. */
static int claim_row(struct store *s, const struct report_meta *m, const char *body, size_t len,
		     const char *received_at, const char *via, struct receipt *r)
{
	char held[65] = "", held_via[STORE_VIA_MAX] = "";
	int rc = s->ops->token(s, m->id, held, held_via);

	if (rc == -EPERM) {
		held[0] = '\0';
		rc = 0;
	}
	if (rc < 0)
		return rc == -ENOENT ? -EAGAIN : rc;   /* withdrawn meanwhile: retried */
	if (!gives_way(m, held, held_via))
		return STORE_CONFLICT;
	rc = s->ops->remove(s, m->id);
	if (rc == 0)
		rc = s->ops->put(s, m, body, len, received_at, via, r);
	if (rc == STORE_CREATED)
		log_replaced(m, held, held_via);
	return rc;
}

/* A proven claim against a withdrawal: only one made with another token
 * than the claimant's (a squatter's) gives the id back. */
static int claim_withdrawn(struct store *s, const struct report_meta *m, const char *body,
			   size_t len, const char *received_at, const char *via, struct receipt *r)
{
	char marker[65] = "";
	int rc = s->ops->withdrawn_token(s, m->id, marker);

	if (rc < 0)
		return rc == -ENOENT ? -EAGAIN : rc;
	if (!marker[0] || strcmp(marker, m->token_sha256) == 0)
		return STORE_WITHDRAWN;
	rc = s->ops->unwithdraw(s, m->id);
	if (rc == 0)
		rc = s->ops->put(s, m, body, len, received_at, via, r);
	if (rc == STORE_CREATED)
		cgfb_log(LOG_NOTICE, "report %s: stored again, proven by its token; the id had "
			 "been withdrawn with another token (token hash %.12s, now %.12s)", m->id,
			 marker, m->token_sha256);
	return rc;
}

/* What a claim makes of the backend's answer rc to a put. */
static int claimed(struct store *s, const struct report_meta *m, const char *body, size_t len,
		   const char *received_at, const char *via, struct receipt *r, int rc)
{
	if (rc == STORE_CONFLICT && m->claim != CLAIM_NONE)
		rc = claim_row(s, m, body, len, received_at, via, r);
	else if (rc == STORE_WITHDRAWN && m->claim == CLAIM_PROVEN)
		rc = claim_withdrawn(s, m, body, len, received_at, via, r);
	return rc;
}

int store_put(struct store *s, const struct report_meta *m, const char *body, size_t len,
	      const char *received_at, const char *via, struct receipt *r)
{
	return claimed(s, m, body, len, received_at, via, r,
		       s->ops->put(s, m, body, len, received_at, via, r));
}

int store_put_batch(struct store *s, struct store_put_item *items, size_t n)
{
	int rc;

	if (!s->ops->put_batch) {
		for (size_t i = 0; i < n; i++)
			items[i].rc = store_put(s, items[i].m, items[i].body, items[i].len,
						items[i].received_at, items[i].via, items[i].r);
		return 0;
	}
	rc = s->ops->put_batch(s, items, n);
	for (size_t i = 0; i < n; i++) {
		struct store_put_item *it = &items[i];

		it->rc = rc < 0 ? rc : claimed(s, it->m, it->body, it->len, it->received_at,
					       it->via, it->r, it->rc);
	}
	return rc < 0 ? rc : 0;
}

/* 0 when TOKEN hashes to WANT, the stored token's SHA-256 (64 hex
 * digits), else -EACCES; in constant time. */
static int token_matches(const char *want, const char *token)
{
	char got[65];

	cgfb_sha256_hex(token, strlen(token), got);
	/* Both are 64 hex digits: compare all of them, whatever differs. */
	return CRYPTO_memcmp(want, got, 64) == 0 ? 0 : -EACCES;
}

/* One flow for both backends: the stored hash, the token checked here,
 * then the deletion. */
int store_delete(struct store *s, const char *id, const char *token, const char *when)
{
	char want[65];
	int rc = s->ops->token(s, id, want, NULL);

	if (rc == 0)
		rc = token_matches(want, token);
	if (rc == 0)
		rc = s->ops->del(s, id, want, when);
	return rc;
}

int store_get(struct store *s, const char *id, struct cgfb_buf *body, struct receipt *r)
{
	return s->ops->get(s, id, body, r);
}

int store_list(struct store *s, const struct store_filter *f,
	       int (*fn)(const struct store_row *row, void *ud), void *ud)
{
	return s->ops->list(s, f, fn, ud);
}

const char *store_dim_name(enum store_dim d)
{
	return dim_names[d];
}

int store_fold(struct store *s, unsigned chunks)
{
	int rc;

	for (unsigned i = 0; (rc = s->ops->fold_chunk(s)) == 1 && (!chunks || ++i < chunks);)
		;
	return rc;
}

int store_groups_begin(struct store *s, const char *since)
{
	return s->ops->groups_begin(s, since);
}

void store_groups_end(struct store *s)
{
	s->ops->groups_end(s);
}

int store_groups(struct store *s, enum store_dim d,
		 int (*fn)(const struct store_group *g, void *ud), void *ud)
{
	return s->ops->groups(s, d, fn, ud);
}

int store_secret(struct store *s, const char *name, const char *candidate,
		 char out[STORE_SECRET_HEX + 1])
{
	return s->ops->secret(s, name, candidate, out);
}

int store_summary_shared(struct store *s, unsigned max_age,
			 int (*compute)(struct store *s, struct cgfb_buf *out, void *ud), void *ud,
			 struct cgfb_buf *out)
{
	if (!s->ops->summary_shared)
		return compute(s, out, ud);
	return s->ops->summary_shared(s, max_age, compute, ud, out);
}

/* A backend that cannot take this part of a migration. */
static int unsupported(const struct store *s, const char *what)
{
	cgfb_log(LOG_ERR, "migrate: a %s database cannot be the %s", s->ops->name, what);
	return -EOPNOTSUPP;
}

int store_scan(struct store *s, int64_t after, unsigned limit,
	       int (*fn)(const struct store_row *row, void *ud), void *ud)
{
	if (!s->ops->scan)
		return unsupported(s, "source");
	return s->ops->scan(s, after, limit, fn, ud);
}

int store_withdrawn_list(struct store *s,
			 int (*fn)(const char *id, const char *at, const char *token_sha256,
				   void *ud),
			 void *ud)
{
	if (!s->ops->withdrawn_list)
		return unsupported(s, "source");
	return s->ops->withdrawn_list(s, fn, ud);
}

int store_put_row(struct store *s, const struct store_row *row)
{
	if (!s->ops->put_row)
		return unsupported(s, "destination");
	return s->ops->put_row(s, row);
}

int store_put_withdrawn(struct store *s, const char *id, const char *at,
			const char *token_sha256)
{
	if (!s->ops->put_withdrawn)
		return unsupported(s, "destination");
	return s->ops->put_withdrawn(s, id, at, token_sha256);
}

