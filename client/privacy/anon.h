/* Names as reports show them. Anonymisation happens when a name is first
 * seen, not by filtering a report afterwards: a cgroup or process name is
 * either allowlisted, generalised by a constant, or replaced by a keyed
 * token "h:" + 12 hex digits of HMAC-SHA256(install key, name), the key
 * being the secret bound to the machine-id (privacy/secret.h). The same
 * name on one machine always gives the same token here; the consent keys
 * it again for the endpoint a report goes to (privacy/rekey.h), so what
 * leaves is one token per name and endpoint. Tokens of two machines cannot
 * be linked without both secrets. */
#ifndef CGFB_ANON_H
#define CGFB_ANON_H

#include <stddef.h>
#include <stdint.h>

#include "privacy/allowlist.h"
#include "privacy/secret.h"

#define CGFB_ANON_MAX (CGFB_NAME_MAX + 1)
#define CGFB_TOKEN_HEX 12

struct cgfb_anon;

/* The allowlist is borrowed and must outlive the anonymiser. */
int cgfb_anon_new(const uint8_t key[CGFB_SECRET_LEN], const struct cgfb_allowlist *al,
		  struct cgfb_anon **out);
void cgfb_anon_free(struct cgfb_anon *a);

/* A cgroup name (any bytes) as a report shows it. */
void cgfb_anon_name(struct cgfb_anon *a, const char *name, size_t len, char out[CGFB_ANON_MAX]);
/* A process name: kept if it is a well-known manager, generalised like a
 * cgroup name, or else a token. */
void cgfb_anon_comm(struct cgfb_anon *a, const char *comm, size_t len, char out[CGFB_ANON_MAX]);
/* Always a token. */
void cgfb_anon_token(struct cgfb_anon *a, const char *s, size_t len, char out[CGFB_ANON_MAX]);

#endif
