/* GET /api/v1/digest: a plain-text summary of a period, written to be
 * pasted into a mail to linux-mm: 72 columns, no markup, small groups
 * suppressed as in the public summary, then the use cases in the senders'
 * own words. What cgroup-feedback check found has a section of its own:
 * an install that would break is not a kernel that warned. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ingest/answers.h"
#include "api/handlers.h"
#include "api/pager.h"
#include "api/params.h"
#include "cgfb/buf.h"
#include "cgfb/jsonget.h"
#include "cgfb/wrap.h"
#include "store/summary.h"

#define WIDTH 72

static const struct {
	enum store_dim dim;
	const char *heading;
} sections[] = {
	{ DIM_CATALOG_ID, "By kernel message" },
	{ DIM_CHECK_CATALOG_ID, "Found by cgroup-feedback check before an upgrade\n"
				"(not printed by the kernel)" },
	{ DIM_KERNEL_SERIES, "By kernel series" },
	{ DIM_DISTRIBUTION, "By distribution" },
	{ DIM_CGROUP_MODE, "By cgroup mode" },
	{ DIM_SOFTWARE, "By software that created the cgroups" },
	{ DIM_VERDICT, "Flat subtrees found by the client's analysis" },
	{ DIM_REORGANISATION, "Would the proposed reorganisation work for you?" },
};

/* Lines are formatted into line, a growable buffer: a fixed one cut text
 * inside a UTF-8 sequence. */
static void section(struct cgfb_buf *b, struct cgfb_buf *line, const struct cgfb_catalog *cat,
		    json_object *dims, enum store_dim d, const char *heading)
{
	json_object *dim = cgfb_json_get(dims, store_dim_name(d));
	json_object *groups = cgfb_json_get(dim, "groups");
	const int suppressed = json_object_get_int(cgfb_json_get(dim, "suppressed_groups"));

	cgfb_buf_printf(b, "%s\n", heading);
	for (size_t i = 0; i < json_object_array_length(groups); i++) {
		json_object *g = json_object_array_get_idx(groups, i);
		const char *key = cgfb_json_str(g, "key");
		const struct cgfb_entry *e = d == DIM_CATALOG_ID || d == DIM_CHECK_CATALOG_ID ?
						     cgfb_catalog_find(cat, key) : NULL;

		line->len = 0;
		if (cgfb_buf_printf(line, "%-6" PRId64 " reports, %4" PRId64 " installs: %s%s%s",
				    json_object_get_int64(cgfb_json_get(g, "reports")),
				    json_object_get_int64(cgfb_json_get(g, "installs")), key,
				    e ? " - " : "", e ? e->title : "") == 0)
			cgfb_wrap(b, "  ", line->data, WIDTH);
	}
	if (!json_object_array_length(groups))
		cgfb_buf_printf(b, "  (no group large enough to show)\n");
	if (suppressed)
		cgfb_buf_printf(b, "  and %d smaller group%s not shown\n", suppressed,
				suppressed == 1 ? "" : "s");
	cgfb_buf_adds(b, "\n");
}

struct use_cases {
	const struct cgfb_catalog *cat;
	char since[32];              /* the filter's, which the pager keeps */
	struct cgfb_buf line;        /* scratch for one formatted line */
};

/* A use case under its entry's own questions and the sender's answers.
 * Every use case of the period, newest first: the pager's query selects
 * reports that carry one, behind a seq cursor, so that reports without
 * one (any number of them) cannot push one out. */
static int use_case(const struct store_row *row, struct cgfb_buf *b, void *ud)
{
	struct use_cases *u = ud;
	json_object *answers;

	u->line.len = 0;
	if (cgfb_buf_printf(&u->line, "- %s (report %.8s)", row->catalog_id, row->id) == 0)
		cgfb_wrap(b, "", u->line.data, WIDTH);
	answers = answers_of(u->cat, row->catalog_id, row->body, row->body_len);
	for (size_t i = 0; i < json_object_array_length(answers); i++) {
		json_object *q = json_object_array_get_idx(answers, i);
		const char *answer = cgfb_json_str(q, "answer");

		u->line.len = 0;
		if (cgfb_buf_printf(&u->line, "%s: %s", cgfb_json_str(q, "label"),
				    answer && answer[0] ? answer : "(not answered)") == 0)
			cgfb_wrap(b, "    ", u->line.data, WIDTH);
	}
	json_object_put(answers);
	cgfb_wrap(b, "    ", row->use_case[0] ? row->use_case : "(no use case)", WIDTH);
	return cgfb_buf_adds(b, "\n");
}

