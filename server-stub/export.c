/* GET /api/v1/export.mbox: every stored report as the e-mail the client's
 * offline export writes (lib/mail.c), in one mboxrd file a maintainer can
 * open in a mail client. */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "handlers.h"
#include "cgfb/mail.h"

struct export_ctx {
	struct cgfb_buf *out;
	struct cgfb_buf msg;
};

static int export_row(const struct store_row *row, void *ud)
{
	struct export_ctx *c = ud;
	struct tm tm = { 0 };
	int rc;

	rc = cgfb_mail_format(row->body, row->body_len, NULL, &c->msg);
	if (rc < 0)
		return rc;
	if (!strptime(row->received_at, "%Y-%m-%dT%H:%M:%S", &tm))
		memset(&tm, 0, sizeof(tm));
	return cgfb_mbox_append(c->out, c->msg.data, c->msg.len, timegm(&tm));
}

void api_export_mbox(struct api *a, const struct http_request *rq, struct http_reply *rp)
{
	struct store_filter f = { .limit = UINT32_MAX };
	struct export_ctx c = { &rp->body, { 0 } };
	struct store *s;
	int rc;

	if (!api_admin(a, rq, rp) || !(s = api_reader(a, rp)))
		return;
	rc = store_list(s, &f, export_row, &c);
	api_reader_put(a, s);
	cgfb_buf_free(&c.msg);
	if (rc < 0) {
		cgfb_buf_free(&rp->body);
		api_error(rp, 503, "unavailable", "the export could not be made right now");
		return;
	}
	rp->status = 200;
	rp->content_type = "application/mbox";
}
