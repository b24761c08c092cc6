/* journalctl -o export (systemd's Journal Export Format). */
#ifndef CGFB_JOURNAL_EXPORT_H
#define CGFB_JOURNAL_EXPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "log/record.h"

typedef void (*cgfb_record_fn)(const struct cgfb_record *rec, void *arg);

/* Parse the complete entries in buf (all of it if eof) and call fn for each
 * kernel entry (_TRANSPORT=kernel). *line counts lines for the records'
 * positions and is updated. Returns the bytes consumed (an entry boundary),
 * or -EBADMSG when a binary field's length runs past the data at eof. */
long cgfb_journal_export_parse(const char *buf, size_t len, bool eof, unsigned long *line,
			       cgfb_record_fn fn, void *arg);

#endif
