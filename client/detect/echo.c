#include <string.h>

#include "detect/echo.h"

static bool quoted(const char *text, size_t len, size_t at, size_t n)
{
	static const char quotes[] = "'\"`";

	/* A quote the user typed inside their own text does not close the
	 * kernel's: any quote before and the same after is taken as quoting,
	 * which no contact address the kernel prints is. */
	for (const char *q = quotes; *q; q++)
		if (memchr(text, *q, at) && memchr(text + at + n, *q, len - at - n))
			return true;
	return false;
}

static bool glued(const char *text, size_t at)
{
	const char c = at ? text[at - 1] : ' ';

	return !(c == ' ' || c == '\t' || c == '(' || c == '<' || c == '[');
}

bool cgfb_echo_of_user(const char *text, size_t len, size_t at, size_t n)
{
	if (at > len || n > len - at)
		return false;
	return quoted(text, len, at, n) || glued(text, at);
}
