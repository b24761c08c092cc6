#include <stdlib.h>
#include <string.h>

#include "http/slots.h"

unsigned slots_handshake_budget(const struct slot_rules *r)
{
	const unsigned b = r->max / SLOTS_HANDSHAKE_SHARE;

	return b ? b : 1;
}

static bool in_handshake(const struct slot *s)
{
	return s->phase == SLOT_HANDSHAKE || (s->phase == SLOT_RESERVED && s->tls);
}

static bool evictable_handshake(const struct slot *s)
{
	return s->phase == SLOT_HANDSHAKE && s->age_us >= SLOTS_HANDSHAKE_MIN_AGE_MS * 1000LL;
}

/* The oldest plain head not in; a completed handshake is never chosen. */
static long plain_victim(const struct slot *s, size_t n)
{
	long v = -1;

	for (size_t i = 0; i < n; i++)
		if (s[i].phase == SLOT_HEAD && !s[i].handshaken && (v < 0 || s[i].age_us > s[v].age_us))
			v = (long)i;
	return v;
}

static int by_key(const void *a, const void *b)
{
	return strcmp((*(const struct slot *const *)a)->key, (*(const struct slot *const *)b)->key);
}

/* Sorted by key, the table is runs of one key each: a key's handshakes
 * are counted once, not once per slot (this runs at every admission,
 * thousands a second under churn). The victim: an old enough handshake
 * of the key holding the most handshakes, the oldest on a tie, and only
 * if that key holds more than the newcomer's (mine). */
static long handshake_victim(const struct slot *s, size_t n, unsigned mine)
{
	const struct slot **p = malloc((n ? n : 1) * sizeof(*p));
	const struct slot *best = NULL;
	unsigned best_held = 0;

	if (!p)
		return -1;
	for (size_t i = 0; i < n; i++)
		p[i] = &s[i];
	qsort(p, n, sizeof(*p), by_key);
	for (size_t i = 0, end; i < n; i = end) {
		const struct slot *oldest = NULL;
		unsigned held = 0;

		for (end = i; end < n && strcmp(p[end]->key, p[i]->key) == 0; end++) {
			held += in_handshake(p[end]);
			if (evictable_handshake(p[end]) && (!oldest || p[end]->age_us > oldest->age_us))
				oldest = p[end];
		}
		if (oldest && (held > best_held ||
			       (held == best_held && oldest->age_us > best->age_us))) {
			best = oldest;
			best_held = held;
		}
	}
	free(p);
	return best && best_held > mine + 1 ? (long)(best - s) : -1;
}

const char *slots_admit(const struct slot *s, size_t n, const struct slot_rules *r,
			const char *key, bool proxy, long *victim)
{
	unsigned held = 0, handshakes = 0, mine = 0;
	const char *why;

	*victim = -1;
	for (size_t i = 0; i < n; i++) {
		const bool same = strcmp(s[i].key, key) == 0;

		held += same;
		handshakes += in_handshake(&s[i]);
		mine += same && in_handshake(&s[i]);
	}
	if (!proxy && held >= r->per_key)
		return SLOTS_WHY_PER_KEY;
	if (n >= r->max)
		why = SLOTS_WHY_FULL;
	else if (!proxy && n >= r->max - r->max / 4 && held >= SLOTS_FAIR)
		return SLOTS_WHY_FAIR;
	else if (r->tls && handshakes >= slots_handshake_budget(r))
		why = SLOTS_WHY_HANDSHAKES;
	else
		return NULL;
	/* Room is made only for a key that holds few. */
	if (!proxy && held >= SLOTS_FAIR)
		return why;
	*victim = r->tls ? handshake_victim(s, n, proxy ? 0 : mine) : plain_victim(s, n);
	return *victim < 0 ? why : NULL;
}
