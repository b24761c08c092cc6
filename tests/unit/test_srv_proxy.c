/* Trusted reverse proxies on their own: the --trusted-proxy list, which
 * peers it covers (networks, IPv4-mapped IPv6), and which address of an
 * X-Forwarded-For value is the client. */
#include "testutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>

#include "http/conntrack.h"
#include "http/proxy.h"

static struct sockaddr_storage v4(const char *a)
{
	struct sockaddr_storage ss = { 0 };

	ss.ss_family = AF_INET;
	assert_int_equal(inet_pton(AF_INET, a, &((struct sockaddr_in *)&ss)->sin_addr), 1);
	return ss;
}

static struct sockaddr_storage v6(const char *a)
{
	struct sockaddr_storage ss = { 0 };

	ss.ss_family = AF_INET6;
	assert_int_equal(inet_pton(AF_INET6, a, &((struct sockaddr_in6 *)&ss)->sin6_addr), 1);
	return ss;
}

#define SA(x) ((const struct sockaddr *)&(x))

static void parses_lists(void **state)
{
	struct proxies p = { 0 };

	assert_int_equal(proxies_parse(&p, "127.0.0.1,10.1.0.0/16,fd00:1::/64,::1"), 0);
	assert_int_equal(p.n, 4);
	assert_int_equal(p.net[1].prefix, 16);
	assert_int_equal(p.net[3].prefix, 128);
	/* Each refused whole: nothing of it added. */
	static const char *const bad[] = {
		"", ",", "127.0.0.1,", ",127.0.0.1", "127.0.0.1,,10.0.0.1", "10.0.0.0/33",
		"10.0.0.0/", "10.0.0.0/-1", "::/129", "10.0.0", "proxy.example", "10.0.0.1 ",
		"10.0.0.1/8x", "1.2.3.4/8,nope",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(proxies_parse(&p, bad[i]), -EINVAL);
		assert_int_equal(p.n, 4);
	}
	/* A second option adds to the first, up to PROXY_MAX. */
	assert_int_equal(proxies_parse(&p, "192.0.2.1"), 0);
	assert_int_equal(p.n, 5);
	for (int i = 5; i < PROXY_MAX; i++)
		assert_int_equal(proxies_parse(&p, "192.0.2.2"), 0);
	assert_int_equal(proxies_parse(&p, "192.0.2.3"), -E2BIG);
	assert_int_equal(p.n, PROXY_MAX);
}

static void trusts_peers(void **state)
{
	struct proxies p = { 0 };
	struct sockaddr_storage a;

	assert_int_equal(proxies_parse(&p, "127.0.0.1,10.1.0.0/16,172.16.0.0/12,fd00:1::/64"), 0);
	a = v4("127.0.0.1");
	assert_true(proxies_trusted(&p, SA(a)));
	a = v4("127.0.0.2");
	assert_false(proxies_trusted(&p, SA(a)));
	a = v4("10.1.255.7");
	assert_true(proxies_trusted(&p, SA(a)));
	a = v4("10.2.0.1");
	assert_false(proxies_trusted(&p, SA(a)));
	/* A prefix that is not a whole number of bytes. */
	a = v4("172.31.255.255");
	assert_true(proxies_trusted(&p, SA(a)));
	a = v4("172.32.0.0");
	assert_false(proxies_trusted(&p, SA(a)));
	a = v6("::ffff:10.1.2.3");                 /* a dual-stack listener's IPv4 peer */
	assert_true(proxies_trusted(&p, SA(a)));
	a = v6("fd00:1::5");
	assert_true(proxies_trusted(&p, SA(a)));
	a = v6("fd00:2::5");
	assert_false(proxies_trusted(&p, SA(a)));
	assert_false(proxies_trusted(&p, NULL));
	struct proxies none = { 0 };

	a = v4("127.0.0.1");
	assert_false(proxies_trusted(&none, SA(a)));
}

