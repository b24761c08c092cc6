/* A report's answers, in its catalog entry's own questions: the flat-
 * hierarchy entries ask whether the reorganisation would work, the knob
 * entries what the setting is for and whether the cgroup v2 replacement
 * would do. The digest and the dashboard show these, not one question for
 * every entry. */
#ifndef CGFB_SRV_ANSWERS_H
#define CGFB_SRV_ANSWERS_H

#include <json-c/json.h>
#include <stddef.h>

#include "cgfb/catalog.h"

/* [{"key", "label", "question", "answer"}] in the order of the entry's
 * question set; answer is the sender's approved text, or null when the
 * question was not answered. An entry the catalog does not know (a newer
 * client) gives its answers in the report's order with the key as label.
 * NULL only when memory runs out or body is not a JSON object. */
json_object *answers_of(const struct cgfb_catalog *cat, const char *catalog_id,
			const char *body, size_t len);


#endif
