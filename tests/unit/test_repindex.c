/* The repeat index (report/repindex.c): a repeat found through it with one
 * report and with many, and still found when the index is missing,
 * damaged or stale (a report gone, a report it never saw), and after the
 * report writer was killed between any two of its steps (each left as
 * files on disk, then a new writer opens the index). Real files in a
 * scratch state directory. */
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "report/repeat.h"
#include "report/repindex.h"
#include "report/spool.h"

static char dir[64];
static struct cgfb_spool sp = { .fd = -1 };
static struct cgfb_statedir sd = { .fd = -1 };

static int setup(void **state)
{
	char err[256];

	snprintf(dir, sizeof(dir), "/tmp/cgfb-repindex.XXXXXX");
	if (!mkdtemp(dir) || cgfb_statedir_open(&sd, dir, 0, err, sizeof(err)) < 0)
		return -1;
	return cgfb_spool_open(&sp, &sd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[96];

	cgfb_spool_close(&sp);
	cgfb_statedir_close(&sd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* A report's bytes as the rule reads them: catalog id, fields, series. */
static void report_bytes(char *buf, size_t sz, const char *cat_id, const char *fields)
{
	snprintf(buf, sz, "{\"detection\":{\"catalog_id\":\"%s\",\"fields\":%s},"
		 "\"system\":{\"kernel\":{\"series\":\"6.1\"}}}", cat_id, fields);
}

static void key_of(const char *cat_id, const char *fields, struct cgfb_report_key *k)
{
	char buf[256];

	report_bytes(buf, sizeof(buf), cat_id, fields);
	assert_int_equal(cgfb_report_key(buf, strlen(buf), k), 0);
}

/* A report written behind the index's back (as a copy or a restore). */
static void put(const char *id, const char *cat_id, const char *fields)
{
	char buf[256];

	report_bytes(buf, sizeof(buf), cat_id, fields);
	assert_int_equal(cgfb_spool_save_report(&sp, id, buf, strlen(buf)), 0);
}

static void fast_put(unsigned i, const char *cat_id, char id[CGFB_REPORT_ID_LEN + 1])
{
	char path[160], buf[256], fields[64];
	FILE *f;

	snprintf(id, CGFB_REPORT_ID_LEN + 1, "%08x-0000-4000-8000-%012x", i, i);
	snprintf(fields, sizeof(fields), "{\"comm\":\"job%u\"}", i);
	report_bytes(buf, sizeof(buf), cat_id, fields);
	snprintf(path, sizeof(path), "%s/reports/%s.json", dir, id);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(buf, f);
	assert_int_equal(fclose(f), 0);
}

/* A report writer's lookup: the id found, "" for none; *rebuilt whether
 * the index had to be made from the reports. */
static const char *find(const char *cat_id, const char *fields, bool *rebuilt)
{
	static char id[CGFB_REPORT_ID_LEN + 1];
	struct cgfb_repindex ix;
	struct cgfb_report_key k;
	int rc;

	key_of(cat_id, fields, &k);
	assert_int_equal(cgfb_repindex_open(&ix, &sd, &sp), 0);
	if (rebuilt)
		*rebuilt = ix.rebuilt;
	rc = cgfb_repindex_find(&ix, &k, id);
	assert_true(rc == 0 || rc == 1);
	if (rc == 0)
		id[0] = '\0';
	cgfb_repindex_seal(&ix);
	cgfb_repindex_close(&ix);
	cgfb_report_key_free(&k);
	return id;
}

enum step { ADDED, WRITTEN, SEALED };

/* The report writer's new report, in its order, stopped after step. */
static void writer_new(const char *id, const char *cat_id, const char *fields, enum step last)
{
	struct cgfb_repindex ix;
	struct cgfb_report_key k;
	char buf[256], found[CGFB_REPORT_ID_LEN + 1];

	key_of(cat_id, fields, &k);
	assert_int_equal(cgfb_repindex_open(&ix, &sd, &sp), 0);
	assert_int_equal(cgfb_repindex_find(&ix, &k, found), 0);
	assert_int_equal(cgfb_repindex_add(&ix, id, &k), 0);
	if (last >= WRITTEN) {
		report_bytes(buf, sizeof(buf), cat_id, fields);
		assert_int_equal(cgfb_spool_save_report(&sp, id, buf, strlen(buf)), 0);
	}
	if (last >= SEALED)
		assert_int_equal(cgfb_repindex_seal(&ix), 0);
	cgfb_repindex_close(&ix);
	cgfb_report_key_free(&k);
}

/* A shell command on the state directory (the first %s) and arg. */
#define sh(fmt, arg) do {                                               \
		char cmd_[512];                                         \
		snprintf(cmd_, sizeof(cmd_), fmt, dir, arg);            \
		assert_int_equal(system(cmd_), 0);                      \
	} while (0)

#define A "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"
#define B "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"
#define M9B "{\"knob\":\"swapaccount\"}"
#define M8 "{\"knob\":\"memory.use_hierarchy\"}"

static void found_with_one_report(void **state)
{
	bool rebuilt;

	writer_new(A, "M9b", M9B, SEALED);
	assert_string_equal(find("M9b", M9B, &rebuilt), A);
	assert_false(rebuilt);          /* the writer left it current */
	assert_string_equal(find("M8", M8, &rebuilt), "");
	assert_string_equal(find("M9b", "{\"knob\":\"other\"}", &rebuilt), "");
	assert_false(rebuilt);
}

static void found_among_many(void **state)
{
	char id[CGFB_REPORT_ID_LEN + 1], want[CGFB_REPORT_ID_LEN + 1] = "";
	bool rebuilt;

	/* 3,000 reports of distinct keys, none of them indexed yet. */
	for (unsigned i = 0; i < 3000; i++) {
		fast_put(i, i % 2 ? "C4" : "C1", id);
		if (i == 1777)
			snprintf(want, sizeof(want), "%s", id);
	}
	assert_string_equal(find("C4", "{\"comm\":\"job1777\"}", &rebuilt), want);
	assert_true(rebuilt);
	assert_string_equal(find("C4", "{\"comm\":\"job1778\"}", &rebuilt), "");
	assert_false(rebuilt);
	/* A new one, written by the writer, among them. */
	writer_new(A, "M9b", M9B, SEALED);
	assert_string_equal(find("M9b", M9B, &rebuilt), A);
	assert_false(rebuilt);
	assert_string_equal(find("C1", "{\"comm\":\"job2\"}", &rebuilt),
			    "00000002-0000-4000-8000-000000000002");
}

/* The index names a report that is gone (quarantined, removed): passed
 * over, and forgotten. */
static void a_report_gone(void **state)
{
	bool rebuilt;

	writer_new(A, "M9b", M9B, SEALED);
	writer_new(B, "M8", M8, SEALED);
	sh("rm %s/reports/%s.json", A);
	assert_string_equal(find("M9b", M9B, &rebuilt), "");
	assert_true(rebuilt);           /* reports/ holds one report fewer */
	assert_string_equal(find("M8", M8, &rebuilt), B);
	/* Named by the index, never written (a writer killed): passed over
	 * and forgotten as it is read. */
	writer_new(A, "M9b", M9B, ADDED);
	sh("grep -q %2$s %1$s/repeat-index/???", A);
	assert_string_equal(find("M9b", M9B, &rebuilt), "");
	assert_false(rebuilt);
	sh("! grep -q %2$s %1$s/repeat-index/???", A);
}

/* A report the index never saw, written a moment after the writer left
 * the index current (the same clock tick): found. That needs the seal to
 * leave reports/ with a modification time no later change can have (a
 * change in the same tick cannot be made on demand, so the mark is checked
 * itself): a second ago. */
static void a_report_it_lacks(void **state)
{
	struct timespec now;
	struct stat st;
	char path[96];
	bool rebuilt;

	writer_new(A, "M9b", M9B, SEALED);
	snprintf(path, sizeof(path), "%s/reports", dir);
	assert_int_equal(stat(path, &st), 0);
	clock_gettime(CLOCK_REALTIME, &now);
	assert_true((double)(now.tv_sec - st.st_mtim.tv_sec) +
		    (double)(now.tv_nsec - st.st_mtim.tv_nsec) / 1e9 >= 0.9);
	put(B, "M8", M8);
	assert_string_equal(find("M8", M8, &rebuilt), B);
	assert_true(rebuilt);
	assert_string_equal(find("M9b", M9B, &rebuilt), A);
	assert_false(rebuilt);
}

/* A change to reports/ that adds no report (a review's .state) costs a
 * check by name, not a rebuild. */
static void a_review_is_no_rebuild(void **state)
{
	struct cgfb_spool_entry e;
	bool rebuilt;

	writer_new(A, "M9b", M9B, SEALED);
	assert_int_equal(cgfb_spool_load(&sp, A, &e, NULL), 0);
	e.state = CGFB_R_DECLINED;
	assert_int_equal(cgfb_spool_save_state(&sp, &e), 0);
	assert_string_equal(find("M9b", M9B, &rebuilt), A);
	assert_false(rebuilt);
}

/* The writer's expiry removes a report and says so to the index: no
 * rebuild, and the report is no owner any more. */
static void an_expired_report(void **state)
{
	struct cgfb_spool_entry e;
	struct cgfb_repindex ix;
	size_t n;
	bool rebuilt;

	writer_new(A, "M9b", M9B, SEALED);
	writer_new(B, "M8", M8, SEALED);
	assert_int_equal(cgfb_spool_load(&sp, A, &e, NULL), 0);
	e.state = CGFB_R_DECLINED;
	assert_int_equal(cgfb_spool_save_state(&sp, &e), 0);
	assert_int_equal(cgfb_repindex_open(&ix, &sd, &sp), 0);
	assert_int_equal(cgfb_spool_expire(&sp, (long long)time(NULL) + 400LL * 86400,
					   NULL, NULL, &n), 0);
	assert_int_equal(n, 1);
	cgfb_repindex_forget(&ix, A);
	assert_int_equal(cgfb_repindex_seal(&ix), 0);
	cgfb_repindex_close(&ix);
	assert_string_equal(find("M9b", M9B, &rebuilt), "");
	assert_false(rebuilt);
	assert_string_equal(find("M8", M8, &rebuilt), B);
	assert_false(rebuilt);
}

/* The pending reports the writer keeps for the banner: believed while
 * nothing changed reports/ behind it, not after. */
static void pending_kept_for_the_banner(void **state)
{
	struct cgfb_pending p = { .known = false }, q;
	struct cgfb_repindex ix;

	writer_new(A, "M9b", M9B, SEALED);
	assert_int_equal(cgfb_repindex_open(&ix, &sd, &sp), 0);
	assert_int_equal(cgfb_repindex_pending(&ix, &q), -ESTALE);     /* never kept */
	for (int i = 0; i < 25; i++)
		cgfb_pending_add(&p, 1000 - i, i % 2 ? A : B, i % 2 ? "M9b" : "M8");
	assert_int_equal(p.count, 25);
	assert_int_equal(p.named, CGFB_PENDING_NAMED);
	assert_int_equal(p.oldest[0].created, 1000 - 24);      /* oldest first */
	assert_int_equal(p.oldest[19].created, 1000 - 5);
	assert_int_equal(cgfb_repindex_save_pending(&ix, &p), 0);
	assert_int_equal(cgfb_repindex_seal(&ix), 0);
	cgfb_repindex_close(&ix);

	assert_int_equal(cgfb_repindex_open(&ix, &sd, &sp), 0);
	assert_int_equal(cgfb_repindex_pending(&ix, &q), 0);
	assert_true(q.known);
	assert_int_equal(q.count, 25);
	assert_int_equal(q.named, 20);
	assert_string_equal(q.oldest[0].catalog_id, "M8");
	assert_int_equal(q.oldest[19].created, 1000 - 5);
	assert_int_equal(cgfb_repindex_seal(&ix), 0);   /* a repeat: kept */
	cgfb_repindex_close(&ix);

	put(B, "M8", M8);       /* behind the writer's back */
	assert_int_equal(cgfb_repindex_open(&ix, &sd, &sp), 0);
	assert_int_equal(cgfb_repindex_pending(&ix, &q), -ESTALE);
	assert_false(q.known);
	cgfb_repindex_close(&ix);
}

/* A command that changed the spool (a review's decline) lists the pending
 * reports for the banner and keeps the list: the next writer believes it
 * while reports/ is as the command marked it, instead of listing again;
 * a change after the mark makes it stale. */
static void pending_listed_by_a_command(void **state)
{
	struct cgfb_pending p = { .known = false }, q;
	struct cgfb_spool_entry e;
	struct cgfb_repindex ix;
	struct stat mark;

	writer_new(A, "M9b", M9B, SEALED);
	writer_new(B, "M8", M8, SEALED);
	assert_int_equal(cgfb_spool_load(&sp, A, &e, NULL), 0);
	e.state = CGFB_R_DECLINED;
	assert_int_equal(cgfb_spool_save_state(&sp, &e), 0);
	assert_int_equal(cgfb_reports_mark(&sp, &mark), 0);
	assert_int_equal(cgfb_pending_list(&sp, &p), 0);
	assert_int_equal(p.count, 1);
	assert_int_equal(cgfb_pending_cache_save(&sd, &mark, &p), 0);

	assert_int_equal(cgfb_repindex_open(&ix, &sd, &sp), 0);
	assert_int_equal(cgfb_repindex_pending(&ix, &q), 0);
	assert_int_equal(q.count, 1);
	assert_string_equal(q.oldest[0].id, B);
	cgfb_repindex_close(&ix);

	/* Answered after the command's listing: not believed. */
	assert_int_equal(cgfb_spool_load(&sp, B, &e, NULL), 0);
	e.state = CGFB_R_DECLINED;
	assert_int_equal(cgfb_spool_save_state(&sp, &e), 0);
	assert_int_equal(cgfb_repindex_open(&ix, &sd, &sp), 0);
	assert_int_equal(cgfb_repindex_pending(&ix, &q), -ESTALE);
	cgfb_repindex_close(&ix);
}

static void missing_or_damaged(void **state)
{
	bool rebuilt;

	writer_new(A, "M9b", M9B, SEALED);
	writer_new(B, "M8", M8, SEALED);
	sh("rm -r %s/%s", CGFB_REPEAT_INDEX_DIR);
	assert_string_equal(find("M9b", M9B, &rebuilt), A);
	assert_true(rebuilt);
	sh("echo garbage > %s/%s/stamp", CGFB_REPEAT_INDEX_DIR);
	assert_string_equal(find("M8", M8, &rebuilt), B);
	assert_true(rebuilt);
	/* Every bucket damaged, the stamp intact: the bucket read is. */
	sh("for f in %s/%s/???; do echo garbage > $f; done", CGFB_REPEAT_INDEX_DIR);
	assert_string_equal(find("M8", M8, &rebuilt), B);
	assert_string_equal(find("M9b", M9B, &rebuilt), A);
	/* An index that cannot be a directory: the caller is told. */
	{
		struct cgfb_repindex ix;

		sh("rm -r %s/%s", CGFB_REPEAT_INDEX_DIR);
		sh("touch %s/%s", CGFB_REPEAT_INDEX_DIR);
		assert_true(cgfb_repindex_open(&ix, &sd, &sp) < 0);
		assert_int_equal(ix.fd, -1);
	}
}

/* The writer killed after each step of a new report, then run again, as
 * the watcher does, with the same id; then the next detection. */
static void killed_between_steps(void **state)
{
	bool rebuilt;

	writer_new(B, "M8", M8, SEALED);

	/* After the index named it, before the report was written: no report
	 * yet, so no repeat; the run again writes it. */
	writer_new(A, "M9b", M9B, ADDED);
	assert_string_equal(find("M9b", M9B, &rebuilt), "");
	assert_false(rebuilt);
	writer_new(A, "M9b", M9B, SEALED);
	assert_string_equal(find("M9b", M9B, &rebuilt), A);
	assert_false(rebuilt);
	sh("rm %s/reports/%s.json", A);
	assert_string_equal(find("M9b", M9B, &rebuilt), "");

	/* After the report was written, before the stamp counted it: the
	 * stamp's report being added is recognised, no rebuild. */
	writer_new(A, "M9b", M9B, WRITTEN);
	assert_string_equal(find("M9b", M9B, &rebuilt), A);
	assert_false(rebuilt);
	assert_string_equal(find("M8", M8, &rebuilt), B);
	assert_false(rebuilt);

	/* Killed while rebuilding: the half-made index beside the old one. */
	sh("mkdir %s/%s.new", CGFB_REPEAT_INDEX_DIR);
	sh("echo junk > %s/%s.new/abc", CGFB_REPEAT_INDEX_DIR);
	sh("rm -r %s/%s", CGFB_REPEAT_INDEX_DIR);
	assert_string_equal(find("M9b", M9B, &rebuilt), A);
	assert_true(rebuilt);
	sh("test ! -e %s/%s.new", CGFB_REPEAT_INDEX_DIR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(found_with_one_report, setup, teardown),
		cmocka_unit_test_setup_teardown(found_among_many, setup, teardown),
		cmocka_unit_test_setup_teardown(a_report_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(a_report_it_lacks, setup, teardown),
		cmocka_unit_test_setup_teardown(a_review_is_no_rebuild, setup, teardown),
		cmocka_unit_test_setup_teardown(an_expired_report, setup, teardown),
		cmocka_unit_test_setup_teardown(pending_kept_for_the_banner, setup, teardown),
		cmocka_unit_test_setup_teardown(pending_listed_by_a_command, setup, teardown),
		cmocka_unit_test_setup_teardown(missing_or_damaged, setup, teardown),
		cmocka_unit_test_setup_teardown(killed_between_steps, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
