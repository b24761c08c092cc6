/* os-release(5) (client/snapshot/profile.c) and the kernel release that
 * uname(2) reports, as the report's system profile takes them.
 *
 * Properties: what leaves the machine has the shape the schema allows
 * and nothing else: the distribution id ^[a-z0-9._-]{1,32}$, its version
 * ^[A-Za-z0-9._-]{0,32}$, the release ^[0-9][A-Za-z0-9._+~-]{0,63}$ or
 * "0", the series "<major>.<minor>". */
#include "fuzz.h"
#include "snapshot/profile.h"

static bool shape(const char *s, size_t min, size_t max, const char *extra, bool upper)
{
	const size_t n = strlen(s);

	if (n < min || n > max)
		return false;
	for (size_t i = 0; i < n; i++) {
		const char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      (upper && c >= 'A' && c <= 'Z') || strchr(extra, c)))
			return false;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char id[33], version[33], release[65], series[8];
	char *buf = malloc(size ? size : 1);
	char *cstr = fuzz_cstr(data, size);
	unsigned major, minor;
	char tail;

	memcpy(buf, data, size);
	cgfb_os_release_parse(buf, size, id, version);
	PROPERTY(shape(id, 1, 32, "._-", false), "id '%s'", id);
	PROPERTY(shape(version, 0, 32, "._-", true), "version_id '%s'", version);

	cgfb_kernel_release(cstr, release, series);
	PROPERTY(strcmp(release, "0") == 0 ||
		 (release[0] >= '0' && release[0] <= '9' && shape(release, 1, 64, "._+~-", true)),
		 "release '%s'", release);
	PROPERTY(sscanf(series, "%u.%u%c", &major, &minor, &tail) == 2 && major <= 99 &&
		 minor <= 999, "series '%s'", series);
	free(cstr);
	free(buf);
	return 0;
}
