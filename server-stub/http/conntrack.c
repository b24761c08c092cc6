#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <time.h>

#include "cgfb/log.h"
#include "http/conntrack.h"
#include "http/peer.h"

struct conn {
	struct conn *prev, *next;
	struct conntrack *ct;
	char key[PEER_KEY_MAX];
	int fd;
	bool head_done;
	bool reaped;
	bool handshake;              /* TLS handshake in progress */
	bool handshaken;             /* TLS handshake complete: never a victim */
	bool gone;                   /* its peer hung up, seen by the watch */
	struct timespec gone_at;     /* monotonic: when that was seen */
	/* Admitted, not yet added: the slot is held from the admission, so
	 * that the event loops, each accepting on its own thread, cannot all
	 * admit the last slot of a key before any of them adds it (129 of a
	 * limit of 128 were held that way). No descriptor yet. */
	bool reserved;
	struct timespec since;       /* monotonic: when the head was due to start,
				      * or, reserved, when it was admitted */
	struct timespec opened;      /* monotonic: accepted (the handshake's start) */
};

/* A reservation that libmicrohttpd never turned into a connection (it can
 * still fail one it accepted) is given up after this. */
#define RESERVED_S 2

struct conntrack {
	pthread_mutex_t lock;
	pthread_t reaper;
	bool stopping;
	bool tls;
	int watch;                   /* epoll: peers hanging up, and wake */
	int wake;                    /* eventfd: stop */
	unsigned max, per_key, head_timeout, handshake_timeout;
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

static long long us_since(const struct timespec *t, const struct timespec *now_ts)
{
	return (long long)(now_ts->tv_sec - t->tv_sec) * 1000000 + (now_ts->tv_nsec - t->tv_nsec) / 1000;
}

static long long ms_since(const struct timespec *t, const struct timespec *now_ts)
{
	return us_since(t, now_ts) / 1000;
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

static enum slot_phase phase_of(const struct conn *c)
{
	if (c->reserved)
		return SLOT_RESERVED;
	if (c->handshake)
		return SLOT_HANDSHAKE;
	return c->head_done ? SLOT_SERVED : SLOT_HEAD;
}

/* Under the lock: whether key may have a slot (slots.h on a snapshot of
 * the live connections); when a connection must make room, it is shut
 * down here. NULL or the reason of the refusal; out of memory, the
 * newcomer is refused (as when every slot is taken), nothing given up. */
static const char *admit(struct conntrack *ct, const char *key, bool proxy)
{
	const struct slot_rules r = { ct->max, ct->per_key, ct->tls };
	const unsigned n = ct->count - ct->shut;
	struct slot *s = calloc(n ? n : 1, sizeof(*s));
	struct conn **c = calloc(n ? n : 1, sizeof(*c));
	const char *why = SLOTS_WHY_FULL;
	struct timespec t;
	unsigned i = 0;
	long v = -1;

	if (!s || !c)
		goto out;
	now(&t);
	for (struct conn *x = ct->head; x && i < n; x = x->next) {
		if (x->reaped)
			continue;
		s[i] = (struct slot){ x->key, phase_of(x), x->handshaken, ct->tls,
				      us_since(&x->since, &t) };
		c[i++] = x;
	}
	why = slots_admit(s, i, &r, key, proxy, &v);
	if (!why && v >= 0) {
		shut(ct, c[v]);
		if (ct->evicted++ == 0)
			snprintf(ct->evicted_key, sizeof(ct->evicted_key), "%s", c[v]->key);
	}
out:
	free(s);
	free(c);
	return why;
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
	c->ct = ct;
	c->fd = -1;
	c->reserved = true;
	now(&c->since);
	link_conn(ct, c);
}

bool conntrack_admit(struct conntrack *ct, const struct sockaddr *addr, const char **why)
{
	char key[PEER_KEY_MAX];

	peer_key(addr, key);
	pthread_mutex_lock(&ct->lock);
	*why = admit(ct, key, false);
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
	*why = admit(ct, key, true);
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
		c->ct = ct;
		link_conn(ct, c);
	}
	if (c) {
		struct epoll_event ev = { .events = EPOLLRDHUP | EPOLLET, .data.fd = fd };

		c->reserved = false;
		c->handshake = ct->tls;
		c->fd = fd;
		now(&c->since);
		c->opened = c->since;
		/* Without it a hang-up waits for the head deadline, as before. */
		epoll_ctl(ct->watch, EPOLL_CTL_ADD, fd, &ev);
	}
	pthread_mutex_unlock(&ct->lock);
	return c;
}

void conntrack_remove(struct conntrack *ct, struct conn *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&ct->lock);
	if (c->fd >= 0)
		epoll_ctl(ct->watch, EPOLL_CTL_DEL, c->fd, NULL);
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
	/* A head over TLS means the handshake is done, hook or not. */
	c->handshaken |= c->handshake;
	c->handshake = false;
	pthread_mutex_unlock(&ct->lock);
}

