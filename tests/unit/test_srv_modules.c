/* The collector's modules on their own: the per-address rate limiter, the
 * ingest check of a report body, the option parser. */
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cgfb/readfile.h"
#include "cgfb/schema.h"
#include "ingest.h"
#include "options.h"
#include "params.h"
#include "ratelimit.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rate_limits),
		cmocka_unit_test(ingests),
		cmocka_unit_test(parses_options),
		cmocka_unit_test(parses_query_values),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
