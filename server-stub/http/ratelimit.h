/* Per-client token buckets keyed by peer address key (peer.h: the IPv4
 * address or the IPv6 /48): a client may make `burst` requests at once
 * and `rate` per second after that. The table is
 * fixed in size; when it is full the least recently seen address is
 * forgotten (a forgotten client starts again with a full bucket). */
#ifndef CGFB_SERVER_RATELIMIT_H
#define CGFB_SERVER_RATELIMIT_H

struct ratelimit;

/* rate 0 disables limiting (ratelimit_take always allows). */
int ratelimit_new(struct ratelimit **out, double rate, unsigned burst);
void ratelimit_free(struct ratelimit *rl);
/* 0 when client may go ahead (one token taken), else the seconds to wait. */
unsigned ratelimit_take(struct ratelimit *rl, const char *client);
/* The same answer, no token taken: for what is charged only afterwards
 * when it failed (an admin token guess). */
unsigned ratelimit_peek(struct ratelimit *rl, const char *client);
/* A request found heavier than one (a report of many elements, a digest):
 * n more tokens taken from client's bucket, never refused now, but the
 * bucket may go into debt (down to -burst) that its next requests wait
 * out. */
void ratelimit_charge(struct ratelimit *rl, const char *client, unsigned n);

#endif
