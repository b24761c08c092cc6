/* Canonical JSON (lib/canon.c): the one serialisation of a report, which
 * the collector checks byte for byte before it hashes and stores.
 *
 * Properties: bytes that cgfb_canon_parse() accepts are their own
 * canonical serialisation (serialised again they come out identical);
 * and any JSON document that json-c reads leniently, serialised
 * canonically, is accepted by cgfb_canon_parse() and serialises to the
 * same bytes again (the form is a fixed point). */
#include <errno.h>

#include "cgfb/canon.h"
#include "cgfb/wire.h"
#include "fuzz.h"

#define DEPTH CGFB_REPORT_DEPTH_MAX
#define MAX   (4u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cgfb_buf b = { 0 }, b2 = { 0 };
	struct json_tokener *tok;
	json_object *obj = NULL, *obj2 = NULL;
	char err[256];
	int rc;

	rc = cgfb_canon_parse((const char *)data, size, DEPTH, &obj, err, sizeof(err));
	if (rc == 0) {
		rc = cgfb_canon_serialize(obj, MAX, &b);
		PROPERTY(rc == 0, "accepted, then serialising fails: %d", rc);
		PROPERTY(b.len == size && memcmp(b.data, data, size) == 0,
			 "accepted, but serialises to other bytes:\n%.*s\n%s", (int)size,
			 (const char *)data, b.data);
		json_object_put(obj);
		obj = NULL;
	} else {
		PROPERTY(obj == NULL && (rc == -EINVAL || rc == -E2BIG), "refusal %d", rc);
	}

	tok = json_tokener_new_ex(DEPTH);
	obj = json_tokener_parse_ex(tok, (const char *)data, (int)size);
	if (obj && json_tokener_get_error(tok) == json_tokener_success &&
	    cgfb_canon_serialize(obj, MAX, &b) == 0) {
		rc = cgfb_canon_parse(b.data, b.len, DEPTH, &obj2, err, sizeof(err));
		PROPERTY(rc == 0, "canonical form refused (%s):\n%s", err, b.data);
		PROPERTY(cgfb_canon_serialize(obj2, MAX, &b2) == 0 && b2.len == b.len &&
			 memcmp(b.data, b2.data, b.len) == 0, "not a fixed point:\n%s\n%s", b.data,
			 b2.data ? b2.data : "");
	}
	json_object_put(obj);
	json_object_put(obj2);
	json_tokener_free(tok);
	cgfb_buf_free(&b);
	cgfb_buf_free(&b2);
	return 0;
}
