/* One watcher for each state directory (watchlock.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "base/watchlock.h"

#define GRACE_MS 1000
#define FLOCK_POLL_MS 10

/* Whether an exclusive flock is held on st's file, from /proc/locks (a
 * line "N: FLOCK ADVISORY WRITE PID MAJ:MIN:INODE 0 EOF", the device in
 * hex, as lslocks reads it; a waiter's line has "->" first): 1 and its
 * holder in *pid, 0 none, -errno unreadable (the unit's ProcSubset=pid
 * hides it). */
static int holder(const struct stat *st, long *pid)
{
	char line[256], kind[16], mode[16];
	unsigned maj, min;
	uintmax_t ino;
	long p;
	int found = 0;
	FILE *f = fopen("/proc/locks", "re");

	if (!f)
		return -errno;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*d: %15s %*s %15s %ld %x:%x:%ju", kind, mode, &p, &maj, &min,
			   &ino) == 6 &&
		    strcmp(kind, "FLOCK") == 0 && strcmp(mode, "WRITE") == 0 &&
		    ino == (uintmax_t)st->st_ino &&
		    maj == major(st->st_dev) && min == minor(st->st_dev)) {
			*pid = p > 0 ? p : 0;
			found = 1;
		}
	fclose(f);
	return found;
}

int cgfb_flock_wait(int fd, long wait_ms)
{
	const struct timespec poll = { .tv_nsec = FLOCK_POLL_MS * 1000000L };

	for (long waited = 0;; waited += FLOCK_POLL_MS) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		if (waited >= wait_ms)
			return -EWOULDBLOCK;
		nanosleep(&poll, NULL);
	}
}

int cgfb_flock_holder(int fd, long *pid)
{
	struct stat st;

	*pid = 0;
	if (fstat(fd, &st) < 0)
		return -errno;
	return holder(&st, pid);
}

int cgfb_watch_holder(const struct cgfb_statedir *sd, long *pid)
{
	return cgfb_flock_holder(sd->fd, pid);
}

int cgfb_watch_lock(const struct cgfb_statedir *sd, char *err, size_t errsz)
{
	struct stat st;
	long pid;
	int fd, rc;

	/* A descriptor of its own: the lock belongs to this open file,
	 * not to the one every openat goes through. */
	fd = openat(sd->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errsz, "%s: %s", sd->path, strerror(-rc));
		return rc;
	}
	/* A moment's grace: the watcher before this one may still be on its
	 * way out (a child between fork and exec holds a copy of its lock
	 * until the exec closes it, or the parent-death signal ends it). */
	rc = cgfb_flock_wait(fd, GRACE_MS);
	if (rc == 0)
		return fd;
	if (rc == -EWOULDBLOCK)
		rc = -EBUSY;
	if (rc != -EBUSY) {
		snprintf(err, errsz, "locking %s: %s", sd->path, strerror(-rc));
		goto out;
	}
	if (fstat(fd, &st) < 0 || holder(&st, &pid) <= 0)
		pid = 0;
	if (pid > 0)
		snprintf(err, errsz, "another watcher (pid %ld) already follows the kernel log with "
			 "its state in %s", pid, sd->path);
	else
		snprintf(err, errsz, "another watcher already follows the kernel log with its state "
			 "in %s", sd->path);
out:
	close(fd);
	return rc;
}
