#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgfb/fnv.h"
#include "http/peer.h"
#include "http/refusals.h"

#define SLOTS 512
#define PROBE 8

struct entry {
	char key[PEER_KEY_MAX];
	const char *why;
	unsigned long n;
	double since;
};

struct refusals {
	pthread_mutex_t lock;
	unsigned interval;
	struct entry slot[SLOTS];
	struct entry others;
};

int refusals_new(struct refusals **out, unsigned interval)
{
	struct refusals *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	pthread_mutex_init(&r->lock, NULL);
	r->interval = interval;
	snprintf(r->others.key, sizeof(r->others.key), "%s", REFUSALS_OTHERS);
	*out = r;
	return 0;
}

void refusals_free(struct refusals *r)
{
	if (!r)
		return;
	pthread_mutex_destroy(&r->lock);
	free(r);
}

/* key's entry for why, a free one, or the shared one when its
 * neighbourhood is taken. */
static struct entry *find(struct refusals *r, const char *key, const char *why)
{
	const unsigned h = cgfb_fnv32_str(key) ^ cgfb_fnv32_str(why);
	struct entry *free_one = NULL;

	for (unsigned i = 0; i < PROBE; i++) {
		struct entry *e = &r->slot[(h + i) % SLOTS];

		if (e->n && e->why == why && strcmp(e->key, key) == 0)
			return e;
		if (!e->n && !free_one)
			free_one = e;
	}
	if (!free_one)
		return &r->others;
	snprintf(free_one->key, sizeof(free_one->key), "%s", key);
	free_one->why = why;
	return free_one;
}

bool refusals_note(struct refusals *r, const char *key, const char *why, double now)
{
	struct entry *e;
	bool first;

	pthread_mutex_lock(&r->lock);
	e = find(r, key, why);
	if (e == &r->others && !e->n)
		e->why = why;
	if (!e->n)
		e->since = now;
	first = e->n++ == 0;
	pthread_mutex_unlock(&r->lock);
	return first;
}

static void flush_one(struct refusals *r, struct entry *e, double now, bool all,
		      refusals_emit_fn *emit, void *ud)
{
	if (!e->n || (!all && now - e->since < r->interval))
		return;
	if (e->n > 1)
		emit(ud, e->key, e->why, e->n, (unsigned)fmax(1, ceil(now - e->since)));
	e->n = 0;
}

void refusals_flush(struct refusals *r, double now, bool all, refusals_emit_fn *emit, void *ud)
{
	pthread_mutex_lock(&r->lock);
	for (unsigned i = 0; i < SLOTS; i++)
		flush_one(r, &r->slot[i], now, all, emit, ud);
	flush_one(r, &r->others, now, all, emit, ud);
	pthread_mutex_unlock(&r->lock);
}
