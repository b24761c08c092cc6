#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/params.h"

bool params_uint(const char *v, uint64_t max, uint64_t dflt, uint64_t *out)
{
	char *end;

	*out = dflt;
	if (!v)
		return true;
	if (*v < '0' || *v > '9')
		return false;
	errno = 0;
	*out = strtoull(v, &end, 10);
	return *end == '\0' && errno == 0 && *out <= max;
}

bool params_json_content_type(const char *ct)
{
	const size_t n = strlen("application/json");
	const char *p;

	if (!ct || strncasecmp(ct, "application/json", n) != 0)
		return false;
	p = ct + n;
	while (*p == ' ')
		p++;
	if (*p == '\0')
		return true;
	if (*p++ != ';')
		return false;
	while (*p == ' ')
		p++;
	return strcasecmp(p, "charset=utf-8") == 0 || strcasecmp(p, "charset=\"utf-8\"") == 0;
}
