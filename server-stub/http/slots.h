/* Who gives up a connection slot, and when a newcomer is refused: the
 * policy conntrack.c applies at each admission, on a snapshot of the
 * slots, with no lock, socket or clock of its own (tests/unit/
 * test_srv_slots.c tries it on tables an attack leaves).
 *
 * A plain connection whose request head is not in may be given up, the
 * oldest first, for a newcomer whose key holds few (conntrack.h): 90
 * addresses holding 3 slow heads each stayed under every share and left
 * a normal client 6 answers of 125 before. A head in is never given up,
 * so a client that sends its request at once always gets a slot. Over
 * TLS the head comes only after the handshake, so that rule starved
 * TLS clients: 90 addresses holding 3 cut-short ClientHellos each and
 * reconnecting at once evicted every handshake in turn, and a normal
 * HTTPS client had 2 answers of 37. So a handshake in progress has a
 * budget of its own (at most SLOTS_HANDSHAKE_SHARE of the slots) and is
 * given up only for another handshake: the victim is a handshake at
 * least SLOTS_HANDSHAKE_MIN_AGE_MS old, of the key holding the most
 * handshakes (the oldest of them), and only when that key holds at least
 * two more than the newcomer's: the exchange evens the shares out, so
 * the attack's own reconnections cannot evict each other in a loop, nor
 * evict the handshake of a client holding one. A connection whose handshake is complete is never
 * given up, as a plain one whose head is in. */
#ifndef CGFB_SERVER_SLOTS_H
#define CGFB_SERVER_SLOTS_H

#include <stdbool.h>
#include <stddef.h>

/* A key holding fewer connections than this may have the oldest
 * incomplete plain head make room for it; the last quarter of the slots
 * goes only to such keys. */
#define SLOTS_FAIR 4
/* Handshakes in progress take at most 1/SLOTS_HANDSHAKE_SHARE of the slots. */
#define SLOTS_HANDSHAKE_SHARE 2
/* A handshake younger than this is never given up: a client's handshake
 * takes a round trip or two, and a burst of honest clients must not evict
 * each other. */
#define SLOTS_HANDSHAKE_MIN_AGE_MS 250

enum slot_phase {
	SLOT_RESERVED,       /* admitted, not yet accepted: never a victim */
	SLOT_HANDSHAKE,      /* TLS handshake in progress */
	SLOT_HEAD,           /* request head not in (plain, or after a handshake) */
	SLOT_SERVED,         /* request head in: being answered */
};

struct slot {
	const char *key;
	enum slot_phase phase;
	bool handshaken;     /* its TLS handshake completed: never a victim */
	bool tls;            /* a reserved slot on a TLS server: a handshake to be */
	long long age_us;    /* µs since its head (or handshake) was due to start */
};

struct slot_rules {
	unsigned max;        /* slots in all */
	unsigned per_key;    /* slots one key may hold */
	bool tls;            /* every newcomer starts with a handshake */
};

/* Reasons for a refusal (static strings, for the log). */
#define SLOTS_WHY_PER_KEY "per-address connection limit"
#define SLOTS_WHY_FAIR "last quarter of the slots kept for addresses holding few"
#define SLOTS_WHY_FULL "every connection slot taken"
#define SLOTS_WHY_HANDSHAKES "every slot for TLS handshakes taken by handshakes not yet overdue"

/* The most handshakes in progress at once under rules r. */
unsigned slots_handshake_budget(const struct slot_rules *r);

/* Whether a newcomer of key may have a slot, given the n live slots s
 * (given up ones left out). NULL when it may, and then *victim is the
 * index in s of the slot to give up first, or -1 when there is room;
 * else the reason (one of SLOTS_WHY_*), *victim -1. proxy: a trusted
 * reverse proxy, which speaks for many clients: no share of a key
 * applies to it. */
const char *slots_admit(const struct slot *s, size_t n, const struct slot_rules *r,
			const char *key, bool proxy, long *victim);

#endif
