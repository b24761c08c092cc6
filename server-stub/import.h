/* The import command (see import.c). */
#ifndef CGFB_SERVER_IMPORT_H
#define CGFB_SERVER_IMPORT_H

#include "cgfb/schema.h"

/* argv[0] is "import". Returns the exit status: 0 all imported (or already
 * there), 1 some messages failed, 2 trouble. */
int server_import(const struct cgfb_schema *schema, int argc, char **argv);

#endif
