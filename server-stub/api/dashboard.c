/* GET / : the maintainers' dashboard. Page, script and style are compiled
 * in (tools/embed.sh) and served from this origin only, so the strict
 * Content-Security-Policy in http.c holds: no inline code, no other host. */
#include <string.h>

#include "api/handlers.h"
#include "cgfb/buf.h"

extern const char cgfb_dash_html[], cgfb_dash_js[], cgfb_dash_css[];
extern const size_t cgfb_dash_html_len, cgfb_dash_js_len, cgfb_dash_css_len;

bool dashboard_serve(const char *path, struct http_reply *rp)
{
	const char *data;
	size_t len;

	if (strcmp(path, "/") == 0 || strcmp(path, "/index.html") == 0) {
		data = cgfb_dash_html;
		len = cgfb_dash_html_len;
		rp->content_type = "text/html; charset=utf-8";
	} else if (strcmp(path, "/app.js") == 0) {
		data = cgfb_dash_js;
		len = cgfb_dash_js_len;
		rp->content_type = "text/javascript; charset=utf-8";
	} else if (strcmp(path, "/app.css") == 0) {
		data = cgfb_dash_css;
		len = cgfb_dash_css_len;
		rp->content_type = "text/css; charset=utf-8";
	} else {
		return false;
	}
	rp->status = cgfb_buf_add(&rp->body, data, len) < 0 ? 500 : 200;
	rp->page = true;
	return true;
}
