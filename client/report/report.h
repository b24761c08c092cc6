/* One report: a detection with the snapshot taken when it was seen, as the
 * canonical JSON bytes that are previewed, stored, sent and hashed. The
 * bytes are checked against docs/report.schema.json before anyone sees
 * them, and never exceed the size cap. */
#ifndef CGFB_REPORT_H
#define CGFB_REPORT_H

#include <stddef.h>
#include <time.h>

#include "cgfb/canon.h"
#include "cgfb/wire.h"
#include "cgfb/schema.h"
#include "snapshot/analysis.h"
#include "privacy/anon.h"
#include "privacy/deltoken.h"
#include "detect/detect.h"
#include "snapshot/profile.h"
#include "snapshot/topology.h"

#define CGFB_UUID_LEN CGFB_REPORT_ID_LEN

struct cgfb_report_in {
	const struct cgfb_entry *entry;
	const struct cgfb_detection *det;    /* NULL: a snapshot's stand-in */
	const char *source;                  /* "kmsg", "klogctl", "file" */
	const struct cgfb_profile *profile;
	const struct cgfb_topology *topo;
	const struct cgfb_analysis *an;
	struct cgfb_anon *anon;
	time_t now;
	const char *id;              /* reserved by the watcher, or NULL: a new one */
	/* The raw per-install secret: the id is bound to its derived deletion
	 * token (privacy/deltoken.h), a reserved id giving its nonce. NULL: a
	 * random id, or the reserved one as it is (tests). */
	const uint8_t *id_secret;
};

/* Canonical bytes of the report into out, at most max_bytes; its id into
 * id. Returns 0, -ENOMEM, or -EINVAL with err saying which member broke
 * the schema (a bug, never the machine's fault). */
int cgfb_report_make(const struct cgfb_report_in *in, const struct cgfb_schema *schema,
		     size_t max_bytes, struct cgfb_buf *out, char id[CGFB_UUID_LEN + 1], char *err,
		     size_t errsz);

/* A random (version 4) UUID from getrandom(2). */
int cgfb_uuid4(char out[CGFB_UUID_LEN + 1]);

#endif
