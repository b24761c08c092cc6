#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/proxy.h"

/* One "ADDR[/BITS]" of n bytes. */
static int parse_net(const char *s, size_t n, struct proxy_net *net)
{
	char text[INET6_ADDRSTRLEN + 8], *slash, *end;
	long bits;

	if (n == 0 || n >= sizeof(text))
		return -EINVAL;
	memcpy(text, s, n);
	text[n] = '\0';
	slash = strchr(text, '/');
	if (slash)
		*slash = '\0';
	memset(net, 0, sizeof(*net));
	if (inet_pton(AF_INET, text, net->addr) == 1)
		net->family = AF_INET;
	else if (inet_pton(AF_INET6, text, net->addr) == 1)
		net->family = AF_INET6;
	else
		return -EINVAL;
	net->prefix = net->family == AF_INET ? 32 : 128;
	if (slash) {
		bits = strtol(slash + 1, &end, 10);
		if (slash[1] == '\0' || *end || bits < 0 || bits > (long)net->prefix)
			return -EINVAL;
		net->prefix = (unsigned)bits;
	}
	return 0;
}

int proxies_parse(struct proxies *p, const char *spec)
{
	struct proxies add = *p;

	for (const char *s = spec; *s;) {
		const size_t n = strcspn(s, ",");

		if (add.n == PROXY_MAX)
			return -E2BIG;
		if (parse_net(s, n, &add.net[add.n]) < 0)
			return -EINVAL;
		add.n++;
		s += n;
		if (*s == ',' && *++s == '\0')
			return -EINVAL;
	}
	if (add.n == p->n)
		return -EINVAL;
	*p = add;
	return 0;
}

/* An address as a family and 4 or 16 bytes; IPv4-mapped IPv6 is IPv4. */
static int unpack(const struct sockaddr *sa, uint8_t addr[16])
{
	if (sa && sa->sa_family == AF_INET) {
		memcpy(addr, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return AF_INET;
	}
	if (!sa || sa->sa_family != AF_INET6)
		return -1;
	const struct in6_addr *a6 = &((const struct sockaddr_in6 *)sa)->sin6_addr;

	if (IN6_IS_ADDR_V4MAPPED(a6)) {
		memcpy(addr, &a6->s6_addr[12], 4);
		return AF_INET;
	}
	memcpy(addr, a6->s6_addr, 16);
	return AF_INET6;
}

static bool in_net(const struct proxy_net *net, int family, const uint8_t *addr)
{
	const unsigned whole = net->prefix / 8, rest = net->prefix % 8;

	if (family != net->family || memcmp(addr, net->addr, whole) != 0)
		return false;
	return rest == 0 || ((addr[whole] ^ net->addr[whole]) & (0xff << (8 - rest)) & 0xff) == 0;
}

bool proxies_trusted(const struct proxies *p, const struct sockaddr *sa)
{
	uint8_t addr[16];
	const int family = unpack(sa, addr);

	for (size_t i = 0; family > 0 && i < p->n; i++)
		if (in_net(&p->net[i], family, addr))
			return true;
	return false;
}

/* One element of the header, white space around it trimmed, into ss. An
 * IPv6 element may come bracketed, as RFC 7239 writes it. */
static int element(const char *s, size_t n, struct sockaddr_storage *ss)
{
	char text[INET6_ADDRSTRLEN + 2];

	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n >= 2 && s[0] == '[' && s[n - 1] == ']')
		s++, n -= 2;
	if (n == 0 || n >= sizeof(text))
		return -EINVAL;
	memcpy(text, s, n);
	text[n] = '\0';
	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, text, &((struct sockaddr_in *)ss)->sin_addr) == 1) {
		ss->ss_family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, text, &((struct sockaddr_in6 *)ss)->sin6_addr) == 1) {
		ss->ss_family = AF_INET6;
		return 0;
	}
	return -EINVAL;
}

int proxies_client(const struct proxies *p, const char *xff, struct sockaddr_storage *out)
{
	size_t end = xff ? strlen(xff) : 0;

	/* From the right: each proxy of ours appended the one before it. */
	while (end > 0) {
		size_t start = end;
		int rc;

		while (start > 0 && xff[start - 1] != ',')
			start--;
		rc = element(xff + start, end - start, out);
		if (rc < 0) {
			/* An empty element (",," or a trailing comma) says nothing. */
			if (strspn(xff + start, " \t") >= end - start) {
				end = start ? start - 1 : 0;
				continue;
			}
			return rc;
		}
		if (!proxies_trusted(p, (const struct sockaddr *)out))
			return 0;
		end = start ? start - 1 : 0;
	}
	return -ENOENT;
}