static void use_cases_free(void *ud)
{
	struct use_cases *u = ud;

	cgfb_buf_free(&u->line);
	free(u);
}

static void check_total(struct cgfb_buf *b, json_object *check)
{
	if (!check || json_object_get_boolean(cgfb_json_get(check, "suppressed")))
		return;
	cgfb_buf_printf(b, "%" PRId64 " of them from at least %" PRId64 " installs were found by\n"
			"cgroup-feedback check, not printed by the kernel.\n\n",
			json_object_get_int64(cgfb_json_get(check, "reports")),
			json_object_get_int64(cgfb_json_get(check, "installs")));
}

static void header(struct cgfb_buf *b, json_object *sum, unsigned days, const char *since)
{
	json_object *total = cgfb_json_get(sum, "total");
	char now[32];

	writer_now(now);
	cgfb_buf_printf(b, "cgroup-feedback digest: the last %u day%s\n", days, days == 1 ? "" : "s");
	cgfb_buf_printf(b, "from %.10s to %.10s\n\n", since, now);
	if (json_object_get_boolean(cgfb_json_get(total, "suppressed")))
		cgfb_buf_printf(b, "Fewer than %d installs reported in this period.\n\n",
				SUMMARY_MIN_INSTALLS);
	else
		cgfb_buf_printf(b, "%" PRId64 " reports from at least %" PRId64 " installs.\n\n",
				json_object_get_int64(cgfb_json_get(total, "reports")),
				json_object_get_int64(cgfb_json_get(total, "installs")));
	check_total(b, cgfb_json_get(total, "check"));
	cgfb_wrap(b, "", "Installs are counted as distinct system profiles; groups of fewer "
		  "than 5 installs are not shown.", WIDTH);
	cgfb_buf_adds(b, "\n");
}

static void since_days(unsigned days, char out[32])
{
	const time_t t = time(NULL) - (time_t)days * 86400;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%S.000Z", &tm);
}

/* The summary of the period and its sections onto p's buffer: what comes
 * before the use cases, a few kilobytes whatever the store holds. */
static int head(struct api *a, struct pager *p, struct use_cases *u, unsigned days)
{
	json_object *sum = NULL;
	int rc;

	/* The digest goes to a public list: the public summary's rules. */
	rc = summary_build(p->s, u->since, &a->policy, &sum);
	if (rc < 0)
		return rc;
	header(&p->out, sum, days, u->since);
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		section(&p->out, &u->line, a->catalog, cgfb_json_get(sum, "dimensions"),
			sections[i].dim, sections[i].heading);
	json_object_put(sum);
	return cgfb_buf_adds(&p->out, "Use cases, newest first\n\n");
}

/* Streamed (api/pager.h): the use cases of a period are any number of
 * reports of up to 256 KB each, answers printed (1,000 of them made a
 * digest of 265 MB built whole, issue 41). A heavy request
 * (api_heavy_take). */
void api_digest(struct api *a, const struct http_request *rq, struct http_reply *rp)
{
	struct store_filter f = { .with_use_case = true };
	struct use_cases *u;
	struct pager *p;
	uint64_t days;
	struct store *s;

	if (!api_admin(a, rq, rp))
		return;
	/* Whole digits only: "7x" is no number, and 4294967303 is not 7. */
	if (!params_uint(http_query(rq, "days"), 3660, 7, &days) || days < 1) {
		api_error(rp, 400, "bad_query", "days is 1 to 3660");
		return;
	}
	if (!api_heavy_take(a, rq, rp))
		return;
	if (!(s = api_reader(a, rp))) {
		api_heavy_put(a);
		return;
	}
	u = calloc(1, sizeof(*u));
	if (!u) {
		api_reader_put(a, s);
		api_heavy_put(a);
		goto unavailable;
	}
	u->cat = a->catalog;
	since_days((unsigned)days, u->since);
	f.since = u->since;
	/* On failure it gives s and the slot back. */
	p = pager_new(a, s, &f, use_case, u, use_cases_free, "digest");
	if (!p) {
		use_cases_free(u);
		goto unavailable;
	}
	/* The summary and the first page here, off the event loop: a
	 * database that cannot be read is still a 503. */
	if (head(a, p, u, (unsigned)days) < 0 || pager_page(p) < 0) {
		pager_free(p);
		goto unavailable;
	}
	pager_reply(p, rp, "text/plain; charset=utf-8");
	return;
unavailable:
	api_error(rp, 503, "unavailable", "the database cannot be read right now");
}
