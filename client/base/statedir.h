/* The state directory (/var/lib/cgroup-feedback, or --state-dir): its one
 * owner in each program, and every name in it. Each program opens it once
 * and from then on reaches every file through that descriptor (openat,
 * never a path), so a directory renamed or replaced by a link after the
 * checks is never written through. Files are private to the service user
 * (0600 in a 0700 directory). */
#ifndef CGFB_STATEDIR_H
#define CGFB_STATEDIR_H

#include <limits.h>
#include <stddef.h>

/* The watcher's memory: boot id, position, what this boot reported. */
#define CGFB_STATE_FILE      "watch.state"
/* Where a corrupt one is moved (CGFB_STATE_FILE followed by this). */
#define CGFB_CORRUPT_SUFFIX  ".corrupt"
/* The per-install key of the anonymiser's tokens (32 bytes). */
#define CGFB_SECRET_FILE     "secret"
/* Catalog ids the administrator asked not to be told of, one a line. */
#define CGFB_SILENCED_FILE   "silenced"
/* The spool: a report per <id>.json, beside it these. */
#define CGFB_REPORTS_DIR     "reports"
#define CGFB_REPORT_SUFFIX   ".json"
#define CGFB_STATE_SUFFIX    ".state"    /* its consent, delivery and receipt */
#define CGFB_DRAFT_SUFFIX    ".draft"    /* what the administrator said so far */
#define CGFB_SEEN_SUFFIX     ".seen"     /* the boots and kernels it was seen at */
/* Reports the spool could not read, moved aside with their sidecars. */
#define CGFB_QUARANTINE_DIR  "quarantine"

/* Which reports have which repeat key (report/repindex.h): a cache the
 * report writer keeps and rebuilds from reports/ when it is not current. */
#define CGFB_REPEAT_INDEX_DIR "repeat-index"

/* The service's account (packaging/: sysusers), owner of the installed
 * state directory: the one owner besides root whose directory a command
 * run as root trusts. */
#define CGFB_SERVICE_USER "_cgroup-feedback"

struct cgfb_statedir {
	int fd;                 /* O_DIRECTORY, not through a link; -1 closed */
	char path[PATH_MAX];    /* for messages and printed commands only */
};

enum {
	CGFB_SD_CREATE = 1,     /* make it (0700, with its parents) when missing */
};

/* Open path as the state directory and check it: a directory, not a
 * symbolic link, writable by its owner alone, and owned by whoever runs
 * this (as root: root or CGFB_SERVICE_USER; a directory another user owns
 * could hold their watch.state and secret, as OpenSSH refuses a loose
 * authorized_keys). Returns 0, or a negative errno with the reason in err:
 * -ENOENT, -ENOTDIR, -ELOOP (a link), -EACCES (someone else's, or not
 * readable), -EPERM (writable by group or others). */
int cgfb_statedir_open(struct cgfb_statedir *sd, const char *path, unsigned flags, char *err,
		       size_t errsz);
void cgfb_statedir_close(struct cgfb_statedir *sd);

#endif
