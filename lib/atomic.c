#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgfb/atomic.h"

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
 * belong to the directory's owner. */
static int give_to_dir_owner(int dfd, int fd)
{
	struct stat st;

	if (geteuid() != 0 || fstat(dfd, &st) < 0 || st.st_uid == 0)
		return 0;
	return fchown(fd, st.st_uid, st.st_gid) < 0 ? -errno : 0;
}

int cgfb_atomic_write_at(int dfd, const char *name, const void *data, size_t len, mode_t mode)
{
	char tmp[NAME_MAX + 1];
	int fd, rc;

	if (strchr(name, '/'))
		return -EINVAL;
	if (snprintf(tmp, sizeof(tmp), ".%s.tmp.%ld", name, (long)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0)
		return -errno;
	/* The mode asked for, not what the umask leaves of it: the watcher's
	 * unit runs with UMask=0077, and a login banner made 0600 by it is
	 * invisible to the administrators pam_motd reads it for. */
	rc = fchmod(fd, mode) < 0 ? -errno : 0;
	if (rc == 0)
		rc = give_to_dir_owner(dfd, fd);
	if (rc == 0)
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

int cgfb_mkdir_at(int dfd, const char *name, mode_t mode)
{
	struct stat parent;
	int fd, rc = 0;

	if (mkdirat(dfd, name, mode) < 0)
		return errno == EEXIST ? 0 : -errno;
	if (geteuid() != 0 || fstat(dfd, &parent) < 0 || parent.st_uid == 0)
		return 0;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fchown(fd, parent.st_uid, parent.st_gid) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

static int chown_like_parent(char *path)
{
	char *slash = strrchr(path, '/');
	struct stat st;
	int rc;

	if (geteuid() != 0 || !slash || slash == path)
		return 0;
	*slash = '\0';
	rc = stat(path, &st);
	*slash = '/';
	if (rc < 0 || st.st_uid == 0)
		return 0;
	return chown(path, st.st_uid, st.st_gid) < 0 ? -errno : 0;
}

int cgfb_mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	const size_t n = strlen(path);

	if (n == 0 || n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, mode) < 0) {
		if (errno == EEXIST)
			return 0;
		return -errno;
	}
	return chown_like_parent(buf);
}
