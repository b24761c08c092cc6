/* A report for people: the snapshot command's default output. Rendered
 * from the report document itself, so it shows exactly what a report of
 * this machine holds, and nothing else. */
#ifndef CGFB_SUMMARY_H
#define CGFB_SUMMARY_H

#include <stdio.h>

#include <json-c/json.h>

#define CGFB_SUMMARY_NODES 40     /* cgroups shown per hierarchy */

/* Returns 0, or -EIO when out could not be written. */
int cgfb_summary_print(FILE *out, json_object *report);

#endif
