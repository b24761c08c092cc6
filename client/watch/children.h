/* The watcher's children: the report writer (cgroup-feedback-report) for a
 * new detection and, at the watcher's start, for the login banner; the
 * administrator's review when --prompt asks for it. Each runs without the
 * watcher's capability, and the watcher waits for it. */
#ifndef CGFB_CHILDREN_H
#define CGFB_CHILDREN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "detect/detect.h"
#include "watch/watch.h"

/* The flag the watcher's stop signals set: a child it waits for is then
 * asked to end (SIGTERM) and not waited for, so that the watcher stops
 * within a second whatever a child does. */
void cgfb_children_stop_on(volatile sig_atomic_t *flag);

/* A new detection's report, by the report writer at path reporter, in a
 * child process that holds no capability: it links the snapshot, the
 * crypto and the schema that the watcher never maps. The detection goes
 * on a pipe (detect/handoff.h, from source: "kmsg" or "klogctl"). Its id
 * (report_id when not NULL) lands in id, followed by " repeat" or
 * " silenced" when the writer says so, "" if none. Returns 0, -EAGAIN
 * when it may work later (a full disk, a writer killed), or -EIO when it
 * will not (logged). */
int cgfb_child_report(const struct cgfb_watch_opts *o, const char *reporter,
		      const struct cgfb_detection *d, const char *source, const char *report_id,
		      char id[64]);

/* Kernel records of this boot (boot: its id) the ring buffer lost, whose
 * kernel time is in (from_usec, to_usec), looked up in the journal by the
 * report writer (--journal-gap; this process links no journal code). Each
 * comes back as a /dev/kmsg line for fn. Returns how many, or -errno (the
 * writer logged why). */
int cgfb_child_journal_gap(const struct cgfb_watch_opts *o, const char *reporter,
			   const char *boot, uint64_t from_usec, uint64_t to_usec,
			   void (*fn)(const char *line, size_t len, void *arg), void *arg);

/* The report writer's --check of the configuration and the files it
 * names (it says what is wrong): 0 when usable, else its exit status or a
 * negative errno. */
int cgfb_child_check(const struct cgfb_watch_opts *o, const char *reporter);

/* The login banner made to say what the spool says (the report writer's
 * --refresh-banner). Failures are logged there. */
void cgfb_child_refresh_banner(const struct cgfb_watch_opts *o, const char *reporter);

/* The review of report id, in the terminal the watcher runs in: the
 * command line program in a child process (whatever it sends, the watcher
 * opened no socket). */
void cgfb_child_review(const struct cgfb_watch_opts *o, const char *id);

#endif
