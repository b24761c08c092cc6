/* Behind a reverse proxy every client arrives from the proxy's address, so
 * one client's burst would cost everyone their rate limit. The proxies an
 * operator names (--trusted-proxy) may say who the client is, in
 * X-Forwarded-For; anyone else saying so is not listened to. The client is
 * the address nearest to us in the header that is not itself a trusted
 * proxy: what the last proxy appended, which a client cannot forge (it
 * can only prepend). */
#ifndef CGFB_SERVER_PROXY_H
#define CGFB_SERVER_PROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define PROXY_MAX 16

struct proxy_net {
	int family;                  /* AF_INET or AF_INET6 */
	uint8_t addr[16];
	unsigned prefix;             /* bits */
};

struct proxies {
	size_t n;
	struct proxy_net net[PROXY_MAX];
};

/* "ADDR[/BITS][,ADDR[/BITS]...]": IPv4 or IPv6 addresses or networks.
 * Adds to p; 0, or -EINVAL / -E2BIG with nothing added. */
int proxies_parse(struct proxies *p, const char *spec);
/* Whether sa (IPv4-mapped IPv6 as IPv4) is one of p's. */
bool proxies_trusted(const struct proxies *p, const struct sockaddr *sa);
/* The client of a request that came through a trusted proxy, from the
 * X-Forwarded-For value xff (several header fields joined with ","): the
 * rightmost element that is not a trusted proxy, in *out. 0; -ENOENT when
 * xff names no client (absent, empty, only proxies); -EINVAL when that
 * element is not an address. */
int proxies_client(const struct proxies *p, const char *xff, struct sockaddr_storage *out);

#endif
