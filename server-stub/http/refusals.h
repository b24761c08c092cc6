/* Refusals counted instead of logged one by one. One address over its
 * rate limit made 124,505 requests in 10 s, each a line of the log: 7 MB
 * that buried everything else. Here the first refusal of a key (peer.h)
 * in an interval is logged as any request is, and the rest are counted:
 * one line per key and reason when the interval is over, or at shutdown.
 * The table is fixed in size; keys that find no room are counted together
 * under "other addresses", so a flood from many addresses costs a line
 * too, not memory. Times are the caller's (monotonic seconds), so that the
 * unit tests need not wait. */
#ifndef CGFB_SERVER_REFUSALS_H
#define CGFB_SERVER_REFUSALS_H

#include <stdbool.h>

/* The interval the server uses, in seconds. */
#define REFUSALS_INTERVAL 10
#define REFUSALS_OTHERS "other addresses"

struct refusals;

typedef void refusals_emit_fn(void *ud, const char *key, const char *why, unsigned long n,
			      unsigned seconds);

/* 0 or -ENOMEM. */
int refusals_new(struct refusals **out, unsigned interval);
void refusals_free(struct refusals *r);
/* One refusal from key for reason why (a static string): true when it is
 * the first of its interval and should be logged as usual. */
bool refusals_note(struct refusals *r, const char *key, const char *why, double now);
/* emit is called for each key whose interval is over (all of them when
 * all is set, at shutdown) and that was refused more than once:
 * "refused N requests from KEY in the last S s (WHY)". */
void refusals_flush(struct refusals *r, double now, bool all, refusals_emit_fn *emit, void *ud);

#endif
