/* Scanning saved logs: a file or stream in any supported format. */
#ifndef CGFB_SCAN_H
#define CGFB_SCAN_H

#include "cgfb/catalog.h"
#include "detect/detect.h"
#include "log/logfmt.h"

struct cgfb_scan_stats {
	enum cgfb_logfmt fmt;
	bool pasted;               /* read as a paste: unquoted, re-wrapped records joined */
	unsigned long lines;
	unsigned long detections;
	unsigned long malformed;   /* lines a structured format could not parse */
	unsigned long long_lines;  /* lines split because they exceeded the buffer */
	bool truncated;            /* the input ended inside a record */
};

/* Scan everything readable from fd (a regular file is mapped, anything else
 * read in chunks). Detections go to fn. Returns 0, or a negative errno when
 * reading failed (what was read before is still scanned). */
int cgfb_scan_fd(int fd, const struct cgfb_catalog *cat, cgfb_detect_fn fn, void *arg,
		 struct cgfb_scan_stats *st);

/* The same over bytes already in memory. */
int cgfb_scan_buffer(const char *buf, size_t len, const struct cgfb_catalog *cat,
		     cgfb_detect_fn fn, void *arg, struct cgfb_scan_stats *st);

#endif
