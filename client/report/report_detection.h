/* The detection member of a report. The message keeps the kernel's words
 * but not the process: a captured pid becomes "N" and a captured process
 * name its anonymised form; free-form messages (the G1 safety net) lose
 * their numbers, paths and addresses. Fields outside the schema (pid,
 * caller, cpu, release, address) never enter the report. */
#ifndef CGFB_REPORT_DETECTION_H
#define CGFB_REPORT_DETECTION_H

#include <json-c/json.h>

#include "privacy/anon.h"
#include "cgfb/catalog.h"
#include "detect/detect.h"

#define CGFB_MESSAGE_MAX 1024      /* characters, as the schema counts */

/* d NULL: the stand-in of a snapshot, an entry seen once with no message. */
json_object *cgfb_report_detection(const struct cgfb_entry *e, const struct cgfb_detection *d,
				   const char *source, struct cgfb_anon *anon);

/* The message as a report carries it, into out (NUL-terminated UTF-8). */
void cgfb_report_message(const struct cgfb_entry *e, const struct cgfb_detection *d,
			 struct cgfb_anon *anon, char *out, size_t outsz);

#endif
