/* What check says: for people, the environment, then findings by severity
 * with where, who decides and when, what to do instead on this host, and a
 * last line with the verdict; for programs, one JSON document
 * (docs/check.schema.json). Both read the deciders' decisions (decide.h). */
#ifndef CGFB_CHECK_OUTPUT_H
#define CGFB_CHECK_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "readiness/check.h"
#include "readiness/version.h"

enum cgfb_verdict { CGFB_READY, CGFB_NOT_READY, CGFB_CANNOT_TELL, CGFB_NOT_CHECKED };

/* Whether a finding counts against the target: it breaks there. */
bool cgfb_finding_breaks(const struct cgfb_finding *f, const struct cgfb_target *t);
/* Findings of severity breaks that break on the target. */
size_t cgfb_check_breaking(const struct cgfb_check *c, const struct cgfb_target *t);
/* READY only when the check looked, could tell the cgroup mode and no
 * decider's input of a breaking rule was missing. */
enum cgfb_verdict cgfb_check_verdict(const struct cgfb_check *c, const struct cgfb_target *t);

int cgfb_check_print(FILE *out, const struct cgfb_check *c, const struct cgfb_target *t,
		     const char *root);
int cgfb_check_print_json(FILE *out, const struct cgfb_check *c, const struct cgfb_target *t,
			  const char *root);

#endif
