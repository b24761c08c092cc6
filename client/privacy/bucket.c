#include <inttypes.h>
#include <stdio.h>

#include "privacy/bucket.h"

#define COUNT_OPEN_FROM (UINT64_C(1) << 19)

const char *cgfb_bucket_size(uint64_t bytes, char buf[CGFB_BUCKET_MAX])
{
	static const char suffix[] = " KMGTPE";
	unsigned shift = 0, unit = 0;

	if (bytes == CGFB_UNLIMITED)
		return "max";
	if (bytes == 0)
		return "0";
	while (shift < 63 && (UINT64_C(1) << shift) < bytes)
		shift++;
	/* Up to 512 of a unit print as a number, 1024 is the next unit. */
	while (shift >= 10 && unit < 6) {
		shift -= 10;
		unit++;
	}
	if (unit)
		snprintf(buf, CGFB_BUCKET_MAX, "%" PRIu64 "%c", UINT64_C(1) << shift, suffix[unit]);
	else
		snprintf(buf, CGFB_BUCKET_MAX, "%" PRIu64, UINT64_C(1) << shift);
	return buf;
}

const char *cgfb_bucket_count(uint64_t n, char buf[CGFB_BUCKET_MAX])
{
	uint64_t lo = 2;

	if (n == 0)
		return "0";
	if (n == 1)
		return "1";
	if (n >= COUNT_OPEN_FROM) {
		snprintf(buf, CGFB_BUCKET_MAX, "%" PRIu64 "+", COUNT_OPEN_FROM);
		return buf;
	}
	while (lo * 2 <= n)
		lo *= 2;
	snprintf(buf, CGFB_BUCKET_MAX, "%" PRIu64 "-%" PRIu64, lo, lo * 2 - 1);
	return buf;
}
