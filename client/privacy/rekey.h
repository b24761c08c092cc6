/* Tokens as one endpoint sees them. The snapshot writes tokens before
 * anyone knows where a report will go; the consent, which makes the final
 * bytes for one endpoint, turns each token T into P_E(T): a keyed
 * permutation of the 48 bits of T under
 * K_E = HMAC-SHA256(secret, "tokens\0" endpoint). The same name gives the
 * same token in every report to one endpoint, and tokens of two endpoints
 * (a collector and the mail channel) cannot be linked without the secret.
 * A permutation rather than a hash, so that a report consented for one
 * endpoint can be consented again for another (exported, then submitted)
 * and show --reveal can find the names behind a consented report. */
#ifndef CGFB_REKEY_H
#define CGFB_REKEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "privacy/anon.h"
#include "privacy/secret.h"

struct cgfb_rekey;

/* For endpoint as the report names it (consent.endpoint). 0 or -errno. */
int cgfb_rekey_new(const uint8_t key[CGFB_SECRET_LEN], const char *endpoint,
		   struct cgfb_rekey **out);
void cgfb_rekey_free(struct cgfb_rekey *rk);

/* One token's CGFB_TOKEN_HEX lowercase hex digits, rewritten in place:
 * forward from the snapshot's token to the endpoint's, or back. */
void cgfb_rekey_hex(struct cgfb_rekey *rk, char hex[CGFB_TOKEN_HEX], bool forward);

/* Every token ("h:" and exactly CGFB_TOKEN_HEX hex digits, not inside a
 * longer run of hex digits) in s[0..len), rewritten in place. Returns how
 * many. */
size_t cgfb_rekey_text(struct cgfb_rekey *rk, char *s, size_t len, bool forward);

#endif
