/* The collector's modules on their own: the per-address rate limiter, the
 * ingest check of a report body, the option parser, address keys, the
 * connection shares and the framing verdict of a request head. */
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cgfb/canon.h"
#include "cgfb/readfile.h"
#include "cgfb/schema.h"
#include "ingest/ingest.h"
#include "conf/options.h"
#include "http/conntrack.h"
#include "http/framing.h"
#include "api/params.h"
#include "http/peer.h"
#include "http/ratelimit.h"
#include "http/refusals.h"

#include <arpa/inet.h>
#include <json-c/json.h>
#include <string.h>

static char dir[] = "/tmp/cgfb-srv.XXXXXX";
static struct cgfb_schema *schema;
static struct cgfb_buf good;

/* A schema-valid report from the generator the integration tests use. */
static int setup(void **state)
{
	char cmd[256], path[64], err[256];

	if (!mkdtemp(dir) || cgfb_schema_load_builtin(&schema, err, sizeof(err)) < 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "python3 tests/server/genreport.py --dir %s --count 1", dir);
	if (system(cmd) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/0.json", dir);
	return cgfb_read_file(path, CGFB_REPORT_MAX_BYTES, 0, &good);
}

static int teardown(void **state)
{
	char cmd[64];

	cgfb_buf_free(&good);
	cgfb_schema_free(schema);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void rate_limits(void **state)
{
	struct ratelimit *rl;

	/* A burst of 3, then a wait; another address has its own bucket. */
	assert_int_equal(ratelimit_new(&rl, 0.5, 3), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(ratelimit_take(rl, "127.0.0.2"), 0);
	assert_true(ratelimit_take(rl, "127.0.0.2") >= 1);
	assert_int_equal(ratelimit_take(rl, "127.0.0.3"), 0);
	/* peek answers as take would, and takes nothing: what the login
	 * limit asks before checking a token, charging only a wrong one. */
	for (int i = 0; i < 10; i++)
		assert_int_equal(ratelimit_peek(rl, "127.0.0.3"), 0);
	assert_int_equal(ratelimit_take(rl, "127.0.0.3"), 0);
	assert_int_equal(ratelimit_take(rl, "127.0.0.3"), 0);
	assert_true(ratelimit_peek(rl, "127.0.0.3") >= 1);
	assert_true(ratelimit_peek(rl, "127.0.0.2") >= 1);
	ratelimit_free(rl);
	/* A heavy request charged as five: a burst of 3 is spent and owed
	 * (issue 41); the next request waits out the debt, not one token. */
	assert_int_equal(ratelimit_new(&rl, 0.5, 3), 0);
	assert_int_equal(ratelimit_take(rl, "127.0.0.2"), 0);
	ratelimit_charge(rl, "127.0.0.2", 4);
	assert_true(ratelimit_take(rl, "127.0.0.2") >= 5);
	/* The debt is bounded by the burst. */
	ratelimit_charge(rl, "127.0.0.4", 1000);
	assert_true(ratelimit_take(rl, "127.0.0.4") <= 8);
	assert_int_equal(ratelimit_take(rl, "127.0.0.3"), 0);
	ratelimit_free(rl);
	/* Rate 0: no limit. */
	assert_int_equal(ratelimit_new(&rl, 0, 1), 0);
	for (int i = 0; i < 100; i++)
		assert_int_equal(ratelimit_take(rl, "127.0.0.2"), 0);
	ratelimit_free(rl);
}

/* good with the text from its first `from` to the end of the next `until`
 * replaced by `to`; ingest refuses it, naming `where`. */
static void expect_refused(const char *from, const char *until, const char *to,
			   const char *where)
{
	const char *at = strstr(good.data, from), *end;
	struct report_meta m;
	char err[256], *bad;

	assert_non_null(at);
	end = strstr(at + strlen(from), until);
	assert_non_null(end);
	end += strlen(until);
	bad = malloc(good.len + strlen(to) + 1);
	assert_non_null(bad);
	memcpy(bad, good.data, (size_t)(at - good.data));
	strcpy(bad + (at - good.data), to);
	strcat(bad, end);
	assert_int_equal(ingest_report(schema, bad, strlen(bad), &m, err, sizeof(err)), -EINVAL);
	if (!strstr(err, where))
		fail_msg("refused for '%s', not at %s", err, where);
	ingest_meta_free(&m);
	free(bad);
}

static void ingests(void **state)
{
	struct report_meta m;
	char err[256], *bad;

	assert_int_equal(ingest_report(schema, good.data, good.len, &m, err, sizeof(err)), 0);
	assert_true(cgfb_report_id_valid(m.id));
	assert_int_equal(strlen(m.install), 32);
	assert_int_equal(strlen(m.sha256), 64);
	ingest_meta_free(&m);
	/* Not JSON, not canonical, too big, or against the schema: refused,
	 * the place named. */
	assert_int_equal(ingest_report(schema, "{", 1, &m, err, sizeof(err)), -EINVAL);
	ingest_meta_free(&m);
	bad = strdup(good.data);
	bad[1] = ' ';
	assert_int_equal(ingest_report(schema, bad, strlen(bad), &m, err, sizeof(err)), -EINVAL);
	ingest_meta_free(&m);
	free(bad);
	assert_int_equal(ingest_report(schema, good.data, CGFB_REPORT_MAX_BYTES + 1, &m, err,
				       sizeof(err)), -E2BIG);
	ingest_meta_free(&m);
	/* Within the bytes, too many values: refused before it is parsed,
	 * saying why (issue 41: 125,000 small integers). */
	bad = malloc(2 * 125000 + 2);
	assert_non_null(bad);
	bad[0] = '[';
	for (int i = 0; i < 125000; i++)
		memcpy(bad + (i ? 2 * i : 1), i ? ",0" : "0", i ? 2 : 1);
	strcpy(bad + 2 * 125000, "]");
	assert_true(strlen(bad) <= CGFB_REPORT_MAX_BYTES);
	assert_int_equal(ingest_report(schema, bad, strlen(bad), &m, err, sizeof(err)), -EMSGSIZE);
	assert_non_null(strstr(err, "65536 JSON values"));
	ingest_meta_free(&m);
	free(bad);
	assert_true(cgfb_json_values(good.data, good.len) < CGFB_REPORT_VALUES_MAX / 8);
	bad = strdup(good.data);
	memcpy(strstr(bad, "\"schema_version\":1"), "\"schema_version\":2", 18);
	assert_int_equal(ingest_report(schema, bad, strlen(bad), &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "/schema_version"));
	ingest_meta_free(&m);
	free(bad);
	/* A report nobody consented to, or made on a day that never was, is
	 * not stored (issue 30). */
	expect_refused("\"consent\":{", "}", "\"consent\":null", "/consent");
	expect_refused("\"created\":\"", "Z\"", "\"created\":\"2026-02-30T00:00:00Z\"",
		       "/created");
	expect_refused("\"created\":\"", "Z\"", "\"created\":\"9999-99-99T99:99:99Z\"",
		       "/created");
}

/* good with its use case's text replaced by text, canonical. */
static void with_use_case_text(const char *text, struct cgfb_buf *out)
{
	json_object *o = json_tokener_parse(good.data), *uc = json_object_new_object();

	json_object_object_add(uc, "text", json_object_new_string(text));
	json_object_object_add(uc, "answers", json_object_new_object());
	json_object_object_add(o, "use_case", uc);
	assert_int_equal(cgfb_canon_serialize(o, CGFB_REPORT_MAX_BYTES, out), 0);
	json_object_put(o);
}

/* An empty use case is none, whatever the store (PostgreSQL stored NULL
 * and SQLite "", so the list's "with a use case" differed between them). */
static void empty_use_case_is_none(void **state)
{
	struct cgfb_buf b = { 0 };
	struct report_meta m;
	char err[256];

	with_use_case_text("", &b);
	assert_int_equal(ingest_report(schema, b.data, b.len, &m, err, sizeof(err)), 0);
	assert_null(m.use_case);
	ingest_meta_free(&m);
	b.len = 0;
	with_use_case_text("We pin memory per tenant.", &b);
	assert_int_equal(ingest_report(schema, b.data, b.len, &m, err, sizeof(err)), 0);
	assert_string_equal(m.use_case, "We pin memory per tenant.");
	ingest_meta_free(&m);
	cgfb_buf_free(&b);
}

static void parses_options(void **state)
{
	struct server_opts o;
	char *ok[] = { "serve", "--listen", "127.0.0.1:0", "--database", "/tmp/x.sqlite",
		       "--rate", "2", "--burst", "5", NULL };
	char *bad[] = { "serve", "--rate", "fast", NULL };
	static const char *const bad_interval[] = { "0", "10", "", "2s", "-1" };

	optind = 0;     /* glibc: start getopt afresh, as main.c does per command */
	assert_int_equal(options_parse(&o, 9, ok), 0);
	assert_string_equal(o.listen, "127.0.0.1:0");
	assert_string_equal(o.db_path, "/tmp/x.sqlite");
	assert_true(o.rate == 2.0);
	assert_int_equal(o.burst, 5);
	optind = 0;
	assert_int_equal(options_parse(&o, 3, bad), -EINVAL);

	/* The test-only log interval: unset by default, 1 to 9 when set. */
	optind = 0;
	assert_int_equal(options_parse(&o, 9, ok), 0);
	assert_int_equal(o.test_log_interval, 0);
	setenv("CGFB_SERVER_TEST_LOG_INTERVAL", "2", 1);
	optind = 0;
	assert_int_equal(options_parse(&o, 9, ok), 0);
	assert_int_equal(o.test_log_interval, 2);
	for (size_t i = 0; i < sizeof(bad_interval) / sizeof(bad_interval[0]); i++) {
		setenv("CGFB_SERVER_TEST_LOG_INTERVAL", bad_interval[i], 1);
		optind = 0;
		if (options_parse(&o, 9, ok) != -EINVAL)
			fail_msg("CGFB_SERVER_TEST_LOG_INTERVAL='%s' taken", bad_interval[i]);
	}
	unsetenv("CGFB_SERVER_TEST_LOG_INTERVAL");
}

/* Query values: whole decimal digits, nothing around them, within max. */
static void parses_query_values(void **state)
{
	static const char *const bad[] = {
		"", "7x", "-1", "+7", " 7", "7 ", "0x10", "3661", "4294967303",
		"18446744073709551616", "99999999999999999999999",
	};
	uint64_t v;

	assert_true(params_uint(NULL, 3660, 7, &v));
	assert_int_equal(v, 7);
	assert_true(params_uint("3660", 3660, 7, &v));
	assert_int_equal(v, 3660);
	assert_true(params_uint("0007", 3660, 7, &v));
	assert_int_equal(v, 7);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (params_uint(bad[i], 3660, 7, &v))
			fail_msg("'%s' taken for %llu", bad[i], (unsigned long long)v);
	assert_true(params_uint("18446744073709551615", UINT64_MAX, 0, &v));
	assert_true(v == UINT64_MAX);
	assert_true(params_json_content_type("application/json"));
	assert_true(params_json_content_type("Application/JSON ; charset=\"UTF-8\""));
	assert_false(params_json_content_type("application/jsonp"));
	assert_false(params_json_content_type("application/json; charset=latin1"));
	assert_false(params_json_content_type(NULL));
}

static struct sockaddr_storage addr(const char *text)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

	if (inet_pton(AF_INET, text, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		return ss;
	}
	assert_int_equal(inet_pton(AF_INET6, text, &s6->sin6_addr), 1);
	s6->sin6_family = AF_INET6;
	return ss;
}

/* One IPv6 site has a /48 to itself: every address in it is one key, the
 * 256 /64s of one /56 and the 256 /56s of one /48 included (peer.h). */
static void keys_peers(void **state)
{
	static const struct {
		const char *addr, *key;
	} cases[] = {
		{ "192.0.2.7", "192.0.2.7" },
		{ "::ffff:192.0.2.7", "192.0.2.7" },
		{ "2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1::/48" },
		{ "2001:db8:1:2::1", "2001:db8:1::/48" },
		{ "2001:db8:1:3::1", "2001:db8:1::/48" },
		{ "2001:db8:1:ff00::1", "2001:db8:1::/48" },
		{ "2001:db8:1:ffff::1", "2001:db8:1::/48" },
		{ "2001:db8:2::1", "2001:db8:2::/48" },
		{ "2001:db9:1::1", "2001:db9:1::/48" },
		{ "::1", "::/48" },
	};
	char key[PEER_KEY_MAX];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct sockaddr_storage ss = addr(cases[i].addr);

		assert_int_equal(peer_key((const struct sockaddr *)&ss, key), 0);
		assert_string_equal(key, cases[i].key);
	}
	assert_int_equal(peer_key(NULL, key), -EAFNOSUPPORT);
}

/* Slots by key: per_key at most, and the last quarter only for keys that
 * hold fewer than CONNTRACK_FAIR; each refusal says which rule it was. */
static void shares_connections(void **state)
{
	struct conntrack *ct;
	struct conn *held[16];
	const struct sockaddr_storage a = addr("2001:db8::1"), a2 = addr("2001:db8::2"),
		b = addr("192.0.2.1"), c = addr("192.0.2.2"), d = addr("192.0.2.3");
	const char *why;
	unsigned n = 0;

	assert_int_equal(conntrack_start(&ct, 16, 8, 10), 0);
	while (conntrack_admit(ct, (const struct sockaddr *)(n % 2 ? &a : &a2), &why))
		held[n++] = conntrack_add(ct, (const struct sockaddr *)&a, -1);
	assert_int_equal(n, 8);            /* one /48: per_key */
	assert_string_equal(why, CONNTRACK_WHY_PER_KEY);
	while (conntrack_admit(ct, (const struct sockaddr *)&b, &why))
		held[n++] = conntrack_add(ct, (const struct sockaddr *)&b, -1);
	assert_int_equal(n, 12);           /* the last quarter (4) is reserved */
	assert_string_equal(why, CONNTRACK_WHY_FAIR);
	assert_int_equal(conntrack_count(ct), 12);
	while (conntrack_admit(ct, (const struct sockaddr *)&c, &why))
		held[n++] = conntrack_add(ct, (const struct sockaddr *)&c, -1);
	assert_int_equal(n, 16 > 12 + CONNTRACK_FAIR ? 12 + CONNTRACK_FAIR : 16);
	assert_false(conntrack_admit(ct, (const struct sockaddr *)&c, &why));
	assert_string_equal(why, CONNTRACK_WHY_FULL);
	conntrack_remove(ct, held[0]);
	/* A free slot in the reserved quarter: not for a key holding many. */
	assert_false(conntrack_admit(ct, (const struct sockaddr *)&a, &why));
	assert_string_equal(why, CONNTRACK_WHY_FAIR);
	assert_true(conntrack_admit(ct, (const struct sockaddr *)&d, &why));
	assert_null(why);
	held[0] = conntrack_add(ct, (const struct sockaddr *)&d, -1);
	for (unsigned i = 0; i < n; i++)
		conntrack_remove(ct, held[i]);
	assert_int_equal(conntrack_count(ct), 0);
	conntrack_stop(ct);
}

/* An admission holds its slot until its connection is added: the event
 * loops admit on threads of their own, and two admissions of a key's
 * last slot before either add held 129 of 128. A slot admitted and never
 * added (libmicrohttpd failed the connection) is given up by the reaper. */
static void admission_holds_the_slot(void **state)
{
	struct conntrack *ct;
	struct conn *held[4];
	const struct sockaddr_storage a = addr("192.0.2.1"), a2 = addr("192.0.2.1"),
		b = addr("192.0.2.2");
	const char *why;

	assert_int_equal(conntrack_start(&ct, 8, 3, 10), 0);
	/* Three admitted, none added yet: the fourth is refused. */
	for (int i = 0; i < 3; i++)
		assert_true(conntrack_admit(ct, (const struct sockaddr *)&a, &why));
	assert_false(conntrack_admit(ct, (const struct sockaddr *)&a2, &why));
	assert_string_equal(why, CONNTRACK_WHY_PER_KEY);
	assert_int_equal(conntrack_count(ct), 3);
	/* Each add takes a held slot: still three. */
	for (int i = 0; i < 3; i++)
		held[i] = conntrack_add(ct, (const struct sockaddr *)&a, -1);
	assert_int_equal(conntrack_count(ct), 3);
	assert_false(conntrack_admit(ct, (const struct sockaddr *)&a, &why));
	/* One admitted and never added: its slot is free within 3 s. */
	assert_true(conntrack_admit(ct, (const struct sockaddr *)&b, &why));
	assert_int_equal(conntrack_count(ct), 4);
	for (int i = 0; i < 40 && conntrack_count(ct) > 3; i++)
		usleep(100000);
	assert_int_equal(conntrack_count(ct), 3);
	for (int i = 0; i < 3; i++)
		conntrack_remove(ct, held[i]);
	assert_int_equal(conntrack_count(ct), 0);
	conntrack_stop(ct);
}

struct lines {
	unsigned n;
	char text[8][128];
};

static void keep_line(void *ud, const char *key, const char *why, unsigned long n,
		      unsigned seconds)
{
	struct lines *l = ud;

	assert_true(l->n < 8);
	snprintf(l->text[l->n++], sizeof(l->text[0]), "%lu %s %u %s", n, key, seconds, why);
}

struct tally {
	unsigned lines;
	unsigned long refused, others;
};

static void tally_line(void *ud, const char *key, const char *why, unsigned long n,
		       unsigned seconds)
{
	struct tally *t = ud;

	t->lines++;
	t->refused += n;
	if (strcmp(key, REFUSALS_OTHERS) == 0)
		t->others = n;
}

/* 2,000 refusals from one address in 5 s: the first is logged as usual,
 * the whole count in one line once the interval is over, not before. */
static void counts_refusals(void **state)
{
	struct refusals *r;
	struct lines l = { 0 };
	unsigned first = 0;

	assert_int_equal(refusals_new(&r, 10), 0);
	for (int i = 0; i < 2000; i++)
		first += refusals_note(r, "192.0.2.7", "rate limit", 100 + i * 0.0025);
	first += refusals_note(r, "192.0.2.8", "rate limit", 101);
	assert_int_equal(first, 2);
	refusals_flush(r, 109.9, false, keep_line, &l);
	assert_int_equal(l.n, 0);
	refusals_flush(r, 110.5, false, keep_line, &l);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.text[0], "2000 192.0.2.7 11 rate limit");
	/* 192.0.2.8 was refused once: its line was the request's own. */
	refusals_flush(r, 111.5, false, keep_line, &l);
	assert_int_equal(l.n, 1);
	/* A new interval starts with a logged refusal again. */
	assert_true(refusals_note(r, "192.0.2.7", "rate limit", 120));
	assert_false(refusals_note(r, "192.0.2.7", "rate limit", 121));
	refusals_flush(r, 122, true, keep_line, &l);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.text[1], "2 192.0.2.7 2 rate limit");
	refusals_free(r);
}

