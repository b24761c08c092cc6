#include <errno.h>
#include <string.h>

#include "cgfb/hex.h"

static const char digits[] = "0123456789abcdef";

int cgfb_unhex(const char *h, void *out, size_t n)
{
	unsigned char *p = out;

	for (size_t i = 0; i < 2 * n; i++) {
		const char *d = h[i] ? strchr(digits, h[i]) : NULL;

		if (!d)
			return -EINVAL;
		if (i % 2 == 0)
			p[i / 2] = (unsigned char)((d - digits) << 4);
		else
			p[i / 2] |= (unsigned char)(d - digits);
	}
	return 0;
}

void cgfb_hex(const void *b, size_t n, char *out)
{
	const unsigned char *p = b;

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
}
