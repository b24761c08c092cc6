#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "base/statedir.h"
#include "cgfb/atomic.h"
#include "cgfb/readfile.h"
#include "cgfb/hex.h"
#include "privacy/secret.h"

static int fill_random(uint8_t *p, size_t n)
{
	while (n) {
		const ssize_t r = getrandom(p, n, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static int read_secret(int dfd, uint8_t key[CGFB_SECRET_LEN], char *err, size_t errsz)
{
	/* O_NONBLOCK: a FIFO planted as the secret is refused, not waited on. */
	const int fd = openat(dfd, CGFB_SECRET_FILE, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	uint8_t extra;
	struct stat st;
	ssize_t n;
	int rc = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errsz, "not a regular file");
		rc = -EINVAL;
		goto out;
	}
	if (st.st_mode & 077) {
		/* Tokens are only as private as the key. */
		snprintf(err, errsz, "readable by others (mode %03o); expected 0600",
			 (unsigned)(st.st_mode & 0777));
		rc = -EPERM;
		goto out;
	}
	n = read(fd, key, CGFB_SECRET_LEN);
	if (n == CGFB_SECRET_LEN && read(fd, &extra, 1) == 0)
		goto out;
	snprintf(err, errsz, "not %d bytes long", CGFB_SECRET_LEN);
	rc = -EBADMSG;
out:
	close(fd);
	return rc;
}

/* Write a fresh key to a temporary name, then link it into place: link(2)
 * fails if another process got there first, and then its key is used. The
 * temporary is made as every file of the state directory is
 * (cgfb_create_tmp_at): a name no other user can predict, O_EXCL, and
 * given to the directory's owner, so that root's first run (sudo
 * cgroup-feedback snapshot before the watcher's first report) leaves a
 * secret the service user can read, not a root-only one that fails each
 * of its reports with "Permission denied" ever after. */
static int create_secret(int dfd, char *err, size_t errsz)
{
	uint8_t key[CGFB_SECRET_LEN];
	char tmp[NAME_MAX + 1];
	int fd, rc;

	rc = fill_random(key, sizeof(key));
	if (rc < 0) {
		snprintf(err, errsz, "getrandom: %s", strerror(-rc));
		return rc;
	}
	fd = cgfb_create_tmp_at(dfd, CGFB_SECRET_FILE, 0600, tmp, sizeof(tmp));
	if (fd < 0) {
		rc = fd;
		goto out;
	}
	rc = cgfb_write_all(fd, key, sizeof(key));
	if (rc == 0 && fsync(fd) < 0)
		rc = -errno;
	close(fd);
	if (rc == 0 && linkat(dfd, tmp, dfd, CGFB_SECRET_FILE, 0) < 0 && errno != EEXIST)
		rc = -errno;
	unlinkat(dfd, tmp, 0);
	if (rc == 0)
		fsync(dfd);
out:
	explicit_bzero(key, sizeof(key));
	if (rc < 0)
		snprintf(err, errsz, "creating it: %s", strerror(-rc));
	return rc;
}

/* This machine's id: 32 hex digits from /etc/machine-id (or the test's
 * file CGFB_MACHINE_ID_ENV names), or "" where there is none (a container
 * without one) or none yet ("uninitialized" during a first boot). */
static void machine_id(char out[33])
{
	const char *path = getenv(CGFB_MACHINE_ID_ENV);
	char buf[64];
	const ssize_t n = cgfb_read_at(AT_FDCWD, path && *path ? path : CGFB_MACHINE_ID_PATH, buf,
				       sizeof(buf));

	out[0] = '\0';
	if (n < 32 || strspn(buf, "0123456789abcdef") != 32 || (n > 32 && buf[32] != '\n'))
		return;
	memcpy(out, buf, 32);
	out[32] = '\0';
}

int cgfb_secret_derive(const uint8_t key[CGFB_SECRET_LEN], const char *label, const void *data,
		       size_t len, unsigned char out[32])
{
	const size_t ll = strlen(label) + 1;
	unsigned char msg[64 + 512];
	size_t mdlen = 0;
	int rc = 0;

	if (ll > 64 || len > 512)
		return -EINVAL;
	memcpy(msg, label, ll);
	memcpy(msg + ll, data, len);
	if (!EVP_Q_mac(NULL, "HMAC", NULL, "SHA256", NULL, key, CGFB_SECRET_LEN, msg, ll + len,
		       out, 32, &mdlen) || mdlen != 32)
		rc = -EIO;
	explicit_bzero(msg, sizeof(msg));
	return rc;
}

/* The key tokens and pseudonyms are made with: the stored secret bound to
 * this machine's id, so that the clones of an image whose secret was made
 * before cloning (and each given its own machine-id, as systemd does on
 * the first boot of an image with an empty /etc/machine-id) are installs
 * of their own. Without a machine-id the stored secret is the key. */
static int bind_to_machine(uint8_t key[CGFB_SECRET_LEN], char *err, size_t errsz)
{
	unsigned char md[32];
	char mid[33];

	machine_id(mid);
	if (!mid[0])
		return 0;
	if (cgfb_secret_derive(key, "machine-id", mid, 32, md) < 0) {
		snprintf(err, errsz, "binding it to the machine-id failed");
		return -EIO;
	}
	memcpy(key, md, CGFB_SECRET_LEN);
	explicit_bzero(md, sizeof(md));
	return 0;
}

int cgfb_secret_load_raw(const struct cgfb_statedir *sd, uint8_t key[CGFB_SECRET_LEN],
			 char *err, size_t errsz)
{
	int rc;

	*err = '\0';
	rc = read_secret(sd->fd, key, err, errsz);
	if (rc == -ENOENT) {
		rc = create_secret(sd->fd, err, errsz);
		if (rc == 0)
			rc = read_secret(sd->fd, key, err, errsz);
	} else if (rc < 0 && !*err) {
		snprintf(err, errsz, "%s", strerror(-rc));
	}
	if (rc < 0)
		explicit_bzero(key, CGFB_SECRET_LEN);
	return rc;
}

int cgfb_secret_load(const struct cgfb_statedir *sd, uint8_t key[CGFB_SECRET_LEN], char *err,
		     size_t errsz)
{
	int rc = cgfb_secret_load_raw(sd, key, err, errsz);

	if (rc == 0)
		rc = bind_to_machine(key, err, errsz);
	if (rc < 0)
		explicit_bzero(key, CGFB_SECRET_LEN);
	return rc;
}

int cgfb_install_pseudonym(const uint8_t key[CGFB_SECRET_LEN], const char *endpoint,
			   char out[CGFB_PSEUDONYM_HEX + 1])
{
	unsigned char md[32];
	const int rc = cgfb_secret_derive(key, "install", endpoint, strlen(endpoint), md);

	if (rc < 0)
		return rc;
	cgfb_hex(md, CGFB_PSEUDONYM_HEX / 2, out);
	return 0;
}
