#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "http/offload.h"

#define THREADS_MAX 8

struct offload {
	pthread_mutex_t lock;
	pthread_cond_t work;
	struct offload_job *head, *tail;
	bool stopping;
	bool cancelling;
	unsigned n;
	pthread_t threads[THREADS_MAX];
};

static void *offload_main(void *arg)
{
	struct offload *o = arg;

	pthread_mutex_lock(&o->lock);
	for (;;) {
		struct offload_job *j;
		bool cancel;

		while (!o->head && !o->stopping)
			pthread_cond_wait(&o->work, &o->lock);
		j = o->head;
		if (!j)
			break;
		o->head = j->next;
		if (!o->head)
			o->tail = NULL;
		cancel = o->cancelling;
		pthread_mutex_unlock(&o->lock);
		if (cancel && j->cancel)
			j->cancel(j);
		else
			j->run(j);
		pthread_mutex_lock(&o->lock);
	}
	pthread_mutex_unlock(&o->lock);
	return NULL;
}

int offload_start(struct offload **out, unsigned threads)
{
	struct offload *o = calloc(1, sizeof(*o));
	int rc = 0;

	if (!o)
		return -ENOMEM;
	pthread_mutex_init(&o->lock, NULL);
	pthread_cond_init(&o->work, NULL);
	if (threads > THREADS_MAX)
		threads = THREADS_MAX;
	for (; o->n < threads; o->n++) {
		rc = pthread_create(&o->threads[o->n], NULL, offload_main, o);
		if (rc)
			break;
	}
	if (o->n == 0) {
		offload_stop(o);
		return -rc;
	}
	*out = o;
	return 0;
}

void offload_run(struct offload *o, struct offload_job *j)
{
	j->next = NULL;
	pthread_mutex_lock(&o->lock);
	if (o->tail)
		o->tail->next = j;
	else
		o->head = j;
	o->tail = j;
	pthread_cond_signal(&o->work);
	pthread_mutex_unlock(&o->lock);
}

void offload_cancel(struct offload *o)
{
	if (!o)
		return;
	pthread_mutex_lock(&o->lock);
	o->cancelling = true;
	pthread_mutex_unlock(&o->lock);
}

void offload_stop(struct offload *o)
{
	if (!o)
		return;
	pthread_mutex_lock(&o->lock);
	o->stopping = true;
	pthread_cond_broadcast(&o->work);
	pthread_mutex_unlock(&o->lock);
	for (unsigned i = 0; i < o->n; i++)
		pthread_join(o->threads[i], NULL);
	pthread_cond_destroy(&o->work);
	pthread_mutex_destroy(&o->lock);
	free(o);
}
