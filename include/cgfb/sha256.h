/* SHA-256 as the reports use it: of canonical bytes, of the schema, of a
 * deletion token. Its own file, so that only its users link libcrypto. */
#ifndef CGFB_SHA256_H
#define CGFB_SHA256_H

#include <stddef.h>

/* Lower-case hex SHA-256 of data (65 bytes with the NUL). */
void cgfb_sha256_hex(const void *data, size_t len, char hex[65]);

#endif
