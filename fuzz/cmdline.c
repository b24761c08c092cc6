/* The kernel command line, /proc/cmdline (client/snapshot/profile.c):
 * only the cgroup-related parameters are kept for the report.
 *
 * Properties: each value kept has the schema's shape
 * ^[A-Za-z0-9_.,:+-]{0,64}$ (a value outside it is dropped, never cut),
 * and its key and every piece of it appear in the command line (a
 * repeated parameter's values are joined with ','). */
#include "fuzz.h"
#include "snapshot/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *const *keys = cgfb_cmdline_keys();
	struct cgfb_cmdline c;
	char *buf = malloc(size ? size : 1);

	memcpy(buf, data, size);
	if (cgfb_cmdline_parse(buf, size, &c) < 0)
		abort();
	for (int k = 0; k < CGFB_CMDLINE_KEYS; k++) {
		const char *v = c.value[k];

		if (!v)
			continue;
		PROPERTY(strlen(v) <= CGFB_CMDVALUE_MAX, "%s: %zu bytes", keys[k], strlen(v));
		for (const char *p = v; *p; p++)
			PROPERTY((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
				 (*p >= '0' && *p <= '9') || strchr("_.,:+-", *p), "%s='%s'", keys[k],
				 v);
		PROPERTY(memmem(buf, size, keys[k], strlen(keys[k])) != NULL,
			 "%s kept but not on the command line", keys[k]);
		/* Every piece between commas was given (or is a piece of one). */
		char *copy = strdup(v), *save = NULL;

		for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
			PROPERTY(memmem(buf, size, t, strlen(t)) != NULL, "%s: '%s' not given",
				 keys[k], t);
		free(copy);
	}
	cgfb_cmdline_free(&c);
	free(buf);
	return 0;
}
