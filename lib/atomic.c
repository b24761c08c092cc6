#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgfb/atomic.h"

static int write_all(int fd, const char *p, size_t len)
{
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

int cgfb_atomic_write(const char *dir, const char *name, const void *data, size_t len,
		      mode_t mode)
{
	char tmp[NAME_MAX + 1];
	int dfd, fd = -1, rc;

	if (snprintf(tmp, sizeof(tmp), ".%s.tmp.%ld", name, (long)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	rc = write_all(fd, data, len);
	if (rc == 0 && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	fd = -1;
	if (rc == 0 && renameat(dfd, tmp, dfd, name) < 0)
		rc = -errno;
	if (rc < 0) {
		unlinkat(dfd, tmp, 0);
		goto out;
	}
	/* The rename itself is only durable once the directory is. */
	if (fsync(dfd) < 0)
		rc = -errno;
out:
	close(dfd);
	return rc;
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
	if (mkdir(buf, mode) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}
