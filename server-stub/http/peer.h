/* The key a client is counted by, for connection slots and rate limits:
 * its IPv4 address, or the /64 of its IPv6 address. One IPv6 host is
 * usually given a whole /64, so keying by the full address would let it
 * take a fresh key per request. */
#ifndef CGFB_SERVER_PEER_H
#define CGFB_SERVER_PEER_H

#include <stddef.h>
#include <sys/socket.h>

/* INET6_ADDRSTRLEN and "/64". */
#define PEER_KEY_MAX 52

/* Write sa's key as text ("192.0.2.7", "2001:db8:1:2::/64"); an
 * IPv4-mapped IPv6 address is keyed as the IPv4 address. 0 or -EAFNOSUPPORT. */
int peer_key(const struct sockaddr *sa, char out[PEER_KEY_MAX]);

#endif
