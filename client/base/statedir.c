#include <errno.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/statedir.h"
#include "cgfb/atomic.h"

static bool is_service_user(uid_t uid)
{
	char buf[1024];
	struct passwd pw, *found = NULL;

	return getpwnam_r(CGFB_SERVICE_USER, &pw, buf, sizeof(buf), &found) == 0 && found &&
	       found->pw_uid == uid;
}

/* The reports, drafts and the anonymiser's key live here: whoever else may
 * write into the directory could replace them. */
static int check_dir(int fd, char *err, size_t errsz)
{
	const uid_t me = geteuid();
	struct stat st;

	if (fstat(fd, &st) < 0) {
		snprintf(err, errsz, "%s", strerror(errno));
		return -errno;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(err, errsz, "writable by %s (mode %04o); it must be writable by its owner "
			 "alone (chmod go-w)", st.st_mode & S_IWOTH ? "everyone" : "its group",
			 (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	if (me != 0 && st.st_uid != me) {
		snprintf(err, errsz, "it belongs to uid %u, not to you (uid %u)",
			 (unsigned)st.st_uid, (unsigned)me);
		return -EACCES;
	}
	if (me == 0 && st.st_uid != 0 && !is_service_user(st.st_uid)) {
		snprintf(err, errsz, "it belongs to uid %u, neither root nor the service user %s: "
			 "root trusts no other user's state and secret", (unsigned)st.st_uid,
			 CGFB_SERVICE_USER);
		return -EACCES;
	}
	return 0;
}

static void explain(int rc, char *err, size_t errsz)
{
	switch (rc) {
	case -ELOOP:
		snprintf(err, errsz, "a symbolic link; name the directory itself (a link on the "
			 "way is followed only where no other user could have changed it)");
		break;
	case -ENOTDIR:
		snprintf(err, errsz, "not a directory");
		break;
	default:
		snprintf(err, errsz, "%s", strerror(-rc));
	}
}

int cgfb_statedir_open(struct cgfb_statedir *sd, const char *path, unsigned flags, char *err,
		       size_t errsz)
{
	int fd, rc;

	sd->fd = -1;
	*err = '\0';
	if (snprintf(sd->path, sizeof(sd->path), "%s", path) >= (int)sizeof(sd->path)) {
		explain(-ENAMETOOLONG, err, errsz);
		return -ENAMETOOLONG;
	}
	/* From "/" by descriptors, never through a link another user could
	 * swap, and made (when asked) by mkdirat + fchown on what was made:
	 * root making it inside the service user's directory must not chown
	 * a link that user planted between the two (lib/atomic.c). */
	fd = cgfb_open_dir_path(path, 0700, flags & CGFB_SD_CREATE ? CGFB_DIR_CREATE : 0);
	if (fd < 0) {
		explain(fd, err, errsz);
		return fd;
	}
	rc = check_dir(fd, err, errsz);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	sd->fd = fd;
	return 0;
}

void cgfb_statedir_close(struct cgfb_statedir *sd)
{
	if (sd->fd >= 0)
		close(sd->fd);
	sd->fd = -1;
}
