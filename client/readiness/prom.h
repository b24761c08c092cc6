/* check --prometheus: the findings as node_exporter's textfile collector
 * reads them (the text exposition format), so that a fleet's readiness can
 * be graphed and alerted on. */
#ifndef CGFB_PROM_H
#define CGFB_PROM_H

#include <time.h>

#include "cgfb/buf.h"
#include "readiness/findings.h"
#include "readiness/rules.h"
#include "readiness/version.h"

/* One gauge per rule and severity (0 for a rule found nowhere, so that a
 * series does not vanish when it is fixed), the verdict, what could not
 * be read and when. 0 or -ENOMEM. */
int cgfb_check_prometheus(struct cgfb_buf *b, const struct cgfb_rules *rs,
			  const struct cgfb_check *c, const struct cgfb_target *t, time_t now);

#endif
