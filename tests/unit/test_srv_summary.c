/* The public summary (store/summary.h) over a real SQLite store, against a
 * count made here from the reports' own columns: every dimension's groups
 * are exactly the keys with at least SUMMARY_MIN_INSTALLS distinct
 * installs, with their report and install counts; every smaller group is
 * counted as suppressed and shown nowhere (no single machine's combination
 * can be read off the summary); the total counts distinct installs.
 * Every fifth report is a finding of cgroup-feedback check (issue 25): its
 * catalog id is counted in check_catalog_id, under the same rule, and not
 * in catalog_id, which counts what the kernel printed. */
#include "srvsql.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <json-c/json.h>

#include <math.h>

#include "cgfb/canon.h"
#include "cgfb/catalog.h"
#include "cgfb/jsonget.h"
#include "cgfb/readfile.h"
#include "cgfb/schema.h"
#include "cgfb/sha256.h"
#include "ingest/ingest.h"
#include "store/store.h"
#include "store/noise.h"
#include "store/summary.h"

#define N 90
/* Reports 0, 5, 10 ... are check's: 18 of them, each catalog id from 4 or
 * 5 installs (groups on both sides of 5), all 9 installs among them. */
#define FROM_CHECK 5

static char dir[] = "/tmp/cgfb-summary.XXXXXX";
static struct report_meta meta[N];
static struct store *store;

