/* The collector's admin authentication on its own: the token file (many
 * tokens, comments, what is refused, the entropy bound), Bearer tokens, the
 * dashboard's sessions (made, checked, expired on the monotonic clock,
 * ended by a logout, the table's bound), the same-origin proof a cookie
 * needs, and the Cookie header's parsing with several cookies of a name
 * (RFC 6265 5.4). */
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "http/auth.h"

#define T1 "first-admin-token-0123456789"
#define T2 "second+admin/token_0123456789=="
#define NOW ((int64_t)86400)

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

/* A request of the dashboard's own page: Sec-Fetch-Site same-origin. */
static bool as(struct auth *a, const char *method, const char *authorization,
	       const char *cookie, int64_t now)
{
	const struct auth_request r = { .method = method, .authorization = authorization,
		.cookie = cookie, .cookie_name = AUTH_COOKIE, .sec_fetch_site = "same-origin" };

	return auth_is_admin(a, &r, now);
}

static bool get_as(struct auth *a, const char *authorization, const char *cookie, int64_t now)
{
	return as(a, "GET", authorization, cookie, now);
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
	/* A Bearer token is good for any method, with no origin proof: a
	 * browser never adds one by itself. */
	const struct auth_request del = { .method = "DELETE", .authorization = "Bearer " T1 };

	assert_true(auth_is_admin(&a, &del, NOW));
	assert_true(auth_has_bearer("bearer x"));
	assert_false(auth_has_bearer("Basic eA=="));
	assert_false(auth_has_bearer(NULL));

	assert_int_equal(load(&a, "short-token\n"), -EINVAL);
	assert_false(a.admin_enabled);
	assert_int_equal(load(&a, T1 "\n" "has a space in it 0123456789abcdef\n"), -EINVAL);
	assert_int_equal(load(&a, T1 "\n" T1 "\n"), -EINVAL);        /* twice */
	assert_int_equal(load(&a, "# only a comment\n\n"), -EINVAL);
	assert_false(a.admin_enabled);
	assert_int_equal(auth_load(&a, NULL), 0);
	assert_false(a.admin_enabled);
	assert_false(get_as(&a, "Bearer " T1, NULL, NOW));
}

/* 128 bits by the estimate, and what falls short: the 16 any
 * characters were accepted. */
static void token_entropy(void **state)
{
	struct auth a;

	assert_int_equal(auth_token_bits(S("0123456789abcdef0123456789abcdef")), 128);
	assert_int_equal(auth_token_bits(S("0123456789ABCDEF0123456789ABCDEF")), 128);
	assert_int_equal(auth_token_bits(S("0123456789abcdef0123456789abcde")), 124);
	/* 22 characters of base64: 132. */
	assert_true(auth_token_bits(S("q3Zx-9Lm_TfR2wKb8Yp0Ve")) >= 128);
	assert_true(auth_token_bits(S("q3Zx+9Lm/TfR2wKb8Yp0Ve==")) >= 128);
	assert_true(auth_token_bits(S("q3Zx+9Lm/TfR2wKb8Yp0V==")) < 128);
	/* 39 digits: 129; 38: 126. */
	assert_true(auth_token_bits(S("012345678901234567890123456789012345678")) >= 128);
	assert_true(auth_token_bits(S("01234567890123456789012345678901234567")) < 128);
	/* 16 any characters, a repeated one, a word repeated. */
	assert_true(auth_token_bits(S("Abcdefgh-1234567")) < 128);
	assert_int_equal(auth_token_bits(S("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")), 0);
	assert_int_equal(auth_token_bits(S("passwordpasswordpasswordpassword")), 0);
	/* What the package, make run and the demo make: 64 hex digits. */
	assert_int_equal(auth_token_bits(S("9f1c0e7d2b4a6358c1e0f9d8b7a69584e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8")),
			 256);

	assert_int_equal(load(&a, "0123456789abcdef0123456789abcde\n"), -EINVAL);
	assert_false(a.admin_enabled);
	assert_int_equal(load(&a, "0123456789abcdef0123456789abcdef\n"), 0);
	assert_int_equal(load(&a, "passwordpasswordpasswordpassword\n"), -EINVAL);
}

static void too_many_tokens(void **state)
{
	char text[AUTH_MAX_TOKENS * 40 + 64] = "";
	struct auth a;

	for (int i = 0; i < AUTH_MAX_TOKENS; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), "token-number-%04d-abcdef\n", i);
	assert_int_equal(load(&a, text), 0);
	assert_int_equal(a.n, AUTH_MAX_TOKENS);
	strcat(text, "one-token-too-many-012345\n");
	assert_int_equal(load(&a, text), -E2BIG);
	/* None kept, not the first sixteen: the file is wrong. */
	assert_false(a.admin_enabled);
	assert_int_equal(a.n, 0);
}

