/* The import command (see import.c). */
#ifndef CGFB_SERVER_IMPORT_H
#define CGFB_SERVER_IMPORT_H

#include <stddef.h>

#include "cgfb/buf.h"
#include "cgfb/schema.h"
#include "ingest/ingest.h"

/* One message of a mailbox, up to the database: its first report found,
 * unwrapped, checked against the SHA-256 in its headers and admitted as an
 * upload over HTTP would be (ingest_report). No I/O. Returns 0 with the
 * report's bytes in json and its columns in m (free with
 * ingest_meta_free); -ENOENT when the message holds no report; another
 * negative errno with the reason in err. */
int import_admit(const struct cgfb_schema *schema, const char *msg, size_t len,
		 struct cgfb_buf *json, struct report_meta *m, char *err, size_t errsz);

/* argv[0] is "import". Returns the exit status: 0 every report found was
 * imported (or already there), 1 a file could not be read or a message that
 * carries a report (its header or marker) or a report in it was not, each
 * named on stderr with its reason; 2 trouble. */
int server_import(const struct cgfb_schema *schema, int argc, char **argv);

#endif
