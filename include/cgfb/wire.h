/* What client and collector agree on about a report on the wire, defined
 * once: its size limit, its id, how deep it may nest. The schema
 * (docs/report.schema.json) says the rest. */
#ifndef CGFB_WIRE_H
#define CGFB_WIRE_H

#include <stdbool.h>

#define CGFB_STR_(x) #x
#define CGFB_STR(x) CGFB_STR_(x)

/* A report is at most 256 KiB of canonical JSON, use case included. */
#define CGFB_REPORT_MAX_BYTES 262144
/* What a client is told when it sends more. */
#define CGFB_REPORT_TOO_LARGE "a report is at most " CGFB_STR(CGFB_REPORT_MAX_BYTES) " bytes"
/* A report id is a version-4 UUID in lower-case hex, 36 characters. */
#define CGFB_REPORT_ID_LEN 36
/* Nesting of the deepest report member, with room to spare; anything
 * deeper is an attack on the parser, not a report. */
#define CGFB_REPORT_DEPTH_MAX 20

/* id has the shape of a report id: the only names a spool path or a
 * collector URL is ever built from ("show ../../etc/shadow" names nothing). */
bool cgfb_report_id_valid(const char *id);

#endif
