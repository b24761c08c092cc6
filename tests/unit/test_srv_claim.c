/* Report-id squatting (issue 30): a report whose id is bound to its
 * deletion hash (cgfb/report_id.h) is its sender's. ingest_claim says what
 * a report may claim from the token shown; store_put, on a real SQLite
 * file, lets a claim take the id from a squatter's unbound report and
 * from a squatter's withdrawal, never from a bound report or from the
 * owner's own withdrawal; and a proof takes the id from a forged bound
 * copy that came by mail, never from a proven one. The reports are
 * genreport.py's: the owner's bound, the squatter's a copy of another
 * report under the owner's id, the forger's the owner's report with one
 * number changed (same id, same deletion hash: bound too). */
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <sqlite3.h>

#include "cgfb/readfile.h"
#include "cgfb/report_id.h"
#include "cgfb/schema.h"
#include "ingest/ingest.h"
#include "store/store.h"

/* The owners' reports 0..2 and a squatter's copy under each one's id. */
#define OWNERS 3

static char dir[] = "/tmp/cgfb-claim.XXXXXX";
static struct cgfb_schema *schema;
static struct cgfb_buf body[OWNERS], sq_body[OWNERS];
static struct report_meta meta[OWNERS], sq_meta[OWNERS];
static struct cgfb_buf forged_body;
static struct report_meta forged_meta;
static char token[OWNERS][80], sq_token[OWNERS][80];

