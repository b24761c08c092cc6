/* /proc/self/mountinfo (client/snapshot/mountinfo.c): which cgroup
 * hierarchies are mounted where.
 *
 * Properties: at most CGFB_HIER_MAX hierarchies, each one version 1 or 2,
 * with controllers from the closed list only, a terminated name, a path
 * under the root given, and no hierarchy (device) twice; the mode is one
 * of the four. */
#include "fuzz.h"
#include "snapshot/attrs.h"
#include "snapshot/mountinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char root[] = "/fixture";
	struct cgfb_mounts ms;
	enum cgfb_cgroup_mode mode;
	char *buf = malloc(size ? size : 1);

	memcpy(buf, data, size);
	if (cgfb_mountinfo_parse(buf, size, root, &ms) < 0)
		abort();
	PROPERTY(ms.n <= CGFB_HIER_MAX, "%u hierarchies", ms.n);
	for (unsigned i = 0; i < ms.n; i++) {
		const struct cgfb_mount *m = &ms.m[i];

		PROPERTY(m->version == 1 || m->version == 2, "version %d", m->version);
		PROPERTY(m->controllers < (UINT32_C(1) << CGFB_C_N), "controllers %#x",
			 m->controllers);
		PROPERTY(memchr(m->name, '\0', sizeof(m->name)), "name not terminated");
		PROPERTY(strncmp(m->path, root, strlen(root)) == 0, "path %s", m->path);
		for (unsigned k = 0; k < i; k++)
			PROPERTY(ms.m[k].dev_major != m->dev_major || ms.m[k].dev_minor != m->dev_minor,
				 "hierarchy %u:%u twice", m->dev_major, m->dev_minor);
	}
	mode = cgfb_mounts_mode(&ms);
	PROPERTY(mode <= CGFB_MODE_UNIFIED, "mode %d", (int)mode);
	PROPERTY(cgfb_cgroup_mode_name(mode) != NULL, "mode name");
	cgfb_mounts_free(&ms);
	free(buf);
	return 0;
}
