#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log/klog.h"
#include "log/kmsg_record.h"
#include "log/logfmt.h"

#define SYSLOG_ACTION_READ_ALL    3
#define SYSLOG_ACTION_SIZE_BUFFER 10
#define FILE_CHUNK                (64u << 10)

static int explain(char *err, size_t errsz, int rc, const char *what)
{
	if (rc == -EPERM || rc == -EACCES)
		snprintf(err, errsz,
			 "%s: %s: reading the kernel log needs CAP_SYSLOG when "
			 "kernel.dmesg_restrict=1 (run as root, or with AmbientCapabilities=CAP_SYSLOG)",
			 what, strerror(-rc));
	else
		snprintf(err, errsz, "%s: %s", what, strerror(-rc));
	return rc;
}

/* Kernels before 3.5 print S1 and have no readable /dev/kmsg. */
static int klogctl_snapshot(struct cgfb_klog *k)
{
	const int size = klogctl(SYSLOG_ACTION_SIZE_BUFFER, NULL, 0);
	int n;

	if (size < 0)
		return -errno;
	if ((size_t)size + 1 > k->cap) {
		char *b = realloc(k->buf, (size_t)size + 1);

		if (!b)
			return -ENOMEM;
		k->buf = b;
		k->cap = (size_t)size + 1;
	}
	n = klogctl(SYSLOG_ACTION_READ_ALL, k->buf, size);
	if (n < 0)
		return -errno;
	k->have = (size_t)n;
	k->pos = 0;
	return 0;
}

static int open_klogctl(struct cgfb_klog *k, char *err, size_t errsz)
{
	const int rc = klogctl_snapshot(k);

	if (rc < 0)
		return explain(err, errsz, rc, "klogctl(SYSLOG_ACTION_READ_ALL)");
	k->use_klogctl = true;
	k->live = true;
	k->path = "klogctl";
	return 0;
}

