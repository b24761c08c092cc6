/* What to do instead, on this host type: the way to move a host to the
 * unified hierarchy depends on where its v1 comes from (a switch on the
 * command line to remove, a distribution's build default to override, a
 * container's host, WSL's configuration, an image's boot files). Other
 * findings take their rule's replacement. */
#ifndef CGFB_ADVICE_H
#define CGFB_ADVICE_H

#include <stddef.h>

#include "readiness/env.h"
#include "readiness/findings.h"

void cgfb_advice(const struct cgfb_env *e, const struct cgfb_finding *f, char *buf, size_t sz);

#endif
