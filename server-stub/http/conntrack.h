/* Who holds the collector's connections, and for how long a request head
 * may take. libmicrohttpd restarts its idle timeout at every byte, so a
 * client sending one header byte every few seconds keeps a slot for
 * hours; 256 of them take the server down (slowloris). Here every
 * connection's request head must be complete within head_timeout
 * seconds of the connection opening (or of the previous answer, on a
 * kept-alive connection), or a reaper thread shuts the socket down.
 * And slots are shared out by address key (peer.h): no key holds more
 * than per_key, and the last quarter of the slots goes only to keys that
 * hold fewer than CONNTRACK_FAIR, so that slow clients from a few
 * addresses cannot hold every slot even before the deadline strikes.
 * Slow clients from many addresses, each under every share, can: so when
 * the slots run out, the oldest incomplete head makes room (slots.h;
 * over TLS, only a handshake in progress, for another). A peer that hangs
 * up before its head is in frees its slot at once. */
#ifndef CGFB_SERVER_CONNTRACK_H
#define CGFB_SERVER_CONNTRACK_H

#include <stdbool.h>
#include <sys/socket.h>

#include "http/slots.h"

#define CONNTRACK_FAIR SLOTS_FAIR
/* How soon a connection whose peer hung up mid-head is shut down. */
#define CONNTRACK_GONE_MS 50
/* The TLS handshake's own deadline, from connecting (at most the head's). */
#define CONNTRACK_HANDSHAKE_S 3

struct conntrack;
struct conn;

/* 0 or a negative errno. */
int conntrack_start(struct conntrack **out, unsigned max, unsigned per_key,
		    unsigned head_timeout);
void conntrack_stop(struct conntrack *ct);
/* fn(ud) once a second on the reaper's thread, without conntrack's lock:
 * the server's other once-a-second work, without a thread of its own. */
void conntrack_on_tick(struct conntrack *ct, void (*fn)(void *ud), void *ud);

/* Why a connection was refused (static strings, for the log). */
#define CONNTRACK_WHY_PER_KEY SLOTS_WHY_PER_KEY
#define CONNTRACK_WHY_FAIR SLOTS_WHY_FAIR
#define CONNTRACK_WHY_FULL SLOTS_WHY_FULL
#define CONNTRACK_WHY_HANDSHAKES SLOTS_WHY_HANDSHAKES

/* Every connection from now on starts with a TLS handshake, which has
 * its own deadline (CONNTRACK_HANDSHAKE_S, or the head's if shorter) and
 * its own share of the slots (slots.h), until conntrack_handshake_done.
 * Before the first admission. */
void conntrack_tls(struct conntrack *ct);
/* c's TLS handshake is complete: from now on it is never given up to make
 * room; its head keeps its deadline. On the event loop's thread. */
void conntrack_handshake_done(struct conn *c);

/* Whether a connection from addr may be accepted now; when not, *why
 * says which rule refused it (one of CONNTRACK_WHY_*). When it may, its
 * slot is held from now until conntrack_add takes it (or, never taken,
 * for a couple of seconds): admissions on several threads at once cannot
 * pass a limit between two admissions and their adds. When every slot
 * is taken and addr's key holds fewer than CONNTRACK_FAIR, the
 * connection whose request head has been due the longest is shut down
 * to make room (never one whose head is in), so that a complete request
 * always gets a slot. */
bool conntrack_admit(struct conntrack *ct, const struct sockaddr *addr, const char **why);
/* The same for a trusted reverse proxy (proxy.h), which speaks for many
 * clients: no share of a key applies, only the total, and the oldest
 * incomplete head makes room as for anyone. */
bool conntrack_admit_proxy(struct conntrack *ct, const struct sockaddr *addr, const char **why);
/* An accepted connection on socket fd, in the slot its admission held
 * for addr's key (a new one when there is none); NULL when out of memory
 * (the connection is then only counted by libmicrohttpd). */
struct conn *conntrack_add(struct conntrack *ct, const struct sockaddr *addr, int fd);
/* Before fd is closed: the reaper never touches it after this.
 * A peer that hangs up (EOF or reset) before its request head is in has
 * its connection shut down at once (within CONNTRACK_GONE_MS), not at the
 * head deadline: libmicrohttpd 0.9.75 can miss that EOF (see
 * conntrack.c). */
void conntrack_remove(struct conntrack *ct, struct conn *c);
/* The request head is in: no deadline until the answer is out. */
void conntrack_head_done(struct conntrack *ct, struct conn *c);
/* The answer is out: the next request head has its deadline from now. */
void conntrack_wait_head(struct conntrack *ct, struct conn *c);
unsigned conntrack_count(struct conntrack *ct);
/* Connections whose request head has bytes waiting that libmicrohttpd
 * has not read yet: requests already sent, about to be parsed. */
unsigned conntrack_unread_heads(struct conntrack *ct);

#endif
