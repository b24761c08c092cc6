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

/* All len bytes to fd, through short writes and EINTR: 0 or -errno. */
int cgfb_write_all(int fd, const void *data, size_t len);

/* mkdir -p with mode for the last component; an existing directory is fine. */
int cgfb_mkdir_p(const char *path, mode_t mode);
/* mkdirat(dfd, name, mode), an existing one fine; made by root in a
 * directory someone else owns, it is given to that owner. */
int cgfb_mkdir_at(int dfd, const char *name, mode_t mode);

#endif