void conntrack_handshake_done(struct conn *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->ct->lock);
	c->handshake = false;
	c->handshaken = true;
	pthread_mutex_unlock(&c->ct->lock);
}

void conntrack_tls(struct conntrack *ct)
{
	pthread_mutex_lock(&ct->lock);
	ct->tls = true;
	ct->handshake_timeout = ct->head_timeout < CONNTRACK_HANDSHAKE_S ? ct->head_timeout :
									   CONNTRACK_HANDSHAKE_S;
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

/* Shut down every socket whose head, or TLS handshake, is overdue;
 * *handshakes of them were in their handshake. */
static unsigned reap(struct conntrack *ct, char *example, size_t examplesz, unsigned *handshakes)
{
	struct timespec t;
	unsigned n = 0;

	now(&t);
	*handshakes = 0;
	expire_reservations(ct, &t);
	for (struct conn *c = ct->head; c; c = c->next) {
		if (c->head_done || c->reaped || c->reserved)
			continue;
		if (c->handshake && t.tv_sec - c->opened.tv_sec >= (time_t)ct->handshake_timeout)
			(*handshakes)++;
		else if (t.tv_sec - c->since.tv_sec < (time_t)ct->head_timeout)
			continue;
		shut(ct, c);
		if (n++ == 0)
			snprintf(example, examplesz, "%s", c->key);
	}
	return n;
}

/* Under the lock: the connection on fd, if any is listed. */
static struct conn *by_fd(struct conntrack *ct, int fd)
{
	for (struct conn *c = ct->head; c; c = c->next)
		if (c->fd == fd && !c->reserved && !c->reaped)
			return c;
	return NULL;
}

/* Whether c's peer has hung up and libmicrohttpd has read every byte it
 * sent: its head can never be complete. Asked of the socket itself, not
 * of the event that marked it (the descriptor may be a new connection's
 * by now). */
static bool peer_gone(const struct conn *c)
{
	struct pollfd p = { .fd = c->fd, .events = POLLRDHUP };
	int waiting = 0;

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) &&
	       ioctl(c->fd, FIONREAD, &waiting) == 0 && waiting == 0;
}

/* Connections whose peer hung up before their head was in, shut down.
 * libmicrohttpd 0.9.75 watches sockets edge-triggered and takes a short
 * read as "nothing more to read" (connection.c:362-365): a half head and
 * the FIN arriving together are read as the half head, and the EOF is
 * never read; the slot was held until the head deadline (37-40 of 40
 * such clients 2.5 s later). Shut down, the socket wakes libmicrohttpd,
 * which reads the EOF and closes it. Marked at the hang-up, shut
 * CONNTRACK_GONE_MS later if libmicrohttpd has not closed it by then
 * itself (as it does when the EOF comes alone): a head read but not yet
 * parsed is parsed by then, and a kept-alive connection its client
 * closes is not counted as an attack. libmicrohttpd closes a connection whose EOF it reads at
 * any stage itself (connection.c:3766-3787). Returns how many are still
 * marked; *n_shut counts those shut. */
static unsigned shut_gone(struct conntrack *ct, unsigned *n_shut, char *example, size_t examplesz)
{
	unsigned marked = 0;
	struct timespec t;

	now(&t);
	for (struct conn *c = ct->head; c; c = c->next) {
		if (!c->gone || c->reaped || c->reserved)
			continue;
		if (c->head_done || ms_since(&c->gone_at, &t) < CONNTRACK_GONE_MS || !peer_gone(c)) {
			marked++;
			continue;
		}
		shut(ct, c);
		if ((*n_shut)++ == 0)
			snprintf(example, examplesz, "%s", c->key);
	}
	return marked;
}

/* Under the lock: the hang-ups epoll reported, marked. */
static void mark_gone(struct conntrack *ct, const struct epoll_event *ev, int n)
{
	for (int i = 0; i < n; i++) {
		struct conn *c = ev[i].data.fd == ct->wake ? NULL : by_fd(ct, ev[i].data.fd);

		if (c && !c->gone) {
			c->gone = true;
			now(&c->gone_at);
		}
	}
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
	cgfb_log(LOG_WARNING, "every connection slot taken: closed %u connection%s %s (from %s%s)",
		 n, n == 1 ? "" : "s", ct->tls ? "in a TLS handshake overdue for 1 s, of the addresses "
		 "holding the most handshakes" : "whose request head was not in, oldest first",
		 example, n == 1 ? "" : " and others");
	pthread_mutex_lock(&ct->lock);
}

