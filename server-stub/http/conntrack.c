#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>

#include "cgfb/log.h"
#include "http/conntrack.h"
#include "http/peer.h"

struct conn {
	struct conn *prev, *next;
	char key[PEER_KEY_MAX];
	int fd;
	bool head_done;
	bool reaped;
	/* Admitted, not yet added: the slot is held from the admission, so
	 * that the event loops, each accepting on its own thread, cannot all
	 * admit the last slot of a key before any of them adds it (129 of a
	 * limit of 128 were held that way). No descriptor yet. */
	bool reserved;
	struct timespec since;       /* monotonic: when the head was due to start,
				      * or, reserved, when it was admitted */
};

/* A reservation that libmicrohttpd never turned into a connection (it can
 * still fail one it accepted) is given up after this. */
#define RESERVED_S 2

struct conntrack {
	pthread_mutex_t lock;
	pthread_cond_t tick;
	pthread_t reaper;
	bool stopping;
	unsigned max, per_key, head_timeout;
	unsigned count;
	unsigned shut;               /* listed, but shut down: their slot is free */
	unsigned evicted;            /* since the reaper last said so */
	char evicted_key[PEER_KEY_MAX];
	void (*on_tick)(void *ud);
	void *tick_ud;
	struct conn *head;
};

static void now(struct timespec *ts)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
}

/* Connections held by key; the list is at most max long and this runs
 * once per accepted connection, so a scan costs less than a table. */
static unsigned held_by(const struct conntrack *ct, const char *key)
{
	unsigned n = 0;

	for (const struct conn *c = ct->head; c; c = c->next)
		n += !c->reaped && strcmp(c->key, key) == 0;
	return n;
}

