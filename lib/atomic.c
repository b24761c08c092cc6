#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgfb/atomic.h"

/* Tries at a fresh temporary name before giving up: another process finds
 * one of 2^64 names only by luck, so EEXIST this often is an attack. */
#define TMP_TRIES 16
/* Symbolic links followed in one path, as the kernel's own limit. */
#define MAX_LINKS 40

int cgfb_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		const ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* An administrator running the command line as root must not leave files
 * the service user (who owns the state directory) cannot read: new files
 * and directories belong to the directory's owner. Always by descriptor:
 * chown(2) on a name follows whatever link was planted there meanwhile. */
static int give_to_dir_owner(int dfd, int fd)
{
	struct stat st;

	if (geteuid() != 0 || fstat(dfd, &st) < 0 || st.st_uid == 0)
		return 0;
	return fchown(fd, st.st_uid, st.st_gid) < 0 ? -errno : 0;
}

int cgfb_create_at(int dfd, const char *name, mode_t mode)
{
	/* O_EXCL: never an existing file, FIFO or link (O_EXCL with O_CREAT
	 * fails on a link, dangling or not, whatever O_NOFOLLOW says). */
	const int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	int rc;

	if (fd < 0)
		return -errno;
	/* The mode asked for, not what the umask leaves of it: the watcher's
	 * unit runs with UMask=0077, and a login banner made 0600 by it is
	 * invisible to the administrators pam_motd reads it for. */
	rc = fchmod(fd, mode) < 0 ? -errno : 0;
	if (rc == 0)
		rc = give_to_dir_owner(dfd, fd);
	if (rc == 0)
		return fd;
	close(fd);
	unlinkat(dfd, name, 0);
	return rc;
}

/* 64 bits no other user can guess. getrandom without blocking: the watcher
 * may write before the kernel's pool is ready at boot, and then a name
 * only has to be new (O_EXCL makes a guessed one cost a retry, no more). */
static uint64_t tmp_suffix(void)
{
	static uint64_t counter;
	struct timespec ts;
	uint64_t r;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r))
		return r;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)getpid() << 40) ^ ((uint64_t)ts.tv_nsec << 8) ^ (uint64_t)ts.tv_sec ^
	       ++counter;
}

int cgfb_create_tmp_at(int dfd, const char *base, mode_t mode, char *tmp, size_t tmpsz)
{
	for (int i = 0; i < TMP_TRIES; i++) {
		const int n = snprintf(tmp, tmpsz, ".%s" CGFB_TMP_INFIX "%016llx", base,
				       (unsigned long long)tmp_suffix());
		int fd;

		if (n < 0 || (size_t)n >= tmpsz || n > NAME_MAX)
			return -ENAMETOOLONG;
		fd = cgfb_create_at(dfd, tmp, mode);
		if (fd != -EEXIST)
			return fd;
	}
	return -EEXIST;
}