static void sessions(void **state)
{
	char v[AUTH_SESSION_MAX], v2[AUTH_SESSION_MAX + 2], cookie[256];
	bool evicted;
	struct auth a;

	assert_int_equal(load(&a, T1 "\n" T2 "\n"), 0);
	assert_int_equal(auth_session_new(&a, "Bearer " T2, NOW, v, &evicted), 2);
	assert_false(evicted);
	assert_int_equal(auth_session_new(&a, "Bearer nope-nope-nope-nope", NOW, v2, &evicted), 0);
	assert_int_equal(auth_session_new(&a, NULL, NOW, v2, &evicted), 0);
	/* 256 random bits: nothing of the token in the value. */
	assert_int_equal(strlen(v), 64);
	assert_null(strstr(v, "second"));
	assert_true(auth_session_valid(&a, v, strlen(v), NOW));
	assert_true(auth_session_valid(&a, v, strlen(v), NOW + AUTH_SESSION_TTL - 1));
	assert_false(auth_session_valid(&a, v, strlen(v), NOW + AUTH_SESSION_TTL));

	snprintf(cookie, sizeof(cookie), "theme=dark; " AUTH_COOKIE "=%s; other=1", v);
	assert_true(get_as(&a, NULL, cookie, NOW + 10));
	assert_true(as(&a, "HEAD", NULL, cookie, NOW + 10));
	/* Reading only: a forged form on another site sends the cookie too. */
	assert_false(as(&a, "POST", NULL, cookie, NOW + 10));
	assert_false(as(&a, "DELETE", NULL, cookie, NOW + 10));
	assert_false(get_as(&a, NULL, cookie, NOW + AUTH_SESSION_TTL + 1));

	/* Every byte counts. */
	for (size_t i = 0; i < strlen(v); i++) {
		memcpy(v2, v, sizeof(v));
		v2[i] = v2[i] == '1' ? '2' : '1';
		assert_false(auth_session_valid(&a, v2, strlen(v2), NOW));
	}
	assert_false(auth_session_valid(&a, v, strlen(v) - 1, NOW));
	snprintf(v2, sizeof(v2), "%s0", v);
	assert_false(auth_session_valid(&a, v2, strlen(v2), NOW));
	assert_false(auth_session_valid(&a, S(""), NOW));

	/* Logging out ends it on the server: the same value, presented
	 * again (a copy the browser did not forget), is refused; another
	 * session lives on. */
	assert_int_equal(auth_session_new(&a, "Bearer " T1, NOW, v2, &evicted), 1);
	assert_int_equal(auth_session_end(&a, cookie, AUTH_COOKIE), 1);
	assert_false(auth_session_valid(&a, v, strlen(v), NOW + 10));
	assert_false(get_as(&a, NULL, cookie, NOW + 10));
	assert_true(auth_session_valid(&a, v2, strlen(v2), NOW + 10));
	assert_int_equal(auth_session_end(&a, cookie, AUTH_COOKIE), 0);
	/* Another process (a restart) knows none of them. */
	struct auth b;

	assert_int_equal(load(&b, T1 "\n"), 0);
	assert_false(auth_session_valid(&b, v2, strlen(v2), NOW));
	auth_free(&b);
	auth_free(&a);
}

/* AUTH_SESSIONS live at once; one more ends the one closest to its end,
 * and ended ones make room first. */
static void session_table_bound(void **state)
{
	char first[AUTH_SESSION_MAX], v[AUTH_SESSION_MAX];
	bool evicted;
	struct auth a;

	assert_int_equal(load(&a, T1 "\n"), 0);
	assert_int_equal(auth_session_new(&a, "Bearer " T1, NOW, first, &evicted), 1);
	for (int i = 1; i < AUTH_SESSIONS; i++) {
		assert_int_equal(auth_session_new(&a, "Bearer " T1, NOW + i, v, &evicted), 1);
		assert_false(evicted);
	}
	assert_true(auth_session_valid(&a, first, strlen(first), NOW + AUTH_SESSIONS));
	assert_int_equal(auth_session_new(&a, "Bearer " T1, NOW + AUTH_SESSIONS, v, &evicted), 1);
	assert_true(evicted);
	assert_false(auth_session_valid(&a, first, strlen(first), NOW + AUTH_SESSIONS));
	assert_true(auth_session_valid(&a, v, strlen(v), NOW + AUTH_SESSIONS));
	/* An hour on, every one has ended: no eviction to speak of. */
	assert_int_equal(auth_session_new(&a, "Bearer " T1, NOW + 3 * AUTH_SESSION_TTL, v, &evicted), 1);
	assert_false(evicted);
	auth_free(&a);
}

/* The cookie counts only with a proof that the collector's own page sent
 * the request: another port of the host is the same site (SameSite does
 * not help), and its <img src=.../export> carries the cookie. */
