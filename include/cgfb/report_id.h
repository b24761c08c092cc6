/* A report id bound to its deletion token (issue 30, report-id squatting):
 * a version-4 UUID whose first 8 bytes are a random nonce and whose last
 * 8 bytes are the first bytes of SHA-256("cgroup-feedback report id\0" h),
 * h being the report's deletion.token_sha256 (64 hex digits). The version
 * nibble and the RFC 4122 variant bits keep their values, so a bound id
 * is a report id like any other (cgfb_report_id_valid, the schema's
 * pattern). Whoever reads the report learns h, not the token: only the
 * token's holder can prove an id is theirs, and an id made for another h
 * is not bound to it. Client and collector share this file. */
#ifndef CGFB_REPORT_ID_H
#define CGFB_REPORT_ID_H

#include <stdbool.h>
#include <stdint.h>

#include "cgfb/wire.h"

#define CGFB_REPORT_NONCE_LEN 8

/* A random nonce, its version nibble (the high one of byte 6) zero: the
 * nonce exactly as cgfb_report_id_nonce reads it back from the id made
 * with it. 0 or a negative errno from getrandom(2). */
int cgfb_report_nonce_random(uint8_t nonce[CGFB_REPORT_NONCE_LEN]);

/* The nonce of id (any valid id; the version nibble reads as zero).
 * -EINVAL when id is no report id. */
int cgfb_report_id_nonce(const char *id, uint8_t nonce[CGFB_REPORT_NONCE_LEN]);

/* The id made of nonce (its version nibble ignored) bound to
 * token_sha256_hex (64 lower-case hex digits). -EINVAL for another hash. */
int cgfb_report_id_make(const uint8_t nonce[CGFB_REPORT_NONCE_LEN],
			const char *token_sha256_hex, char out[CGFB_REPORT_ID_LEN + 1]);

/* id is a report id bound to token_sha256_hex; false for anything else
 * (an id of earlier clients, another hash, NULL or "" for none). */
bool cgfb_report_id_bound(const char *id, const char *token_sha256_hex);

#endif
