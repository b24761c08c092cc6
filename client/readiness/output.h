/* What check says: for people, findings by severity with where, what breaks
 * and what to do instead, and a last line saying ready or not; for
 * programs, one JSON document (docs/check.schema.json). */
#ifndef CGFB_CHECK_OUTPUT_H
#define CGFB_CHECK_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "readiness/check.h"
#include "readiness/version.h"

/* Whether a finding counts against the target: it breaks there. */
bool cgfb_finding_breaks(const struct cgfb_finding *f, const struct cgfb_target *t);
/* Findings of severity breaks that break on the target. */
size_t cgfb_check_breaking(const struct cgfb_check *c, const struct cgfb_target *t);

int cgfb_check_print(FILE *out, const struct cgfb_check *c, const struct cgfb_target *t,
		     const char *root);
int cgfb_check_print_json(FILE *out, const struct cgfb_check *c, const struct cgfb_target *t,
			  const char *root);

#endif
