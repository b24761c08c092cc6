/* The detector: records in, catalog detections out. Pure: no I/O. */
#ifndef CGFB_DETECT_H
#define CGFB_DETECT_H

#include <stdbool.h>
#include <stdint.h>

#include "cgfb/catalog.h"
#include "cgfb/fields.h"
#include "log/record.h"
#include "detect/warnblock.h"

#define CGFB_DETECTION_TEXT_MAX 1024

/* "G1#" and eight hex digits: the generic entry counts each message apart. */
#define CGFB_COUNT_KEY_MAX 16

/* A boot as its log shows it: the kernel release of its "Linux version"
 * record and its kernel command line, "" until the log shows them. What a
 * report made from another machine's log says of that machine, instead of
 * anything of this one (reporter/, docs/PRIVACY.md). */
struct cgfb_log_boot {
	char release[65];
	char cmdline[CGFB_DETECTION_TEXT_MAX];
};

struct cgfb_detection {
	const struct cgfb_entry *entry;  /* the catalog entry reported (second site resolved) */
	/* What occurrence counts: the entry's id, or for the generic entry
	 * the id and a hash of the message's wording (one report per
	 * distinct message, not one per boot). */
	char count_key[CGFB_COUNT_KEY_MAX];
	unsigned occurrence;             /* 1 the first time this key is seen in this boot */
	int level;                       /* of the record, -1 unknown */
	bool has_seq;
	uint64_t seq;
	bool has_usec;
	uint64_t usec;
	unsigned long line;
	bool in_warn_block;
	/* Its record's format cannot prove the kernel wrote it (record.h). */
	bool unproven;
	/* Where its WARN block began (the "[ cut here ]" or banner record):
	 * reading again from there gives it its block's context again. */
	bool block_has_seq, block_has_usec;
	uint64_t block_seq, block_usec;
	size_t text_len;
	char text[CGFB_DETECTION_TEXT_MAX];
	struct cgfb_fields fields;       /* comm, pid, controller, knob, caller, WARN context */
	struct cgfb_log_boot boot;       /* the boot it was printed in, as the log shows it */
};

/* The address a report about d goes to: for the generic entry the one the
 * kernel's message named (cgroups@vger.kernel.org, or linux-mm@kvack.org
 * also for its "linux-mm-@" typo), else the entry's contact; NULL for
 * none. */
const char *cgfb_detection_contact(const struct cgfb_detection *d);
/* The printk level of d: its record's, else the level of the call site
 * that prints it (cgfb_catalog_level by its knob), else -1. */
int cgfb_detection_level(const struct cgfb_detection *d);

typedef void (*cgfb_detect_fn)(const struct cgfb_detection *d, void *arg);

struct cgfb_detector;

int cgfb_detector_new(const struct cgfb_catalog *cat, cgfb_detect_fn fn, void *arg,
		      struct cgfb_detector **out);
void cgfb_detector_free(struct cgfb_detector *d);

/* One complete record. Detections inside a WARN block are held until the
 * block ends, so they carry the block's process and kernel details. */
void cgfb_detector_feed(struct cgfb_detector *d, const struct cgfb_record *rec);
/* End of input: emit anything still held. */
void cgfb_detector_finish(struct cgfb_detector *d);
/* True while a WARN block is open: every record matters then. */
bool cgfb_detector_in_block(const struct cgfb_detector *d);
/* True while the next record matters whatever it holds: a WARN block is
 * open, pieces of a continued kmsg line are held, or the last record
 * matched a message whose next line may be its continuation (P1's second
 * line names nothing a needle finds). */
bool cgfb_detector_wants_next(const struct cgfb_detector *d);
/* False when feeding rec cannot read rec->line: it is no catalog
 * candidate and the next record does not matter (cgfb_detector_wants_next).
 * A reader whose line number costs (the journal's sequence number) asks
 * this first and leaves line 0 when false. */
bool cgfb_detector_needs_line(const struct cgfb_detector *d, const struct cgfb_record *rec);
/* True while something fed waits for a record still to come: an open WARN
 * block's detections, or a continued line ('c' record) not yet ended.
 * cgfb_detector_finish hands them out (the detector stays usable). */
bool cgfb_detector_holding(const struct cgfb_detector *d);

/* Per-boot occurrence counts by count key (an entry's id, or "G1#hash"),
 * so a restarted watcher neither repeats nor forgets what it reported. */
unsigned cgfb_detector_count(const struct cgfb_detector *d, const char *key);
void cgfb_detector_set_count(struct cgfb_detector *d, const char *key, unsigned n);

#endif