static int setup(void **state)
{
	struct cgfb_schema *schema = NULL;
	char cmd[256], path[128], err[256], now[32] = "2026-12-04T00:00:00.000Z";
	int rc = 0;

	if (!mkdtemp(dir) || cgfb_schema_load_builtin(&schema, err, sizeof(err)) < 0)
		return -1;
	/* 9 system profiles over 90 reports: groups on both sides of 5. */
	snprintf(cmd, sizeof(cmd), "python3 tests/server/genreport.py --dir %s --count %d --systems 9"
		 " --from-check %d", dir, N, FROM_CHECK);
	snprintf(path, sizeof(path), "%s/db.sqlite", dir);
	if (system(cmd) != 0 || store_open(&store, path, false) < 0 || store_begin(store) < 0)
		return -1;
	for (int i = 0; i < N && rc >= 0; i++) {
		struct cgfb_buf b = { 0 };
		struct receipt r;

		snprintf(path, sizeof(path), "%s/%d.json", dir, i);
		rc = cgfb_read_file(path, CGFB_REPORT_MAX_BYTES, 0, &b);
		if (rc >= 0)
			rc = ingest_report(schema, b.data, b.len, &meta[i], err, sizeof(err));
		if (rc >= 0)
			rc = store_put(store, &meta[i], b.data, b.len, now, "http", &r);
		cgfb_buf_free(&b);
	}
	cgfb_schema_free(schema);
	return rc < 0 || store_commit(store) < 0 || store_fold(store, 0) < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[64];

	for (int i = 0; i < N; i++)
		ingest_meta_free(&meta[i]);
	store_close(store);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static bool from_check(const struct report_meta *m)
{
	return (int)(m - meta) % FROM_CHECK == 0;
}

/* The key of report i in a dimension, from its columns; NULL when the
 * dimension does not count it. */
static const char *key_of(const struct report_meta *m, const char *dim)
{
	if (strcmp(dim, "catalog_id") == 0)
		return from_check(m) ? NULL : m->catalog_id;
	if (strcmp(dim, "check_catalog_id") == 0)
		return from_check(m) ? m->catalog_id : NULL;
	if (strcmp(dim, "kernel_series") == 0)
		return m->kernel_series;
	if (strcmp(dim, "distribution") == 0)
		return m->distribution;
	return m->cgroup_mode;
}

/* Reports and distinct installs with key in dimension dim. */
static void count(const char *dim, const char *key, int *reports, int *installs)
{
	const char *seen[N];
	int n = 0;

	*reports = 0;
	for (int i = 0; i < N; i++) {
		bool dup = false;

		if (!key_of(&meta[i], dim) || strcmp(key_of(&meta[i], dim), key) != 0)
			continue;
		(*reports)++;
		for (int k = 0; k < n; k++)
			dup |= strcmp(seen[k], meta[i].install) == 0;
		if (!dup)
			seen[n++] = meta[i].install;
	}
	*installs = n;
}

static void check_dimension(json_object *dims, const char *dim, int *all_shown, int *all_small)
{
	json_object *d, *groups, *v;
	int shown = 0, small = 0, keys = 0;
	const char *done[N];

	assert_true(json_object_object_get_ex(dims, dim, &d));
	assert_true(json_object_object_get_ex(d, "groups", &groups));
	/* What the summary shows is what was counted here, and is large. */
	for (size_t g = 0; g < json_object_array_length(groups); g++) {
		json_object *o = json_object_array_get_idx(groups, g), *k, *r, *in;
		int reports, installs;

		assert_true(json_object_object_get_ex(o, "key", &k));
		assert_true(json_object_object_get_ex(o, "reports", &r));
		assert_true(json_object_object_get_ex(o, "installs", &in));
		count(dim, json_object_get_string(k), &reports, &installs);
		assert_int_equal(json_object_get_int(r), reports);
		assert_int_equal(json_object_get_int(in), installs);
		assert_true(installs >= SUMMARY_MIN_INSTALLS);
		shown++;
	}
	/* Every key of the reports: shown when large, else suppressed. */
	for (int i = 0; i < N; i++) {
		const char *key = key_of(&meta[i], dim);
		bool dup = !key;
		int reports, installs;

		for (int k = 0; k < keys && key; k++)
			dup |= strcmp(done[k], key) == 0;
		if (dup)
			continue;
		done[keys++] = key;
		count(dim, key, &reports, &installs);
		small += installs < SUMMARY_MIN_INSTALLS;
	}
	assert_int_equal(shown + small, keys);
	assert_true(json_object_object_get_ex(d, "suppressed_groups", &v));
	assert_int_equal(json_object_get_int(v), small);
	*all_shown += shown;
	*all_small += small;
}

/* The origins come from detection.source, and the store kept them. */
static void origins(void **state)
{
	for (int i = 0; i < N; i++)
		assert_string_equal(meta[i].origin, from_check(&meta[i]) ? "check" : "kernel");
}

static void counts_and_suppresses(void **state)
{
	json_object *o = NULL, *dims, *total, *check, *v;
	int shown = 0, small = 0;

	assert_int_equal(summary_build(store, NULL, NULL, &o), 0);
	assert_true(json_object_object_get_ex(o, "min_installs", &v));
	assert_int_equal(json_object_get_int(v), SUMMARY_MIN_INSTALLS);
	assert_true(json_object_object_get_ex(o, "total", &total));
	assert_true(json_object_object_get_ex(total, "reports", &v));
	assert_int_equal(json_object_get_int(v), N);
	assert_true(json_object_object_get_ex(total, "installs", &v));
	assert_int_equal(json_object_get_int(v), 9);
	assert_true(json_object_object_get_ex(total, "check", &check));
	assert_true(json_object_object_get_ex(check, "reports", &v));
	assert_int_equal(json_object_get_int(v), N / FROM_CHECK);
	assert_true(json_object_object_get_ex(check, "installs", &v));
	assert_int_equal(json_object_get_int(v), 9);
	assert_true(json_object_object_get_ex(check, "suppressed", &v));
	assert_false(json_object_get_boolean(v));
	assert_true(json_object_object_get_ex(o, "dimensions", &dims));
	/* check's findings: both sides of the threshold, apart from the
	 * kernel's warnings. */
	check_dimension(dims, "check_catalog_id", &shown, &small);
	assert_true(shown > 0 && small > 0);
	check_dimension(dims, "catalog_id", &shown, &small);
	check_dimension(dims, "kernel_series", &shown, &small);
	check_dimension(dims, "distribution", &shown, &small);
	check_dimension(dims, "cgroup_mode", &shown, &small);
	/* The data has groups on both sides of the threshold. */
	assert_true(shown > 0 && small > 0);
	json_object_put(o);
}

/* Reports received after since only: none here. */
static void since_counts_nothing_older(void **state)
{
	json_object *o = NULL, *total, *v;

	assert_int_equal(summary_build(store, "2027-01-01T00:00:00Z", NULL, &o), 0);
	assert_true(json_object_object_get_ex(o, "total", &total));
	assert_true(json_object_object_get_ex(total, "suppressed", &v));
	assert_true(json_object_get_boolean(v));
	assert_true(json_object_object_get_ex(total, "check", &v));
	assert_true(json_object_object_get_ex(v, "suppressed", &v));
	assert_true(json_object_get_boolean(v));
	json_object_put(o);
}


/* ---- the public view: known keys only, capped, blurred (issue 27, 30) ---- */

static char pubdir[] = "/tmp/cgfb-pub.XXXXXX";
static struct store *pub;
static struct cgfb_catalog *catalog;
static int pub_seq;

/* copies reports like the first generated one, each from its own install
 * "<tag>-<i>" (or all from install "<tag>" when one_install), with this
 * catalog id and process name. */
static void put_reports(const char *tag, int copies, bool one_install, const char *catalog_id,
			const char *comm)
{
	struct cgfb_schema *schema = NULL;
	struct cgfb_buf base = { 0 };
	char path[128], err[256];

	snprintf(path, sizeof(path), "%s/0.json", pubdir);
	assert_int_equal(cgfb_read_file(path, CGFB_REPORT_MAX_BYTES, 0, &base), 0);
	assert_int_equal(cgfb_schema_load_builtin(&schema, err, sizeof(err)), 0);
	assert_int_equal(store_begin(pub), 0);
	for (int i = 0; i < copies; i++) {
		json_object *o = json_tokener_parse(base.data), *det, *fields, *consent;
		struct cgfb_buf b = { 0 };
		struct report_meta m;
		struct receipt r;
		char id[64], install[80], hex[65];

		snprintf(id, sizeof(id), "00000000-0000-4000-8000-%012d", ++pub_seq);
		snprintf(install, sizeof(install), "%s-%d", tag, one_install ? 0 : i);
		cgfb_sha256_hex(install, strlen(install), hex);
		hex[32] = '\0';
		json_object_object_add(o, "report_id", json_object_new_string(id));
		det = json_object_object_get(o, "detection");
		json_object_object_add(det, "catalog_id", json_object_new_string(catalog_id));
		json_object_object_add(det, "source", json_object_new_string("kmsg"));
		fields = json_object_object_get(det, "fields");
		json_object_object_add(fields, "comm", json_object_new_string(comm));
		consent = json_object_object_get(o, "consent");
		json_object_object_add(consent, "install", json_object_new_string(hex));
		assert_int_equal(cgfb_canon_serialize(o, CGFB_REPORT_MAX_BYTES, &b), 0);
		if (ingest_report(schema, b.data, b.len, &m, err, sizeof(err)) < 0)
			fail_msg("variant %s: %s", id, err);
		assert_int_equal(store_put(pub, &m, b.data, b.len, "2026-12-04T00:00:00.000Z",
					   "http", &r), STORE_CREATED);
		ingest_meta_free(&m);
		cgfb_buf_free(&b);
		json_object_put(o);
	}
	assert_int_equal(store_commit(pub), 0);
	assert_int_equal(store_fold(pub, 0), 0);
	cgfb_schema_free(schema);
	cgfb_buf_free(&base);
}

/* M8 from 6 installs with libvirtd, and what issue 30 saw forged: a
 * catalog id nobody knows (Zz9) and a made-up software name, each from 6
 * installs; M3 from 4 installs and M4 from 5, one each side of k; one
 * install with 40 reports of M8. */
static int pub_setup(void **state)
{
	char cmd[256], path[128], err[256];

	if (!mkdtemp(pubdir) || cgfb_catalog_load_builtin(&catalog, err, sizeof(err)) < 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "python3 tests/server/genreport.py --dir %s --count 1", pubdir);
	snprintf(path, sizeof(path), "%s/db.sqlite", pubdir);
	if (system(cmd) != 0 || store_open(&pub, path, false) < 0)
		return -1;
	put_reports("m8", 6, false, "M8", "libvirtd");
	put_reports("forged", 6, false, "Zz9", "Buy-pills-at-evil.example");
	put_reports("m3", 4, false, "M3", "containerd");
	put_reports("m4", 5, false, "M4", "containerd");
	put_reports("heavy", 40, true, "M8", "libvirtd");
	return 0;
}

static int pub_teardown(void **state)
{
	char cmd[64];

	store_close(pub);
	cgfb_catalog_free(catalog);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", pubdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* The group of key in dimension dim of summary o, or NULL. */
static json_object *group(json_object *o, const char *dim, const char *key)
{
	json_object *groups = cgfb_json_get(json_object_object_get(o, "dimensions"), dim);

	groups = json_object_object_get(groups, "groups");
	for (size_t i = 0; i < json_object_array_length(groups); i++) {
		json_object *g = json_object_array_get_idx(groups, i);

		if (strcmp(json_object_get_string(json_object_object_get(g, "key")), key) == 0)
			return g;
	}
	return NULL;
}

static int64_t field(json_object *g, const char *name)
{
	return json_object_get_int64(json_object_object_get(g, name));
}

static json_object *build(const struct summary_policy *p)
{
	json_object *o = NULL;

	assert_int_equal(summary_build(pub, NULL, p, &o), 0);
	return o;
}

/* Unknown catalog ids and software names reach no public number, however
 * many installs send them; the admin's view (no policy) still has them. */
static void public_view_shows_known_keys_only(void **state)
{
	struct summary_policy p = { .catalog = catalog };
	json_object *all = build(NULL), *o = build(&p);
	const char *text = json_object_to_json_string(o);

	assert_non_null(group(all, "catalog_id", "Zz9"));
	assert_non_null(group(all, "software", "Buy-pills-at-evil.example"));
	assert_null(strstr(text, "Zz9"));
	assert_null(strstr(text, "Buy-pills"));
	assert_non_null(group(o, "catalog_id", "M8"));
	assert_non_null(group(o, "software", "libvirtd"));
	assert_int_equal(field(group(o, "catalog_id", "M8"), "installs"), 7);
	json_object_put(all);
	json_object_put(o);
}

/* Under noise a group's reports count each install at most
 * STORE_CAP_PER_INSTALL times, so one install moves them by at most that
 * (an epsilon this large draws no noise at all). */
static void one_install_moves_reports_by_the_cap(void **state)
{
	struct summary_policy p = { .catalog = catalog, .epsilon = 1000 };
	json_object *all = build(NULL), *o = build(&p);

	assert_int_equal(field(group(all, "catalog_id", "M8"), "reports"), 46);
	assert_int_equal(field(group(o, "catalog_id", "M8"), "reports"), 6 + STORE_CAP_PER_INSTALL);
	assert_int_equal(field(group(o, "catalog_id", "M8"), "installs"), 7);
	json_object_put(all);
	json_object_put(o);
}

/* The draw is the discrete Laplace distribution: for eps 1, P(0) =
 * (1-a)/(1+a) = 0.462 and variance 2a/(1-a)^2 = 1.84 (a = 1/e), mean 0;
 * the same label gives the same draw, another key another one. A fixed
 * key here; the collector's comes from getrandom(2). */
static void noise_is_discrete_laplace(void **state)
{
	unsigned char key[NOISE_KEY_LEN] = { 1, 2, 3 }, other[NOISE_KEY_LEN] = { 3, 2, 1 };
	const int n = 20000;
	double sum = 0, sq = 0;
	int zeros = 0, differ = 0;
	char label[32];

	for (int i = 0; i < n; i++) {
		int64_t x;

		snprintf(label, sizeof(label), "count %d", i);
		x = noise_geometric(key, label, 1.0);
		assert_int_equal(x, noise_geometric(key, label, 1.0));
		differ += x != noise_geometric(other, label, 1.0);
		sum += (double)x;
		sq += (double)(x * x);
		zeros += x == 0;
	}
	if (fabs(sum / n) > 0.05 || fabs((double)zeros / n - 0.462) > 0.02 ||
	    fabs(sq / n - 1.84) > 0.15)
		fail_msg("mean %.3f, P(0) %.3f, variance %.3f", sum / n, (double)zeros / n, sq / n);
	assert_true(differ > n / 3);
	assert_int_equal(noise_geometric(key, "x", 0), 0);
}

/* Issue 27's attack: four forged pseudonyms and one real install make a
 * group of 5, which the exact k rule then shows (and without the real
 * one hides), so the real install's presence is read off the page. With
 * noise before the threshold, over many keys, M3 (4 installs) and M4 (5)
 * are each sometimes shown and sometimes not, and their chances differ by
 * no more than e^epsilon allows (the real install decides nothing for
 * sure). Recomputing one state with one key gives the same bytes, so
 * many summaries of it average nothing away. */
static void forged_pseudonyms_no_longer_decide(void **state)
{
	struct summary_policy p = { .catalog = catalog, .epsilon = 1 };
	const int runs = 400;
	int shown4 = 0, shown5 = 0;
	json_object *exact = build(&(struct summary_policy){ .catalog = catalog });

	/* The exact rule: the real install alone decides. */
	assert_null(group(exact, "catalog_id", "M3"));
	assert_non_null(group(exact, "catalog_id", "M4"));
	json_object_put(exact);
	for (int i = 0; i < runs; i++) {
		json_object *o, *again;

		memcpy(p.key, &i, sizeof(i));
		o = build(&p);
		shown4 += group(o, "catalog_id", "M3") != NULL;
		shown5 += group(o, "catalog_id", "M4") != NULL;
		if (i < 5) {
			again = build(&p);
			assert_string_equal(json_object_to_json_string(o),
					    json_object_to_json_string(again));
			json_object_put(again);
		}
		json_object_put(o);
	}
	/* P(shown | 4) = P(X >= 1) = a/(1+a) = 0.27, P(shown | 5) = 0.73. */
	if (shown4 < runs / 10 || shown5 > runs * 9 / 10 || shown5 > shown4 * 2.72 * 1.3)
		fail_msg("shown: %d of %d with 4 installs, %d with 5", shown4, runs, shown5);
}


/* ---- the counts kept as reports come and go (issue 30) ----
 * A summary of all reports reads the folded counts (store/tally_sql.h);
 * one of a window scans the rows. Over the same reports both must say the
 * same, group by group, after reports were added, deleted (however: here
 * by SQL of another connection, which the triggers see as well), and
 * added again, with installs above the cap of 3 and installs gone. */

static char folddir[] = "/tmp/cgfb-fold.XXXXXX";
static char folddb[64];
static struct store *folded;

/* The generated reports from..to-1 of folddir, new or already there. */
static void put_generated(int from, int to)
{
	struct cgfb_schema *schema = NULL;
	char path[128], err[256];

	assert_int_equal(cgfb_schema_load_builtin(&schema, err, sizeof(err)), 0);
	assert_int_equal(store_begin(folded), 0);
	for (int i = from; i < to; i++) {
		struct cgfb_buf b = { 0 };
		struct report_meta m;
		struct receipt r;
		int rc;

		snprintf(path, sizeof(path), "%s/%d.json", folddir, i);
		assert_int_equal(cgfb_read_file(path, CGFB_REPORT_MAX_BYTES, 0, &b), 0);
		assert_int_equal(ingest_report(schema, b.data, b.len, &m, err, sizeof(err)), 0);
		rc = store_put(folded, &m, b.data, b.len, "2026-12-04T00:00:00.000Z", "http", &r);
		assert_true(rc == STORE_CREATED || rc == STORE_SAME);
		ingest_meta_free(&m);
		cgfb_buf_free(&b);
	}
	assert_int_equal(store_commit(folded), 0);
	cgfb_schema_free(schema);
}

static int fold_setup(void **state)
{
	char cmd[256];

	if (!mkdtemp(folddir))
		return -1;
	snprintf(cmd, sizeof(cmd), "python3 tests/server/genreport.py --dir %s --count %d --systems 4"
		 " --from-check %d", folddir, N, FROM_CHECK);
	snprintf(folddb, sizeof(folddb), "%s/db.sqlite", folddir);
	return system(cmd) != 0 || store_open(&folded, folddb, false) < 0 ? -1 : 0;
}

static int fold_teardown(void **state)
{
	char cmd[64];

	store_close(folded);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", folddir);
	return system(cmd) == 0 ? 0 : -1;
}

/* One integer from SQL on the store's file. */
static int64_t sql_int(const char *sql)
{
	return test_sql_int(folddb, sql);
}

static int group_line(const struct store_group *g, void *ud)
{
	char line[256];

	snprintf(line, sizeof(line), "%s %" PRId64 " %" PRId64 " %" PRId64 "\n", g->key,
		 g->reports, g->installs, g->capped);
	return cgfb_buf_adds(ud, line);
}

/* Every group of every dimension, in the store's order, as text: what
 * the summary is made of, before any threshold hides a group. */
static char *numbers(const char *since)
{
	struct cgfb_buf b = { 0 };

	assert_int_equal(store_groups_begin(folded, since), 0);
	for (int d = 0; d < DIM_COUNT; d++) {
		assert_int_equal(cgfb_buf_adds(&b, store_dim_name((enum store_dim)d)), 0);
		assert_int_equal(cgfb_buf_adds(&b, ":\n"), 0);
		assert_int_equal(store_groups(folded, (enum store_dim)d, group_line, &b), 0);
	}
	store_groups_end(folded);
	assert_int_equal(cgfb_buf_add(&b, "", 1), 0);
	return b.data;
}

/* The folded counts (since NULL) against the scan of every row (since
 * ""); both are printed when they are not as expected. */
static bool same_as_scan(bool expected)
{
	char *whole = numbers(NULL), *scan = numbers("");
	const bool same = strcmp(whole, scan) == 0;

	if (same != expected)
		print_message("folded:\n%sscan:\n%s", whole, scan);
	free(whole);
	free(scan);
	return same;
}

static void folded_counts_are_the_scans(void **state)
{
	int64_t reports;

	/* Stored, not yet folded: the counts are behind. */
	put_generated(0, N);
	assert_int_equal(sql_int("SELECT count(*) FROM tally_delta"), N);
	assert_false(same_as_scan(false));
	/* A chunk at a time (the writer's way): one, then nothing left. */
	assert_int_equal(store_fold(folded, 1), 1);
	assert_int_equal(store_fold(folded, 1), 0);
	assert_true(same_as_scan(true));
	assert_int_equal(sql_int("SELECT count(*) FROM tally_delta"), 0);
	/* Every install has more than the cap: the capped counts differ. */
	assert_true(sql_int("SELECT min(n) FROM tally WHERE dim = 9") > STORE_CAP_PER_INSTALL);

	/* One install gone whole, and a third of the rest. */
	assert_true(sql_int("DELETE FROM reports WHERE seq % 3 = 0 OR install ="
			    " (SELECT install FROM reports ORDER BY seq LIMIT 1) RETURNING 1") == 1);
	reports = sql_int("SELECT count(*) FROM reports");
	assert_true(reports > 0 && reports < N * 2 / 3);
	assert_false(same_as_scan(false));
	assert_int_equal(store_fold(folded, 0), 0);
	assert_true(same_as_scan(true));
	assert_int_equal(sql_int("SELECT reports FROM tally_groups WHERE dim = 9"), reports);
	assert_int_equal(sql_int("SELECT count(*) FROM tally WHERE dim = 9"), 3);
	assert_int_equal(sql_int("SELECT count(*) FROM tally WHERE n <= 0"), 0);
	assert_int_equal(sql_int("SELECT count(*) FROM tally_groups WHERE reports <= 0"), 0);

	/* Back again, folded in two steps: counts from counts. */
	put_generated(0, N / 2);
	assert_int_equal(store_fold(folded, 0), 0);
	assert_true(same_as_scan(true));
	put_generated(N / 2, N);
	assert_int_equal(store_fold(folded, 0), 0);
	assert_true(same_as_scan(true));
	assert_int_equal(sql_int("SELECT reports FROM tally_groups WHERE dim = 9"), N);
	assert_int_equal(sql_int("SELECT count(*) FROM tally_delta"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(origins),
		cmocka_unit_test(counts_and_suppresses),
		cmocka_unit_test(since_counts_nothing_older),
	};

	const struct CMUnitTest public[] = {
		cmocka_unit_test(public_view_shows_known_keys_only),
		cmocka_unit_test(one_install_moves_reports_by_the_cap),
		cmocka_unit_test(noise_is_discrete_laplace),
		cmocka_unit_test(forged_pseudonyms_no_longer_decide),
	};
	const struct CMUnitTest fold[] = {
		cmocka_unit_test(folded_counts_are_the_scans),
	};
	int rc = cmocka_run_group_tests(tests, setup, teardown);

	if (rc == 0)
		rc = cmocka_run_group_tests_name("public view", public, pub_setup, pub_teardown);
	return rc ? rc : cmocka_run_group_tests_name("counts kept", fold, fold_setup, fold_teardown);
}
