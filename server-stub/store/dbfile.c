#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgfb/log.h"
#include "store/dbfile.h"

int dbfile_pin(struct dbfile *f, const char *path)
{
	struct stat st;
	char *slash;

	f->pinned = false;
	f->fd = -1;
	atomic_init(&f->said, DBFILE_OK);
	if ((size_t)snprintf(f->path, sizeof(f->path), "%s", path) >= sizeof(f->path))
		return -ENAMETOOLONG;
	snprintf(f->dir, sizeof(f->dir), "%s", path);
	slash = strrchr(f->dir, '/');
	if (slash)
		slash[slash == f->dir] = '\0';
	else
		snprintf(f->dir, sizeof(f->dir), ".");
	f->fd = open(path, O_PATH | O_CLOEXEC);
	if (f->fd < 0 || fstat(f->fd, &st) < 0) {
		const int rc = -errno;

		dbfile_unpin(f);
		return rc;
	}
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->pinned = true;
	return 0;
}

void dbfile_unpin(struct dbfile *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

/* No write bit for anyone is an operator's "read-only", which binds root
 * as well (root's access(2) ignores mode bits); access(2) adds a read-only
 * mount and permissions another user would meet. */
static bool writable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) &&
	       faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0;
}

static enum dbfile_state state_now(const struct dbfile *f)
{
	struct stat mine, at;

	/* Another file at the path first: a rename over the file also
	 * unlinks it (st_nlink 0), and is a replacement, not a removal. */
	if (stat(f->path, &at) == 0 && (at.st_dev != f->dev || at.st_ino != f->ino))
		return DBFILE_REPLACED;
	if (fstat(f->fd, &mine) < 0 || mine.st_nlink == 0)
		return DBFILE_REMOVED;
	if (stat(f->path, &at) < 0)
		return errno == ENOENT || errno == ENOTDIR ? DBFILE_REMOVED : DBFILE_READONLY;
	if (!writable(f->path) || !writable(f->dir))
		return DBFILE_READONLY;
	return DBFILE_OK;
}

static void say(const struct dbfile *f, enum dbfile_state st)
{
	switch (st) {
	case DBFILE_OK:
		cgfb_log(LOG_NOTICE, "database: %s is writable again; writes resume", f->path);
		break;
	case DBFILE_READONLY:
		cgfb_log(LOG_ERR, "database: %s or its directory was made read-only; writes are "
			 "refused (503) until it is writable again", f->path);
		break;
	case DBFILE_REPLACED:
	case DBFILE_REMOVED:
		/* Said by dbfile_say_kept, once the old file is kept: the line
		 * must name where its acknowledged reports are. */
		break;
	}
}

int dbfile_kept_name(const struct dbfile *f, char *out, size_t outsz)
{
	const int st = atomic_load(&f->said);
	char when[32];
	struct tm tm;
	time_t t = time(NULL);

	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y%m%dT%H%M%SZ", &tm);
	if ((size_t)snprintf(out, outsz, "%s.%s-%s", f->path,
			     st == DBFILE_REMOVED ? "removed" : "replaced", when) >= outsz)
		return -ENAMETOOLONG;
	return 0;
}

int dbfile_create_kept(const struct dbfile *f, const char *name)
{
	struct stat st;
	mode_t mode = 0600;
	int fd;

	/* The old file's permissions: it holds the same reports. */
	if (f->fd >= 0 && fstat(f->fd, &st) == 0)
		mode = st.st_mode & 0666;
	fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
	return fd < 0 ? -errno : fd;
}

int dbfile_sync_kept(const struct dbfile *f, int fd)
{
	int dfd, rc = 0;

	if (fsync(fd) < 0)
		return -errno;
	dfd = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fsync(dfd) < 0)
		rc = -errno;
	if (dfd >= 0)
		close(dfd);
	return rc;
}

void dbfile_say_kept(const struct dbfile *f, const char *kept, int rc, long long held,
		     long long missing)
{
	const bool removed = atomic_load(&f->said) == DBFILE_REMOVED;
	const char *what = removed ? "was removed under the running collector" :
		"was replaced by another file under the running collector";
	char more[64] = "";

	if (rc < 0) {
		cgfb_log(LOG_CRIT, "database: %s %s; writes are refused (503) until the collector "
			 "is restarted; its reports could not be kept in %s (%s) and are lost when "
			 "the collector exits: copy the file first (cp /proc/%ld/fd/%d, once its WAL "
			 "is emptied into it a moment later)", f->path, what, kept, strerror(-rc),
			 (long)getpid(), f->fd);
		return;
	}
	if (missing >= 0)
		snprintf(more, sizeof(more), ", %lld of them not in the file now at the path",
			 missing);
	cgfb_log(LOG_CRIT, "database: %s %s; writes are refused (503) until the collector is "
		 "restarted, which opens %s; every report acknowledged before is kept in %s "
		 "(%lld reports%s): merge them as cgroup-feedback-server(8) says in EXAMPLES, "
		 "\"a replaced database file\"", f->path, what,
		 removed ? "a new file" : "the new file", kept, held, more);
}

enum dbfile_state dbfile_check(struct dbfile *f)
{
	int was = atomic_load(&f->said);
	enum dbfile_state st;

	if (f->fd < 0)
		return DBFILE_OK;
	/* Replaced or removed is for good: the connection's WAL and pages
	 * belong to the old file whatever appears at the path later. */
	if (was == DBFILE_REPLACED || was == DBFILE_REMOVED)
		return (enum dbfile_state)was;
	st = state_now(f);
	/* The writer and the syncer both check: one of them tells. */
	if ((int)st != was && atomic_compare_exchange_strong(&f->said, &was, (int)st))
		say(f, st);
	return st;
}

int dbfile_errno(enum dbfile_state st)
{
	switch (st) {
	case DBFILE_OK:
		return 0;
	case DBFILE_READONLY:
		return -EROFS;
	default:
		return -ESTALE;
	}
}

bool dbfile_same(const struct dbfile *f, const char *path)
{
	struct stat st;

	/* Another path is another database (a test's, a migration's source). */
	if (!f->pinned || strcmp(path, f->path) != 0)
		return true;
	return stat(path, &st) == 0 && st.st_dev == f->dev && st.st_ino == f->ino;
}
