/* The report spool: <state-dir>/reports/<id>.json holds the canonical report
 * (written by watch), <id>.draft what the administrator said about it so
 * far, <id>.state what happened to it since:
 *
 *   pending --> declined
 *      |  \--> consented --> sent --> withdrawn
 *      \-----------------------------^ (withdraw of an unsent report)
 *
 * Every change replaces a file atomically. A corrupt or foreign file is moved
 * to reports/quarantine/ with a logged reason and never blocks the others;
 * quarantine/ keeps at most CGFB_QUARANTINE_MAX files, and what comes after
 * is left where it is, unread (docs/REPEATS.md, "What the spool keeps"). */
#ifndef CGFB_SPOOL_H
#define CGFB_SPOOL_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "base/statedir.h"
#include "cgfb/canon.h"
#include "cgfb/wire.h"

#define CGFB_QUARANTINE_MAX 1000

enum cgfb_rstate {
	CGFB_R_PENDING,
	CGFB_R_DECLINED,
	CGFB_R_CONSENTED,
	CGFB_R_SENT,
	CGFB_R_WITHDRAWN,
};

/* Where and when a report's message was seen: <id>.seen beside the
 * report. Only the report writer (started by the watcher, one at a time)
 * writes it, never the command line, so it cannot race a review's state
 * change; and it is local bookkeeping, never part of the bytes sent
 * (docs/REPEATS.md). A report without one was seen at one boot. */
#define CGFB_SEEN_KERNELS 8
#define CGFB_SEEN_BOOTS 16

struct cgfb_seen {
	unsigned boots;             /* boots whose kernel printed the message */
	long long first, last;      /* epoch seconds of the first and last boot */
	char last_boot[40];         /* boot id last counted: a boot counts once */
	/* The last boots counted, as hashes of their ids: a scan of past
	 * boots (scan --report) meets them in any order, twice if run twice. */
	unsigned n_recent;
	uint32_t recent[CGFB_SEEN_BOOTS];
	unsigned n_kernels;
	char kernels[CGFB_SEEN_KERNELS][16];   /* kernel series, "6.1" */
};

struct cgfb_spool_entry {
	char id[CGFB_REPORT_ID_LEN + 1];
	enum cgfb_rstate state;
	char catalog_id[16];
	long long created;          /* epoch seconds */
	long long updated;
	int attempts;               /* delivery attempts so far */
	long long next_attempt;     /* epoch seconds; 0 = now */
	char last_error[256];
	char deletion_token[65];    /* secret: only its SHA-256 goes into the report */
	char endpoint[512];         /* where consent said it may go */
	char sha256[65];            /* of the report bytes consented to */
	char receipt_id[80];
	char receipt_sha256[65];
	char receipt_time[40];
	struct cgfb_seen seen;
	/* The .state file as it was loaded (0 and 0: there was none), in
	 * memory only: cgfb_spool_save_state records nothing over a state
	 * another command saved meanwhile. */
	unsigned long long state_ino;
	long long state_mtime_ns;
};

struct cgfb_spool {
	int fd;                     /* reports/, or -1 while it does not exist */
	char dir[PATH_MAX + 16];    /* <state-dir>/reports, for messages only */
	int send_depth;             /* cgfb_spool_lock_send taken, not yet let go */
	int send_fd;                /* its lock's descriptor while send_depth > 0 */
};

const char *cgfb_rstate_name(enum cgfb_rstate s);

/* reports/ in the open state directory, made (0700) if needed. */
int cgfb_spool_open(struct cgfb_spool *sp, const struct cgfb_statedir *sd);
/* For commands on reports that exist: create nothing. A state directory
 * without reports/ is an empty spool; -EACCES when it cannot be read. */
int cgfb_spool_open_existing(struct cgfb_spool *sp, const struct cgfb_statedir *sd);
void cgfb_spool_close(struct cgfb_spool *sp);

/* fn for every valid report, in no order, one in memory at a time; bad
 * files are quarantined on the way. fn's negative return stops and is
 * returned. */
int cgfb_spool_each(struct cgfb_spool *sp, int (*fn)(const struct cgfb_spool_entry *e, void *ctx),
		    void *ctx);

/* The pending reports as the login banner shows them: how many, and the
 * CGFB_PENDING_NAMED oldest (by time, then id). Small whatever the spool
 * holds; the report writer keeps it up to date in the repeat index
 * (report/repindex.h), so a new report does not list the spool for it. */
