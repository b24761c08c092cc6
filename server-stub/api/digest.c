/* GET /api/v1/digest: a plain-text summary of a period, written to be
 * pasted into a mail to linux-mm: 72 columns, no markup, small groups
 * suppressed as in the public summary, then the use cases in the senders'
 * own words. What cgroup-feedback check found has a section of its own:
 * an install that would break is not a kernel that warned. */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "ingest/answers.h"
#include "api/handlers.h"
#include "api/params.h"
#include "cgfb/buf.h"
#include "cgfb/jsonget.h"
#include "cgfb/wrap.h"
#include "store/summary.h"

#define WIDTH 72
/* Use cases are read a page at a time, each page its own short read. */
#define USE_CASES_PAGE 64

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
	struct cgfb_buf *b;
	const struct cgfb_catalog *cat;
	int64_t before;              /* seq of the last one written; 0 at first */
	struct cgfb_buf line;        /* scratch for one formatted line */
};

/* A use case under its entry's own questions and the sender's answers. */
static int use_case(const struct store_row *row, void *ud)
{
	struct use_cases *u = ud;
	json_object *answers;

	u->before = row->seq;
	u->line.len = 0;
	if (cgfb_buf_printf(&u->line, "- %s (report %.8s)", row->catalog_id, row->id) == 0)
		cgfb_wrap(u->b, "", u->line.data, WIDTH);
	answers = answers_of(u->cat, row->catalog_id, row->body, row->body_len);
	for (size_t i = 0; i < json_object_array_length(answers); i++) {
		json_object *q = json_object_array_get_idx(answers, i);
		const char *answer = cgfb_json_str(q, "answer");

		u->line.len = 0;
		if (cgfb_buf_printf(&u->line, "%s: %s", cgfb_json_str(q, "label"),
				    answer && answer[0] ? answer : "(not answered)") == 0)
			cgfb_wrap(u->b, "    ", u->line.data, WIDTH);
	}
	json_object_put(answers);
	cgfb_wrap(u->b, "    ", row->use_case[0] ? row->use_case : "(no use case)", WIDTH);
	cgfb_buf_adds(u->b, "\n");
	return 0;
}

/* Every use case of the period, newest first: the query selects reports
 * that carry one, a page at a time behind a seq cursor, so that reports
 * without one (any number of them) cannot push one out. */
static int use_cases(struct store *s, const char *since, struct use_cases *u)
{
	struct store_filter f = { .since = since, .with_use_case = true,
				  .limit = USE_CASES_PAGE };
	int64_t was;
	int rc;

	do {
		was = u->before;
		f.before = u->before;
		store_read_deadline(s, STORE_READ_MS);
		rc = store_list(s, &f, use_case, u);
	} while (rc == 0 && u->before != was);
	return rc;
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

void api_digest(struct api *a, const struct http_request *rq, struct http_reply *rp)
{
	uint64_t days;
	struct use_cases u = { .b = &rp->body, .cat = a->catalog };
	json_object *sum = NULL;
	struct store *s;
	char since[32];
	int rc;

	if (!api_admin(a, rq, rp))
		return;
	/* Whole digits only: "7x" is no number, and 4294967303 is not 7. */
	if (!params_uint(http_query(rq, "days"), 3660, 7, &days) || days < 1) {
		api_error(rp, 400, "bad_query", "days is 1 to 3660");
		return;
	}
	if (!(s = api_reader(a, rp)))
		return;
	since_days((unsigned)days, since);
	/* The digest goes to a public list: the public summary's rules. */
	rc = summary_build(s, since, &a->policy, &sum);
	if (rc == 0) {
		header(&rp->body, sum, (unsigned)days, since);
		for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
			section(&rp->body, &u.line, a->catalog, cgfb_json_get(sum, "dimensions"),
				sections[i].dim, sections[i].heading);
		cgfb_buf_adds(&rp->body, "Use cases, newest first\n\n");
		rc = use_cases(s, since, &u);
	}
	api_reader_put(a, s);
	json_object_put(sum);
	cgfb_buf_free(&u.line);
	if (rc < 0) {
		cgfb_buf_free(&rp->body);
		api_error(rp, 503, "unavailable", "the database cannot be read right now");
		return;
	}
	rp->status = 200;
	rp->content_type = "text/plain; charset=utf-8";
}
