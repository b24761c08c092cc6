/* Canonical JSON: the one serialisation of a report. Sorted keys, no
 * insignificant white space, integers only, minimal string escapes, UTF-8
 * (RFC 8785 for the values reports use). The bytes previewed are the bytes
 * sent, stored and hashed, on both sides. */
#ifndef CGFB_CANON_H
#define CGFB_CANON_H

#include <stddef.h>

#include <json-c/json.h>

#include "cgfb/buf.h"


/* Serialise obj into b (replacing its content, NUL-terminated). Fails with
 * -EINVAL for doubles (reports have none) or invalid UTF-8, and -E2BIG past
 * max_bytes. */
int cgfb_canon_serialize(json_object *obj, size_t max_bytes, struct cgfb_buf *b);

/* Parse bytes that must already be canonical: valid JSON, nesting at most
 * max_depth, and byte-identical to their own canonical serialisation (so
 * duplicate keys, floats, unsorted keys and stray white space are refused).
 * On error returns -EINVAL/-E2BIG and a reason in err. */
int cgfb_canon_parse(const char *data, size_t len, int max_depth, json_object **out,
		     char *err, size_t errsz);

/* An upper bound on the values (objects, arrays, strings, numbers,
 * literals, at any depth) that the JSON text data holds, counted in one
 * pass over the bytes without parsing them: 1 + the objects, arrays and
 * commas outside strings (each value but the first of a container follows
 * a comma). For text that is not JSON the count means nothing but still
 * bounds what a parser would build of it. */
size_t cgfb_json_values(const char *data, size_t len);

#endif
