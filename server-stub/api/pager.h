/* A large answer (the digest's use cases, the mbox export) streamed from
 * the store with a fixed budget of memory, whatever the store holds.
 *
 * Rows are read a page at a time behind a seq cursor, each page its own
 * short read; each row is formatted onto out, and a page stops as soon as
 * out holds PAGER_CHUNK bytes not yet sent, so that out never holds more
 * than PAGER_CHUNK and one row's formatting (a page of 64 mails of large
 * reports was 105 MB, issue 41). The page's row limit adapts: it halves
 * to what fitted when rows are large and doubles back to PAGER_PAGE_MAX
 * when they are small, so that PostgreSQL, which fetches a page whole,
 * holds a few large rows at a time, not PAGER_PAGE_MAX of them. */
#ifndef CGFB_SERVER_PAGER_H
#define CGFB_SERVER_PAGER_H

#include <stdbool.h>
#include <sys/types.h>

#include "api/api_util.h"

#define PAGER_CHUNK (256 * 1024)
#define PAGER_PAGE_MAX 64

struct pager {
	struct api *a;
	struct store *s;             /* a reader of the pool, held to the end */
	struct store_filter f;       /* its before and limit move */
	/* Formats one row onto out; 0 or a negative errno. */
	int (*row)(const struct store_row *row, struct cgfb_buf *out, void *ud);
	void *ud;
	void (*free_ud)(void *ud);   /* at pager_free; NULL: nothing */
	const char *what;            /* for the log: "export.mbox" */
	bool done;
	unsigned rows;               /* rows of the page being read */
	struct cgfb_buf out;         /* formatted, not yet sent: out.data + sent */
	size_t sent;
};

/* A pager over s (taken) with filter f, holding one of the API's heavy
 * slots (api_heavy_take) until pager_free. NULL when out of memory (s
 * and the slot are then given back). */
struct pager *pager_new(struct api *a, struct store *s, const struct store_filter *f,
			int (*row)(const struct store_row *, struct cgfb_buf *, void *), void *ud,
			void (*free_ud)(void *), const char *what);
/* The next page onto out (after what is there). 0 or a negative errno. */
int pager_page(struct pager *p);
/* http_reply's stream_read and stream_free over a pager. */
ssize_t pager_read(void *cls, char *buf, size_t max);
void pager_free(void *cls);
/* rp streams p (status 200, content_type): what a handler ends with. */
void pager_reply(struct pager *p, struct http_reply *rp, const char *content_type);

#endif
