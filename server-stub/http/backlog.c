#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "http/backlog.h"

/* A listening queue holds at most SOMAXCONN (4096 on Debian 12); the
 * bound keeps a flood from stretching the shutdown. */
#define BACKLOG_MAX 4096

#define BODY "{\"error\":\"shutting_down\",\"message\":\"the collector is stopping; retry later\"}\n"

/* The request is read first, so that closing the socket does not reset
 * the connection (unread data makes close() send RST, and the client
 * may then lose the answer). What arrives later is not waited for. */
static void discard_request(int fd)
{
	char buf[16384];
	unsigned rounds = 0;

	while (rounds++ < 64 && recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

static bool answer(int fd, unsigned retry_after)
{
	char head[512];
	const int n = snprintf(head, sizeof(head),
			       "HTTP/1.1 503 Service Unavailable\r\n"
			       "Content-Type: application/json\r\n"
			       "X-Content-Type-Options: nosniff\r\n"
			       "Cache-Control: no-store\r\n"
			       "Retry-After: %u\r\n"
			       "Connection: close\r\n"
			       "Content-Length: %zu\r\n\r\n%s",
			       retry_after, strlen(BODY), BODY);

	discard_request(fd);
	/* One small segment into an empty send buffer: it does not block. */
	if (n < 0 || send(fd, head, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL) != n)
		return false;
	shutdown(fd, SHUT_WR);
	return true;
}

unsigned backlog_refuse(int fd, bool tls, unsigned retry_after)
{
	const int flags = fcntl(fd, F_GETFL);
	unsigned answered = 0;

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return 0;
	for (unsigned i = 0; i < BACKLOG_MAX; i++) {
		const int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			break;        /* EAGAIN: the queue is empty */
		}
		if (!tls && answer(c, retry_after))
			answered++;
		close(c);
	}
	return answered;
}
