/* The deletion token of a report, derived, not stored: t = hex(HMAC-SHA256(
 * key, "deletion-token\0" nonce)) under the machine-id-bound key
 * (privacy/secret.h), the nonce being the first bytes of the report's id.
 * Not the stored secret itself: an image's clones share it, and whoever
 * holds the image (an appliance's or a marketplace image's users: anyone)
 * could take a public report's id, test whether an instance of the image
 * made it, and delete it. A report made before the machine-id changed
 * (a clone's first boot) is no longer this install's to withdraw: it was
 * the image's. Reports of clients before this made their tokens under
 * the stored secret; consent tries that key second. The id is made bound to SHA-256(t)
 * (cgfb/report_id.h), so that only this install can prove the id is its
 * own to the collector; whoever reads the report sees SHA-256(t) only. */
#ifndef CGFB_DELTOKEN_H
#define CGFB_DELTOKEN_H

#include <stdbool.h>
#include <stdint.h>

#include "cgfb/report_id.h"
#include "privacy/secret.h"

#define CGFB_DELETION_TOKEN_HEX 64

/* A new report id bound to its derived token: its nonce from reserved
 * (an id the watcher reserved, so the same reserved id gives the same
 * id again), or random when reserved is NULL. 0, -EINVAL (reserved is no
 * report id) or a negative errno from getrandom(2) or libcrypto. */
int cgfb_deltoken_new_id(const uint8_t secret[CGFB_SECRET_LEN], const char *reserved,
			 char id[CGFB_REPORT_ID_LEN + 1]);

/* The token of report id into token when id is bound to it: true. False
 * (token "") for an id made otherwise: by an earlier client, on another
 * install, or under another secret. */
bool cgfb_deltoken_of(const uint8_t secret[CGFB_SECRET_LEN], const char *id,
		      char token[CGFB_DELETION_TOKEN_HEX + 1]);

#endif
