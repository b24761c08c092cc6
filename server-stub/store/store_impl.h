/* The seam behind store.h: each backend fills a struct store_ops and puts
 * a struct store first in its own connection type; store.c picks the
 * backend from the database option and forwards every call. Only store.c
 * and the backends (store_sqlite.c, store_pg.c) include this. */
#ifndef CGFB_SERVER_STORE_IMPL_H
#define CGFB_SERVER_STORE_IMPL_H

#include "store/store.h"

struct store_ops {
	const char *name;
	int (*open)(struct store **out, const char *where, bool readonly);
	void (*close)(struct store *s);
	void (*read_deadline)(struct store *s, unsigned ms);
	void (*abort_reads)(void);
	/* PostgreSQL only (store.h): SQLite's table leaves them NULL. */
	void (*write_timeouts)(unsigned lock_ms, unsigned statement_ms, unsigned deadline_ms);
	void (*abort_writes)(void);
	int (*manual_checkpoints)(struct store *s);
	int (*checkpoint)(struct store *s);
	int (*defer_sync)(struct store *s);
	int (*wal_path)(struct store *s, char *buf, size_t bufsz);
	int (*scrub)(struct store *s);
	/* SQLite only: NULL is always 0. */
	int (*file_check)(struct store *s);
	int (*keep_replaced)(struct store *s);
	int (*begin)(struct store *s);
	int (*commit)(struct store *s);
	void (*rollback)(struct store *s);
	int (*put)(struct store *s, const struct report_meta *m, const char *body, size_t len,
		   const char *received_at, const char *via, struct receipt *r);
	/* NULL: put one by one. Else each items[i].rc as put would return
	 * it (store.c then applies the claims, as for put). */
	int (*put_batch)(struct store *s, struct store_put_item *items, size_t n);
	/* The deletion token's stored SHA-256 (64 hex digits) into want,
	 * and, unless via is NULL, the way the report came ("http", "mail")
	 * into via: 0, -ENOENT (no such report) or -EPERM (no token stored;
	 * via is filled all the same). */
	int (*token)(struct store *s, const char *id, char want[65], char via[STORE_VIA_MAX]);
	/* Delete the report and remember it withdrawn at when with the hash of
	 * its token; the token was checked (store.c: the one flow both
	 * backends share). */
	int (*del)(struct store *s, const char *id, const char *token_sha256, const char *when);
	/* Claims (store.c's store_put): delete the row only, no marker; the
	 * hash a withdrawal marker keeps ("" for a marker of before: NULL)
	 * or -ENOENT; forget the marker. */
	int (*remove)(struct store *s, const char *id);
	int (*withdrawn_token)(struct store *s, const char *id, char out[65]);
	int (*unwithdraw)(struct store *s, const char *id);
	int (*get)(struct store *s, const char *id, struct cgfb_buf *body, struct receipt *r);
	int (*list)(struct store *s, const struct store_filter *f,
		    int (*fn)(const struct store_row *row, void *ud), void *ud);
	int (*groups_begin)(struct store *s, const char *since);
	void (*groups_end)(struct store *s);
	int (*groups)(struct store *s, enum store_dim d,
		      int (*fn)(const struct store_group *g, void *ud),
		      void *ud);
	/* One chunk of store_fold in one transaction: 1 when deltas were
	 * counted, 0 when none was pending. */
	int (*fold_chunk)(struct store *s);
	/* Migration: NULL where a backend is not a source (scan,
	 * withdrawn_list) or a destination (put_row, put_withdrawn). */
	int (*scan)(struct store *s, int64_t after, unsigned limit,
		    int (*fn)(const struct store_row *row, void *ud), void *ud);
	int (*withdrawn_list)(struct store *s,
			      int (*fn)(const char *id, const char *at,
					const char *token_sha256, void *ud),
			      void *ud);
	int (*put_row)(struct store *s, const struct store_row *row);
	int (*put_withdrawn)(struct store *s, const char *id, const char *at,
			     const char *token_sha256);
	/* NULL: compute it here and now (one instance per database). */
	int (*secret)(struct store *s, const char *name, const char *candidate,
		      char out[STORE_SECRET_HEX + 1]);
	int (*summary_shared)(struct store *s, unsigned max_age,
			      int (*compute)(struct store *s, struct cgfb_buf *out, void *ud),
			      void *ud, struct cgfb_buf *out);
};

struct store {
	const struct store_ops *ops;
};

extern const struct store_ops store_sqlite_ops;
extern const struct store_ops store_pg_ops;

#endif
