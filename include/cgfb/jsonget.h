/* Reading nested members of a json-c object by a dotted path ("a.b.c"),
 * for code that walks reports already checked against the schema. */
#ifndef CGFB_JSONGET_H
#define CGFB_JSONGET_H

#include <json-c/json.h>

/* The member, or NULL if any step is missing (o may be NULL). */
json_object *cgfb_json_get(json_object *o, const char *path);
/* The member's string, or NULL if it is missing or not a string. */
const char *cgfb_json_str(json_object *o, const char *path);

#endif