/* Connections refused at accept, counted as the 429s are: one address
 * refused by two rules gets a line per rule, each with its own count. */
static void counts_connection_refusals(void **state)
{
	struct refusals *r;
	struct lines l = { 0 };
	unsigned first = 0;

	assert_int_equal(refusals_new(&r, 10), 0);
	for (int i = 0; i < 300; i++)
		first += refusals_note(r, "192.0.2.7", CONNTRACK_WHY_PER_KEY, 100 + i * 0.01);
	for (int i = 0; i < 40; i++)
		first += refusals_note(r, "192.0.2.7", CONNTRACK_WHY_FULL, 102 + i * 0.01);
	assert_int_equal(first, 2);
	refusals_flush(r, 111, false, keep_line, &l);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.text[0], "300 192.0.2.7 11 " CONNTRACK_WHY_PER_KEY);
	refusals_flush(r, 113, false, keep_line, &l);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.text[1], "40 192.0.2.7 11 " CONNTRACK_WHY_FULL);
	refusals_free(r);
}

/* Many more addresses than the table holds: still a bounded number of
 * lines, every refusal counted, those that found no room together. */
static void counts_refusals_of_many_addresses(void **state)
{
	struct refusals *r;
	struct tally t = { 0 };
	char key[PEER_KEY_MAX];

	assert_int_equal(refusals_new(&r, 10), 0);
	for (int i = 0; i < 100000; i++) {
		snprintf(key, sizeof(key), "10.%d.%d.%d", i >> 16, (i >> 8) & 255, i & 255);
		refusals_note(r, key, "rate limit", 0);
		refusals_note(r, key, "rate limit", 0);
	}
	refusals_flush(r, 10, true, tally_line, &t);
	assert_true(t.lines <= 512 + 1);
	assert_true(t.others > 100000);
	assert_int_equal(t.refused, 200000);
	refusals_free(r);
}