static bool earlier(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* The connection to give up when every slot is taken: the one whose
 * request head has been due the longest and is still not in (an idle
 * kept-alive connection included). A complete head is being served and
 * is never chosen; so a client that sends its request at once always
 * gets a slot, whoever holds the rest. NULL when every head is in. */
static struct conn *victim(const struct conntrack *ct)
{
	struct conn *v = NULL;

	for (struct conn *c = ct->head; c; c = c->next)
		if (!c->head_done && !c->reaped && !c->reserved &&
		    (!v || earlier(&c->since, &v->since)))
			v = c;
	return v;
}

/* Shut down (not close: the descriptor stays libmicrohttpd's, which then
 * sees the connection fail and closes it). Under the lock, so that no
 * descriptor is shut down after conntrack_remove, when its number may be
 * reused. */
static void shut(struct conntrack *ct, struct conn *c)
{
	shutdown(c->fd, SHUT_RDWR);
	c->reaped = true;
	ct->shut++;
}

/* Room for a key that holds few connections, when all are taken: 90
 * addresses holding 3 slow heads each stayed under every share and left
 * a normal client 6 answers of 125. */
static bool evict(struct conntrack *ct)
{
	struct conn *v = victim(ct);

	if (!v)
		return false;
	shut(ct, v);
	if (ct->evicted++ == 0)
		snprintf(ct->evicted_key, sizeof(ct->evicted_key), "%s", v->key);
	return true;
}

/* Which rule refuses a key holding held of live connections, or NULL. */
static const char *refusal(const struct conntrack *ct, unsigned held, unsigned live)
{
	if (held >= ct->per_key)
		return CONNTRACK_WHY_PER_KEY;
	if (live >= ct->max)
		return CONNTRACK_WHY_FULL;
	if (live >= ct->max - ct->max / 4 && held >= CONNTRACK_FAIR)
		return CONNTRACK_WHY_FAIR;
	return NULL;
}

/* Under the lock: c first in the list, counted. */
static void link_conn(struct conntrack *ct, struct conn *c)
{
	c->prev = NULL;
	c->next = ct->head;
	if (ct->head)
		ct->head->prev = c;
	ct->head = c;
	ct->count++;
}

static void unlink_conn(struct conntrack *ct, struct conn *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		ct->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	ct->count--;
	ct->shut -= c->reaped;
}

/* Under the lock: hold a slot for key until conntrack_add takes it.
 * Without memory the admission stands all the same, unreserved. */
static void reserve(struct conntrack *ct, const char *key)
{
	struct conn *c = calloc(1, sizeof(*c));

	if (!c)
		return;
	snprintf(c->key, sizeof(c->key), "%s", key);
	c->fd = -1;
	c->reserved = true;
	now(&c->since);
	link_conn(ct, c);
}

bool conntrack_admit(struct conntrack *ct, const struct sockaddr *addr, const char **why)
{
	char key[PEER_KEY_MAX];
	unsigned held;

	peer_key(addr, key);
	pthread_mutex_lock(&ct->lock);
	held = held_by(ct, key);
	*why = refusal(ct, held, ct->count - ct->shut);
	/* A full table makes room only for a key that holds few. */
	if (*why && strcmp(*why, CONNTRACK_WHY_FULL) == 0 && held < CONNTRACK_FAIR && evict(ct))
		*why = NULL;
	if (!*why)
		reserve(ct, key);
	pthread_mutex_unlock(&ct->lock);
	return !*why;
}

bool conntrack_admit_proxy(struct conntrack *ct, const struct sockaddr *addr, const char **why)
{
	char key[PEER_KEY_MAX];

	peer_key(addr, key);
	pthread_mutex_lock(&ct->lock);
	*why = ct->count - ct->shut < ct->max || evict(ct) ? NULL : CONNTRACK_WHY_FULL;
	if (!*why)
		reserve(ct, key);
	pthread_mutex_unlock(&ct->lock);
	return !*why;
}

/* Under the lock: a reservation of key, or NULL. Any will do: each is
 * one admitted connection of that key. */
static struct conn *reservation(struct conntrack *ct, const char *key)
{
	for (struct conn *c = ct->head; c; c = c->next)
		if (c->reserved && strcmp(c->key, key) == 0)
			return c;
	return NULL;
}

struct conn *conntrack_add(struct conntrack *ct, const struct sockaddr *addr, int fd)
{
	char key[PEER_KEY_MAX];
	struct conn *c;

	peer_key(addr, key);
	pthread_mutex_lock(&ct->lock);
	c = reservation(ct, key);
	if (!c && (c = calloc(1, sizeof(*c))) != NULL) {
		snprintf(c->key, sizeof(c->key), "%s", key);
		link_conn(ct, c);
	}
	if (c) {
		c->reserved = false;
		c->fd = fd;
		now(&c->since);
	}
	pthread_mutex_unlock(&ct->lock);
	return c;
}

void conntrack_remove(struct conntrack *ct, struct conn *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&ct->lock);
	unlink_conn(ct, c);
	pthread_mutex_unlock(&ct->lock);
	free(c);
}

void conntrack_head_done(struct conntrack *ct, struct conn *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&ct->lock);
	c->head_done = true;
	pthread_mutex_unlock(&ct->lock);
}

void conntrack_wait_head(struct conntrack *ct, struct conn *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&ct->lock);
	c->head_done = false;
	now(&c->since);
	pthread_mutex_unlock(&ct->lock);
}

unsigned conntrack_count(struct conntrack *ct)
{
	unsigned n;

	pthread_mutex_lock(&ct->lock);
	n = ct->count;
	pthread_mutex_unlock(&ct->lock);
	return n;
}

unsigned conntrack_unread_heads(struct conntrack *ct)
{
	unsigned n = 0;
	int waiting;

	/* Under the lock, as reap(): no descriptor is looked at after
	 * conntrack_remove, when its number may be reused. */
	pthread_mutex_lock(&ct->lock);
	for (const struct conn *c = ct->head; c; c = c->next)
		n += !c->head_done && !c->reaped && !c->reserved &&
		     ioctl(c->fd, FIONREAD, &waiting) == 0 && waiting > 0;
	pthread_mutex_unlock(&ct->lock);
	return n;
}

/* Reservations never taken, given up. */
static void expire_reservations(struct conntrack *ct, const struct timespec *t)
{
	for (struct conn *c = ct->head, *next; c; c = next) {
		next = c->next;
		if (c->reserved && t->tv_sec - c->since.tv_sec >= RESERVED_S) {
			unlink_conn(ct, c);
			free(c);
		}
	}
}

