/* Whether a request head says where its body ends (RFC 9112 6.3) and whom
 * it is for (3.2): the verdict on the header fields a request carries, made
 * before any byte of the body is read. Pure: the caller counts the fields. */
#ifndef CGFB_SERVER_FRAMING_H
#define CGFB_SERVER_FRAMING_H

#include <stdbool.h>

struct framing {
	unsigned content_length;	/* Content-Length fields */
	unsigned transfer_encoding;	/* Transfer-Encoding fields */
	bool host;			/* a Host field */
};

/* Count one header field (name compared without case) into f. */
void framing_count(struct framing *f, const char *name);

/* NULL when the head is acceptable, else why not (for a 400 that closes
 * the connection). http11: the request line said HTTP/1.1. */
const char *framing_error(const struct framing *f, bool http11);

#endif
