/* The key a client is counted by, for connection slots and rate limits:
 * its IPv4 address, or the /48 of its IPv6 address. One IPv6 host is
 * usually given a whole /64 and one site a /56 or a /48 (RFC 6177,
 * RIPE-690); a tunnel broker hands out a /48 for free. Keying by the /64
 * gave one /56 256 keys (100 of them left a normal client 5 answers of
 * 100), keying by the /56 would give a free /48 256 keys; a /48 is the
 * most one end site is routinely given. The cost: every host of one site
 * shares one key, as hosts behind one IPv4 NAT do. */
#ifndef CGFB_SERVER_PEER_H
#define CGFB_SERVER_PEER_H

#include <stddef.h>
#include <sys/socket.h>

/* INET6_ADDRSTRLEN and "/48". */
#define PEER_KEY_MAX 52
/* The IPv6 prefix length a key covers, a multiple of 8. */
#define PEER_V6_PREFIX 48

/* Write sa's key as text ("192.0.2.7", "2001:db8:1::/48"); an
 * IPv4-mapped IPv6 address is keyed as the IPv4 address. 0 or -EAFNOSUPPORT. */
int peer_key(const struct sockaddr *sa, char out[PEER_KEY_MAX]);

#endif
