/* Which cgroup hierarchies are mounted where: /proc/self/mountinfo parsed
 * into v1 hierarchies (co-mounted controllers, name=) and the v2 one. */
#ifndef CGFB_MOUNTINFO_H
#define CGFB_MOUNTINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CGFB_HIER_MAX       32     /* the report's limit, and the kernel's (v1 roots) */
#define CGFB_HIER_NAME_MAX  64     /* MAX_CGROUP_ROOT_NAMELEN */

enum cgfb_cgroup_mode {
	CGFB_MODE_NONE, CGFB_MODE_LEGACY, CGFB_MODE_HYBRID, CGFB_MODE_UNIFIED,
};

struct cgfb_mount {
	int version;                      /* 1 or 2 */
	uint32_t controllers;             /* bits of enum cgfb_ctrl (v1; v2 has them in a file) */
	char name[CGFB_HIER_NAME_MAX + 1];/* name= of a v1 hierarchy, "" for none */
	bool noprefix;                    /* v1 files without the "cpuset." prefix */
	unsigned dev_major, dev_minor;    /* one hierarchy may be mounted many times */
	char *path;                       /* mount point, under the root given */
};

struct cgfb_mounts {
	unsigned n;
	struct cgfb_mount m[CGFB_HIER_MAX];
	unsigned dropped;                 /* hierarchies beyond CGFB_HIER_MAX */
	unsigned malformed;               /* lines that were not mountinfo */
};

/* Parse mountinfo text. Each mount point is prefixed with root (NULL or ""
 * for none), so that fixture trees stand in for /. The first mount of a
 * hierarchy wins; bind mounts of it are skipped. Returns 0 or -ENOMEM. */
int cgfb_mountinfo_parse(const char *buf, size_t len, const char *root, struct cgfb_mounts *out);
/* Read and parse a mountinfo file. Returns 0 or a negative errno. */
int cgfb_mountinfo_read(const char *path, const char *root, struct cgfb_mounts *out);
void cgfb_mounts_free(struct cgfb_mounts *ms);

enum cgfb_cgroup_mode cgfb_mounts_mode(const struct cgfb_mounts *ms);
const char *cgfb_cgroup_mode_name(enum cgfb_cgroup_mode mode);

#endif
