/* The process names the public view may show as a group: the names the
 * client's allowlist (data/allowlist.json, built in) keeps or generalises
 * to. A report can carry any word the schema's name pattern allows, so a
 * forged one could otherwise publish its own text as a software name. */
#ifndef CGFB_SERVER_KNOWN_H
#define CGFB_SERVER_KNOWN_H

#include <stdbool.h>

/* False also when the built-in list cannot be read (nothing is shown). */
bool known_software(const char *name);

#endif
