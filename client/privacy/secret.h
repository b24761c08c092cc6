/* The per-install key of the anonymiser: 32 random bytes in
 * <state-dir>/secret, mode 0600, made on first use. Whoever holds it can
 * test guesses of cgroup names against report tokens, so it never leaves
 * the machine and never appears in a report. */
#ifndef CGFB_SECRET_H
#define CGFB_SECRET_H

#include <stddef.h>
#include <stdint.h>

#include "base/statedir.h"

#define CGFB_SECRET_LEN  32

/* Where this machine's id is read, and the variable that names another
 * file instead: for tests, as CGFB_STATE_DIR moves the state. */
#define CGFB_MACHINE_ID_PATH "/etc/machine-id"
#define CGFB_MACHINE_ID_ENV  "CGFB_MACHINE_ID_FILE"

/* The key of this install: the secret read from the open state directory
 * (the file made if missing; two processes creating it at once agree on
 * one), bound to this machine's id when it has one: HMAC-SHA256(secret,
 * "machine-id\0" machine-id). A clone with another machine-id is another
 * install; no machine-id, the secret as it is. Returns 0 or a negative
 * errno with the reason in err. */
int cgfb_secret_load(const struct cgfb_statedir *sd, uint8_t key[CGFB_SECRET_LEN], char *err,
		     size_t errsz);

/* The stored secret itself, not bound to the machine-id: only for the
 * deletion tokens of reports that clients before the machine binding of
 * tokens made (privacy/deltoken.h). The same errors as cgfb_secret_load. */
int cgfb_secret_load_raw(const struct cgfb_statedir *sd, uint8_t key[CGFB_SECRET_LEN],
			 char *err, size_t errsz);

/* A key for one purpose of the secret: HMAC-SHA256(key, label with its
 * NUL || data), so that no purpose's key tells anything of another's (the
 * machine binding, tokens per endpoint, pseudonyms, deletion tokens).
 * 0, -EINVAL when data is over 512 bytes, or -EIO. */
int cgfb_secret_derive(const uint8_t key[CGFB_SECRET_LEN], const char *label, const void *data,
		       size_t len, unsigned char out[32]);

#define CGFB_PSEUDONYM_HEX 32

/* This install as one collector sees it: 16 bytes of
 * HMAC-SHA256(secret, "install\0" endpoint), in hex. Stable for one
 * collector, so that its public count of installs counts machines, not
 * reports; unlinkable between two collectors (or the mail channel), which
 * see different pseudonyms for the same machine. */
int cgfb_install_pseudonym(const uint8_t key[CGFB_SECRET_LEN], const char *endpoint,
			   char out[CGFB_PSEUDONYM_HEX + 1]);

#endif
