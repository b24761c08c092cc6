/* The collector's admin authentication on its own: the token file (many
 * tokens, comments, what is refused), Bearer tokens, the dashboard's
 * session cookies (made, checked, expired, forged, revoked with their
 * token) and the Cookie header's parsing (RFC 6265 5.4). */
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "http/auth.h"

#define T1 "first-admin-token-0123456789"
#define T2 "second+admin/token_0123456789=="
#define NOW ((time_t)1796000000)

static char dir[] = "/tmp/cgfb-auth.XXXXXX";

static int setup(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

/* Load a token file with the given text. */
static int load(struct auth *a, const char *text)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/tokens", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return auth_load(a, path);
}

static bool get_as(const struct auth *a, const char *authorization, const char *cookie,
		   time_t now)
{
	return auth_is_admin(a, "GET", authorization, cookie, now);
}

static void token_file(void **state)
{
	struct auth a;

	assert_int_equal(load(&a, "# the maintainers' tokens\n" T1 "\n\n" T2 "\r\n"), 0);
	assert_true(a.admin_enabled);
	assert_int_equal(a.n, 2);
	assert_int_equal(a.tok[0].line, 2);
	assert_int_equal(a.tok[1].line, 4);
	assert_true(get_as(&a, "Bearer " T1, NULL, NOW));
	assert_true(get_as(&a, "Bearer " T2, NULL, NOW));
	assert_true(get_as(&a, "bearer  " T2 " \t", NULL, NOW));
	assert_false(get_as(&a, "Bearer " T1 "x", NULL, NOW));
	assert_false(get_as(&a, "Bearer first-admin-token-012345678", NULL, NOW));
	assert_false(get_as(&a, "Basic " T1, NULL, NOW));
	assert_false(get_as(&a, NULL, NULL, NOW));
	/* A Bearer token is good for any method. */
	assert_true(auth_is_admin(&a, "DELETE", "Bearer " T1, NULL, NOW));

	assert_int_equal(load(&a, "short-token\n"), -EINVAL);
	assert_false(a.admin_enabled);
	assert_int_equal(load(&a, T1 "\n" "has a space in it 0123\n"), -EINVAL);
	assert_int_equal(load(&a, T1 "\n" T1 "\n"), -EINVAL);        /* twice */
	assert_int_equal(load(&a, "# only a comment\n\n"), -EINVAL);
	assert_false(a.admin_enabled);
	assert_int_equal(auth_load(&a, NULL), 0);
	assert_false(a.admin_enabled);
	assert_false(get_as(&a, "Bearer " T1, NULL, NOW));
}

static void too_many_tokens(void **state)
{
	char text[AUTH_MAX_TOKENS * 40 + 64] = "";
	struct auth a;

	for (int i = 0; i < AUTH_MAX_TOKENS; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "token-number-%04d-abcdef\n", i);
	assert_int_equal(load(&a, text), 0);
	assert_int_equal(a.n, AUTH_MAX_TOKENS);
	strcat(text, "one-token-too-many-abcdef\n");
	assert_int_equal(load(&a, text), -E2BIG);
	/* None kept, not the first sixteen: the file is wrong. */
	assert_false(a.admin_enabled);
	assert_int_equal(a.n, 0);
}