/* Whether the server end of pair sv was shut down: the client end reads
 * end of file instead of waiting. */
static bool was_shut(const int sv[2])
{
	char c;

	return recv(sv[1], &c, 1, MSG_DONTWAIT) == 0;
}

/* Every slot taken by keys each under every share (many addresses, 3 slow
 * heads each): a newcomer gets the slot of the oldest head not in, never
 * one whose head is in, and a key holding CONNTRACK_FAIR gets nothing. */
static void evicts_oldest_incomplete_head(void **state)
{
	struct conntrack *ct;
	struct conn *held[4];
	int sv[4][2];
	const struct sockaddr_storage a[4] = { addr("192.0.2.1"), addr("192.0.2.2"),
					       addr("192.0.2.3"), addr("192.0.2.4") },
		fresh = addr("198.51.100.1"), fresh2 = addr("198.51.100.2"),
		many = addr("203.0.113.1");
	const char *why;

	assert_int_equal(conntrack_start(&ct, 4, 4, 10), 0);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv[i]), 0);
		assert_true(conntrack_admit(ct, (const struct sockaddr *)&a[i], &why));
		held[i] = conntrack_add(ct, (const struct sockaddr *)&a[i], sv[i][0]);
	}
	conntrack_head_done(ct, held[0]);          /* the oldest, but being served */
	assert_true(conntrack_admit(ct, (const struct sockaddr *)&fresh, &why));
	assert_false(was_shut(sv[0]));
	assert_true(was_shut(sv[1]));
	assert_false(was_shut(sv[2]));
	/* The shut one is still listed until libmicrohttpd closes it, and
	 * the newcomer's slot is held from its admission. */
	assert_int_equal(conntrack_count(ct), 5);
	struct conn *n1 = conntrack_add(ct, (const struct sockaddr *)&fresh, -1);

	assert_int_equal(conntrack_count(ct), 5);

	assert_true(conntrack_admit(ct, (const struct sockaddr *)&fresh2, &why));
	assert_true(was_shut(sv[2]));
	assert_false(was_shut(sv[3]));
	struct conn *n2 = conntrack_add(ct, (const struct sockaddr *)&fresh2, -1);

	conntrack_head_done(ct, held[3]);
	conntrack_head_done(ct, n1);
	conntrack_head_done(ct, n2);
	/* Every head in: nothing to give up. */
	assert_false(conntrack_admit(ct, (const struct sockaddr *)&many, &why));
	assert_string_equal(why, CONNTRACK_WHY_FULL);
	conntrack_wait_head(ct, held[3]);          /* kept alive, idle */
	assert_true(conntrack_admit(ct, (const struct sockaddr *)&many, &why));
	assert_true(was_shut(sv[3]));
	conntrack_remove(ct, conntrack_add(ct, (const struct sockaddr *)&many, -1));
	for (int i = 0; i < 4; i++) {
		conntrack_remove(ct, held[i]);
		close(sv[i][0]);
		close(sv[i][1]);
	}
	conntrack_remove(ct, n1);
	conntrack_remove(ct, n2);
	assert_int_equal(conntrack_count(ct), 0);
	conntrack_stop(ct);
}

