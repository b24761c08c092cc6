/* The repeat index: which reports have a repeat key (report/repeat.h), so
 * that the report writer weighs only those, not the whole spool
 * (docs/REPEATS.md, "The index").
 *
 * <state-dir>/repeat-index/ holds the SHA-256 of each report's key
 * (catalog id, fields and message) and its id, a line "KEY ID" each, in
 * 4096 bucket files named by the key's first three hex digits; and "stamp": how many reports the index
 * covers, a fingerprint of their ids (the sum of a hash of each), and the
 * identity and modification time of reports/ when the writer last left
 * it, when the writer last expired the spool, and whether "pending" (the
 * pending reports the login banner shows, report/spool.h) is current. Only the report writer writes it, one at a time (its lock on reports/, reporter/main.c).
 *
 * It is a cache, never the truth: an id it names whose report is gone is
 * passed over and forgotten; every report it names is read and its key
 * compared, so a collision or a damaged file makes no false repeat; and
 * when reports/ changed behind the writer's back (the modification time
 * differs) the ids of reports/ are counted by name, and any report the
 * index does not cover makes it rebuilt from the reports, one at a time.
 *
 * A new report is added to its key's file before the report is written
 * and counted in the stamp after: killed in between, the index names a
 * report that does not exist (passed over), or the stamp counts one report
 * fewer than reports/ holds, that very one (recognised, no rebuild). */
#ifndef CGFB_REPINDEX_H
#define CGFB_REPINDEX_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "base/statedir.h"
#include "report/repeat.h"
#include "report/spool.h"

struct cgfb_repindex {
	int fd;                          /* repeat-index/; -1 closed */
	int sd_fd;                       /* the state directory, borrowed */
	struct cgfb_spool *sp;           /* borrowed */
	unsigned long long count, sum;   /* the reports covered, their fingerprint */
	char adding[CGFB_REPORT_ID_LEN + 1];   /* added, not yet counted; "" */
	dev_t dev;                       /* reports/ as the writer left it */
	ino_t ino;
	long long sec, nsec;
	long long expired;               /* when the spool was last expired */
	int pending_ok;                  /* "pending" is the spool's, as sealed */
	bool rebuilt;                    /* this open rebuilt it */
};

/* Open the index of sp, current: checked against reports/ and rebuilt if
 * it must be. 0, or -errno: then the caller falls back to
 * cgfb_repeat_find (correct, and slow). */
int cgfb_repindex_open(struct cgfb_repindex *ix, const struct cgfb_statedir *sd,
		       struct cgfb_spool *sp);
void cgfb_repindex_close(struct cgfb_repindex *ix);

/* As cgfb_repeat_find, reading only the reports of k's key. */
int cgfb_repindex_find(struct cgfb_repindex *ix, const struct cgfb_report_key *k,
		       char id[CGFB_REPORT_ID_LEN + 1]);

/* Before report id (key k) is written: its key's file names it. */
int cgfb_repindex_add(struct cgfb_repindex *ix, const char *id, const struct cgfb_report_key *k);

/* After the writer's last change to reports/: the stamp counts the report
 * added (if it was written) and reports/ as it is now. */
int cgfb_repindex_seal(struct cgfb_repindex *ix);

/* The index removed (closed if open): a cache gives way to a report on a
 * full disk. The next writer makes it anew, if there is room. */
void cgfb_repindex_drop(struct cgfb_repindex *ix, const struct cgfb_statedir *sd);

/* The pending reports (report/spool.h) as the writer last left them, when
 * nothing changed reports/ since: 0 and p known, else -ESTALE or -errno
 * (then they are listed from the spool). The writer keeps them with
 * save_pending before it seals; only a new report changes them under it
 * (expiry removes answered reports only). */
int cgfb_repindex_pending(struct cgfb_repindex *ix, struct cgfb_pending *p);
int cgfb_repindex_save_pending(struct cgfb_repindex *ix, const struct cgfb_pending *p);

/* The pending reports a command (review, decline, ...) listed for the
 * banner after changing the spool, kept in <state-dir>/pending-cache for
 * the next report writer, which would otherwise list them again (3.5 s
 * with 100,000 reports). cgfb_reports_mark (the seal's mark too) sets
 * reports/'s modification time a second back and returns it, before the
 * listing: the writer believes the cache only while reports/ is still
 * exactly so. */
#define CGFB_PENDING_CACHE "pending-cache"
int cgfb_reports_mark(struct cgfb_spool *sp, struct stat *mark);
int cgfb_pending_cache_save(const struct cgfb_statedir *sd, const struct stat *mark,
			    const struct cgfb_pending *p);

/* A report the writer removed (expiry): no longer counted. */
void cgfb_repindex_forget(struct cgfb_repindex *ix, const char *id);

#endif
