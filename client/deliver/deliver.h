/* One delivery attempt of a consented report: the bytes the administrator
 * agreed to, to the endpoint they agreed to, with the retry schedule kept
 * in the spool. */
#ifndef CGFB_DELIVER_H
#define CGFB_DELIVER_H

#include "config/config.h"
#include "report/spool.h"

/* Updates and saves e: sent with the receipt, or attempts/next_attempt/
 * last_error. Returns 0 when sent, -EPERM when the bytes changed after
 * consent (e goes back to pending). */
int cgfb_deliver(const struct cgfb_config *c, struct cgfb_spool *sp, struct cgfb_spool_entry *e);

#endif
