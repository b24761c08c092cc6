#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cgfb/fnv.h"
#include "http/ratelimit.h"

#define SLOTS 4096
#define PROBE 8
#define ADDR_MAX 52          /* PEER_KEY_MAX */

struct bucket {
	char client[ADDR_MAX];
	double tokens;
	double last;           /* seconds, monotonic */
};

struct ratelimit {
	pthread_mutex_t lock;
	double rate;
	double burst;
	struct bucket slot[SLOTS];
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned hash(const char *s)
{
	return cgfb_fnv32_str(s);
}

int ratelimit_new(struct ratelimit **out, double rate, unsigned burst)
{
	struct ratelimit *rl = calloc(1, sizeof(*rl));

	if (!rl)
		return -ENOMEM;
	pthread_mutex_init(&rl->lock, NULL);
	rl->rate = rate;
	rl->burst = burst ? burst : 1;
	*out = rl;
	return 0;
}

void ratelimit_free(struct ratelimit *rl)
{
	if (!rl)
		return;
	pthread_mutex_destroy(&rl->lock);
	free(rl);
}

/* The client's bucket, or a fresh one in place of the stalest nearby. */
static struct bucket *find(struct ratelimit *rl, const char *client, double now)
{
	const unsigned h = hash(client);
	struct bucket *oldest = NULL;

	for (unsigned i = 0; i < PROBE; i++) {
		struct bucket *b = &rl->slot[(h + i) % SLOTS];

		if (strcmp(b->client, client) == 0)
			return b;
		if (!oldest || b->last < oldest->last)
			oldest = b;
	}
	strncpy(oldest->client, client, ADDR_MAX - 1);
	oldest->client[ADDR_MAX - 1] = '\0';
	oldest->tokens = rl->burst;
	oldest->last = now;
	return oldest;
}

/* The seconds to wait for a token; one taken when there is one and take. */
static unsigned charge(struct ratelimit *rl, const char *client, bool take)
{
	const double now = now_s();
	struct bucket *b;
	unsigned wait = 0;

	if (rl->rate <= 0)
		return 0;
	pthread_mutex_lock(&rl->lock);
	b = find(rl, client, now);
	b->tokens = fmin(rl->burst, b->tokens + (now - b->last) * rl->rate);
	b->last = now;
	if (b->tokens >= 1)
		b->tokens -= take;
	else
		wait = (unsigned)ceil((1 - b->tokens) / rl->rate);
	pthread_mutex_unlock(&rl->lock);
	return wait;
}

unsigned ratelimit_take(struct ratelimit *rl, const char *client)
{
	return charge(rl, client, true);
}

unsigned ratelimit_peek(struct ratelimit *rl, const char *client)
{
	return charge(rl, client, false);
}

void ratelimit_charge(struct ratelimit *rl, const char *client, unsigned n)
{
	const double now = now_s();
	struct bucket *b;

	if (!rl || rl->rate <= 0 || n == 0)
		return;
	pthread_mutex_lock(&rl->lock);
	b = find(rl, client, now);
	b->tokens = fmin(rl->burst, b->tokens + (now - b->last) * rl->rate);
	b->last = now;
	/* The debt is bounded: a client forgotten and seen again starts
	 * with a full bucket anyway (the table is fixed in size). */
	b->tokens = fmax(-rl->burst, b->tokens - n);
	pthread_mutex_unlock(&rl->lock);
}
