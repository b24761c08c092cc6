/* The detection member of a report. Its message is rendered, never copied:
 * a catalog entry's own wording with each captured field put in as the
 * report shows it (a pid as "N", a process name anonymised, a controller
 * or knob from the schema's closed lists or a placeholder); a message no
 * entry describes (the G1 safety net) keeps only words of the catalog's
 * vocabulary. Fields outside the schema (pid, caller, cpu, release,
 * address) never enter the report. */
#ifndef CGFB_REPORT_DETECTION_H
#define CGFB_REPORT_DETECTION_H

#include <json-c/json.h>

#include "cgfb/catalog.h"
#include "cgfb/schema.h"
#include "privacy/anon.h"
#include "detect/detect.h"

#define CGFB_MESSAGE_MAX 1024      /* characters, as the schema counts */

/* d NULL: the stand-in of a snapshot, an entry seen once with no message. */
json_object *cgfb_report_detection(const struct cgfb_schema *schema, const struct cgfb_entry *e,
				   const struct cgfb_detection *d, const char *source,
				   struct cgfb_anon *anon);

/* The message as a report carries it, into out (NUL-terminated UTF-8). */
void cgfb_report_message(const struct cgfb_schema *schema, const struct cgfb_entry *e,
			 const struct cgfb_detection *d, struct cgfb_anon *anon, char *out,
			 size_t outsz);

#endif
