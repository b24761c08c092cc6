/* The collector's query and header values (server-stub/api/params.c):
 * ?days= of the digest, ?limit= and ?cursor= of the report list, the
 * Content-Type of an upload. libmicrohttpd hands them over as C strings,
 * percent-decoded.
 *
 * Properties: a number accepted is written in decimal digits only and
 * they are its digits (less leading zeros), within the maximum asked; a
 * content type accepted is application/json, at most with charset=utf-8. */
#include <ctype.h>
#include <inttypes.h>
#include <strings.h>

#include "fuzz.h"
#include "api/params.h"

static void number(const char *v, uint64_t max)
{
	uint64_t x;
	char num[24];
	const char *d = v;

	if (!params_uint(v, max, 42, &x))
		return;
	PROPERTY(x <= max, "%" PRIu64 " over %" PRIu64, x, max);
	for (const char *p = v; *p; p++)
		PROPERTY(*p >= '0' && *p <= '9', "'%s' accepted", v);
	while (d[0] == '0' && d[1])
		d++;
	snprintf(num, sizeof(num), "%" PRIu64, x);
	PROPERTY(strcmp(num, d) == 0, "'%s' read as %s", v, num);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *v = fuzz_cstr(data, size);

	number(v, 500);           /* limit */
	number(v, INT64_MAX);     /* cursor */
	number(v, 3660);          /* days */
	number(v, UINT64_MAX);
	if (params_json_content_type(v)) {
		const char *p = v + strlen("application/json");

		PROPERTY(strncasecmp(v, "application/json", 16) == 0, "'%s'", v);
		while (*p == ' ' || *p == ';')
			p++;
		PROPERTY(!*p || !strcasecmp(p, "charset=utf-8") || !strcasecmp(p, "charset=\"utf-8\""),
			 "content type '%s' accepted", v);
	}
	free(v);
	return 0;
}
