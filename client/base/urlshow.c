#include <stdbool.h>
#include <string.h>

#include "base/urlshow.h"

/* RFC 3986's scheme: a letter, then letters, digits, '+', '-', '.'. */
static bool scheme_shape(const char *s, size_t n)
{
	static const char more[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789+-.";

	return n > 0 && strchr(more, s[0]) && !strchr("0123456789+-.", s[0]) &&
	       strspn(s, more) >= n;
}

static void put(char *buf, size_t size, size_t *at, const char *s, size_t n)
{
	for (size_t i = 0; i < n && *at + 1 < size; i++) {
		const unsigned char c = (unsigned char)s[i];

		buf[(*at)++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	buf[*at] = '\0';
}

const char *cgfb_url_shown(char *buf, size_t size, const char *url)
{
	const char *sep = strstr(url, "://"), *rest = url, *at;
	size_t n = 0, auth;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	if (sep && scheme_shape(url, (size_t)(sep - url))) {
		put(buf, size, &n, url, (size_t)(sep - url) + 3);
		rest = sep + 3;
	}
	auth = strcspn(rest, "/?#");
	/* The last '@' of the authority ends the user information, which may
	 * itself hold an '@' written raw. */
	for (at = rest + auth; at > rest && at[-1] != '@'; at--)
		;
	auth -= (size_t)(at - rest);
	put(buf, size, &n, at, auth);
	put(buf, size, &n, at + auth, strcspn(at + auth, "?#"));
	return buf;
}
