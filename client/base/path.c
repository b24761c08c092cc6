#include <errno.h>
#include <stdio.h>

#include "base/path.h"

int cgfb_path_join(char *out, size_t outsz, const char *dir, const char *name,
		   const char *suffix)
{
	const int n = snprintf(out, outsz, "%s/%s%s", dir, name, suffix ? suffix : "");

	if (n < 0 || (size_t)n >= outsz) {
		if (outsz)
			out[0] = '\0';
		return -ENAMETOOLONG;
	}
	return 0;
}
