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
/* A report holds at most this many JSON values (cgfb_json_values: objects,
 * arrays, strings, numbers, literals). Bytes alone do not bound what a
 * report costs to parse and check: 256 KiB of "0," is 131,072 integers,
 * 25-28 ms of the collector's event loop against about 1 ms for a normal
 * report (issue 41). The densest report the client writes is a topology
 * of small nodes: a node is at least 7 values ({"children","depth","id",
 * "name","parent","tasks"} and the object) in about 60 bytes, and the
 * analysis names each node at most twice more (a flat subtree's children
 * and move_under_new_parent) plus 64 x 64 knob users' nodes, so 256 KiB
 * of canonical JSON holds at most about 262144 / 74 x 9 + 4096 = 36,000
 * values. 65,536 leaves that room to spare and halves the worst case. */
#define CGFB_REPORT_VALUES_MAX 65536
/* What a client is told when it sends more. */
#define CGFB_REPORT_TOO_MANY "a report holds at most " CGFB_STR(CGFB_REPORT_VALUES_MAX) \
	" JSON values (objects, arrays, strings, numbers)"
/* A report id is a version-4 UUID in lower-case hex, 36 characters. */
#define CGFB_REPORT_ID_LEN 36
/* Nesting of the deepest report member, with room to spare; anything
 * deeper is an attack on the parser, not a report. */
#define CGFB_REPORT_DEPTH_MAX 20

/* id has the shape of a report id: the only names a spool path or a
 * collector URL is ever built from ("show ../../etc/shadow" names nothing). */
bool cgfb_report_id_valid(const char *id);

#endif
