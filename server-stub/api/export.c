/* GET /api/v1/export.mbox: every stored report as the e-mail the client's
 * offline export writes (lib/mail.c), in one mboxrd file a maintainer can
 * open in a mail client.
 *
 * Streamed: a page of EXPORT_PAGE reports at a time, newest first, each page
 * its own short read (a seq cursor), formatted into one buffer that is
 * reused. Memory stays at a page however many reports there are (357k
 * reports made a 1.3 GB response that was built whole), and no read
 * transaction stays open for the whole download to hold checkpoints off.
 * A report stored while the export runs is in it if it is older than the
 * page being read; one deleted before its page is read is not. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/handlers.h"
#include "cgfb/log.h"
#include "cgfb/mail.h"

#define EXPORT_PAGE 64

struct export_stream {
	struct api *a;
	struct store *s;         /* a reader of the pool, held until the end */
	int64_t before;          /* seq of the last report written; 0 at first */
	bool done;
	struct cgfb_buf out;     /* formatted, not yet sent: out.data + sent */
	size_t sent;
	struct cgfb_buf msg;
};

static int export_row(const struct store_row *row, void *ud)
{
	struct export_stream *x = ud;
	struct tm tm = { 0 };
	int rc;

	x->before = row->seq;
	rc = cgfb_mail_format(row->body, row->body_len, NULL, &x->msg);
	if (rc < 0)
		return rc;
	/* The mbox "From " line to the hour, as every receipt (writer_hour). */
	if (!strptime(row->received_at, "%Y-%m-%dT%H", &tm))
		memset(&tm, 0, sizeof(tm));
	return cgfb_mbox_append(&x->out, x->msg.data, x->msg.len, timegm(&tm));
}

/* The next page into x->out (emptied first). */
static int export_page(struct export_stream *x)
{
	struct store_filter f = { .limit = EXPORT_PAGE, .before = x->before };
	const int64_t was = x->before;
	int rc;

	x->out.len = 0;
	x->sent = 0;
	/* Each page is its own short read: the download may take minutes. */
	store_read_deadline(x->s, STORE_READ_MS);
	rc = store_list(x->s, &f, export_row, x);
	if (rc == 0 && x->before == was)
		x->done = true;
	return rc;
}

static ssize_t export_read(void *cls, char *buf, size_t max)
{
	struct export_stream *x = cls;
	size_t n;
	int rc;

	while (x->sent == x->out.len && !x->done) {
		rc = export_page(x);
		if (rc < 0) {
			/* The status line is out: all that is left is to cut
			 * the download short, which the client sees. */
			cgfb_log(LOG_ERR, "export.mbox: cut short: %s", strerror(-rc));
			return -1;
		}
	}
	n = x->out.len - x->sent;
	/* The end; out.data is still NULL when no report was ever stored. */
	if (n == 0)
		return 0;
	if (n > max)
		n = max;
	memcpy(buf, x->out.data + x->sent, n);
	x->sent += n;
	return (ssize_t)n;
}

static void export_free(void *cls)
{
	struct export_stream *x = cls;

	api_reader_put(x->a, x->s);
	cgfb_buf_free(&x->out);
	cgfb_buf_free(&x->msg);
	free(x);
}

void api_export_mbox(struct api *a, const struct http_request *rq, struct http_reply *rp)
{
	struct export_stream *x;
	struct store *s;
	int rc;

	if (!api_admin(a, rq, rp) || !(s = api_reader(a, rp)))
		return;
	x = calloc(1, sizeof(*x));
	if (!x) {
		api_reader_put(a, s);
		api_error(rp, 503, "unavailable", "the export could not be made right now");
		return;
	}
	x->a = a;
	x->s = s;
	/* The first page here, off the event loop: a database that cannot be
	 * read is still a 503, not a download cut short. */
	rc = export_page(x);
	if (rc < 0) {
		export_free(x);
		api_error(rp, 503, "unavailable", "the export could not be made right now");
		return;
	}
	rp->status = 200;
	rp->content_type = "application/mbox";
	rp->stream_read = export_read;
	rp->stream_free = export_free;
	rp->stream_cls = x;
}
