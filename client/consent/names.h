/* The names the secret check of a report's free text looks for: this
 * machine's as they are now (privacy/redact.h: host, accounts, cgroups)
 * and the report's own, those it carries as tokens, found in the texts
 * (privacy/reported.h): a cgroup gone since the warning is still named. */
#ifndef CGFB_CONSENT_NAMES_H
#define CGFB_CONSENT_NAMES_H

#include <stddef.h>

#include "base/statedir.h"
#include "privacy/redact.h"
#include "report/spool.h"

/* Into ln (cgfb_local_names_free it): the machine's names, and the words
 * of texts[0..n) (NULL ones skipped) that report id carries as tokens.
 * A report or key that cannot be read leaves the machine's names alone:
 * the check is a best effort, the review shows the bytes. */
void cgfb_consent_names(struct cgfb_local_names *ln, const struct cgfb_statedir *sd,
			struct cgfb_spool *sp, const char *id, const char *const *texts, size_t n);

#endif