static int load(const char *sub, int i, struct cgfb_buf *b, struct report_meta *m, char *tok)
{
	char path[160], err[256];
	struct cgfb_buf t = { 0 };

	snprintf(path, sizeof(path), "%s/%s/%d.json", dir, sub, i);
	if (cgfb_read_file(path, CGFB_REPORT_MAX_BYTES, 0, b) < 0 ||
	    ingest_report(schema, b->data, b->len, m, err, sizeof(err)) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/%s/%d.token", dir, sub, i);
	if (cgfb_read_file(path, 79, 0, &t) < 0)
		return -1;
	snprintf(tok, 80, "%.*s", (int)strcspn(t.data, "\n"), t.data);
	cgfb_buf_free(&t);
	return 0;
}

/* What a reader of owner i's mail can make: its report with the count
 * changed, still canonical, under the same id and deletion hash. */
static int forge(int i)
{
	char cmd[512], path[160], err[256];

	snprintf(cmd, sizeof(cmd), "python3 -c 'import json, sys\n"
		 "o = json.load(open(sys.argv[1])); o[\"detection\"][\"count\"] += 1\n"
		 "open(sys.argv[2], \"wb\").write(json.dumps(o, sort_keys=True, "
		 "separators=(\",\", \":\"), ensure_ascii=False).encode())' %s/own/%d.json "
		 "%s/forged.json", dir, i, dir);
	snprintf(path, sizeof(path), "%s/forged.json", dir);
	if (system(cmd) != 0 || cgfb_read_file(path, CGFB_REPORT_MAX_BYTES, 0, &forged_body) < 0)
		return -1;
	return ingest_report(schema, forged_body.data, forged_body.len, &forged_meta, err,
			     sizeof(err));
}

static int setup(void **state)
{
	char cmd[512], err[256], sub[16];

	if (!mkdtemp(dir) || cgfb_schema_load_builtin(&schema, err, sizeof(err)) < 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "python3 tests/server/genreport.py --dir %s/own --count %d "
		 "--bound", dir, OWNERS);
	if (system(cmd) != 0)
		return -1;
	for (int i = 0; i < OWNERS; i++) {
		if (load("own", i, &body[i], &meta[i], token[i]) < 0)
			return -1;
		snprintf(cmd, sizeof(cmd), "python3 tests/server/genreport.py --dir %s/sq%d "
			 "--count 1 --seed %d --id %s", dir, i, 50 + i, meta[i].id);
		snprintf(sub, sizeof(sub), "sq%d", i);
		if (system(cmd) != 0 || load(sub, 0, &sq_body[i], &sq_meta[i], sq_token[i]) < 0)
			return -1;
	}
	return forge(0);
}

static int teardown(void **state)
{
	char cmd[64];

	for (int i = 0; i < OWNERS; i++) {
		cgfb_buf_free(&body[i]);
		cgfb_buf_free(&sq_body[i]);
		ingest_meta_free(&meta[i]);
		ingest_meta_free(&sq_meta[i]);
	}
	cgfb_buf_free(&forged_body);
	ingest_meta_free(&forged_meta);
	cgfb_schema_free(schema);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void claims(void **state)
{
	struct report_meta m = meta[0], s = sq_meta[0];

	assert_true(cgfb_report_id_bound(m.id, m.token_sha256));
	assert_string_equal(s.id, m.id);
	assert_false(cgfb_report_id_bound(s.id, s.token_sha256));
	/* The owner's token proves it; none, another or a cut one does not. */
	assert_int_equal(ingest_claim(&m, token[0], 64, true), 0);
	assert_int_equal(m.claim, CLAIM_PROVEN);
	assert_int_equal(ingest_claim(&m, NULL, 0, true), -EACCES);
	assert_int_equal(ingest_claim(&m, token[1], 64, true), -EACCES);
	assert_int_equal(ingest_claim(&m, sq_token[0], 64, true), -EACCES);
	assert_int_equal(ingest_claim(&m, token[0], 63, true), -EACCES);
	/* A mail shows no token: a bound id claims what binding gives. */
	assert_int_equal(ingest_claim(&m, NULL, 0, false), 0);
	assert_int_equal(m.claim, CLAIM_BOUND);
	/* An unbound report claims nothing, whatever token comes with it. */
	assert_int_equal(ingest_claim(&s, sq_token[0], 64, true), 0);
	assert_int_equal(s.claim, CLAIM_NONE);
	assert_int_equal(ingest_claim(&s, token[0], 64, true), 0);
	assert_int_equal(s.claim, CLAIM_NONE);
	assert_int_equal(ingest_claim(&s, NULL, 0, true), 0);
	assert_int_equal(s.claim, CLAIM_NONE);
}

static int put_via(struct store *st, struct report_meta *m, const struct cgfb_buf *b,
		   enum report_claim c, const char *via)
{
	struct receipt r;
	int rc;

	m->claim = c;
	assert_int_equal(store_begin(st), 0);
	rc = store_put(st, m, b->data, b->len, "2026-01-01T00:00:00.000Z", via, &r);
	assert_int_equal(store_commit(st), 0);
	return rc;
}

static int put(struct store *st, struct report_meta *m, const struct cgfb_buf *b,
	       enum report_claim c)
{
	return put_via(st, m, b, c, STORE_VIA_HTTP);
}

static int withdraw(struct store *st, const char *id, const char *tok)
{
	int rc;

	assert_int_equal(store_begin(st), 0);
	rc = store_delete(st, id, tok, "2026-01-01T00:00:01.000Z");
	assert_int_equal(store_commit(st), 0);
	return rc;
}

/* The sha256 of the report stored under id. */
static void stored(struct store *st, const char *id, char sha[65])
{
	struct cgfb_buf b = { 0 };
	struct receipt r;

	assert_int_equal(store_get(st, id, &b, &r), 0);
	snprintf(sha, 65, "%s", r.sha256);
	cgfb_buf_free(&b);
}

static void replaces_squatter(void **state)
{
	struct store *st = NULL;
	char path[96], sha[65];

	snprintf(path, sizeof(path), "%s/replaces.db", dir);
	assert_int_equal(store_open(&st, path, false), 0);
	/* The squatter first: accepted, first come. */
	assert_int_equal(put(st, &sq_meta[0], &sq_body[0], CLAIM_NONE), STORE_CREATED);
	/* Unproven, the owner's report is a conflict like any other. */
	assert_int_equal(put(st, &meta[0], &body[0], CLAIM_NONE), STORE_CONFLICT);
	/* Proven, it takes the id: the owner's bytes are stored. */
	assert_int_equal(put(st, &meta[0], &body[0], CLAIM_PROVEN), STORE_CREATED);
	stored(st, meta[0].id, sha);
	assert_string_equal(sha, meta[0].sha256);
	assert_int_equal(put(st, &meta[0], &body[0], CLAIM_PROVEN), STORE_SAME);
	/* A bound row is not replaced: not by an unbound report, and not by
	 * a claim with other bytes either. */
	assert_int_equal(put(st, &sq_meta[0], &sq_body[0], CLAIM_NONE), STORE_CONFLICT);
	assert_int_equal(put(st, &sq_meta[0], &sq_body[0], CLAIM_PROVEN), STORE_CONFLICT);
	stored(st, meta[0].id, sha);
	assert_string_equal(sha, meta[0].sha256);
	/* A mail's bound report takes an unbound row's id too. */
	assert_int_equal(put(st, &sq_meta[1], &sq_body[1], CLAIM_NONE), STORE_CREATED);
	assert_int_equal(put(st, &meta[1], &body[1], CLAIM_BOUND), STORE_CREATED);
	stored(st, meta[1].id, sha);
	assert_string_equal(sha, meta[1].sha256);
	store_close(st);
}

static void mail_copies(void **state)
{
	struct store *st = NULL;
	char path[96], sha[65];

	snprintf(path, sizeof(path), "%s/mail.db", dir);
	assert_int_equal(store_open(&st, path, false), 0);
	assert_string_equal(forged_meta.id, meta[0].id);
	assert_string_equal(forged_meta.token_sha256, meta[0].token_sha256);
	assert_string_not_equal(forged_meta.sha256, meta[0].sha256);
	/* The forger's mail is imported first: bound, so stored. */
	assert_int_equal(put_via(st, &forged_meta, &forged_body, CLAIM_BOUND, STORE_VIA_MAIL),
			 STORE_CREATED);
	/* The owner's own mail after it: between two unproven copies the
	 * first stays. */
	assert_int_equal(put_via(st, &meta[0], &body[0], CLAIM_BOUND, STORE_VIA_MAIL),
			 STORE_CONFLICT);
	stored(st, meta[0].id, sha);
	assert_string_equal(sha, forged_meta.sha256);
	/* The owner's proven POST takes the id from the mailed copy. */
	assert_int_equal(put(st, &meta[0], &body[0], CLAIM_PROVEN), STORE_CREATED);
	stored(st, meta[0].id, sha);
	assert_string_equal(sha, meta[0].sha256);
	assert_int_equal(put(st, &meta[0], &body[0], CLAIM_PROVEN), STORE_SAME);
	/* A row stored by proof stays: against the forged mail, and against
	 * other bytes proven by the same token (only its holder makes those). */
	assert_int_equal(put_via(st, &forged_meta, &forged_body, CLAIM_BOUND, STORE_VIA_MAIL),
			 STORE_CONFLICT);
	assert_int_equal(put(st, &forged_meta, &forged_body, CLAIM_PROVEN), STORE_CONFLICT);
	stored(st, meta[0].id, sha);
	assert_string_equal(sha, meta[0].sha256);
	store_close(st);
}

static void withdrawals(void **state)
{
	struct store *st = NULL;
	char path[96], sql[256];
	sqlite3 *raw;

	snprintf(path, sizeof(path), "%s/withdrawals.db", dir);
	assert_int_equal(store_open(&st, path, false), 0);
	/* The squatter withdraws its copy with its own token: the owner's
	 * proof still stores the report, a mail's bound copy does not. */
	assert_int_equal(put(st, &sq_meta[0], &sq_body[0], CLAIM_NONE), STORE_CREATED);
	assert_int_equal(withdraw(st, sq_meta[0].id, sq_token[0]), 0);
	assert_int_equal(put(st, &sq_meta[0], &sq_body[0], CLAIM_NONE), STORE_WITHDRAWN);
	assert_int_equal(put(st, &meta[0], &body[0], CLAIM_BOUND), STORE_WITHDRAWN);
	assert_int_equal(put(st, &meta[0], &body[0], CLAIM_PROVEN), STORE_CREATED);
	/* The owner's own withdrawal holds against its own proof. */
	assert_int_equal(withdraw(st, meta[0].id, token[0]), 0);
	assert_int_equal(put(st, &meta[0], &body[0], CLAIM_PROVEN), STORE_WITHDRAWN);
	/* A marker of before the hash was kept (NULL) holds for everyone. */
	snprintf(sql, sizeof(sql), "INSERT INTO withdrawn (id, at) VALUES ('%s', 'x')", meta[2].id);
	assert_int_equal(sqlite3_open(path, &raw), SQLITE_OK);
	assert_int_equal(sqlite3_exec(raw, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(raw);
	assert_int_equal(put(st, &meta[2], &body[2], CLAIM_PROVEN), STORE_WITHDRAWN);
	store_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(claims),
		cmocka_unit_test(replaces_squatter),
		cmocka_unit_test(mail_copies),
		cmocka_unit_test(withdrawals),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