static void finds_the_client(void **state)
{
	struct proxies p = { 0 };
	struct sockaddr_storage c;
	char text[INET6_ADDRSTRLEN];

	assert_int_equal(proxies_parse(&p, "127.0.0.1,10.0.0.0/8"), 0);
#define CLIENT(xff, want) do { \
		assert_int_equal(proxies_client(&p, xff, &c), 0); \
		inet_ntop(c.ss_family, c.ss_family == AF_INET ? \
			  (void *)&((struct sockaddr_in *)&c)->sin_addr : \
			  (void *)&((struct sockaddr_in6 *)&c)->sin6_addr, text, sizeof(text)); \
		assert_string_equal(text, want); \
	} while (0)
	CLIENT("192.0.2.7", "192.0.2.7");
	/* What a client wrote comes first; the proxy appended the truth. */
	CLIENT("203.0.113.9, 192.0.2.7", "192.0.2.7");
	CLIENT("not-an-address, 192.0.2.7", "192.0.2.7");
	/* Through two proxies of ours: the one outside ours. */
	CLIENT("192.0.2.7, 10.3.4.5", "192.0.2.7");
	CLIENT("192.0.2.7,10.3.4.5,127.0.0.1", "192.0.2.7");
	CLIENT(" 2001:db8::1 ", "2001:db8::1");
	CLIENT("[2001:db8::2]", "2001:db8::2");
	CLIENT("192.0.2.7,", "192.0.2.7");
	CLIENT("192.0.2.7, ,", "192.0.2.7");
	assert_int_equal(proxies_client(&p, NULL, &c), -ENOENT);
	assert_int_equal(proxies_client(&p, "", &c), -ENOENT);
	assert_int_equal(proxies_client(&p, " , ", &c), -ENOENT);
	assert_int_equal(proxies_client(&p, "10.0.0.1, 127.0.0.1", &c), -ENOENT);
	/* The element that would be the client is no address: not guessed. */
	assert_int_equal(proxies_client(&p, "192.0.2.7, unknown", &c), -EINVAL);
	assert_int_equal(proxies_client(&p, "192.0.2.7:4711", &c), -EINVAL);
	assert_int_equal(proxies_client(&p, "192.0.2.7, 10.0.0.1 x", &c), -EINVAL);
}

/* A proxy's connections are many clients': no share of one key applies. */
static void proxy_takes_any_slot(void **state)
{
	struct conntrack *ct;
	struct conn *held[16];
	const struct sockaddr_storage px = v4("127.0.0.1"), other = v4("192.0.2.1");
	const char *why;
	unsigned n = 0;

	assert_int_equal(conntrack_start(&ct, 16, 8, 10), 0);
	/* As any address, the proxy would stop at its share. */
	while (n < 16 && conntrack_admit(ct, SA(px), &why))
		held[n++] = conntrack_add(ct, SA(px), -1);
	assert_int_equal(n, 8);
	while (n < 16 && conntrack_admit_proxy(ct, SA(px), &why))
		held[n++] = conntrack_add(ct, SA(px), -1);
	assert_int_equal(n, 16);
	for (unsigned i = 0; i < n; i++)
		conntrack_head_done(ct, held[i]);
	/* Every slot taken by requests whose heads are in: nobody is evicted. */
	assert_false(conntrack_admit_proxy(ct, SA(px), &why));
	assert_string_equal(why, CONNTRACK_WHY_FULL);
	assert_false(conntrack_admit(ct, SA(other), &why));
	conntrack_remove(ct, held[0]);
	assert_true(conntrack_admit_proxy(ct, SA(px), &why));
	for (unsigned i = 1; i < n; i++)
		conntrack_remove(ct, held[i]);
	conntrack_stop(ct);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parses_lists),
		cmocka_unit_test(trusts_peers),
		cmocka_unit_test(finds_the_client),
		cmocka_unit_test(proxy_takes_any_slot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
