/* Scanning saved logs: a file or stream in any supported format. */
#ifndef CGFB_SCAN_H
#define CGFB_SCAN_H

#include "cgfb/catalog.h"
#include "detect/detect.h"
#include "log/input.h"
#include "log/logfmt.h"

struct cgfb_scan_stats {
	enum cgfb_logfmt fmt;
	bool pasted;               /* read as a paste: unquoted, re-wrapped records joined */
	unsigned long lines;
	unsigned long detections;
	unsigned long malformed;   /* lines a structured format could not parse */
	unsigned long long_lines;  /* lines split because they exceeded the buffer */
	bool truncated;            /* the input ended inside a record */
	enum cgfb_compression compression;
	bool binary;               /* not text (nor compressed text) at its start, or mostly NULs */
	bool mostly_nul;           /* more than half its bytes NULs (a power cut's zeros) */
	unsigned long long bytes, nul_bytes;   /* read (decompressed), and NULs among them */
	bool journal_file;         /* a systemd journal file: not scanned */
	char error[240];           /* why reading failed, when it did */
};

/* Scan everything readable from fd, decompressed when its first bytes say
 * so (log/input.h), in chunks of bounded size. Detections go to fn.
 * Returns 0; -EMEDIUMTYPE for a journal file (st->journal_file: nothing
 * scanned); binary input is scanned and flagged (st->binary);
 * or a negative errno when reading or decompressing failed, with st->error
 * saying why (what was read before is still scanned). */
int cgfb_scan_fd(int fd, const struct cgfb_catalog *cat, cgfb_detect_fn fn, void *arg,
		 struct cgfb_scan_stats *st);

/* The same over bytes already in memory. */
int cgfb_scan_buffer(const char *buf, size_t len, const struct cgfb_catalog *cat,
		     cgfb_detect_fn fn, void *arg, struct cgfb_scan_stats *st);

#endif