/* Shut down every socket whose head is overdue. */
static unsigned reap(struct conntrack *ct, char *example, size_t examplesz)
{
	struct timespec t;
	unsigned n = 0;

	now(&t);
	expire_reservations(ct, &t);
	for (struct conn *c = ct->head; c; c = c->next) {
		if (c->head_done || c->reaped || c->reserved ||
		    t.tv_sec - c->since.tv_sec < (time_t)ct->head_timeout)
			continue;
		shut(ct, c);
		if (n++ == 0)
			snprintf(example, examplesz, "%s", c->key);
	}
	return n;
}

/* Evictions since the last call, one line for all of them: an attack
 * makes one a connection. */
static void log_evictions(struct conntrack *ct)
{
	char example[PEER_KEY_MAX];
	const unsigned n = ct->evicted;

	if (!n)
		return;
	snprintf(example, sizeof(example), "%s", ct->evicted_key);
	ct->evicted = 0;
	pthread_mutex_unlock(&ct->lock);
	cgfb_log(LOG_WARNING, "every connection slot taken: closed %u connection%s whose request "
		 "head was not in, oldest first (from %s%s)", n, n == 1 ? "" : "s", example,
		 n == 1 ? "" : " and others");
	pthread_mutex_lock(&ct->lock);
}

static void *reaper_main(void *arg)
{
	struct conntrack *ct = arg;
	char example[PEER_KEY_MAX] = "";
	struct timespec until;
	unsigned n;

	pthread_mutex_lock(&ct->lock);
	while (!ct->stopping) {
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += 1;
		pthread_cond_timedwait(&ct->tick, &ct->lock, &until);
		log_evictions(ct);
		if (ct->on_tick) {
			pthread_mutex_unlock(&ct->lock);
			ct->on_tick(ct->tick_ud);
			pthread_mutex_lock(&ct->lock);
		}
		n = reap(ct, example, sizeof(example));
		if (n) {
			/* One line per second at most, however many. */
			pthread_mutex_unlock(&ct->lock);
			cgfb_log(LOG_WARNING, "closed %u connection%s whose request head took over %u s "
				 "(from %s%s)", n, n == 1 ? "" : "s", ct->head_timeout, example,
				 n == 1 ? "" : " and others");
			pthread_mutex_lock(&ct->lock);
		}
	}
	pthread_mutex_unlock(&ct->lock);
	return NULL;
}

int conntrack_start(struct conntrack **out, unsigned max, unsigned per_key,
		    unsigned head_timeout)
{
	struct conntrack *ct = calloc(1, sizeof(*ct));
	pthread_condattr_t ca;
	int rc;

	if (!ct)
		return -ENOMEM;
	ct->max = max;
	ct->per_key = per_key;
	ct->head_timeout = head_timeout;
	pthread_mutex_init(&ct->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&ct->tick, &ca);
	pthread_condattr_destroy(&ca);
	rc = pthread_create(&ct->reaper, NULL, reaper_main, ct);
	if (rc) {
		pthread_cond_destroy(&ct->tick);
		pthread_mutex_destroy(&ct->lock);
		free(ct);
		return -rc;
	}
	*out = ct;
	return 0;
}

void conntrack_on_tick(struct conntrack *ct, void (*fn)(void *ud), void *ud)
{
	pthread_mutex_lock(&ct->lock);
	ct->on_tick = fn;
	ct->tick_ud = ud;
	pthread_mutex_unlock(&ct->lock);
}

void conntrack_stop(struct conntrack *ct)
{
	if (!ct)
		return;
	pthread_mutex_lock(&ct->lock);
	ct->stopping = true;
	pthread_cond_signal(&ct->tick);
	pthread_mutex_unlock(&ct->lock);
	pthread_join(ct->reaper, NULL);
	/* Connections still listed were never reported closed: MHD is
	 * stopped by now, and their memory is ours to free. */
	while (ct->head) {
		struct conn *c = ct->head;

		ct->head = c->next;
		free(c);
	}
	pthread_cond_destroy(&ct->tick);
	pthread_mutex_destroy(&ct->lock);
	free(ct);
}
