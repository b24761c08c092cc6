/* The collector's modules on their own: the per-address rate limiter, the
 * ingest check of a report body, the option parser, address keys, the
 * connection shares and the framing verdict of a request head. */
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cgfb/readfile.h"
#include "cgfb/schema.h"
#include "ingest/ingest.h"
#include "conf/options.h"
#include "http/conntrack.h"
#include "http/framing.h"
#include "api/params.h"
#include "http/peer.h"
#include "http/ratelimit.h"

#include <arpa/inet.h>
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
	ratelimit_free(rl);
	/* Rate 0: no limit. */
	assert_int_equal(ratelimit_new(&rl, 0, 1), 0);
	for (int i = 0; i < 100; i++)
		assert_int_equal(ratelimit_take(rl, "127.0.0.2"), 0);
	ratelimit_free(rl);
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
	bad = strdup(good.data);
	memcpy(strstr(bad, "\"schema_version\":1"), "\"schema_version\":2", 18);
	assert_int_equal(ingest_report(schema, bad, strlen(bad), &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "/schema_version"));
	ingest_meta_free(&m);
	free(bad);
}

static void parses_options(void **state)
{
	struct server_opts o;
	char *ok[] = { "serve", "--listen", "127.0.0.1:0", "--database", "/tmp/x.sqlite",
		       "--rate", "2", "--burst", "5", NULL };
	char *bad[] = { "serve", "--rate", "fast", NULL };

	optind = 0;     /* glibc: start getopt afresh, as main.c does per command */
	assert_int_equal(options_parse(&o, 9, ok), 0);
	assert_string_equal(o.listen, "127.0.0.1:0");
	assert_string_equal(o.db_path, "/tmp/x.sqlite");
	assert_true(o.rate == 2.0);
	assert_int_equal(o.burst, 5);
	optind = 0;
	assert_int_equal(options_parse(&o, 3, bad), -EINVAL);
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

/* One IPv6 host has a /64 to itself: every address in it is one key. */
static void keys_peers(void **state)
{
	static const struct {
		const char *addr, *key;
	} cases[] = {
		{ "192.0.2.7", "192.0.2.7" },
		{ "::ffff:192.0.2.7", "192.0.2.7" },
		{ "2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64" },
		{ "2001:db8:1:2::1", "2001:db8:1:2::/64" },
		{ "2001:db8:1:3::1", "2001:db8:1:3::/64" },
		{ "::1", "::/64" },
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
 * hold fewer than CONNTRACK_FAIR. */
static void shares_connections(void **state)
{
	struct conntrack *ct;
	struct conn *held[16];
	const struct sockaddr_storage a = addr("2001:db8::1"), a2 = addr("2001:db8::2"),
		b = addr("192.0.2.1"), c = addr("192.0.2.2"), d = addr("192.0.2.3");
	unsigned n = 0;

	assert_int_equal(conntrack_start(&ct, 16, 8, 10), 0);
	while (conntrack_admit(ct, (const struct sockaddr *)(n % 2 ? &a : &a2)))
		held[n++] = conntrack_add(ct, (const struct sockaddr *)&a, -1);
	assert_int_equal(n, 8);            /* one /64: per_key */
	while (conntrack_admit(ct, (const struct sockaddr *)&b))
		held[n++] = conntrack_add(ct, (const struct sockaddr *)&b, -1);
	assert_int_equal(n, 12);           /* the last quarter (4) is reserved */
	assert_int_equal(conntrack_count(ct), 12);
	while (conntrack_admit(ct, (const struct sockaddr *)&c))
		held[n++] = conntrack_add(ct, (const struct sockaddr *)&c, -1);
	assert_int_equal(n, 16 > 12 + CONNTRACK_FAIR ? 12 + CONNTRACK_FAIR : 16);
	assert_false(conntrack_admit(ct, (const struct sockaddr *)&c));
	conntrack_remove(ct, held[0]);
	/* A free slot in the reserved quarter: not for a key holding many. */
	assert_false(conntrack_admit(ct, (const struct sockaddr *)&a));
	assert_true(conntrack_admit(ct, (const struct sockaddr *)&d));
	for (unsigned i = 1; i < n; i++)
		conntrack_remove(ct, held[i]);
	assert_int_equal(conntrack_count(ct), 0);
	conntrack_stop(ct);
}

/* frame FIELDS HTTP11: the verdict on a head holding the fields named in
 * FIELDS (comma separated, as a client spelled them). */
static const char *frame(const char *fields, bool http11)
{
	struct framing f = { 0 };
	char copy[256], *save = NULL;

	snprintf(copy, sizeof(copy), "%s", fields);
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		framing_count(&f, t);
	return framing_error(&f, http11);
}

static void judges_framing(void **state)
{
	/* Each way two ends can disagree on where a body ends (RFC 9112 6.3). */
	assert_string_equal(frame("Host,Content-Length,Transfer-Encoding", true),
			    "both Content-Length and Transfer-Encoding");
	assert_string_equal(frame("Host,transfer-encoding,CONTENT-LENGTH", false),
			    "both Content-Length and Transfer-Encoding");
	assert_string_equal(frame("Host,Content-Length,Content-Length", true),
			    "more than one Content-Length");
	assert_string_equal(frame("Host,Transfer-Encoding,Transfer-Encoding", true),
			    "more than one Transfer-Encoding");
	/* Host: required of HTTP/1.1 only (3.2). */
	assert_string_equal(frame("Content-Length", true), "HTTP/1.1 without Host");
	assert_null(frame("Content-Length", false));
	assert_null(frame("", false));
	/* What is fine: one framing, any case, other fields ignored. */
	assert_null(frame("Host,Content-Length", true));
	assert_null(frame("host,Transfer-Encoding,Content-Type,X-Content-Length", true));
	assert_null(frame("HOST,Accept", true));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rate_limits),
		cmocka_unit_test(ingests),
		cmocka_unit_test(parses_options),
		cmocka_unit_test(parses_query_values),
		cmocka_unit_test(keys_peers),
		cmocka_unit_test(shares_connections),
		cmocka_unit_test(judges_framing),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
