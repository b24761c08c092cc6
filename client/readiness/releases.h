/* Distribution releases: a release stands for its kernel and how that
 * kernel is configured, its systemd and the hierarchy that systemd sets up
 * when the command line asks nothing. Used as targets (--target debian=13)
 * and for the next release of the host's own distribution. */
#ifndef CGFB_RELEASES_H
#define CGFB_RELEASES_H

#include <stdbool.h>

#include "snapshot/mountinfo.h"

/* A distribution release as a target: its kernel and how the kernel is
 * configured, its systemd and the hierarchy that systemd sets up when the
 * command line asks nothing (its build's default-hierarchy). */
struct cgfb_release {
	const char *family, *version, *name;
	const char *kernel, *systemd;
	char memcg_v1, cpusets_v1;           /* 'y', 'n', '?' */
	enum cgfb_cgroup_mode hierarchy;     /* the build default */
	bool v1;                             /* systemd supports v1 at all */
	const char *source;
};

const struct cgfb_release *cgfb_release_find(const char *family, const char *version);
/* The releases of a family, oldest first, until NULL. */
const struct cgfb_release *cgfb_release_next(const char *family, const struct cgfb_release *after);

#endif
