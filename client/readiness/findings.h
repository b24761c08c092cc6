/* The check's findings and what it could not read, kept for the probes
 * that find them and the outputs that print them. */
#ifndef CGFB_FINDINGS_H
#define CGFB_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "readiness/rules.h"
#include "snapshot/mountinfo.h"

#define CGFB_WHERE_MAX      5     /* places named per finding; the rest counted */
#define CGFB_UNREADABLE_MAX 5     /* unreadable places named; the rest counted */
#define CGFB_CHECK_DEPTH    256   /* the walk's depth, as the snapshot's */

struct cgfb_finding {
	const struct cgfb_rule *rule;
	unsigned long count;              /* places found */
	char *where[CGFB_WHERE_MAX];      /* the first of them */
	unsigned n_where;
	char *kernel;                     /* kconfig: the kernel it is about, which is
	                                     where it breaks; NULL: the rule's */
};

struct cgfb_check_opts {
	const char *root;                 /* a fixture file system instead of / ("" or NULL: /) */
	const char *mountinfo;            /* instead of ROOT/proc/self/mountinfo */
	/* Tests only: called before the walk enters cgroup name of the
	 * directory open as dirfd, to make it vanish as on a busy host. */
	void (*enter_hook)(void *arg, int dirfd, const char *name);
	void *hook_arg;
};

struct cgfb_check {
	struct cgfb_finding *f;
	size_t n, cap;
	enum cgfb_cgroup_mode mode;
	char kernel[128];                 /* running kernel's release, "" unknown */
	char systemd[64];                 /* installed systemd's version, "" unknown */
	unsigned long cgroups;            /* cgroups walked in v1 hierarchies */
	unsigned long vanished;           /* removed while walked: not an error */
	unsigned long unreadable;
	char *unreadable_what[CGFB_UNREADABLE_MAX];
	unsigned sources;                 /* sources read at all (mountinfo, cmdline, ...) */
};

void cgfb_check_free(struct cgfb_check *c);

/* For the probes: the finding of rule r (made on first use), a place added
 * to it, and something that could not be read. 0 or -ENOMEM. */
int cgfb_check_found(struct cgfb_check *c, const struct cgfb_rule *r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A finding of its own about one installed kernel, which is where it breaks. */
int cgfb_check_found_kernel(struct cgfb_check *c, const struct cgfb_rule *r, const char *kernel,
			    const char *where);
int cgfb_check_unreadable(struct cgfb_check *c, const char *what, int err);
int cgfb_check_unreadable_why(struct cgfb_check *c, const char *what, const char *why);
/* ROOT/path (path absolute) into buf; -ENAMETOOLONG when it does not fit. */
int cgfb_check_path(const struct cgfb_check_opts *o, const char *path, char *buf, size_t sz);

/* A v1 hierarchy of ms carrying controller ("*": one with neither memory
 * nor cpuset, for the rule about the others). */
bool cgfb_mount_has(const struct cgfb_mount *m, const char *controller);

#endif
