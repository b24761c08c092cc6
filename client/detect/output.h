/* Printing detections: for people, and as JSON Lines for programs. */
#ifndef CGFB_OUTPUT_H
#define CGFB_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include <json-c/json.h>

#include "detect/detect.h"

/* One JSON Lines record: o on a line of its own; o is put. Returns 0 or -EIO. */
int cgfb_print_json_line(FILE *out, json_object *o);
/* A JSON string, or null for NULL. */
json_object *cgfb_json_str_or_null(const char *s);

/* A new JSON object describing the detection; the caller puts it. */
json_object *cgfb_detection_json(const struct cgfb_detection *d, const char *source_name);
/* One line of JSON or a short human block. Returns 0 or -EIO. */
int cgfb_detection_print(FILE *out, const struct cgfb_detection *d, const char *source_name,
			 bool json);

#endif