/* A key already holding CONNTRACK_FAIR takes no one's slot. */
static void does_not_evict_for_a_key_holding_many(void **state)
{
	struct conntrack *ct;
	struct conn *held[8];
	int sv[2];
	const struct sockaddr_storage a = addr("192.0.2.1"), b = addr("192.0.2.2");
	const char *why;
	unsigned n = 0;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(conntrack_start(&ct, 8, 8, 10), 0);
	held[n++] = conntrack_add(ct, (const struct sockaddr *)&b, sv[0]);
	while (n < 8 && conntrack_admit(ct, (const struct sockaddr *)&a, &why))
		held[n++] = conntrack_add(ct, (const struct sockaddr *)&a, -1);
	assert_int_equal(n, 8 - 8 / 4);                /* the rest is for the fair */
	while (n < 8)
		held[n++] = conntrack_add(ct, (const struct sockaddr *)&b, -1);
	assert_false(conntrack_admit(ct, (const struct sockaddr *)&a, &why));
	assert_string_equal(why, CONNTRACK_WHY_FULL);
	assert_false(was_shut(sv));
	for (unsigned i = 0; i < n; i++)
		conntrack_remove(ct, held[i]);
	close(sv[0]);
	close(sv[1]);
	conntrack_stop(ct);
}

/* head "Name: value\n..." HTTP11 WHY: the status of a head holding these
 * fields (one a line, name up to the first ':', value after it and its
 * white space; "\f" in a line marks it folded), *why its reason. */
