/* The SQLite file under a running collector: still the one its writing
 * connection opened, still at the configured path, still writable.
 *
 * SQLite pairs a database with its -wal and -shm by name, not by inode:
 * a file renamed over the database, or the database removed, while a
 * connection holds it open leaves that connection writing into a file no
 * one will open again, and the next connection to open the path pairs the
 * new file with the old WAL (https://sqlite.org/howtocorrupt.html, 2.4
 * "Unlinking or renaming a database file while in use", and 2.5 "Multiple
 * links to the same file"). SQLite itself only looks at rollback journals:
 * pager.c's databaseIsUnmoved, through os_unix.c's fileHasMoved, refuses
 * to open a journal for a moved file, and sqlite3PagerClose skips the
 * checkpoint and the WAL's removal; a WAL commit is not checked at all.
 * So the writer checks before each commit, and before each answer. */
#ifndef CGFB_SERVER_STORE_DBFILE_H
#define CGFB_SERVER_STORE_DBFILE_H

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/types.h>

enum dbfile_state {
	DBFILE_OK,
	DBFILE_READONLY,   /* the file or its directory: until writable again */
	DBFILE_REPLACED,   /* another file at the path: for good */
	DBFILE_REMOVED,    /* nothing at the path, or the file unlinked: for good */
};

struct dbfile {
	bool pinned;                 /* dev and ino are set */
	int fd;                      /* O_PATH: pins the inode; -1: none held */
	dev_t dev;
	ino_t ino;
	atomic_int said;             /* enum dbfile_state the log was told last */
	char path[PATH_MAX];
	char dir[PATH_MAX];
};

/* Pin the file at path (an absolute path, as SQLite names it): an O_PATH
 * descriptor keeps its inode from being reused, and closing it drops none
 * of the process's POSIX locks (SQLite's; Linux fs/open.c, filp_flush:
 * locks_remove_posix is skipped for FMODE_PATH). 0 or a negative errno. */
int dbfile_pin(struct dbfile *f, const char *path);
void dbfile_unpin(struct dbfile *f);

/* The state now, from fstat of the pinned descriptor against stat of the
 * path (device and inode; st_nlink 0 for an unlinked file) and the write
 * permission of the file and its directory (mode bits, which bind root
 * too as an operator's intent, and access(2), for a read-only mount). A
 * change of state is logged once, with what the collector does about it
 * (replaced or removed: by dbfile_say_kept). */
enum dbfile_state dbfile_check(struct dbfile *f);

/* Once replaced or removed, the old file's content is kept next to the
 * path (store_keep_replaced): its name, "<path>.replaced-<UTC time>"
 * (".removed-" for a removal); the file made with O_EXCL, with the old
 * file's mode (a descriptor or a negative errno); made durable with its
 * directory; and the one log line that says what happened, where the
 * reports are (held in all, missing of them not in the file now at the
 * path, -1 unknown) or, rc < 0, that they could not be kept and why. */
int dbfile_kept_name(const struct dbfile *f, char *out, size_t outsz);
int dbfile_create_kept(const struct dbfile *f, const char *name);
int dbfile_sync_kept(const struct dbfile *f, int fd);
void dbfile_say_kept(const struct dbfile *f, const char *kept, int rc, long long held,
		     long long missing);

/* The errno a request is refused with: 0, -EROFS (read-only) or -ESTALE. */
int dbfile_errno(enum dbfile_state st);

/* Is the file at path the pinned one (true when nothing is pinned, or
 * path is not the pinned file's name as SQLite gave it)? For
 * connections opened later (the readers, the checkpointer): they must not
 * pair another file with the writer's WAL. */
bool dbfile_same(const struct dbfile *f, const char *path);

#endif
