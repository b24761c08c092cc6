/* scan --report: a message found in a saved log or the journal becomes a
 * pending report, written by the same report writer the watcher starts
 * (snapshot taken now, repeats counted, the administrator told), and then
 * reviewed like any. Once per message and boot, as the watcher would have. */
#ifndef CGFB_SCAN_REPORT_H
#define CGFB_SCAN_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "detect/detect.h"

struct scan_report {
	const char *writer;          /* path of cgroup-feedback-report */
	const char *config_path, *catalog_path, *state_dir;
	const char *cgroup_root, *mountinfo;    /* a fixture tree (tests) */
	/* Whose machine the messages are about (docs/PRIVACY.md, "A report
	 * about another machine"): another's log (scan --other-machine), or a
	 * copy of another's files under root (check --root); neither: the
	 * writer tells by the log's boot banner. */
	bool other_machine;
	const char *root;
	FILE *out;                   /* where each report is said: stdout if NULL */
	unsigned written, repeats, failed;
};

/* 0, or -ENOENT when the report writer is not installed (said). */
int scan_report_init(struct scan_report *r);

/* Which machine a log says it is: its journal's _MACHINE_ID, when it has
 * one; a text log does not say (the writer looks at its boot banner). */
enum scan_machine { SCAN_MACHINE_UNSAID, SCAN_MACHINE_THIS, SCAN_MACHINE_OTHER };

/* The report of detection d (first of its message in its boot; later
 * ones are passed over), found in source ("file", "journal") of boot
 * (a boot id; "" for unknown) of machine. What happened is printed for
 * the person. */
void scan_report_one(struct scan_report *r, const struct cgfb_detection *d, const char *source,
		     const char *boot, enum scan_machine machine);

/* A boot id for what has none of its own, the same each time: a saved
 * file's messages (by its path), a copy's findings (by its root), counted
 * as one boot of their own on a report, never as this boot. */
void scan_report_boot_of(const char *what, const char *path, char out[40]);

#endif