static unsigned head(const char *fields, bool http11, const char **why)
{
	struct framing f = { 0 };
	const char *p = fields;

	while (*p) {
		const char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p);
		const char *colon = memchr(p, ':', (size_t)(end - p)), *v;
		const bool folded = memchr(p, '\f', (size_t)(end - p)) != NULL;

		assert_non_null(colon);
		for (v = colon + 1; v < end && (*v == ' ' || *v == '\t'); v++)
			;
		framing_field(&f, p, (size_t)(colon - p), v,
			      (size_t)(end - v) - (folded ? 1 : 0), folded);
		p = nl ? nl + 1 : end;
	}
	return framing_verdict(&f, http11, why);
}

#define REFUSED(status, fields, http11) do {				\
	const char *why_;						\
	assert_int_equal(head(fields, http11, &why_), status);		\
	assert_non_null(why_);						\
} while (0)

#define FINE(fields, http11) do {					\
	const char *why_;						\
	assert_int_equal(head(fields, http11, &why_), 0);		\
	assert_null(why_);						\
} while (0)

/* RFC 9112 6.3: each way two ends can disagree on where a body ends. */
static void rfc9112_6_3_two_framings(void **state)
{
	const char *why;

	assert_int_equal(head("Host: x\nContent-Length: 5\nTransfer-Encoding: chunked", true,
			      &why), 400);
	assert_string_equal(why, "both Content-Length and Transfer-Encoding");
	REFUSED(400, "Host: x\ntransfer-encoding: chunked\nCONTENT-LENGTH: 5", false);
	assert_int_equal(head("Host: x\nContent-Length: 5\nContent-Length: 5", true, &why), 400);
	assert_string_equal(why, "more than one Content-Length");
	REFUSED(400, "Host: x\nContent-Length: 5\nContent-Length: 40", true);
	REFUSED(400, "Host: x\nTransfer-Encoding: chunked\nTransfer-Encoding: chunked", true);
}

