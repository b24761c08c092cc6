/* Every name in the state directory (/var/lib/cgroup-feedback, or
 * --state-dir), in one place: what the watcher, the report writer and the
 * commands read and write there. Files are private to the service user
 * (0600 in a 0700 directory). */
#ifndef CGFB_STATEDIR_H
#define CGFB_STATEDIR_H

/* The watcher's memory: boot id, position, what this boot reported. */
#define CGFB_STATE_FILE      "watch.state"
/* Where a corrupt one is moved (CGFB_STATE_FILE followed by this). */
#define CGFB_CORRUPT_SUFFIX  ".corrupt"
/* The per-install key of the anonymiser's tokens (32 bytes). */
#define CGFB_SECRET_FILE     "secret"
/* Catalog ids the administrator asked not to be told of, one a line. */
#define CGFB_SILENCED_FILE   "silenced"
/* The spool: a report per <id>.json, beside it these. */
#define CGFB_REPORTS_DIR     "reports"
#define CGFB_REPORT_SUFFIX   ".json"
#define CGFB_STATE_SUFFIX    ".state"    /* its consent, delivery and receipt */
#define CGFB_DRAFT_SUFFIX    ".draft"    /* what the administrator said so far */
#define CGFB_SEEN_SUFFIX     ".seen"     /* the boots and kernels it was seen at */
/* Reports the spool could not read, moved aside with their sidecars. */
#define CGFB_QUARANTINE_DIR  "quarantine"

#endif