static void log_closed(struct conntrack *ct, const char *what, unsigned n, const char *example)
{
	pthread_mutex_unlock(&ct->lock);
	cgfb_log(LOG_WARNING, "closed %u connection%s %s (from %s%s)", n, n == 1 ? "" : "s", what,
		 example, n == 1 ? "" : " and others");
	pthread_mutex_lock(&ct->lock);
}

/* Once a second the deadlines and the tick; between, hang-ups as they
 * come, and every CONNTRACK_GONE_MS while some are marked. */
static void *reaper_main(void *arg)
{
	struct conntrack *ct = arg;
	char example[PEER_KEY_MAX] = "", gone_example[PEER_KEY_MAX] = "", what[96];
	struct epoll_event ev[64];
	struct timespec next, t;
	unsigned n, handshakes, marked = 0, n_gone = 0;
	int got;

	clock_gettime(CLOCK_MONOTONIC, &next);
	next.tv_sec += 1;
	pthread_mutex_lock(&ct->lock);
	while (!ct->stopping) {
		long long wait_ms;

		now(&t);
		wait_ms = -ms_since(&next, &t);
		if (marked && wait_ms > CONNTRACK_GONE_MS)
			wait_ms = CONNTRACK_GONE_MS;
		pthread_mutex_unlock(&ct->lock);
		got = epoll_wait(ct->watch, ev, 64, wait_ms > 0 ? (int)wait_ms : 0);
		pthread_mutex_lock(&ct->lock);
		if (ct->stopping)
			break;
		if (got > 0)
			mark_gone(ct, ev, got);
		marked = shut_gone(ct, &n_gone, gone_example, sizeof(gone_example));
		now(&t);
		if (ms_since(&next, &t) < 0)
			continue;
		next = t;
		next.tv_sec += 1;
		if (n_gone) {
			log_closed(ct, "whose peer hung up before its request head was in", n_gone,
				   gone_example);
			n_gone = 0;
		}
		log_evictions(ct);
		if (ct->on_tick) {
			pthread_mutex_unlock(&ct->lock);
			ct->on_tick(ct->tick_ud);
			pthread_mutex_lock(&ct->lock);
		}
		/* One line per second at most, however many. */
		n = reap(ct, example, sizeof(example), &handshakes);
		if (handshakes) {
			snprintf(what, sizeof(what), "whose TLS handshake took over %u s",
				 ct->handshake_timeout);
			log_closed(ct, what, handshakes, example);
		}
		if (n > handshakes) {
			snprintf(what, sizeof(what), "whose request head took over %u s",
				 ct->head_timeout);
			log_closed(ct, what, n - handshakes, example);
		}
	}
	pthread_mutex_unlock(&ct->lock);
	return NULL;
}

int conntrack_start(struct conntrack **out, unsigned max, unsigned per_key,
		    unsigned head_timeout)
{
	struct conntrack *ct = calloc(1, sizeof(*ct));
	struct epoll_event ev = { .events = EPOLLIN };
	int rc;

	if (!ct)
		return -ENOMEM;
	ct->max = max;
	ct->per_key = per_key;
	ct->head_timeout = head_timeout;
	ct->handshake_timeout = head_timeout;
	ct->watch = epoll_create1(EPOLL_CLOEXEC);
	ct->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ev.data.fd = ct->wake;
	if (ct->watch < 0 || ct->wake < 0 || epoll_ctl(ct->watch, EPOLL_CTL_ADD, ct->wake, &ev) < 0) {
		rc = -errno;
		goto fail;
	}
	pthread_mutex_init(&ct->lock, NULL);
	rc = -pthread_create(&ct->reaper, NULL, reaper_main, ct);
	if (rc) {
		pthread_mutex_destroy(&ct->lock);
		goto fail;
	}
	*out = ct;
	return 0;
fail:
	if (ct->watch >= 0)
		close(ct->watch);
	if (ct->wake >= 0)
		close(ct->wake);
	free(ct);
	return rc;
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
	pthread_mutex_unlock(&ct->lock);
	if (eventfd_write(ct->wake, 1) < 0)
		cgfb_log(LOG_WARNING, "connection reaper: %s", strerror(errno));
	pthread_join(ct->reaper, NULL);
	/* Connections still listed were never reported closed: MHD is
	 * stopped by now, and their memory is ours to free. */
	while (ct->head) {
		struct conn *c = ct->head;

		ct->head = c->next;
		free(c);
	}
	pthread_mutex_destroy(&ct->lock);
	close(ct->watch);
	close(ct->wake);
	free(ct);
}