/* RFC 9112 6.3 item 4: chunked not the final coding (or absent): 400,
 * even where the coding is also unknown (a MUST over 6.1's SHOULD). */
static void rfc9112_6_3_chunked_not_final(void **state)
{
	REFUSED(400, "Host: x\nTransfer-Encoding: gzip", true);
	REFUSED(400, "Host: x\nTransfer-Encoding: chunked, identity", true);
	REFUSED(400, "Host: x\nTransfer-Encoding: chunked, gzip", true);
	REFUSED(400, "Host: x\nTransfer-Encoding:", true);
	REFUSED(400, "Host: x\nTransfer-Encoding: ,", true);
}

/* RFC 9112 7: chunked applied more than once. */
static void rfc9112_7_chunked_twice(void **state)
{
	REFUSED(400, "Host: x\nTransfer-Encoding: chunked, chunked", true);
}

/* RFC 9112 6.1: a coding not implemented, chunked last: 501. And a
 * "chunked" libmicrohttpd would not take as one (RFC 9110 15.6.2). */
static void rfc9112_6_1_unknown_coding(void **state)
{
	const char *why;

	assert_int_equal(head("Host: x\nTransfer-Encoding: gzip, chunked", true, &why), 501);
	assert_string_equal(why, "Transfer-Encoding names a coding this server does not "
			    "implement");
	REFUSED(501, "Host: x\nTransfer-Encoding: x-custom;q=1, chunked", true);
	REFUSED(501, "Host: x\nTransfer-Encoding: chunked ", true);
	REFUSED(501, "Host: x\nTransfer-Encoding: chunked\t", true);
	REFUSED(501, "Host: x\nTransfer-Encoding: chunked,", true);
	/* A 400 of the head wins over the 501. */
	REFUSED(400, "Transfer-Encoding: gzip, chunked", true);
	REFUSED(400, "Host: x\nHost: y\nTransfer-Encoding: gzip, chunked", true);
	/* Not a list of codings at all. */
	REFUSED(400, "Host: x\nTransfer-Encoding: \"chunked\"", true);
}

