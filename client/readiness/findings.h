/* The check's findings and what it could not read, kept for the probes
 * that find them and the outputs that print them. */
#ifndef CGFB_FINDINGS_H
#define CGFB_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgfb/buf.h"
#include "readiness/decide.h"
#include "readiness/env.h"
#include "readiness/rules.h"
#include "snapshot/mountinfo.h"

#define CGFB_WHERE_MAX      5     /* places named per finding; the rest counted */
#define CGFB_UNREADABLE_MAX 5     /* unreadable places named; the rest counted */
#define CGFB_CHECK_DEPTH    256   /* levels below a mount point the walk reads,
                                     as the snapshot's CGFB_TOPO_MAX_DEPTH */
#define CGFB_DECISIONS_MAX  8     /* deciders asked per finding */
#define CGFB_OWNED_MAX      64    /* (owner, rule) pairs counted */

struct cgfb_finding {
	const struct cgfb_rule *rule;
	unsigned long count;              /* places found */
	char *where[CGFB_WHERE_MAX];      /* the first of them */
	unsigned n_where;
	char *kernel;                     /* kconfig: the kernel it is about, which is
	                                     where it breaks; NULL: the rule's */
	uint32_t controllers;             /* v1 controllers of the places (enum cgfb_ctrl bits) */
	/* What the deciders make of it (decide.c). */
	struct cgfb_decision dec[CGFB_DECISIONS_MAX];
	unsigned n_dec;
	bool breaks;                      /* a decider breaks it, now or at a version */
	bool on_target;                   /* ... at the target (no target: breaks) */
	bool unknown;                     /* a decider's input could not be read */
	char advice[640];                 /* what to do on this host, "" the rule's */
};

/* Places a rule matched in cgroups another program made and moves to v2
 * itself (a systemd unit, a container runtime): counted, not findings. */
struct cgfb_owned {
	const struct cgfb_owner *owner;
	const struct cgfb_rule *rule;
	unsigned long count;
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
	unsigned long cgroups;            /* cgroups walked in v1 hierarchies */
	unsigned long vanished;           /* removed while walked: not an error */
	unsigned long unreadable;
	char *unreadable_what[CGFB_UNREADABLE_MAX];
	unsigned long depth_cut;          /* cgroups at CGFB_CHECK_DEPTH whose children
	                                     were not read */
	char *depth_cut_first;            /* the first of them, escaped (cgfb/utf8.h) */
	unsigned sources;                 /* sources read at all (mountinfo, cmdline, ...) */
	struct cgfb_env *env;             /* the environment facts */
	struct cgfb_owned owned[CGFB_OWNED_MAX];
	unsigned n_owned;
	bool decided;                     /* the cgroup mode could be told */
};

void cgfb_check_free(struct cgfb_check *c);

/* For the probes: the finding of rule r (made on first use), a place added
 * to it, and something that could not be read. 0 or -ENOMEM. */
int cgfb_check_found(struct cgfb_check *c, const struct cgfb_rule *r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A finding of its own about one installed kernel, which is where it breaks. */
/* The same, for a place in cgroups of the v1 controllers ctl. */
int cgfb_check_found_ctl(struct cgfb_check *c, const struct cgfb_rule *r, uint32_t ctl,
			 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* A place in a cgroup of owner's: counted apart. 0 or -ENOSPC (table full:
 * counted as a finding instead by the caller). */
int cgfb_check_owned(struct cgfb_check *c, const struct cgfb_owner *owner, const struct cgfb_rule *r);
int cgfb_check_found_kernel(struct cgfb_check *c, const struct cgfb_rule *r, const char *kernel,
			    const char *where);
int cgfb_check_unreadable(struct cgfb_check *c, const char *what, int err);
/* A cgroup at the walk's limit that has children, not read. 0 or -ENOMEM. */
int cgfb_check_depth_cut(struct cgfb_check *c, const char *where);
int cgfb_check_unreadable_why(struct cgfb_check *c, const char *what, const char *why);
/* A configuration file read whole as text into b: 0, or 1 when it could
 * not be read or is no text (a NUL byte), said in c, or -ENOMEM. A file
 * read counts as a source. */
int cgfb_check_read_text(struct cgfb_check *c, const char *path, size_t max, struct cgfb_buf *b);
/* ROOT/path (path absolute) into buf; -ENAMETOOLONG when it does not fit. */
int cgfb_check_path(const struct cgfb_check_opts *o, const char *path, char *buf, size_t sz);

/* A v1 hierarchy of ms carrying controller ("*": one with neither memory
 * nor cpuset, for the rule about the others). */
bool cgfb_mount_has(const struct cgfb_mount *m, const char *controller);

#endif