int cgfb_atomic_write_at(int dfd, const char *name, const void *data, size_t len, mode_t mode)
{
	char tmp[NAME_MAX + 1];
	int fd, rc;

	if (strchr(name, '/'))
		return -EINVAL;
	fd = cgfb_create_tmp_at(dfd, name, mode, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	rc = cgfb_write_all(fd, data, len);
	if (rc == 0 && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && renameat(dfd, tmp, dfd, name) < 0)
		rc = -errno;
	if (rc < 0) {
		unlinkat(dfd, tmp, 0);
		return rc;
	}
	/* The rename itself is only durable once the directory is. */
	return fsync(dfd) < 0 ? -errno : 0;
}

int cgfb_atomic_write(const char *dir, const char *name, const void *data, size_t len,
		      mode_t mode)
{
	const int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc;

	if (dfd < 0)
		return -errno;
	rc = cgfb_atomic_write_at(dfd, name, data, len, mode);
	close(dfd);
	return rc;
}

/* name in pfd, made with mode (whatever the umask) when missing and given
 * to pfd's owner; opened, never through a link: the descriptor or -errno.
 * Made by someone else between our mkdirat and openat, it is theirs: not
 * chmod'ed nor chown'ed, only opened as found. */
static int make_dir(int pfd, const char *name, mode_t mode)
{
	const bool made = mkdirat(pfd, name, mode) == 0;
	int fd, rc = 0;

	if (!made && errno != EEXIST)
		return -errno;
	fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOTDIR ? -ELOOP : -errno;
	if (made && fchmod(fd, mode) < 0)
		rc = -errno;
	if (made && rc == 0)
		rc = give_to_dir_owner(pfd, fd);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	return fd;
}

int cgfb_mkdir_at(int dfd, const char *name, mode_t mode)
{
	const int fd = make_dir(dfd, name, mode);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

static bool trusted_uid(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

/* A link in a path is followed only when no one but root and the caller
 * could have made or changed it: it belongs to one of them and so does
 * its directory, which no one else may write (or which is sticky, where
 * no one else may rename or remove it). /var/run -> /run, /lib -> usr/lib
 * are such links; one in another user's directory is not followed. */
static bool link_trusted(int dfd, const char *name)
{
	struct stat d, l;

	if (fstat(dfd, &d) < 0 || fstatat(dfd, name, &l, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISLNK(l.st_mode))
		return false;
	return trusted_uid(l.st_uid) && trusted_uid(d.st_uid) &&
	       (!(d.st_mode & (S_IWGRP | S_IWOTH)) || (d.st_mode & S_ISVTX));
}

/* rest becomes the link's target followed by what remained after it. */
static int splice_link(int dfd, const char *name, char *rest, size_t restsz, const char *after)
{
	char target[PATH_MAX], joined[PATH_MAX];
	const ssize_t n = readlinkat(dfd, name, target, sizeof(target) - 1);

	if (n < 0)
		return -errno;
	if (n == 0)
		return -ENOENT;
	target[n] = '\0';
	if (snprintf(joined, sizeof(joined), "%s/%s", target, after) >= (int)sizeof(joined) ||
	    strlen(joined) >= restsz)
		return -ENAMETOOLONG;
	memcpy(rest, joined, strlen(joined) + 1);
	return 0;
}

static int open_start(const char *rest)
{
	const int fd = open(rest[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* One step of the walk: name in fd opened as a directory (or made), or
 * -ELOOP for a link not to be followed; *follow for one to follow. */
static int step(int fd, const char *name, bool last, mode_t mode, unsigned flags, bool *follow)
{
	struct stat st;
	const int next = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	*follow = false;
	if (next >= 0)
		return next;
	if (errno == ENOENT && (flags & CGFB_DIR_CREATE))
		return make_dir(fd, name, last ? mode : 0755);
	if (errno != ENOTDIR)
		return -errno;
	if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(st.st_mode))
		return -ENOTDIR;
	/* The directory itself is never a link: its target could change
	 * between two opens of the name, and "name it" is the cure. */
	*follow = !last && link_trusted(fd, name);
	return *follow ? 0 : -ELOOP;
}

int cgfb_open_dir_path(const char *path, mode_t mode, unsigned flags)
{
	char rest[PATH_MAX], name[NAME_MAX + 1];
	const char *p = rest;
	int fd, rc, links = 0;
	bool follow;

	if (!*path)
		return -ENOENT;
	if (strlen(path) >= sizeof(rest))
		return -ENAMETOOLONG;
	memcpy(rest, path, strlen(path) + 1);
	fd = open_start(rest);
	if (fd < 0)
		return fd;
	for (;;) {
		size_t len;

		p += strspn(p, "/");
		if (!*p)
			break;
		len = strcspn(p, "/");
		if (len > NAME_MAX) {
			rc = -ENAMETOOLONG;
			goto out;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		p += len;
		rc = step(fd, name, p[strspn(p, "/")] == '\0', mode, flags, &follow);
		if (rc < 0)
			goto out;
		if (follow) {
			if (++links > MAX_LINKS) {
				rc = -ELOOP;
				goto out;
			}
			rc = splice_link(fd, name, rest, sizeof(rest), p);
			if (rc < 0)
				goto out;
			p = rest;
			if (rest[0] == '/') {
				close(fd);
				fd = open_start(rest);
				if (fd < 0)
					return fd;
			}
			continue;
		}
		close(fd);
		fd = rc;
	}
	/* The walk's descriptors may be O_PATH: the caller gets one it can
	 * read and fchown, of the very directory the walk reached. */
	rc = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rc < 0)
		rc = -errno;
out:
	close(fd);
	return rc;
}

int cgfb_mkdir_p(const char *path, mode_t mode)
{
	const int fd = cgfb_open_dir_path(path, mode, CGFB_DIR_CREATE);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int cgfb_dir_shared(int dfd)
{
	struct stat st;

	if (fstat(dfd, &st) < 0)
		return -errno;
	if (!trusted_uid(st.st_uid))
		return 1;
	return (st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX) ? 1 : 0;
}
