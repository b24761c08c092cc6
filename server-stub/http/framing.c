/* The framing verdict of a request head (framing.h). */
#include "http/framing.h"

#include <stddef.h>
#include <strings.h>

void framing_count(struct framing *f, const char *name)
{
	if (strcasecmp(name, "Content-Length") == 0)
		f->content_length++;
	else if (strcasecmp(name, "Transfer-Encoding") == 0)
		f->transfer_encoding++;
	else if (strcasecmp(name, "Host") == 0)
		f->host = true;
}

/* A message framed both by Content-Length and by Transfer-Encoding, or with
 * several Content-Length fields, has no length both ends agree on; behind a
 * proxy that is request smuggling, so it is refused before any body is
 * read, and the connection closed. libmicrohttpd 0.9.75 takes the first
 * Content-Length and reads on. An HTTP/1.1 request without Host is a 400
 * too (RFC 9112 3.2). */
const char *framing_error(const struct framing *f, bool http11)
{
	if (f->content_length && f->transfer_encoding)
		return "both Content-Length and Transfer-Encoding";
	if (f->content_length > 1)
		return "more than one Content-Length";
	if (f->transfer_encoding > 1)
		return "more than one Transfer-Encoding";
	if (!f->host && http11)
		return "HTTP/1.1 without Host";
	return NULL;
}