int cgfb_klog_open(struct cgfb_klog *k, const char *path, char *err, size_t errsz)
{
	struct stat st;

	memset(k, 0, sizeof(*k));
	k->fd = -1;
	k->path = path ? path : "/dev/kmsg";
	k->fd = open(k->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (k->fd < 0) {
		const int rc = -errno;

		if (!path && rc == -ENOENT)
			return open_klogctl(k, err, errsz);
		return explain(err, errsz, rc, k->path);
	}
	if (fstat(k->fd, &st) < 0)
		return explain(err, errsz, -errno, k->path);
	k->device = S_ISCHR(st.st_mode);
	k->live = k->device || S_ISFIFO(st.st_mode);
	k->settled = !k->device;
	if (!k->device) {
		k->cap = FILE_CHUNK;
		k->buf = malloc(k->cap);
		if (!k->buf)
			return explain(err, errsz, -ENOMEM, k->path);
	}
	return 0;
}

void cgfb_klog_close(struct cgfb_klog *k)
{
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
	free(k->buf);
	k->buf = NULL;
}

int cgfb_klog_rewind(struct cgfb_klog *k)
{
	k->have_next = false;
	k->next_seq = 0;
	k->skipping = false;
	if (k->use_klogctl)
		return klogctl_snapshot(k);
	if (lseek(k->fd, 0, SEEK_SET) < 0)
		return -errno;
	k->have = k->pos = 0;
	return 0;
}

static void note_seq(struct cgfb_klog *k, const struct cgfb_record *rec)
{
	if (k->have_next && rec->seq < k->next_seq) {
		k->backwards++;
		return;
	}
	if (k->live && k->have_next && rec->seq > k->next_seq)
		k->lost += rec->seq - k->next_seq;
	k->have_next = true;
	k->next_seq = rec->seq + 1;
}

static int next_device(struct cgfb_klog *k, struct cgfb_record *rec)
{
	for (;;) {
		const ssize_t n = read(k->fd, k->raw, sizeof(k->raw) - 1);

		if (n < 0 && errno == EINTR)
			continue;
		/* Overwritten before we got to it: the next read resumes at the
		 * oldest record left, and the sequence gap tells how many. */
		if (n < 0 && errno == EPIPE)
			continue;
		if (n < 0 && errno == EAGAIN) {
			k->settled = true;
			return 0;
		}
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		k->settled = true;
		/* The text ends at the first newline; " KEY=value" lines follow. */
		const char *nl = memchr(k->raw, '\n', (size_t)n);
		const size_t len = nl ? (size_t)(nl - k->raw) : (size_t)n;

		if (cgfb_kmsg_parse(k->raw, len, k->text, sizeof(k->text), rec) < 0)
			continue;
		note_seq(k, rec);
		return 1;
	}
}

/* One line from buf[pos..have): 1 with [*line, *len), or 0 if incomplete. */
static int take_line(struct cgfb_klog *k, const char **line, size_t *len, bool eof)
{
	const char *p = k->buf + k->pos, *end = k->buf + k->have;
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	if (!nl && !(eof && p < end))
		return 0;
	*line = p;
	*len = (size_t)((nl ? nl : end) - p);
	k->pos = (size_t)((nl ? nl + 1 : end) - k->buf);
	return 1;
}

static int refill(struct cgfb_klog *k)
{
	ssize_t n;

	memmove(k->buf, k->buf + k->pos, k->have - k->pos);
	k->have -= k->pos;
	k->pos = 0;
	if (k->have == k->cap) {
		/* A line longer than the buffer: none of it is a record, its
		 * tail no more than its head (next_file skips to its end). */
		k->have = 0;
		if (!k->skipping)
			k->overlong++;
		k->skipping = true;
	}
	do
		n = read(k->fd, k->buf + k->have, k->cap - k->have);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	k->have += (size_t)n;
	return (int)n;
}

static int next_file(struct cgfb_klog *k, struct cgfb_record *rec)
{
	for (;;) {
		const char *line;
		size_t len;
		int rc;

		if (!take_line(k, &line, &len, false)) {
			rc = refill(k);
			if (rc <= 0)
				return rc;
			continue;
		}
		if (k->skipping) {
			k->skipping = false;    /* the end of an overlong line */
			continue;
		}
		rc = cgfb_logfmt_parse_line(CGFB_FMT_KMSG, line, len, k->text, sizeof(k->text), rec);
		if (rc == 1) {
			note_seq(k, rec);
			return 1;
		}
	}
}

static int next_klogctl(struct cgfb_klog *k, struct cgfb_record *rec)
{
	const char *line;
	size_t len;

	while (take_line(k, &line, &len, true)) {
		if (cgfb_logfmt_parse_line(CGFB_FMT_DMESG, line, len, k->text, sizeof(k->text),
					   rec) != 1)
			continue;
		/* The buffer is read again whole each time: skip what was seen. */
		if (rec->has_usec && k->have_next && rec->usec < k->next_seq)
			continue;
		if (rec->has_usec) {
			k->have_next = true;
			k->next_seq = rec->usec + 1;
		}
		return 1;
	}
	return 0;
}

int cgfb_klog_next(struct cgfb_klog *k, struct cgfb_record *rec)
{
	if (k->use_klogctl)
		return next_klogctl(k, rec);
	if (k->device) {
		const int rc = next_device(k, rec);

		/* Before 3.5 /dev/kmsg is write-only: read() fails with EINVAL. */
		if (rc == -EINVAL && !k->have_next) {
			char err[256];

			close(k->fd);
			k->fd = -1;
			k->device = false;
			if (open_klogctl(k, err, sizeof(err)) < 0)
				return -EINVAL;
			return next_klogctl(k, rec);
		}
		return rc;
	}
	return next_file(k, rec);
}

bool cgfb_klog_pollable(const struct cgfb_klog *k)
{
	struct stat st;

	return !k->use_klogctl && k->fd >= 0 && fstat(k->fd, &st) == 0 && !S_ISREG(st.st_mode);
}

#define TICK_MS 2000

int cgfb_klog_wait(struct cgfb_klog *k, int timeout_ms, const sigset_t *sigmask)
{
	struct pollfd pfd = { .fd = k->fd, .events = POLLIN };
	const int tick = timeout_ms < 0 ? TICK_MS : timeout_ms;
	const struct timespec ts = { tick / 1000, (long)(tick % 1000) * 1000000L };

	if (!cgfb_klog_pollable(k)) {
		/* Nothing to poll: look again after a while. */
		if (ppoll(NULL, 0, &ts, sigmask) < 0)
			return -errno;
		return k->use_klogctl ? klogctl_snapshot(k) : 0;
	}
	if (ppoll(&pfd, 1, timeout_ms < 0 ? NULL : &ts, sigmask) < 0)
		return -errno;
	/* A FIFO whose writer went away polls as hung up forever. */
	if ((pfd.revents & POLLHUP) && !(pfd.revents & POLLIN) &&
	    ppoll(NULL, 0, &ts, sigmask) < 0)
		return -errno;
	return 0;
}