static void same_origin(void **state)
{
	char v[AUTH_SESSION_MAX], cookie[128];
	bool evicted;
	struct auth a;
	struct auth_request r = { .method = "GET", .cookie = cookie, .cookie_name = AUTH_COOKIE,
		.host = "127.0.0.1:8080" };

	assert_int_equal(load(&a, T1 "\n"), 0);
	assert_int_equal(auth_session_new(&a, "Bearer " T1, NOW, v, &evicted), 1);
	snprintf(cookie, sizeof(cookie), AUTH_COOKIE "=%s", v);

	r.sec_fetch_site = "same-origin";
	assert_true(auth_is_admin(&a, &r, NOW));
	r.sec_fetch_site = "same-site";          /* http://127.0.0.1:9999's <img> */
	assert_false(auth_is_admin(&a, &r, NOW));
	r.origin = "http://127.0.0.1:8080";      /* Sec-Fetch-Site decides */
	assert_false(auth_is_admin(&a, &r, NOW));
	r.sec_fetch_site = "cross-site";
	assert_false(auth_is_admin(&a, &r, NOW));
	r.sec_fetch_site = "none";               /* an address typed or a bookmark */
	assert_false(auth_is_admin(&a, &r, NOW));
	/* A browser without Fetch Metadata: the Origin, if any. */
	r.sec_fetch_site = NULL;
	r.origin = "http://127.0.0.1:8080";
	assert_true(auth_is_admin(&a, &r, NOW));
	assert_true(auth_same_origin(&r));
	r.origin = "http://127.0.0.1:9999";
	assert_false(auth_is_admin(&a, &r, NOW));
	r.origin = "http://127.0.0.1:80800";
	assert_false(auth_is_admin(&a, &r, NOW));
	r.origin = "null";
	assert_false(auth_is_admin(&a, &r, NOW));
	r.origin = NULL;
	assert_false(auth_is_admin(&a, &r, NOW));
	r.origin = "http://127.0.0.1:8080";
	r.host = NULL;
	assert_false(auth_same_origin(&r));
	auth_free(&a);
}

/* A cookie of the same name planted by another port with a longer Path
 * comes first in the header; the real one after it still counts. Over
 * TLS only the __Host- name is read. */
static void several_cookies(void **state)
{
	char v[AUTH_SESSION_MAX], cookie[256];
	bool evicted;
	struct auth a;
	struct auth_request r = { .method = "GET", .cookie = cookie, .cookie_name = AUTH_COOKIE,
		.sec_fetch_site = "same-origin" };

	assert_int_equal(load(&a, T1 "\n"), 0);
	assert_int_equal(auth_session_new(&a, "Bearer " T1, NOW, v, &evicted), 1);
	snprintf(cookie, sizeof(cookie), AUTH_COOKIE "=planted; " AUTH_COOKIE "=%064d; "
		 AUTH_COOKIE "=%s", 0, v);
	assert_true(auth_is_admin(&a, &r, NOW));
	r.cookie_name = AUTH_COOKIE_TLS;
	assert_false(auth_is_admin(&a, &r, NOW));
	snprintf(cookie, sizeof(cookie), AUTH_COOKIE_TLS "=planted; " AUTH_COOKIE_TLS "=%s", v);
	assert_true(auth_is_admin(&a, &r, NOW));
	/* Logging out ends the one that is a session, whatever its place. */
	assert_int_equal(auth_session_end(&a, cookie, AUTH_COOKIE_TLS), 1);
	assert_false(auth_is_admin(&a, &r, NOW));
	auth_free(&a);
}

static void cookie_header(void **state)
{
	size_t len = 0;
	const char *v, *h = "a=1; cgfb_session=abc.def ;b=2; cgfb_session=second;cgfb_session=";

	v = auth_cookie(h, AUTH_COOKIE, &len);
	assert_non_null(v);
	assert_int_equal(len, 7);
	assert_memory_equal(v, "abc.def", 7);
	v = auth_cookie(v + len, AUTH_COOKIE, &len);
	assert_non_null(v);
	assert_int_equal(len, 6);
	assert_memory_equal(v, "second", 6);
	v = auth_cookie(v + len, AUTH_COOKIE, &len);
	assert_non_null(v);
	assert_int_equal(len, 0);
	assert_null(auth_cookie(v + len, AUTH_COOKIE, &len));
	v = auth_cookie("cgfb_session=x", AUTH_COOKIE, &len);
	assert_non_null(v);
	assert_int_equal(len, 1);
	/* A name that only ends or starts like it is another cookie. */
	assert_null(auth_cookie("xcgfb_session=1; cgfb_sessionx=2", AUTH_COOKIE, &len));
	assert_null(auth_cookie("__Host-cgfb_session=1", AUTH_COOKIE, &len));
	assert_null(auth_cookie("cgfb_session=1", AUTH_COOKIE_TLS, &len));
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
		cmocka_unit_test(token_entropy),
		cmocka_unit_test(too_many_tokens),
		cmocka_unit_test(sessions),
		cmocka_unit_test(session_table_bound),
		cmocka_unit_test(same_origin),
		cmocka_unit_test(several_cookies),
		cmocka_unit_test(cookie_header),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
