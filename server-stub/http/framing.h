/* Whether a request head says where its body ends (RFC 9112 6.3), whom it
 * is for (3.2) and what it asks for (its target): the verdict on the
 * request target and the header fields as libmicrohttpd hands them over,
 * made before any byte of the body is read. Pure: the caller feeds it the
 * fields. Every refusal closes the connection, since nothing after such a
 * head can be trusted to start where it seems to. */
#ifndef CGFB_SERVER_FRAMING_H
#define CGFB_SERVER_FRAMING_H

#include <stdbool.h>
#include <stddef.h>

struct framing {
	unsigned content_length;	/* Content-Length fields */
	unsigned transfer_encoding;	/* Transfer-Encoding fields */
	unsigned host;			/* Host fields */
	/* The first fault found in a field, and the status it gets. */
	const char *why;
	unsigned status;
	/* The verdict on the (first) Transfer-Encoding value, kept for the
	 * end: whether it is a fault depends on the other fields. */
	const char *te_why;
	unsigned te_status;
};

/* Feed one header field: name and value with their lengths (they may hold
 * bytes a field must not, which is what is judged). folded: libmicrohttpd
 * joined it from several lines (obs-fold; the caller knows how). */
void framing_field(struct framing *f, const char *name, size_t name_len, const char *value,
		   size_t value_len, bool folded);

/* 0 when the head is acceptable, else the status of its refusal (400 or
 * 501), *why saying why. http11: the request line said HTTP/1.1. */
unsigned framing_verdict(const struct framing *f, bool http11, const char **why);

/* NULL when the request target, as the client sent it (before any
 * percent-decoding), is acceptable; else why not (a 400). */
const char *framing_target(const char *target, size_t len);

/* Whether value is a valid Host field value (RFC 9112 3.2, RFC 3986 3.2.2
 * and 3.2.3). */
bool framing_host_valid(const char *value, size_t len);

#endif
