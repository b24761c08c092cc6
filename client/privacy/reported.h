/* The names a report itself carries as tokens, found in free text. The
 * secret check looks for this machine's cgroup names as they are now
 * (privacy/cgnames.h); a cgroup the report tokenised at warning time may
 * be gone by review time (a container, a finished job), and written in
 * clear in the use case it would still undo its token. So every word of
 * the text is tokenised as the report's names were and looked for among
 * the report's tokens: what matches is a name of this report. */
#ifndef CGFB_REPORTED_H
#define CGFB_REPORTED_H

#include <stddef.h>
#include <stdint.h>

#include "privacy/redact.h"
#include "privacy/secret.h"

/* Each word of text (and the word without a sentence's last '.', ':' or
 * ',') whose token under key (the install's, privacy/anon.h) is in
 * report[0..len), or whose token for endpoint (when the report is
 * consented for one, privacy/rekey.h; NULL when not) is, added to ln as a
 * cgroup name. Returns how many words matched (a name written twice counts
 * twice; ln keeps it once), or a negative errno. */
int cgfb_local_names_add_reported(struct cgfb_local_names *ln, const char *text,
				  const char *report, size_t len,
				  const uint8_t key[CGFB_SECRET_LEN], const char *endpoint);

#endif
