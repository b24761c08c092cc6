/* Crash-safe file replacement: a reader sees the old bytes or the new ones,
 * never a mix, even after kill -9 or power loss. */
#ifndef CGFB_ATOMIC_H
#define CGFB_ATOMIC_H

#include <stddef.h>
#include <sys/types.h>

/* Write data to dir/name through a temporary file in dir: write, fsync,
 * rename over name, fsync dir. Returns 0 or a negative errno (ENOSPC on a
 * full disk); on failure the old file is untouched and no temporary is left. */
int cgfb_atomic_write(const char *dir, const char *name, const void *data, size_t len,
		      mode_t mode);
/* The same in the directory open as dfd (name has no '/'): what every
 * writer into the state directory uses, so that a directory renamed or
 * replaced by a link meanwhile is never written through. */
int cgfb_atomic_write_at(int dfd, const char *name, const void *data, size_t len, mode_t mode);

/* The infix of every temporary name: ".NAME" CGFB_TMP_INFIX "<16 hex>"
 * (the spool sweeps a killed writer's leftovers by it). */
#define CGFB_TMP_INFIX ".tmp."

/* A new regular file name in dfd, opened for writing: O_CREAT|O_EXCL|
 * O_NOFOLLOW (never an existing file, FIFO or link), mode set by fchmod
 * whatever the umask, and, made by root in a directory another user owns,
 * given to that owner by fchown. The descriptor or a negative errno
 * (-EEXIST when the name is taken). Every file made in the state directory
 * is made by this (or by cgfb_create_tmp_at). */
int cgfb_create_at(int dfd, const char *name, mode_t mode);
/* The same under a temporary name no other user can predict,
 * ".BASE.tmp.<64 random bits in hex>" (written to tmp), tried again with
 * another a bounded number of times when taken. */
int cgfb_create_tmp_at(int dfd, const char *base, mode_t mode, char *tmp, size_t tmpsz);

/* All len bytes to fd, through short writes and EINTR: 0 or -errno. */
int cgfb_write_all(int fd, const void *data, size_t len);

enum {
	CGFB_DIR_CREATE = 1,    /* make missing components */
};
/* path opened as a directory (O_RDONLY), reached component by component
 * from "/" (or the working directory, for a relative path) with openat
 * O_NOFOLLOW, so that no link another user planted or swapped in is
 * followed: a link is followed only when it and its directory belong to
 * root or the caller and no one else may write that directory (or it is
 * sticky), as /var/run -> /run, and never as the last component; any
 * other gives -ELOOP. With
 * CGFB_DIR_CREATE missing components are made (mkdirat, then opened
 * O_NOFOLLOW and fchmod'ed: mode for the last, 0755 for the others) and,
 * made by root in a directory another user owns, fchown'ed to that owner.
 * The descriptor or a negative errno (-ENOTDIR, -ELOOP, -ENOENT...). */
int cgfb_open_dir_path(const char *path, mode_t mode, unsigned flags);
/* cgfb_open_dir_path(path, mode, CGFB_DIR_CREATE), closed: 0 or -errno. */
int cgfb_mkdir_p(const char *path, mode_t mode);
/* name made in dfd as cgfb_open_dir_path makes a component (mode whatever
 * the umask, given to dfd's owner when root makes it), an existing
 * directory fine, a link -ELOOP: 0 or -errno. */
int cgfb_mkdir_at(int dfd, const char *name, mode_t mode);
/* 1 when a directory is one another user could change under root: it
 * belongs to someone else than root and the caller, or group or others
 * may write it and it is not sticky; 0 when not, or -errno. */
int cgfb_dir_shared(int dfd);

#endif
