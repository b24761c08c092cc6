#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "log/mapahead.h"

struct cgfb_mapahead {
	int fd;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop;
	/* The window asked for: want, then busy while it is mapped, then
	 * ready (rc says how it went). */
	bool want, busy, ready;
	off_t off;
	size_t len;
	int rc;
	struct cgfb_mapwin win;
	/* Windows to unmap. */
	struct cgfb_mapwin drop[2];
	int n_drop;
};

/* Under the lock: something to do. */
static bool work(const struct cgfb_mapahead *a)
{
	return a->stop || a->want || a->n_drop > 0;
}

static void *run(void *arg)
{
	struct cgfb_mapahead *a = arg;

	pthread_mutex_lock(&a->mu);
	for (;;) {
		while (!work(a))
			pthread_cond_wait(&a->cv, &a->mu);
		if (a->n_drop > 0) {
			struct cgfb_mapwin w = a->drop[--a->n_drop];

			pthread_mutex_unlock(&a->mu);
			cgfb_mapwin_unmap(&w);
			pthread_mutex_lock(&a->mu);
			pthread_cond_broadcast(&a->cv);
			continue;
		}
		if (a->stop)
			break;
		/* want */
		const off_t off = a->off;
		const size_t len = a->len;
		struct cgfb_mapwin w;
		int rc;

		a->want = false;
		a->busy = true;
		pthread_mutex_unlock(&a->mu);
		rc = cgfb_mapwin_map(&w, a->fd, off, len);
		pthread_mutex_lock(&a->mu);
		a->busy = false;
		a->ready = true;
		a->rc = rc;
		a->win = w;
		a->off = off;
		a->len = len;
		pthread_cond_broadcast(&a->cv);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

int cgfb_mapahead_new(int fd, struct cgfb_mapahead **out)
{
	struct cgfb_mapahead *a = calloc(1, sizeof(*a));
	sigset_t all, old;
	int rc;

	*out = NULL;
	if (!a)
		return -ENOMEM;
	a->fd = fd;
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	/* Signals are the reading thread's. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = -pthread_create(&a->thread, NULL, run, a);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc < 0) {
		pthread_cond_destroy(&a->cv);
		pthread_mutex_destroy(&a->mu);
		free(a);
		return rc;
	}
	*out = a;
	return 0;
}

/* Under the lock: wait for the window being mapped, then drop what is
 * ready and was not taken. */
static void drop_prepared(struct cgfb_mapahead *a)
{
	while (a->busy || (a->n_drop == 2 && a->ready))
		pthread_cond_wait(&a->cv, &a->mu);
	a->want = false;
	if (a->ready) {
		a->ready = false;
		if (a->rc == 0)
			a->drop[a->n_drop++] = a->win;
		memset(&a->win, 0, sizeof(a->win));
	}
}

void cgfb_mapahead_prepare(struct cgfb_mapahead *a, off_t off, size_t len)
{
	pthread_mutex_lock(&a->mu);
	drop_prepared(a);
	a->want = true;
	a->off = off;
	a->len = len;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
}

bool cgfb_mapahead_take(struct cgfb_mapahead *a, off_t off, size_t len, struct cgfb_mapwin *w)
{
	bool got = false;

	pthread_mutex_lock(&a->mu);
	while (a->want || a->busy)
		pthread_cond_wait(&a->cv, &a->mu);
	if (a->ready && a->rc == 0 && a->off <= off &&
	    (size_t)(off - a->off) + len <= a->len) {
		*w = a->win;
		/* The caller reads from off on. */
		w->base += off - a->off;
		w->len = len;
		w->off = off;
		memset(&a->win, 0, sizeof(a->win));
		a->ready = false;
		got = true;
	} else {
		drop_prepared(a);
		pthread_cond_broadcast(&a->cv);
	}
	pthread_mutex_unlock(&a->mu);
	return got;
}

void cgfb_mapahead_release(struct cgfb_mapahead *a, struct cgfb_mapwin *w)
{
	pthread_mutex_lock(&a->mu);
	while (a->n_drop == 2)
		pthread_cond_wait(&a->cv, &a->mu);
	a->drop[a->n_drop++] = *w;
	memset(w, 0, sizeof(*w));
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
}

void cgfb_mapahead_free(struct cgfb_mapahead *a)
{
	if (!a)
		return;
	pthread_mutex_lock(&a->mu);
	drop_prepared(a);
	a->stop = true;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->thread, NULL);
	/* The thread unmapped every window it was handed before it stopped. */
	pthread_cond_destroy(&a->cv);
	pthread_mutex_destroy(&a->mu);
	free(a);
}
