#include <stdlib.h>
#include <string.h>

#include "api/pager.h"
#include "cgfb/log.h"

struct pager *pager_new(struct api *a, struct store *s, const struct store_filter *f,
			int (*row)(const struct store_row *, struct cgfb_buf *, void *), void *ud,
			void (*free_ud)(void *), const char *what)
{
	struct pager *p = calloc(1, sizeof(*p));

	if (!p) {
		api_reader_put(a, s);
		api_heavy_put(a);
		return NULL;
	}
	p->a = a;
	p->s = s;
	p->f = *f;
	/* A few rows first: the first page is read before the status line,
	 * and nothing says yet how large the rows are. */
	p->f.limit = 4;
	p->row = row;
	p->ud = ud;
	p->free_ud = free_ud;
	p->what = what;
	return p;
}

static int one_row(const struct store_row *row, void *ud)
{
	struct pager *p = ud;
	int rc;

	p->f.before = row->seq;
	p->rows++;
	rc = p->row(row, &p->out, p->ud);
	if (rc < 0)
		return rc;
	/* Full: the rest of the page waits for the next read. */
	return p->out.len - p->sent >= PAGER_CHUNK ? 1 : 0;
}

int pager_page(struct pager *p)
{
	const unsigned limit = p->f.limit;
	int rc;

	if (p->sent == p->out.len) {
		p->out.len = 0;
		p->sent = 0;
	}
	p->rows = 0;
	/* Each page is its own short read: the download may take minutes,
	 * and no read transaction stays open to hold checkpoints off. */
	store_read_deadline(p->s, STORE_READ_MS);
	rc = store_list(p->s, &p->f, one_row, p);
	if (rc < 0)
		return rc;
	if (rc == 0 && p->rows < limit)
		p->done = true;
	else if (rc > 0)
		p->f.limit = p->rows;            /* large rows: as many as fitted */
	else if (limit < PAGER_PAGE_MAX)
		p->f.limit = limit * 2 < PAGER_PAGE_MAX ? limit * 2 : PAGER_PAGE_MAX;
	return 0;
}

ssize_t pager_read(void *cls, char *buf, size_t max)
{
	struct pager *p = cls;
	size_t n;
	int rc;

	while (p->sent == p->out.len && !p->done) {
		rc = pager_page(p);
		if (rc < 0) {
			/* The status line is out: all that is left is to cut
			 * the download short, which the client sees. */
			cgfb_log(LOG_ERR, "%s: cut short: %s", p->what, strerror(-rc));
			return -1;
		}
	}
	n = p->out.len - p->sent;
	/* The end; out.data is still NULL when nothing was ever written. */
	if (n == 0)
		return 0;
	if (n > max)
		n = max;
	memcpy(buf, p->out.data + p->sent, n);
	p->sent += n;
	return (ssize_t)n;
}

void pager_free(void *cls)
{
	struct pager *p = cls;

	api_reader_put(p->a, p->s);
	api_heavy_put(p->a);
	if (p->free_ud)
		p->free_ud(p->ud);
	cgfb_buf_free(&p->out);
	free(p);
}

void pager_reply(struct pager *p, struct http_reply *rp, const char *content_type)
{
	rp->status = 200;
	rp->content_type = content_type;
	rp->stream_read = pager_read;
	rp->stream_free = pager_free;
	rp->stream_cls = p;
}
