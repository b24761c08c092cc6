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
	FILE *out;                   /* where each report is said: stdout if NULL */
	unsigned written, repeats, failed;
};

/* 0, or -ENOENT when the report writer is not installed (said). */
int scan_report_init(struct scan_report *r);

/* The report of detection d (first of its message in its boot; later
 * ones are passed over), found in source ("file", "journal") of boot
 * (a boot id; "" for unknown). What happened is printed for the person. */
void scan_report_one(struct scan_report *r, const struct cgfb_detection *d, const char *source,
		     const char *boot);

#endif
