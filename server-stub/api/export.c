/* GET /api/v1/export.mbox: every stored report as the e-mail the client's
 * offline export writes (lib/mail.c), in one mboxrd file a maintainer can
 * open in a mail client.
 *
 * Streamed (api/pager.h): newest first, a page at a time behind a seq
 * cursor, each page its own short read, one mail formatted at a time into
 * a buffer that is reused. Memory stays at the pager's chunk and one mail
 * however many reports there are and however large (357k reports made a
 * 1.3 GB response built whole; a page of 64 mails of 256 KB reports, each
 * four-byte character twelve bytes of quoted-printable, was 105 MB), and
 * no read transaction stays open for the whole download to hold
 * checkpoints off. A report stored while the export runs is in it if it is
 * older than the page being read; one deleted before its page is read is
 * not. An export is a heavy request (api_heavy_take). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/handlers.h"
#include "api/pager.h"
#include "cgfb/mail.h"

static int export_row(const struct store_row *row, struct cgfb_buf *out, void *ud)
{
	struct cgfb_buf *msg = ud;
	struct tm tm = { 0 };
	int rc;

	rc = cgfb_mail_format(row->body, row->body_len, NULL, msg);
	if (rc < 0)
		return rc;
	/* The mbox "From " line to the hour, as every receipt (writer_hour). */
	if (!strptime(row->received_at, "%Y-%m-%dT%H", &tm))
		memset(&tm, 0, sizeof(tm));
	return cgfb_mbox_append(out, msg->data, msg->len, timegm(&tm));
}

static void msg_free(void *ud)
{
	cgfb_buf_free(ud);
	free(ud);
}

void api_export_mbox(struct api *a, const struct http_request *rq, struct http_reply *rp)
{
	const struct store_filter f = { 0 };
	struct cgfb_buf *msg;
	struct pager *p;
	struct store *s;

	if (!api_admin(a, rq, rp) || !api_heavy_take(a, rq, rp))
		return;
	if (!(s = api_reader(a, rp))) {
		api_heavy_put(a);
		return;
	}
	msg = calloc(1, sizeof(*msg));
	if (!msg) {
		api_reader_put(a, s);
		api_heavy_put(a);
		goto unavailable;
	}
	/* On failure it gives s and the slot back. */
	p = pager_new(a, s, &f, export_row, msg, msg_free, "export.mbox");
	if (!p) {
		free(msg);
		goto unavailable;
	}
	/* The first page here, off the event loop: a database that cannot be
	 * read is still a 503, not a download cut short. */
	if (pager_page(p) < 0) {
		pager_free(p);
		goto unavailable;
	}
	pager_reply(p, rp, "application/mbox");
	return;
unavailable:
	api_error(rp, 503, "unavailable", "the export could not be made right now");
}