static void sessions(void **state)
{
	char v[AUTH_SESSION_MAX], v2[AUTH_SESSION_MAX + 2], cookie[256];
	struct auth a;

	assert_int_equal(load(&a, T1 "\n" T2 "\n"), 0);
	assert_int_equal(auth_session_new(&a, "Bearer " T2, NOW, v), 2);
	assert_int_equal(auth_session_new(&a, "Bearer nope-nope-nope-nope", NOW, v2), 0);
	assert_int_equal(auth_session_new(&a, NULL, NOW, v2), 0);
	/* Nothing of the token in the value. */
	assert_null(strstr(v, "second"));
	assert_true(auth_session_valid(&a, v, strlen(v), NOW));
	assert_true(auth_session_valid(&a, v, strlen(v), NOW + AUTH_SESSION_TTL - 1));
	assert_false(auth_session_valid(&a, v, strlen(v), NOW + AUTH_SESSION_TTL));
	/* Made by a clock far ahead (or forged with a late expiry). */
	assert_false(auth_session_valid(&a, v, strlen(v), NOW - 3600));

	snprintf(cookie, sizeof(cookie), "theme=dark; " AUTH_COOKIE "=%s; other=1", v);
	assert_true(get_as(&a, NULL, cookie, NOW + 10));
	assert_true(auth_is_admin(&a, "HEAD", NULL, cookie, NOW + 10));
	/* Reading only: a forged form on another site sends the cookie too. */
	assert_false(auth_is_admin(&a, "POST", NULL, cookie, NOW + 10));
	assert_false(auth_is_admin(&a, "DELETE", NULL, cookie, NOW + 10));
	assert_false(get_as(&a, NULL, cookie, NOW + AUTH_SESSION_TTL + 1));

	/* Every byte of the MAC, the expiry and the token id counts. */
	for (size_t i = 3; i < strlen(v); i++) {
		if (v[i] == '.')
			continue;
		memcpy(v2, v, sizeof(v));
		v2[i] = v2[i] == '1' ? '2' : '1';
		assert_false(auth_session_valid(&a, v2, strlen(v2), NOW));
	}
	/* Cut short, lengthened, another version, junk. */
	assert_false(auth_session_valid(&a, v, strlen(v) - 1, NOW));
	snprintf(v2, sizeof(v2), "%s0", v);
	assert_false(auth_session_valid(&a, v2, strlen(v2), NOW));
	memcpy(v2, v, sizeof(v));
	v2[1] = '2';
	assert_false(auth_session_valid(&a, v2, strlen(v2), NOW));
	assert_false(auth_session_valid(&a, S("v1."), NOW));
	assert_false(auth_session_valid(&a, S(""), NOW));

	/* The same session under one token's key, presented for the other
	 * token's id: refused. */
	assert_int_equal(auth_session_new(&a, "Bearer " T1, NOW, v2), 1);
	memcpy(v2 + 3, v + 3, 16);
	assert_false(auth_session_valid(&a, v2, strlen(v2), NOW));

	/* The token removed from the file: its sessions die with it; the
	 * other's live on. */
	assert_int_equal(auth_session_new(&a, "Bearer " T1, NOW, v2), 1);
	assert_int_equal(load(&a, T1 "\n"), 0);
	assert_false(auth_session_valid(&a, v, strlen(v), NOW));
	assert_true(auth_session_valid(&a, v2, strlen(v2), NOW));
	/* Another instance with the same file accepts it. */
	struct auth b;

	assert_int_equal(load(&b, "# instance b\n" T1 "\n"), 0);
	assert_true(auth_session_valid(&b, v2, strlen(v2), NOW));
}

static void cookie_header(void **state)
{
	size_t len = 0;
	const char *v;

	v = auth_cookie("a=1; cgfb_session=abc.def ;b=2", AUTH_COOKIE, &len);
	assert_non_null(v);
	assert_int_equal(len, 7);
	assert_memory_equal(v, "abc.def", 7);
	v = auth_cookie("cgfb_session=x", AUTH_COOKIE, &len);
	assert_non_null(v);
	assert_int_equal(len, 1);
	/* A name that only ends or starts like it is another cookie. */
	assert_null(auth_cookie("xcgfb_session=1; cgfb_sessionx=2", AUTH_COOKIE, &len));
	assert_null(auth_cookie("", AUTH_COOKIE, &len));
	assert_null(auth_cookie(NULL, AUTH_COOKIE, &len));
	v = auth_cookie("cgfb_session=; a=1", AUTH_COOKIE, &len);
	assert_non_null(v);
	assert_int_equal(len, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(token_file),
		cmocka_unit_test(too_many_tokens),
		cmocka_unit_test(sessions),
		cmocka_unit_test(cookie_header),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
