#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgfb/buf.h"
#include "cgfb/readfile.h"

static ssize_t read_fd(int fd, char *buf, size_t sz)
{
	for (;;) {
		const ssize_t r = read(fd, buf, sz);

		if (r >= 0 || errno != EINTR)
			return r < 0 ? -errno : r;
	}
}

int cgfb_read_file(const char *path, size_t max, unsigned flags, struct cgfb_buf *b)
{
	return cgfb_read_file_at(AT_FDCWD, path, max, flags, b);
}

int cgfb_read_file_at(int dfd, const char *name, size_t max, unsigned flags, struct cgfb_buf *b)
{
	const int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK |
			    (flags & CGFB_RF_NOFOLLOW ? O_NOFOLLOW : 0));
	int rc;

	if (fd < 0)
		return -errno;
	rc = cgfb_read_fd(fd, max, flags, b);
	close(fd);
	return rc;
}

int cgfb_read_fd(int fd, size_t max, unsigned flags, struct cgfb_buf *b)
{
	const size_t start = flags & CGFB_RF_APPEND ? b->len : 0;
	char chunk[16384];
	struct stat st;
	int rc = 0;

	if ((flags & CGFB_RF_REGULAR) && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)))
		return -EINVAL;
	b->len = start;
	rc = cgfb_buf_add(b, "", 0);
	while (rc == 0) {
		const ssize_t r = read_fd(fd, chunk, sizeof(chunk));

		if (r <= 0) {
			rc = (int)r;
			break;
		}
		if (b->len - start + (size_t)r > max)
			rc = -EFBIG;
		else
			rc = cgfb_buf_add(b, chunk, (size_t)r);
	}
	if (rc < 0 && b->data) {
		b->len = start;
		b->data[start] = '\0';
	}
	return rc;
}

ssize_t cgfb_read_at(int dirfd, const char *name, char *buf, size_t sz)
{
	const int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	size_t n = 0;
	ssize_t r = 0;

	if (fd < 0)
		return -errno;
	/* cgroupfs answers in one read; a regular fixture file may not. */
	while (n + 1 < sz && (r = read_fd(fd, buf + n, sz - 1 - n)) > 0)
		n += (size_t)r;
	close(fd);
	if (r < 0)
		return r;
	buf[n] = '\0';
	return (ssize_t)n;
}
