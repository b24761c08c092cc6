/* An LD_PRELOAD shim that steps the wall clock back for one process, as
 * chrony at boot or a restored VM steps a machine's: once the file named
 * by CLOCKSHIM_FILE exists (checked at every call), CLOCK_REALTIME reads
 * CLOCKSHIM_BACK seconds (default 3600) earlier through clock_gettime,
 * gettimeofday and time. CLOCK_MONOTONIC is left alone, as a step leaves it.
 *
 * A real step also moves the deadlines the kernel waits for: a
 * pthread_cond_timedwait on a CLOCK_REALTIME condition variable (the
 * default) waits until the stepped clock reaches its deadline, that is
 * CLOCKSHIM_BACK seconds longer, even when the wait began before the step.
 * So such a wait is cut into slices of 50 ms and its deadline compared with
 * the stepped clock after each; condition variables made with a
 * CLOCK_MONOTONIC attribute are recognised at pthread_cond_init and wait as
 * they would. A spurious wake-up stays possible, as POSIX allows. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define SLICE_NS 50000000L
#define MONO_MAX 64

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t *mono[MONO_MAX];

/* The raw clock, from the kernel (the vDSO is not interposed). */
static int raw_gettime(clockid_t id, struct timespec *ts)
{
	static int (*real)(clockid_t, struct timespec *);

	if (!real)
		real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
	return real(id, ts);
}

static long back(void)
{
	const char *f = getenv("CLOCKSHIM_FILE");
	const char *b = getenv("CLOCKSHIM_BACK");

	if (!f || access(f, F_OK) != 0)
		return 0;
	return b ? atol(b) : 3600;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	const int rc = raw_gettime(id, ts);

	if (rc == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE))
		ts->tv_sec -= back();
	return rc;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
	struct timespec ts;

	(void)tz;
	clock_gettime(CLOCK_REALTIME, &ts);
	tv->tv_sec = ts.tv_sec;
	tv->tv_usec = ts.tv_nsec / 1000;
	return 0;
}

time_t time(time_t *out)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	if (out)
		*out = ts.tv_sec;
	return ts.tv_sec;
}

static void *real_sym(const char *name)
{
	/* The current versions: an unversioned dlsym may find the 2.2.5 ones. */
	void *f = dlvsym(RTLD_NEXT, name, "GLIBC_2.3.2");

	return f ? f : dlsym(RTLD_NEXT, name);
}

int pthread_cond_init(pthread_cond_t *restrict c, const pthread_condattr_t *restrict a)
{
	static int (*real)(pthread_cond_t *, const pthread_condattr_t *);
	clockid_t id = CLOCK_REALTIME;

	if (!real)
		real = (int (*)(pthread_cond_t *, const pthread_condattr_t *))
			real_sym("pthread_cond_init");
	if (a)
		pthread_condattr_getclock(a, &id);
	pthread_mutex_lock(&lock);
	for (int i = 0; i < MONO_MAX; i++) {
		if (mono[i] == c)
			mono[i] = NULL;
		if (id == CLOCK_MONOTONIC && !mono[i]) {
			mono[i] = c;
			id = CLOCK_REALTIME;
		}
	}
	pthread_mutex_unlock(&lock);
	return real(c, a);
}

static bool is_mono(pthread_cond_t *c)
{
	bool found = false;

	pthread_mutex_lock(&lock);
	for (int i = 0; i < MONO_MAX && !found; i++)
		found = mono[i] == c;
	pthread_mutex_unlock(&lock);
	return found;
}

static bool before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

int pthread_cond_timedwait(pthread_cond_t *restrict c, pthread_mutex_t *restrict m,
			   const struct timespec *restrict abstime)
{
	static int (*real)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
	struct timespec now, slice;
	int rc;

	if (!real)
		real = (int (*)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *))
			real_sym("pthread_cond_timedwait");
	if (is_mono(c))
		return real(c, m, abstime);
	for (;;) {
		clock_gettime(CLOCK_REALTIME, &now);
		if (!before(&now, abstime))
			return ETIMEDOUT;
		/* The next slice on the kernel's own (unstepped) clock. */
		raw_gettime(CLOCK_REALTIME, &slice);
		slice.tv_nsec += SLICE_NS;
		if (slice.tv_nsec >= 1000000000L) {
			slice.tv_sec++;
			slice.tv_nsec -= 1000000000L;
		}
		rc = real(c, m, &slice);
		if (rc != ETIMEDOUT)
			return rc;
	}
}
