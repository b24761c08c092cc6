/* Small fixed-size name=value sets attached to detections and log records. */
#ifndef CGFB_FIELDS_H
#define CGFB_FIELDS_H

#include <stddef.h>

#define CGFB_FIELD_NAME_MAX  16
#define CGFB_FIELD_VALUE_MAX 128
#define CGFB_FIELDS_MAX      16

struct cgfb_field {
	char name[CGFB_FIELD_NAME_MAX];
	char value[CGFB_FIELD_VALUE_MAX];
};

struct cgfb_fields {
	unsigned n;
	struct cgfb_field f[CGFB_FIELDS_MAX];
};

/* Set (or replace) name to the first len bytes of value, truncated to fit.
 * Returns 0, or -ENOSPC when the set is full. */
int cgfb_fields_set(struct cgfb_fields *fs, const char *name, const char *value, size_t len);
/* Only when name is not set yet: context from a WARN block never overrides
 * what the message itself said. */
int cgfb_fields_add_default(struct cgfb_fields *fs, const char *name, const char *value, size_t len);
const char *cgfb_fields_get(const struct cgfb_fields *fs, const char *name);

#endif