/* RFC 9112 6.1: Transfer-Encoding in an HTTP/1.0 request is faulty framing. */
static void rfc9112_6_1_transfer_encoding_http10(void **state)
{
	REFUSED(400, "Transfer-Encoding: chunked", false);
}

/* RFC 9112 5.1: white space between a field name and its colon, as
 * libmicrohttpd hands it over (kept in the name); RFC 9110 5.1: a name is
 * a token. */
static void rfc9112_5_1_space_before_colon(void **state)
{
	const char *why;

	assert_int_equal(head("Host: x\nTransfer-Encoding : chunked", true, &why), 400);
	assert_string_equal(why, "a header field name that is not a token (white space before "
			    "the colon?)");
	REFUSED(400, "Host: x\nContent-Length : 47", true);
	REFUSED(400, "Host: x\nContent-Length\t: 47", true);
	REFUSED(400, "Host : x", true);
	REFUSED(400, "Host: x\nX\rY: z", true);
	REFUSED(400, "Host: x\n: empty name", true);
	REFUSED(400, "Host: x\nX(Y): z", true);
}

/* RFC 9112 2.2: a bare CR; RFC 9110 5.5: CR, LF, NUL in a value. */
static void rfc9112_2_2_bare_cr(void **state)
{
	const char *why;
	struct framing f = { 0 };

	assert_int_equal(head("Host: x\nX-A: a\rTransfer-Encoding: chunked\nContent-Length: 5",
			      true, &why), 400);
	assert_string_equal(why, "a header field value with CR, LF, NUL or another control "
			    "character");
	REFUSED(400, "Host: x\nX-A: a\rContent-Length: 47", true);
	REFUSED(400, "Host: x\rEvil: 1", true);
	framing_field(&f, "Host", 4, "x", 1, false);
	framing_field(&f, "X-N", 3, "a\0b", 3, false);
	assert_int_equal(framing_verdict(&f, true, &why), 400);
	REFUSED(400, "Host: x\nX-B: a\x01", true);
	REFUSED(400, "Host: x\nX-B: a\x7f", true);
}

/* RFC 9112 5.2: obs-fold in a request: 400. The fold as libmicrohttpd
 * 0.9.75 hands it over: the continuation appended to the name. */
static void rfc9112_5_2_obs_fold(void **state)
{
	const char *why;

	assert_int_equal(head("Host: x\nContent-Length7: 4\f", true, &why), 400);
	assert_string_equal(why, "a header field folded over several lines (obs-fold)");
	REFUSED(400, "Host: x\nX-Foob: a\f\nContent-Length: 0", true);
}

/* RFC 9110 8.6: Content-Length = 1*DIGIT. */
static void rfc9110_8_6_content_length_digits(void **state)
{
	REFUSED(400, "Host: x\nContent-Length: +5", true);
	REFUSED(400, "Host: x\nContent-Length: 5, 5", true);
	REFUSED(400, "Host: x\nContent-Length:", true);
	FINE("Host: x\nContent-Length: 0047", true);
}

/* RFC 9112 3.2: more than one Host, a Host not host[:port], or none in
 * HTTP/1.1: 400. */
static void rfc9112_3_2_host(void **state)
{
	const char *why;

	assert_int_equal(head("Host: x\nHost: y", true, &why), 400);
	assert_string_equal(why, "more than one Host");
	REFUSED(400, "Host: x\nHost: x", false);
	assert_int_equal(head("Content-Length: 0", true, &why), 400);
	assert_string_equal(why, "HTTP/1.1 without Host");
	FINE("Content-Length: 0", false);
	FINE("", false);
	REFUSED(400, "Host: a b", true);
	REFUSED(400, "Host: a/b", true);
	REFUSED(400, "Host: user@x", true);
	REFUSED(400, "Host: x:80x", true);
	REFUSED(400, "Host: x:80:80", true);
	REFUSED(400, "Host: [::1", true);
	REFUSED(400, "Host: [::1]x", true);
	REFUSED(400, "Host: [::g]", true);
	REFUSED(400, "Host: [fe80::1%25eth0]", true);
	REFUSED(400, "Host: ::1", true);
	REFUSED(400, "Host: x%4", true);
	REFUSED(400, "Host: x%zz", true);
}

