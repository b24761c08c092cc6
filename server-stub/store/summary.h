/* Public aggregates over the stored reports. A group is shown only when
 * at least SUMMARY_MIN_INSTALLS distinct installs (see ingest.h) are in it;
 * smaller groups are counted as suppressed, never shown, so no single
 * machine's combination of answers can be read off the summary. */
#ifndef CGFB_SERVER_SUMMARY_H
#define CGFB_SERVER_SUMMARY_H

#include <json-c/json.h>

#include "store/store.h"

#define SUMMARY_MIN_INSTALLS 5

/* {"min_installs", "since", "total", "dimensions": {name: {"groups":
 * [{"key", "reports", "installs"}], "suppressed_groups"}}}, counting
 * reports received at or after since (NULL: all). total is {"reports",
 * "installs", "suppressed", "check": {"reports", "installs",
 * "suppressed"}}: every report, and those of origin "check". */
int summary_build(struct store *s, const char *since, json_object **out);

#endif
