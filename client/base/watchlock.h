/* One watcher for each state directory. Two watchers on one directory
 * (the service, and root following the guide's `watch --state-dir
 * /var/lib/cgroup-feedback` in a terminal) would each answer every
 * warning: two report writers at once on one spool, two positions in one
 * watch.state, two prompts. The watcher holds an exclusive flock(2) on
 * the state directory itself (a descriptor of its own, O_CLOEXEC, so the
 * children it starts hold nothing) for as long as it runs; the kernel
 * lets go of it however the watcher ends, kill -9 included, so a
 * restarted watcher never finds a stale lock. A directory needs no lock
 * file: nothing to own, to leave behind or to be written by the wrong
 * user. */
#ifndef CGFB_WATCHLOCK_H
#define CGFB_WATCHLOCK_H

#include <stddef.h>

#include "base/statedir.h"

/* Lock sd for this watcher: the lock's descriptor (>= 0, to be closed at
 * the end), or -EBUSY with who holds it in err (its pid, where
 * /proc/locks says), or another negative errno with the reason in err
 * (the file system cannot lock a directory: the caller decides). */
int cgfb_watch_lock(const struct cgfb_statedir *sd, char *err, size_t errsz);

/* Whether a watcher follows the log for sd, as status says, read off
 * /proc/locks without taking the lock (a status that took it, however
 * briefly, could make a watcher starting that moment refuse to run):
 * 1 with its pid in *pid (0 where /proc/locks shows none, another pid
 * namespace's), 0 none, or -errno when it cannot tell. */
int cgfb_watch_holder(const struct cgfb_statedir *sd, long *pid);

/* An exclusive flock(2) on fd, tried every 10 ms for up to wait_ms (a
 * bounded wait: flock itself waits forever or not at all): 0 taken,
 * -EWOULDBLOCK still held by another, or -errno (a file system that
 * cannot lock it, such as NFS for a directory: flock(2) NOTES). */
int cgfb_flock_wait(int fd, long wait_ms);

/* The same for any open file: whether an exclusive flock is held on fd's
 * file, and by whom (the report writers' lock on reports/). */
int cgfb_flock_holder(int fd, long *pid);

#endif
