/* The public summary (store/summary.h) over a real SQLite store, against a
 * count made here from the reports' own columns: every dimension's groups
 * are exactly the keys with at least SUMMARY_MIN_INSTALLS distinct
 * installs, with their report and install counts; every smaller group is
 * counted as suppressed and shown nowhere (no single machine's combination
 * can be read off the summary); the total counts distinct installs.
 * Every fifth report is a finding of cgroup-feedback check (issue 25): its
 * catalog id is counted in check_catalog_id, under the same rule, and not
 * in catalog_id, which counts what the kernel printed. */
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cgfb/readfile.h"
#include "cgfb/schema.h"
#include "ingest/ingest.h"
#include "store/store.h"
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
	return rc < 0 || store_commit(store) < 0 ? -1 : 0;
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

	assert_int_equal(summary_build(store, NULL, &o), 0);
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

	assert_int_equal(summary_build(store, "2027-01-01T00:00:00Z", &o), 0);
	assert_true(json_object_object_get_ex(o, "total", &total));
	assert_true(json_object_object_get_ex(total, "suppressed", &v));
	assert_true(json_object_get_boolean(v));
	assert_true(json_object_object_get_ex(total, "check", &v));
	assert_true(json_object_object_get_ex(v, "suppressed", &v));
	assert_true(json_object_get_boolean(v));
	json_object_put(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(origins),
		cmocka_unit_test(counts_and_suppresses),
		cmocka_unit_test(since_counts_nothing_older),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
