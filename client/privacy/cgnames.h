/* The names of this machine's cgroups that a report carries only as keyed
 * tokens ("h:…", privacy/anon.c): written in clear in the use case next to
 * its token, such a name undoes the token in every report. They are added
 * to the names the free-text scan looks for. */
#ifndef CGFB_CGNAMES_H
#define CGFB_CGNAMES_H

#include "privacy/allowlist.h"

#define CGFB_CGROUP_ROOT "/sys/fs/cgroup"
/* A walk of a large host ends here: deeper cgroups and more names than
 * the list holds are left to the administrator's review. */
#define CGFB_CGNAMES_DEPTH 12
#define CGFB_CGNAMES_DIRS  20000

/* Calls name(arg, n) for every directory below root (the cgroup mounts: v2, or v1 hierarchies
 * side by side), to CGFB_CGNAMES_DEPTH levels and CGFB_CGNAMES_DIRS
 * directories, whose name the allowlist al neither keeps nor generalises
 * and that is no hierarchy's name ("memory", "cpu,cpuacct", "unified");
 * a unit's name also without its suffix ("acmedb.service" and "acmedb").
 * A negative return of name stops the walk and is returned; else 0, or a
 * negative errno when root cannot be opened. */
int cgfb_cgroup_names(const char *root, const struct cgfb_allowlist *al,
		      int (*name)(void *arg, const char *n), void *arg);

#endif
