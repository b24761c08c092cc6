/* Connections the kernel accepted for the collector but libmicrohttpd
 * never took: at shutdown, once the daemon is quiesced, they are in the
 * listening socket's queue. Closing that socket would reset each of them,
 * a request lost without a word; they are answered 503 instead, as reads
 * still queued inside the server are (docs/API.md). */
#ifndef CGFB_SERVER_BACKLOG_H
#define CGFB_SERVER_BACKLOG_H

#include <stdbool.h>

/* Accepts what is queued on the listening socket fd (at most a bounded
 * number) and answers each 503 with Retry-After; over TLS there is no
 * plain answer to give, so those are only closed. Returns how many were
 * answered. fd stays open. */
unsigned backlog_refuse(int fd, bool tls, unsigned retry_after);

#endif