#define CGFB_PENDING_NAMED 20
struct cgfb_pending {
	bool known;                 /* false: to be listed from the spool */
	size_t count, named;
	struct cgfb_pending_one {
		long long created;
		char id[CGFB_REPORT_ID_LEN + 1];
		char catalog_id[16];
	} oldest[CGFB_PENDING_NAMED];
};

/* One more pending report counted (and named, if among the oldest). */
void cgfb_pending_add(struct cgfb_pending *p, long long created, const char *id,
		      const char *catalog_id);
/* The summary from every report, one in memory at a time. */
int cgfb_pending_list(struct cgfb_spool *sp, struct cgfb_pending *p);

/* Every valid report, oldest first; bad files are quarantined on the way.
 * *out is malloc'ed: for the commands, which show them all. */
int cgfb_spool_list(struct cgfb_spool *sp, struct cgfb_spool_entry **out, size_t *n);

/* Every report id in the spool, by its file name alone: nothing is read,
 * moved or logged (what the repeat index needs to tell whether it is
 * current: report/repindex.h). fn's negative return stops and is returned. */
int cgfb_spool_each_id(struct cgfb_spool *sp, int (*fn)(const char *id, void *ctx), void *ctx);

/* One report's state (a report without a .state file is pending) and, if
 * bytes is not NULL, its exact bytes. -ENOENT for an unknown id. */
int cgfb_spool_load(struct cgfb_spool *sp, const char *id, struct cgfb_spool_entry *e,
		    struct cgfb_buf *bytes);
/* The state of e, written whole; under the senders' lock, and only over
 * the .state e was loaded with: -ESTALE (said, with what it is now) when
 * another command saved one meanwhile, and nothing is written. */
int cgfb_spool_save_state(struct cgfb_spool *sp, struct cgfb_spool_entry *e);
/* 0 when e's .state is as e was loaded; else -ESTALE, said once with what
 * the report is now (for a caller that writes more than the state under
 * the senders' lock). */
int cgfb_spool_unchanged(struct cgfb_spool *sp, const struct cgfb_spool_entry *e);

/* The senders' lock: every change of a report's state (consent, a
 * delivery with its network round trip, a withdrawal, a decline) is made
 * under it, so that a withdrawal made while flush sends waits for the
 * send and then finds the report sent, and a send never records itself
 * over a withdrawal. An exclusive flock on reports/.send-lock, waited for
 * up to CGFB_SEND_WAIT_S; taken again by its holder, it only counts. 0,
 * or -EAGAIN (said) when another command held it all that time. */
#define CGFB_SEND_WAIT_S 120
int cgfb_spool_lock_send(struct cgfb_spool *sp);
void cgfb_spool_unlock_send(struct cgfb_spool *sp);
int cgfb_spool_save_report(struct cgfb_spool *sp, const char *id, const char *bytes, size_t len);

/* <id>.draft, what the administrator said about a report (consent/draft.h
 * knows its form): -ENOENT when there is none, -EFBIG past max bytes. */
int cgfb_spool_load_draft(struct cgfb_spool *sp, const char *id, size_t max, struct cgfb_buf *out);
int cgfb_spool_save_draft(struct cgfb_spool *sp, const char *id, const char *data, size_t len);

int cgfb_spool_save_seen(struct cgfb_spool *sp, const char *id, const struct cgfb_seen *s);

/* What the spool keeps of the reports that are done with: declined or
 * withdrawn ones, for a year after their last change, and 10,000 of them at
 * most (docs/REPEATS.md, "What the spool keeps"). Pending, consented and
 * sent reports are never removed: the first two wait for something, and a
 * sent one's deletion token is the only way to withdraw it. */
#define CGFB_SPOOL_KEEP_DAYS     365
#define CGFB_SPOOL_KEEP_ANSWERED 10000

/* Remove the declined and withdrawn reports past those bounds (each with
 * its sidecars; removed is called with its id), reading only .state files.
 * 0 with the count in *n_removed, or -errno. */
int cgfb_spool_expire(struct cgfb_spool *sp, long long now,
		      void (*removed)(const char *id, void *ctx), void *ctx, size_t *n_removed);

/* Move a file aside, saying why in the log; left in place, said so, when
 * quarantine/ is full. */
void cgfb_spool_quarantine(struct cgfb_spool *sp, const char *name, const char *why);

#endif
