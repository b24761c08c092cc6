/* One report per message and install (report/repeat.c): which report an
 * occurrence belongs to, and the counting of boots on it, on real spool
 * files in a scratch directory. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "privacy/rekey.h"
#include "report/repeat.h"
#include "report/repindex.h"
#include "report/spool.h"

static char dir[] = "/tmp/cgfb-repeat.XXXXXX";
static struct cgfb_spool sp = { .fd = -1 };
static struct cgfb_statedir sd = { .fd = -1 };

static int setup(void **state)
{
	char err[256];

	if (!mkdtemp(dir) || cgfb_statedir_open(&sd, dir, 0, err, sizeof(err)) < 0)
		return -1;
	return cgfb_spool_open(&sp, &sd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[64];

	cgfb_spool_close(&sp);
	cgfb_statedir_close(&sd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* The parts of a report the rule reads, canonical (sorted keys, no
 * spaces) as the spool wants it. */
static const char *message;      /* detection.message of what follows; NULL: none */
static const char *facts;        /* system.facts of what follows; NULL: this machine's */

static void report_bytes(char *buf, size_t sz, const char *cat_id, const char *series,
			 const char *fields)
{
	snprintf(buf, sz, "{\"detection\":{\"catalog_id\":\"%s\",\"fields\":%s%s%s%s},"
		 "\"system\":{%s%s%s\"kernel\":{\"series\":\"%s\"}}}", cat_id, fields,
		 message ? ",\"message\":\"" : "", message ? message : "", message ? "\"" : "",
		 facts ? "\"facts\":\"" : "", facts ? facts : "", facts ? "\"," : "", series);
}

static void put(const char *id, const char *cat_id, const char *series, const char *fields,
		enum cgfb_rstate st)
{
	struct cgfb_spool_entry e;
	char buf[512];

	report_bytes(buf, sizeof(buf), cat_id, series, fields);
	assert_int_equal(cgfb_spool_save_report(&sp, id, buf, strlen(buf)), 0);
	if (st == CGFB_R_PENDING)
		return;
	assert_int_equal(cgfb_spool_load(&sp, id, &e, NULL), 0);
	e.state = st;
	assert_int_equal(cgfb_spool_save_state(&sp, &e), 0);
}

/* find() for an occurrence: the id it belongs to, or "" for a new report. */
static const char *owner(const char *cat_id, const char *series, const char *fields)
{
	static char id[CGFB_REPORT_ID_LEN + 1];
	struct cgfb_report_key k;
	char buf[512];
	int rc;

	report_bytes(buf, sizeof(buf), cat_id, series, fields);
	assert_int_equal(cgfb_report_key(buf, strlen(buf), &k), 0);
	rc = cgfb_repeat_find(&sp, &k, id);
	assert_true(rc == 0 || rc == 1);
	if (rc == 0)
		id[0] = '\0';
	/* The report writer's way, through the repeat index, agrees. */
	{
		struct cgfb_repindex ix;
		char via[CGFB_REPORT_ID_LEN + 1] = "";

		assert_int_equal(cgfb_repindex_open(&ix, &sd, &sp), 0);
		assert_int_equal(cgfb_repindex_find(&ix, &k, via), rc);
		assert_string_equal(via, id);
		cgfb_repindex_seal(&ix);
		cgfb_repindex_close(&ix);
	}
	cgfb_report_key_free(&k);
	return id;
}

#define PENDING_M9B "11111111-1111-4111-8111-111111111111"
#define SENT_M8     "22222222-2222-4222-8222-222222222222"
#define DECLINED_M7 "33333333-3333-4333-8333-333333333333"
#define PENDING_M8  "44444444-4444-4444-8444-444444444444"

