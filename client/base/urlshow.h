/* A URL as an error message or a log may print it: scheme://host[:port]/path.
 * The user information (smtp://user:password@host, which smtp-url may
 * carry for its server's login), the query and the fragment (where tokens
 * travel) are left out, so that no password ends up on a terminal, in the
 * journal or in a pasted bug report. Made by hand rather than by libcurl's
 * parser: it must also cut what is not a URL at all (a mistyped value),
 * and curl is only for client/deliver/. */
#ifndef CGFB_URLSHOW_H
#define CGFB_URLSHOW_H

#include <stddef.h>

/* The shown form of url in buf (cut to size; control bytes as '?'); buf. */
const char *cgfb_url_shown(char *buf, size_t size, const char *url);

#endif
