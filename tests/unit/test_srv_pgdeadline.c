/* The PostgreSQL backend's deadlines on the collector's side
 * (store/store_pg_conn.c), against a frozen server played by the test:
 * a socket that listens and never accepts (a stopped postmaster whose
 * kernel still completes connections), and one that lets a session in and
 * then answers nothing (a stopped backend). Each call ends within the
 * deadline, -ETIMEDOUT; a shutdown abandons a longer wait within a
 * slice. Before issue 41 a connection waited for libpq's connect_timeout
 * (5 s), a statement and the shutdown without end (the alarm below turns
 * that into a failure). */
#include "testutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"

static char dir[] = "/tmp/cgfb-pgdl.XXXXXX";
static char conninfo[256];
static int listener = -1;

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* libpq's socket for port 5432 in dir: what the tests' servers listen on. */
static int setup(void **state)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };

	if (!mkdtemp(dir))
		return -1;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s/.s.PGSQL.5432", dir);
	listener = socket(AF_UNIX, SOCK_STREAM, 0);
	if (listener < 0 || bind(listener, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(listener, 16) < 0)
		return -1;
	snprintf(conninfo, sizeof(conninfo),
		 "host=%s port=5432 dbname=cgfb user=cgfb sslmode=disable gssencmode=disable", dir);
	/* A call that waits without end fails the run instead of hanging it. */
	alarm(20);
	return 0;
}

static int teardown(void **state)
{
	char path[128];

	close(listener);
	snprintf(path, sizeof(path), "%s/.s.PGSQL.5432", dir);
	unlink(path);
	rmdir(dir);
	return 0;
}

static bool read_full(int fd, void *buf, size_t n)
{
	for (size_t got = 0; got < n;) {
		const ssize_t r = read(fd, (char *)buf + got, n - got);

		if (r <= 0)
			return false;
		got += (size_t)r;
	}
	return true;
}

/* One session: its startup packet read, AuthenticationOk and
 * ReadyForQuery sent, then nothing answered until the client goes. */
static void *mute_backend(void *arg)
{
	static const unsigned char hello[] = { 'R', 0, 0, 0, 8, 0, 0, 0, 0, 'Z', 0, 0, 0, 5, 'I' };
	char buf[1024];
	uint32_t len;
	const int c = accept(listener, NULL, NULL);

	if (c < 0)
		return NULL;
	if (read_full(c, &len, 4) && ntohl(len) >= 8 && ntohl(len) - 4 <= sizeof(buf) &&
	    read_full(c, buf, ntohl(len) - 4) &&
	    send(c, hello, sizeof(hello), MSG_NOSIGNAL) == sizeof(hello))
		while (read(c, buf, sizeof(buf)) > 0)
			;
	close(c);
	return NULL;
}

/* A frozen postmaster: the connection is made by the kernel, the startup
 * packet is taken, nothing comes back. */
static void connect_to_a_frozen_server(void **state)
{
	struct store *s = NULL;
	int64_t t0, took;
	int rc;

	store_write_timeouts(2000, 10000, 300);
	t0 = now_ms();
	rc = store_open(&s, conninfo, true);
	took = now_ms() - t0;

	assert_int_equal(rc, -ETIMEDOUT);
	assert_null(s);
	assert_true(took >= 300 && took < 2000);
	/* What the kernel queued for it is dropped with the next one. */
	close(accept(listener, NULL, NULL));
}

/* A frozen backend: the session opens, its first statement has no
 * answer; the statement's deadline is its statement_timeout (none yet)
 * and the deadline. */
static void statement_on_a_frozen_server(void **state)
{
	struct store *s = NULL;
	pthread_t t;
	int64_t t0, took;
	int rc;

	assert_int_equal(pthread_create(&t, NULL, mute_backend, NULL), 0);
	store_write_timeouts(2000, 10000, 300);
	t0 = now_ms();
	rc = store_open(&s, conninfo, true);
	took = now_ms() - t0;
	pthread_join(t, NULL);
	assert_int_equal(rc, -ETIMEDOUT);
	assert_true(took >= 300 && took < 2000);
}

static void *abort_soon(void *arg)
{
	usleep(200 * 1000);
	store_abort_reads();
	return NULL;
}

/* The shutdown (SIGTERM: store_abort_reads) ends a wait whose deadline
 * is far (5 s here) within a slice, without a cancel request (libpq 15's
 * PQcancel would wait for the frozen server too). Last: it is for the
 * process's life. */
static void shutdown_abandons_the_wait(void **state)
{
	struct store *s = NULL;
	pthread_t t, a;
	int64_t t0, took;
	int rc;

	assert_int_equal(pthread_create(&t, NULL, mute_backend, NULL), 0);
	store_write_timeouts(2000, 10000, 5000);
	assert_int_equal(pthread_create(&a, NULL, abort_soon, NULL), 0);
	t0 = now_ms();
	rc = store_open(&s, conninfo, true);
	took = now_ms() - t0;
	pthread_join(a, NULL);
	pthread_join(t, NULL);
	assert_true(rc < 0);
	assert_null(s);
	assert_true(took >= 200 && took < 2500);
	/* And no read connects again once the shutdown began. */
	t0 = now_ms();
	assert_true(store_open(&s, conninfo, true) < 0);
	assert_true(now_ms() - t0 < 500);
	close(accept(listener, NULL, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(connect_to_a_frozen_server),
		cmocka_unit_test(statement_on_a_frozen_server),
		cmocka_unit_test(shutdown_abandons_the_wait),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