static void which_report_a_repeat_belongs_to(void **state)
{
	const char *swap = "{\"knob\":\"swapaccount\"}", *hier = "{\"knob\":\"memory.use_hierarchy\"}";

	put(PENDING_M9B, "M9b", "6.1", swap, CGFB_R_PENDING);
	put(SENT_M8, "M8", "6.1", hier, CGFB_R_SENT);
	put(DECLINED_M7, "M7", "6.1", "null", CGFB_R_DECLINED);

	/* Pending: the same question, whatever kernel asks it again. */
	assert_string_equal(owner("M9b", "6.1", swap), PENDING_M9B);
	assert_string_equal(owner("M9b", "6.12", swap), PENDING_M9B);
	/* Another trigger (fields) or another message is news. */
	assert_string_equal(owner("M9b", "6.1", "{\"knob\":\"other\"}"), "");
	assert_string_equal(owner("M1b", "6.1", swap), "");

	/* Answered: the same series is no news; another series is. */
	assert_string_equal(owner("M8", "6.1", hier), SENT_M8);
	assert_string_equal(owner("M8", "6.12", hier), "");
	assert_string_equal(owner("M7", "6.1", "null"), DECLINED_M7);
	assert_string_equal(owner("M7", "7.0", "null"), "");

	/* A pending report of the same message wins over the sent one: it
	 * is the one still to be answered. */
	put(PENDING_M8, "M8", "6.1", hier, CGFB_R_PENDING);
	assert_string_equal(owner("M8", "6.1", hier), PENDING_M8);
}

/* A sent report carries its tokens keyed for the endpoint it went to
 * (privacy/rekey.h); a repeat, whose fresh report has the snapshot's
 * token of the same process name, still belongs to it. */
#define SENT_S2 "66666666-6666-4666-8666-666666666666"

static void a_sent_report_with_a_keyed_token(void **state)
{
	const uint8_t key[CGFB_SECRET_LEN] = { 42 };
	struct cgfb_spool_entry e;
	struct cgfb_rekey *rk;
	char keyed[] = "h:0123456789ab", buf[512];

	assert_int_equal(cgfb_rekey_new(key, "https://collector.example/api", &rk), 0);
	cgfb_rekey_hex(rk, keyed + 2, true);
	cgfb_rekey_free(rk);
	snprintf(buf, sizeof(buf), "{\"consent\":{\"endpoint\":\"https://collector.example/api\"},"
		 "\"detection\":{\"catalog_id\":\"S2\",\"fields\":{\"comm\":\"%s\"}},"
		 "\"system\":{\"kernel\":{\"series\":\"6.1\"}}}", keyed);
	assert_int_equal(cgfb_spool_save_report(&sp, SENT_S2, buf, strlen(buf)), 0);
	assert_int_equal(cgfb_spool_load(&sp, SENT_S2, &e, NULL), 0);
	e.state = CGFB_R_SENT;
	assert_int_equal(cgfb_spool_save_state(&sp, &e), 0);
	cgfb_repeat_use_key(key);
	assert_string_equal(owner("S2", "6.1", "{\"comm\":\"h:0123456789ab\"}"), SENT_S2);
	/* Another process is still news. */
	assert_string_equal(owner("S2", "6.1", "{\"comm\":\"h:0123456789ac\"}"), "");
}

/* Two messages no catalog entry describes (G1) have the same fields (the
 * address they name); only their shaped text tells them apart. Found by
 * pastes.sh: a paste's two G1 records made one report. */
#define PENDING_G1 "55555555-5555-4555-8555-555555555555"

static void generic_messages_are_told_apart(void **state)
{
	const char *addr = "{\"address\":\"linux-mm@kvack.org\"}";

	message = "memory _ _ broke at _ for _, tell linux-mm@kvack.org";
	put(PENDING_G1, "G1", "6.1", addr, CGFB_R_PENDING);
	assert_string_equal(owner("G1", "6.1", addr), PENDING_G1);
	message = "report your usecase to linux-mm@kvack.org if you depend on this";
	assert_string_equal(owner("G1", "6.1", addr), "");
	message = NULL;
	assert_string_equal(owner("G1", "6.1", addr), "");
}

/* A report about another machine (system.facts: its log's, a copy's)
 * repeats only one with the same facts, never one of this machine, whose
 * boots it must not count; nor does this machine's repeat one of its
 * (issue 38). */