/* RFC 3986 3.2.2 and 3.2.3: the Hosts that are fine. */
static void rfc3986_3_2_2_hosts_fine(void **state)
{
	FINE("Host: collector.example.org", true);
	FINE("Host: collector.example.org:8443", true);
	FINE("Host: 127.0.0.1:8080", true);
	FINE("Host: [::1]:8080", true);
	FINE("Host: [::1]", true);
	FINE("Host: [2001:db8::192.0.2.1]:", true);
	FINE("Host: [v1.fe80::a+en1]", true);
	FINE("Host: x%41y", true);
	FINE("Host: a-b_c~d!$&'()*+,;=", true);
	/* Empty: a target without authority (RFC 9112 3.2). */
	FINE("Host: ", true);
	FINE("HOST: x", true);
	assert_true(framing_host_valid(S("x:")));
	assert_false(framing_host_valid(S("[]")));
}

/* What is fine: one framing, "chunked" in any case, other fields with any
 * visible value, HTAB inside a value. */
static void rfc9112_6_1_framings_fine(void **state)
{
	FINE("Host: x\nContent-Length: 5", true);
	FINE("host: x\nTransfer-Encoding: chunked\nContent-Type: application/json", true);
	FINE("Host: x\nTransfer-Encoding: CHUNKED", true);
	FINE("Host: x\nTransfer-Encoding: Chunked", true);
	FINE("Host: x\nX-Content-Length: 5\nX-Transfer-Encoding: gzip", true);
	FINE("HOST: x\nAccept: */*\nUser-Agent: a\tb (c; d) \x80\xff", true);
	FINE("Host: x\nX-Empty:", true);
}

/* RFC 9112 3.2 and RFC 3986 7.3: the request target as sent. */
static void rfc3986_7_3_target(void **state)
{
	assert_null(framing_target(S("/api/v1/summary")));
	assert_null(framing_target(S("/api/v1/reports?since=2024-01-01T00:00:00Z&limit=10")));
	assert_null(framing_target(S("/a%20b/%7e%41?q=%2F%25")));
	assert_null(framing_target(S("*")));
	assert_null(framing_target(S("")));
	assert_non_null(framing_target(S("/api/v1/summary%00xyz")));
	assert_non_null(framing_target(S("/api/v1/summary?a=%00")));
	assert_non_null(framing_target(S("/a%0d%0aX")));
	assert_non_null(framing_target(S("/a%1F")));
	assert_non_null(framing_target(S("/a%7f")));
	assert_non_null(framing_target(S("/a%")));
	assert_non_null(framing_target(S("/a%4")));
	assert_non_null(framing_target(S("/a%zz")));
	assert_non_null(framing_target(S("/sum\x01mary")));
	assert_non_null(framing_target(S("/sum\0mary")));
	assert_non_null(framing_target(S("/a b")));
	assert_non_null(framing_target(S("/a\tb")));
	assert_non_null(framing_target(S("/caf\xc3\xa9")));
	assert_non_null(framing_target(S("/a\x7f")));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rate_limits),
		cmocka_unit_test(ingests),
		cmocka_unit_test(empty_use_case_is_none),
		cmocka_unit_test(parses_options),
		cmocka_unit_test(parses_query_values),
		cmocka_unit_test(keys_peers),
		cmocka_unit_test(shares_connections),
		cmocka_unit_test(admission_holds_the_slot),
		cmocka_unit_test(evicts_oldest_incomplete_head),
		cmocka_unit_test(does_not_evict_for_a_key_holding_many),
		cmocka_unit_test(counts_refusals),
		cmocka_unit_test(counts_connection_refusals),
		cmocka_unit_test(counts_refusals_of_many_addresses),
		cmocka_unit_test(rfc9112_6_3_two_framings),
		cmocka_unit_test(rfc9112_6_3_chunked_not_final),
		cmocka_unit_test(rfc9112_7_chunked_twice),
		cmocka_unit_test(rfc9112_6_1_unknown_coding),
		cmocka_unit_test(rfc9112_6_1_transfer_encoding_http10),
		cmocka_unit_test(rfc9112_5_1_space_before_colon),
		cmocka_unit_test(rfc9112_2_2_bare_cr),
		cmocka_unit_test(rfc9112_5_2_obs_fold),
		cmocka_unit_test(rfc9110_8_6_content_length_digits),
		cmocka_unit_test(rfc9112_3_2_host),
		cmocka_unit_test(rfc3986_3_2_2_hosts_fine),
		cmocka_unit_test(rfc9112_6_1_framings_fine),
		cmocka_unit_test(rfc3986_7_3_target),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
