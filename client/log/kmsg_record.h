/* The /dev/kmsg record format (Documentation/ABI/testing/dev-kmsg). */
#ifndef CGFB_KMSG_RECORD_H
#define CGFB_KMSG_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include "log/record.h"

/* True when line starts like "<prio>,<seq>,<usec>,<flags>...;". */
bool cgfb_kmsg_looks_like(const char *line, size_t len);

/* Parse one record line (without its newline): header fields, then the
 * text, whose \xNN escapes are decoded into buf. rec->text points into buf.
 * Unknown header fields are ignored, as the ABI asks. Returns 0 or
 * -EBADMSG for a line that is not a record. */
int cgfb_kmsg_parse(const char *line, size_t len, char *buf, size_t bufsz,
		    struct cgfb_record *rec);

#endif