#define PENDING_M3     "77777777-7777-4777-8777-777777777777"
#define PENDING_LOG_M3 "88888888-8888-4888-8888-888888888888"

static void another_machines_reports_stand_apart(void **state)
{
	const char *soft = "{\"knob\":\"memory.soft_limit_in_bytes\"}";

	put(PENDING_M3, "M3", "6.1", soft, CGFB_R_PENDING);
	facts = "log";
	assert_string_equal(owner("M3", "6.1", soft), "");
	put(PENDING_LOG_M3, "M3", "6.1", soft, CGFB_R_PENDING);
	assert_string_equal(owner("M3", "6.1", soft), PENDING_LOG_M3);
	facts = "copy";
	assert_string_equal(owner("M3", "6.1", soft), "");
	facts = NULL;
	assert_string_equal(owner("M3", "6.1", soft), PENDING_M3);
}

static void boots_are_counted_once_each(void **state)
{
	struct cgfb_spool_entry e;
	bool counted;

	/* Before any .seen: the report was seen at its own boot. */
	assert_int_equal(cgfb_spool_load(&sp, PENDING_M9B, &e, NULL), 0);
	assert_int_equal(e.seen.boots, 1);

	assert_int_equal(cgfb_repeat_first(&sp, PENDING_M9B, "boot-a", "6.1", 1000), 0);
	assert_int_equal(cgfb_repeat_count(&sp, PENDING_M9B, "boot-b", "6.1", 2000, &counted), 0);
	assert_true(counted);
	/* The writer killed after counting and run again in the same boot. */
	assert_int_equal(cgfb_repeat_count(&sp, PENDING_M9B, "boot-b", "6.1", 2001, &counted), 0);
	assert_false(counted);
	assert_int_equal(cgfb_repeat_count(&sp, PENDING_M9B, "boot-c", "6.12", 3000, &counted), 0);
	assert_true(counted);

	assert_int_equal(cgfb_spool_load(&sp, PENDING_M9B, &e, NULL), 0);
	assert_int_equal(e.seen.boots, 3);
	assert_int_equal(e.seen.first, 1000);
	assert_int_equal(e.seen.last, 3000);
	assert_int_equal(e.seen.n_kernels, 2);
	assert_string_equal(e.seen.kernels[0], "6.1");
	assert_string_equal(e.seen.kernels[1], "6.12");
	/* Counting never touches the report or its state. */
	assert_int_equal(e.state, CGFB_R_PENDING);

	/* Past boots met again in any order (scan --report, run twice): each
	 * counts once, as long as it is among the last 16 counted. */
	assert_int_equal(cgfb_repeat_count(&sp, PENDING_M9B, "boot-a", "6.1", 3001, &counted), 0);
	assert_false(counted);
	assert_int_equal(cgfb_repeat_count(&sp, PENDING_M9B, "boot-b", "6.1", 3002, &counted), 0);
	assert_false(counted);
	assert_int_equal(cgfb_spool_load(&sp, PENDING_M9B, &e, NULL), 0);
	assert_int_equal(e.seen.boots, 3);
	assert_int_equal(e.seen.n_recent, 3);
}

static void a_damaged_seen_file_counts_as_one_boot(void **state)
{
	struct cgfb_spool_entry e;
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/reports/%s.seen", dir, SENT_M8);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"boots\":", f);
	fclose(f);
	assert_int_equal(cgfb_spool_load(&sp, SENT_M8, &e, NULL), 0);
	assert_int_equal(e.seen.boots, 1);
	assert_int_equal(e.state, CGFB_R_SENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(which_report_a_repeat_belongs_to),
		cmocka_unit_test(generic_messages_are_told_apart),
		cmocka_unit_test(another_machines_reports_stand_apart),
		cmocka_unit_test(boots_are_counted_once_each),
		cmocka_unit_test(a_damaged_seen_file_counts_as_one_boot),
		cmocka_unit_test(a_sent_report_with_a_keyed_token),
	};

	return cmocka_run_group_tests_name("repeat", tests, setup, teardown);
}
