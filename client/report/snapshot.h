/* Taking a snapshot: mountinfo, topology walk, profile and analysis, made
 * into a report. Shared by the snapshot command and the watcher, which
 * keeps one snapshot context (secret, allowlist, schema) for its life. */
#ifndef CGFB_SNAPSHOT_H
#define CGFB_SNAPSHOT_H

#include <stdbool.h>

#include "base/statedir.h"
#include "cgfb/canon.h"
#include "cgfb/catalog.h"
#include "detect/detect.h"
#include "report/report.h"

struct cgfb_snapshot_opts {
	const struct cgfb_statedir *state;   /* holds the secret, and reports/ */
	const char *cgroup_root;     /* NULL: mount points as mountinfo says */
	const char *mountinfo;       /* NULL: /proc/self/mountinfo */
	const char *os_release;      /* NULL: /etc/os-release */
	const char *cmdline;         /* NULL: /proc/cmdline */
	const char *allowlist;       /* NULL: only the built-in allowlist */
	unsigned max_nodes;          /* 0: CGFB_TOPO_MAX_NODES */
	size_t max_bytes;            /* 0: CGFB_REPORT_MAX_BYTES */
	const char *report_id;       /* NULL: a new id; else the one reserved for it */
	/* Whose machine a report is about (snapshot/profile.h): this one's, read
	 * here; another's log (its facts from the detection's boot, no
	 * topology); a copy of another's files under copy_root (its tree, its
	 * os-release and cmdline; mountinfo defaults to the copy's). */
	enum cgfb_facts facts;
	const char *copy_root;
};

struct cgfb_snapshot;

/* Load the secret (creating it), the allowlist and the schema. Reports
 * what went wrong itself. */
int cgfb_snapshot_new(const struct cgfb_snapshot_opts *o, struct cgfb_snapshot **out);
void cgfb_snapshot_free(struct cgfb_snapshot *s);

/* The report for catalog entry e as seen in detection d (NULL: a stand-in
 * for a plain snapshot, whose analysis covers every entry when all). Walk
 * trouble is logged as a warning; errors are returned and not logged, with
 * the reason in err. */
int cgfb_snapshot_report(struct cgfb_snapshot *s, const struct cgfb_entry *e,
			 const struct cgfb_detection *d, const char *source, bool all,
			 struct cgfb_buf *out, char id[CGFB_UUID_LEN + 1], char *err, size_t errsz);

/* Store report bytes as <state-dir>/reports/<id>.json (0600, directory
 * 0700, atomically). Returns 0 or a negative errno, not logged. */
int cgfb_snapshot_save(struct cgfb_snapshot *s, const char *id, const struct cgfb_buf *b);

#endif
