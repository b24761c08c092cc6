#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "base/statedir.h"
#include "base/watchlock.h"
#include "cgfb/log.h"
#include "detect/detect.h"
#include "log/klog.h"
#include "log/kmsg_record.h"
#include "detect/output.h"
#include "base/bootid.h"
#include "watch/children.h"
#include "watch/hold.h"
#include "watch/privilege.h"
#include "watch/state.h"
#include "watch/watch.h"
#include "base/exec.h"

#define IDLE_WAIT_MS 2000
/* A WARN block whose end line never came (lost, or a kernel that died
 * printing it) or a continued line never ended is closed after this long
 * without a record, and what it holds is reported. */
#define CLOSE_IDLE_MS 2000
/* For the test suite only (docs/TESTING.md): CGFB_TEST_WATCH_IDLE_MS, 50
 * to 2000, stands for both waits above, so that a test following a
 * regular file need not wait out 2 s each time. */
#define TEST_IDLE_ENV "CGFB_TEST_WATCH_IDLE_MS"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

struct watcher {
	const struct cgfb_watch_opts *o;
	struct cgfb_state st;
	struct cgfb_statedir sd;     /* opened once; watch.state through it */
	int lock_fd;                 /* its flock on it (base/watchlock.h); -1 */
	struct cgfb_klog k;
	struct cgfb_detector *det;
	char reporter[PATH_MAX];     /* "": reports are not written */
	uint64_t pos;              /* next position after the record being fed */
	bool has_pos;
	bool has_usec;
	uint64_t usec;             /* the kernel's time of the record before pos */
	bool in_gap;               /* feeding records of the journal (gap.c) */
	struct timespec last_record;   /* CLOCK_MONOTONIC of the last record read */
	char boot[40];
	char gap_name[48];         /* "journal:BOOT", as scan --journal names records */
	char gap_text[CGFB_RECORD_TEXT_MAX];
	bool dirty;
	/* Detections whose report could not be written for now (hold.h). */
	struct cgfb_hold hold;
	bool unprivileged;         /* CAP_SYSLOG given up (privilege.h) */
	int rc;
	sigset_t stop;             /* the signals that end the watcher */
	/* What the first pass over the log found, said once at its end so that
	 * "found nothing" is told apart from "read nothing". */
	unsigned long records, detected;
	bool backlog_said;
	int idle_ms, close_idle_ms;  /* IDLE_WAIT_MS, CLOSE_IDLE_MS, or the test's */
};

/* Save the state as if everything before pos was handled; not logged. */
static int save_at(struct watcher *w, uint64_t pos)
{
	int rc;

	w->st.has_pos = w->has_pos;
	w->st.pos = pos;
	w->st.has_usec = w->has_usec;
	w->st.usec = w->usec;
	w->st.lost = w->k.lost;
	rc = cgfb_state_save(w->sd.fd, &w->st);
	if (rc == 0)
		w->dirty = false;
	return rc;
}

static int save(struct watcher *w)
{
	const int rc = save_at(w, cgfb_hold_floor(&w->hold, w->pos));

	/* Keep going: at worst a restart reads some records again. */
	if (rc < 0)
		cgfb_log(LOG_ERR, "saving state in %s: %s", w->o->state_dir, strerror(-rc));
	return rc;
}

/* Where the detections come from, for the report. */
static const char *source_name(const struct watcher *w)
{
	if (w->in_gap)
		return "journal";
	return w->k.use_klogctl ? "klogctl" : "kmsg";
}

/* The position of the record a detection was made in, or of the start of
 * its WARN block: read again from there, it comes with its block's
 * process, function and kernel file. */
static bool detection_pos(const struct cgfb_detection *d, uint64_t *at)
{
	if (d->in_warn_block && d->block_has_seq)
		*at = d->block_seq;
	else if (d->in_warn_block && d->block_has_usec)
		*at = d->block_usec;
	else if (d->has_seq)
		*at = d->seq;
	else if (d->has_usec)
		*at = d->usec;
	else
		return false;
	return true;
}

/* A random version 4 UUID, the form of a report id. */
static int new_report_id(char out[40])
{
	uint8_t u[16];

	if (getrandom(u, sizeof(u), 0) != (ssize_t)sizeof(u))
		return errno ? -errno : -EIO;
	u[6] = (uint8_t)((u[6] & 0x0f) | 0x40);
	u[8] = (uint8_t)((u[8] & 0x3f) | 0x80);
	snprintf(out, 40, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
		 u[13], u[14], u[15]);
	return 0;
}

/* The report of detection d, once across kills and full disks: its id is
 * chosen and saved with the position of its record before the writer
 * runs, so a watcher killed meanwhile gives the record the same id when it
 * reads it again, and the writer finds the report there if it got that
 * far. Returns 0 (written, or never will be: logged) or -EAGAIN. */
static int report_once(struct watcher *w, const struct cgfb_detection *d, char id[64])
{
	struct cgfb_state *st = &w->st;
	uint64_t at;
	int rc;

	if (!detection_pos(d, &at)) {
		/* A record without a position cannot be found again: one try. */
		cgfb_child_report(w->o, w->reporter, d, source_name(w), NULL, id);
		return 0;
	}
	if (!st->has_handoff || st->handoff_pos != at || strcmp(st->handoff_entry, d->entry->id)) {
		rc = new_report_id(st->handoff_id);
		if (rc < 0) {
			cgfb_log(LOG_ERR, "report for %s not written for now: getrandom: %s",
				 d->entry->id, strerror(-rc));
			return -EAGAIN;
		}
		snprintf(st->handoff_entry, sizeof(st->handoff_entry), "%s", d->entry->id);
		st->handoff_pos = at;
		st->has_handoff = true;
	}
	/* Not read past this record until its report is there. */
	rc = save_at(w, cgfb_hold_floor(&w->hold, at));
	if (rc < 0) {
		cgfb_log(LOG_ERR, "report for %s not written for now: saving state in %s: %s; "
			 "the watcher tries again later", d->entry->id, w->o->state_dir,
			 strerror(-rc));
		return -EAGAIN;
	}
	rc = cgfb_child_report(w->o, w->reporter, d, source_name(w), st->handoff_id, id);
	if (rc == -EAGAIN)
		return rc;
	st->has_handoff = false;
	cgfb_hold_written(&w->hold);
	return 0;
}

/* Detection d is not handled: the detector forgets this occurrence, so
 * that its record, read again, is new again, and the position saved stays
 * before it until then. */
static void hold(struct watcher *w, const struct cgfb_detection *d)
{
	struct timespec now;
	uint64_t at = 0;

	cgfb_detector_set_count(w->det, d->count_key, d->occurrence - 1);
	detection_pos(d, &at);
	clock_gettime(CLOCK_MONOTONIC, &now);
	cgfb_hold_add(&w->hold, at, &now);
	/* Quietly: the failure that led here was logged already. */
	save_at(w, cgfb_hold_floor(&w->hold, w->pos));
}

static void on_detection(const struct cgfb_detection *d, void *arg)
{
	struct watcher *w = arg;
	const char *id = d->entry->id;
	char report[64] = "";
	bool repeat;
	uint64_t at;

	/* Report, state, then output: killed in between, a restart writes the
	 * report under the id it reserved (so once), and never repeats what
	 * it printed. Once a record is held, nothing after it is handled
	 * before it (another detection of its WARN block, emitted with it):
	 * read again, the log replays exactly what happened. */
	if (w->hold.on && detection_pos(d, &at)) {
		hold(w, d);
		return;
	}
	if (d->occurrence == 1 && w->reporter[0] && report_once(w, d, report) == -EAGAIN) {
		hold(w, d);
		return;
	}
	/* "<id> repeat": counted on a report of an earlier boot, asked before;
	 * "<id> silenced": the administrator asked not to be told of this
	 * message (the writer checks; this process reads no spool). */
	repeat = strstr(report, " repeat") != NULL || strstr(report, " silenced") != NULL;
	report[strcspn(report, " ")] = '\0';
	if (cgfb_state_set_count(&w->st, d->count_key, d->occurrence) < 0)
		cgfb_log(LOG_WARNING, "state: too many distinct messages to remember %s",
			 d->count_key);
	/* A report is remembered at once; a repeat (counted, nothing written)
	 * with the end of its burst: a flood of repeats costs no fsync each,
	 * and the state saved never claims a record not handled. */
	if (d->occurrence == 1)
		save(w);
	else
		w->dirty = true;
	if (report[0] && !repeat && w->o->prompt && isatty(STDIN_FILENO))
		cgfb_child_review(w->o, report);
	if (d->occurrence == 1) {
		if (cgfb_detection_print(stdout, d, w->in_gap ? w->gap_name : NULL, w->o->json) < 0)
			w->rc = 2;
		fflush(stdout);
		cgfb_log(LOG_NOTICE, "detected %s: %s", id, d->entry->title);
		w->detected++;
	}
}

static void install_signals(sigset_t *stop)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* A report writer that dies before reading its detection must not
	 * take the watcher with it: the write fails with EPIPE instead. */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(stop);
	sigaddset(stop, SIGTERM);
	sigaddset(stop, SIGINT);
	sigaddset(stop, SIGHUP);
}

/* The stop signals are blocked from the last look at stop_requested until
 * ppoll() unblocks them atomically: one that arrives in between cannot be
 * missed by a wait without a timeout. */
static void idle_wait(struct watcher *w, int timeout_ms)
{
	sigset_t orig;

	sigprocmask(SIG_BLOCK, &w->stop, &orig);
	if (!stop_requested)
		cgfb_klog_wait(&w->k, timeout_ms, &orig);
	sigprocmask(SIG_SETMASK, &orig, NULL);
}

/* "journal:BOOT" with the boot id as the journal writes it (no dashes):
 * records from the journal are named as scan --journal names them. */
static void gap_name(struct watcher *w)
{
	char b[33];
	size_t k = 0;

	for (const char *p = w->boot; *p && k < 32; p++)
		if (*p != '-')
			b[k++] = *p;
	b[k] = '\0';
	snprintf(w->gap_name, sizeof(w->gap_name), "journal:%s", b);
}

static int setup(struct watcher *w)
{
	const struct cgfb_watch_opts *o = w->o;
	char boot[40], err[512];
	int rc;

	rc = cgfb_statedir_open(&w->sd, o->state_dir, CGFB_SD_CREATE, err, sizeof(err));
	if (rc < 0) {
		cgfb_log(LOG_ERR, "state directory %s: %s", o->state_dir, err);
		return rc;
	}
	w->lock_fd = cgfb_watch_lock(&w->sd, err, sizeof(err));
	if (w->lock_fd == -EBUSY) {
		cgfb_log(LOG_ERR, "%s; two would both answer every warning, so this one stops "
			 "(the installed service is stopped with systemctl stop cgroup-feedback; a "
			 "trial beside it takes a --state-dir of its own)", err);
		return -EBUSY;
	}
	/* A file system without flock on directories (NFS emulates it with
	 * byte-range locks, which want a file open for writing: flock(2),
	 * NOTES) keeps the watcher as it was before the lock: it runs,
	 * unguarded. */
	if (w->lock_fd < 0)
		cgfb_log(LOG_WARNING, "%s: a second watcher on it would not be refused", err);
	rc = cgfb_read_boot_id(o->boot_id_path ? o->boot_id_path : CGFB_BOOT_ID_PATH, boot,
			       sizeof(boot));
	if (rc < 0) {
		cgfb_log(LOG_ERR, "reading the boot id: %s", strerror(-rc));
		return rc;
	}
	rc = cgfb_state_load(w->sd.fd, &w->st);
	if (rc == -EBADMSG)
		cgfb_log(LOG_WARNING, "%s/%s was corrupt: moved aside, starting afresh",
			 o->state_dir, CGFB_STATE_FILE);
	else if (rc < 0)
		cgfb_log(LOG_WARNING, "%s/%s: %s: starting afresh", o->state_dir,
			 CGFB_STATE_FILE, strerror(-rc));
	if (strcmp(w->st.boot_id, boot) != 0) {
		/* A new boot: the kernel forgot its "once" flags, so do we. */
		memset(&w->st, 0, sizeof(w->st));
		snprintf(w->st.boot_id, sizeof(w->st.boot_id), "%s", boot);
	}
	rc = cgfb_klog_open(&w->k, o->kmsg_path, err, sizeof(err));
	if (rc < 0) {
		cgfb_log(LOG_ERR, "%s", err);
		return rc;
	}
	rc = cgfb_detector_new(o->cat, on_detection, w, &w->det);
	if (rc < 0)
		return rc;
	/* Without reports the detector is still worth running. */
	if (o->sources && cgfb_sibling_path(CGFB_REPORTER_NAME, w->reporter,
					     sizeof(w->reporter)) < 0) {
		w->reporter[0] = '\0';
		cgfb_log(LOG_WARNING, "%s not found: no reports will be written; detections "
			 "are still logged", CGFB_REPORTER_NAME);
	}
	/* A mistake in the configuration (an allowlist file missing, a bad
	 * line in it) stops the watcher before it reads a record: read, a
	 * boot's warnings would be handled without their reports. */
	if (w->reporter[0] && cgfb_child_check(w->o, w->reporter) != 0) {
		cgfb_log(LOG_ERR, "the configuration cannot be used (above); nothing was read. Fix "
			 "it and start again: the kernel log keeps the records");
		return -EINVAL;
	}
	if (w->reporter[0])
		cgfb_child_refresh_banner(w->o, w->reporter);
	for (unsigned i = 0; i < w->st.n_ids; i++)
		cgfb_detector_set_count(w->det, w->st.ids[i].id, w->st.ids[i].count);
	w->has_pos = w->st.has_pos;
	w->pos = w->st.pos;
	w->has_usec = w->st.has_usec;
	w->usec = w->st.usec;
	snprintf(w->boot, sizeof(w->boot), "%s", boot);
	gap_name(w);
	w->k.lost = w->st.lost;
	if (w->has_pos)
		cgfb_log(LOG_INFO, "reading %s after record %llu (state in %s)", w->k.path,
			 (unsigned long long)(w->pos ? w->pos - 1 : 0), o->state_dir);
	else
		cgfb_log(LOG_INFO, "reading %s from its oldest record (state in %s)", w->k.path,
			 o->state_dir);
	return 0;
}

/* Position of a record for resuming: kmsg sequence, or time for klogctl. */
static bool position(const struct cgfb_record *rec, uint64_t *pos)
{
	if (rec->has_seq)
		*pos = rec->seq;
	else if (rec->has_usec)
		*pos = rec->usec;
	else
		return false;
	return true;
}

/* A record of the journal, as the report writer hands it back: fed as
 * one of the live log's, without a position (it has none in the ring: it
 * is reported once, never held and read again). */
static void gap_line(const char *line, size_t len, void *arg)
{
	struct watcher *w = arg;
	struct cgfb_record rec;

	if (cgfb_kmsg_parse(line, len, w->gap_text, sizeof(w->gap_text), &rec) < 0 ||
	    !cgfb_record_from_kernel(&rec))
		return;
	rec.line = (unsigned long)rec.seq;
	rec.has_seq = rec.has_usec = false;
	w->records++;
	cgfb_detector_feed(w->det, &rec);
}

/* Records first to last (sequence numbers) were overwritten before they
 * were read: the journal may have them (journald reads /dev/kmsg too, from
 * boot on). Those whose kernel time lies between the records the watcher
 * did read are fed before the next one. */
static void fill_gap(struct watcher *w, uint64_t first, uint64_t last, uint64_t from_usec,
		     uint64_t to_usec, bool unwatched)
{
	int n = -1;

	if (w->reporter[0]) {
		w->in_gap = true;
		n = cgfb_child_journal_gap(w->o, w->reporter, w->boot, from_usec, to_usec,
					   gap_line, w);
		w->in_gap = false;
	}
	if (n >= 0)
		cgfb_log(LOG_NOTICE, "kernel log records %llu to %llu were overwritten %s; %d "
			 "kernel record%s of that time found in the journal and read",
			 (unsigned long long)first, (unsigned long long)last,
			 unwatched ? "while nobody watched" : "before they could be read", n,
			 n == 1 ? "" : "s");
	else
		cgfb_log(LOG_WARNING, "kernel log records %llu to %llu were overwritten %s and "
			 "are not in a journal; scan the saved logs (/var/log/kern.log*) for them",
			 (unsigned long long)first, (unsigned long long)last,
			 unwatched ? "while nobody watched" : "before they could be read");
}

/* A jump in sequence numbers before rec: at the start of a boot's first
 * reading (the ring lost its oldest records), after a restart, or in a
 * burst (EPIPE). */
static void look_for_gap(struct watcher *w, const struct cgfb_record *rec, uint64_t at,
			 bool first)
{
	/* A recording (--kmsg FILE) holds what was saved, often an excerpt:
	 * the records between two of its sequence numbers were never in it,
	 * not overwritten, and this boot's journal is not where they are. */
	if (!w->k.live || !rec->has_seq || !rec->has_usec)
		return;
	if (!w->has_pos && at > 0)
		fill_gap(w, 0, at - 1, 0, rec->usec, true);
	else if (w->has_pos && at > w->pos && w->has_usec)
		fill_gap(w, w->pos, at - 1, w->usec, rec->usec, first);
	else if (w->has_pos && at > w->pos)
		cgfb_log(LOG_WARNING, "kernel log records %llu to %llu were overwritten %s; scan "
			 "the saved logs (journalctl -k, /var/log/kern.log) for them",
			 (unsigned long long)w->pos, (unsigned long long)at - 1,
			 first ? "while nobody watched" : "before they could be read");
}

/* What the kernel never writes, said once a burst: sequence numbers read
 * again (a file or FIFO given as --kmsg; the records were not handled
 * twice) and lines longer than a record can be (skipped whole). */
static void say_odd_records(struct watcher *w, unsigned long *seen)
{
	const unsigned long n = w->k.backwards + w->k.overlong;

	if (n == *seen)
		return;
	cgfb_log(LOG_WARNING, "%s: %lu record%s with a sequence number already read and %lu "
		 "line%s longer than any record were skipped (no kernel writes them)", w->k.path,
		 w->k.backwards, w->k.backwards == 1 ? "" : "s", w->k.overlong,
		 w->k.overlong == 1 ? "" : "s");
	*seen = n;
}

static void feed(struct watcher *w, const struct cgfb_record *rec, bool *first)
{
	uint64_t at;
	const bool known = position(rec, &at);

	if (known && w->has_pos && at < w->pos)
		return;                              /* handled before a restart */
	if (known && !w->hold.on)
		look_for_gap(w, rec, at, *first);
	*first = false;
	if (known) {
		w->pos = at + 1;
		w->has_pos = true;
	}
	if (rec->has_usec) {
		w->usec = rec->usec;
		w->has_usec = true;
	}
	w->dirty = true;
	w->records++;
	clock_gettime(CLOCK_MONOTONIC, &w->last_record);
	cgfb_detector_feed(w->det, rec);
}

/* An open block or line that no record came to end for CLOSE_IDLE_MS:
 * its detections are handed out now. */
static void close_idle(struct watcher *w)
{
	struct timespec now;
	long ms;

	if (!cgfb_detector_holding(w->det))
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (now.tv_sec - w->last_record.tv_sec) * 1000 +
	     (now.tv_nsec - w->last_record.tv_nsec) / 1000000;
	if (ms >= w->close_idle_ms || w->o->once)
		cgfb_detector_finish(w->det);
}

/* The end of a burst: what matching grew is given back before the watcher
 * sleeps, for it sleeps most of its life (under 4 MiB resident: issue 29).
 * glibc's regexec keeps the DFA states it built inside each regex, some
 * hundreds of KiB for one catalog message matched, 7 MB once every entry
 * had matched; the regexes that ran are compiled afresh, and the heap
 * freed by that (and by handling the detections: the report writer's
 * pipe, the detection's JSON) is returned to the kernel, which free()
 * does not do for chunks below the top of the heap. Nothing ran: nothing
 * to do, so a burst of ordinary records costs no compiling. */
static void give_back_memory(struct watcher *w)
{
	const int n = cgfb_catalog_shrink(w->o->cat);

	if (n < 0)
		cgfb_log(LOG_WARNING, "compiling the catalog's regexes afresh: %s; they are kept "
			 "as they were", strerror(-n));
	if (n != 0)
		malloc_trim(0);
}

/* The end of the backlog: what was read and found, and what comes next. */
static void say_backlog(struct watcher *w)
{
	if (w->backlog_said)
		return;
	w->backlog_said = true;
	cgfb_log(LOG_INFO, "%s: %lu new record%s read, %s; %s", w->k.path, w->records,
		 w->records == 1 ? "" : "s",
		 w->detected ? "catalog messages detected (above)" : "no new catalog message",
		 w->o->once ? "done" : "following the kernel log");
}

/* Milliseconds until the next try of a held report, 0 when due. */
static int retry_wait_ms(const struct watcher *w)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return cgfb_hold_wait_ms(&w->hold, &now);
}

/* Until the held record is due (or a stop signal): the log is not looked
 * at meanwhile, so new records do not wake the watcher. */
static void sleep_until_retry(struct watcher *w)
{
	const int ms = retry_wait_ms(w);
	const struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	sigset_t orig;

	sigprocmask(SIG_BLOCK, &w->stop, &orig);
	if (!stop_requested && ms > 0)
		ppoll(NULL, 0, &ts, &orig);
	sigprocmask(SIG_SETMASK, &orig, NULL);
}

/* Read the log again from the first record whose report is missing. */
static int rewind_log(struct watcher *w, bool *first)
{
	const unsigned long lost = w->k.lost;
	char err[512];
	int rc;

	/* On the open descriptor: opening /dev/kmsg again would need the
	 * privilege given up. Only a FIFO (tests) is opened again. */
	rc = cgfb_klog_rewind(&w->k);
	if (rc == 0)
		goto rewound;
	if (rc != -ESPIPE) {
		cgfb_log(LOG_ERR, "reading %s again from its oldest record: %s", w->k.path,
			 strerror(-rc));
		return rc;
	}
	cgfb_klog_close(&w->k);
	rc = cgfb_klog_open(&w->k, w->o->kmsg_path, err, sizeof(err));
	if (rc < 0) {
		cgfb_log(LOG_ERR, "%s", err);
		return rc;
	}
rewound:
	w->k.lost = lost;
	w->pos = cgfb_hold_release(&w->hold);
	*first = true;
	return 0;
}

/* The source is open and readable: CAP_SYSLOG is not needed any more
 * (only klogctl, on kernels before 3.5, needs it for every read). */
static void give_up_privilege(struct watcher *w)
{
	const int rc = cgfb_drop_syslog();

	w->unprivileged = true;
	if (rc < 0)
		cgfb_log(LOG_WARNING, "giving up CAP_SYSLOG: %s; going on with it", strerror(-rc));
}

static int loop(struct watcher *w)
{
	struct cgfb_record rec;
	unsigned long lost_seen = w->k.lost, odd_seen = 0;
	bool first = true;

	while (!stop_requested) {
		/* A held record stops the reading: nothing after it is fed
		 * before it is (the detector's counts and WARN block at the
		 * retry are those of the held record). What the ring loses
		 * meanwhile the journal gives back (look_for_gap). */
		const int rc = w->hold.on ? 0 : cgfb_klog_next(&w->k, &rec);

		if (!w->unprivileged && w->k.settled && !w->k.use_klogctl)
			give_up_privilege(w);
		if (rc == 1) {
			feed(w, &rec, &first);
			continue;
		}
		if (rc < 0) {
			cgfb_log(LOG_ERR, "reading %s: %s", w->k.path, strerror(-rc));
			return rc;
		}
		if (w->k.lost != lost_seen) {
			cgfb_log(LOG_WARNING, "%lu kernel log records were overwritten before they "
				 "could be read", w->k.lost - lost_seen);
			lost_seen = w->k.lost;
		}
		say_odd_records(w, &odd_seen);
		if (!w->hold.on)
			close_idle(w);
		/* The end of a burst: the state is saved now, not on a tick. */
		if (w->dirty && !cgfb_detector_holding(w->det))
			save(w);
		give_back_memory(w);
		if (!w->hold.on)
			say_backlog(w);
		if (w->o->once) {
			/* The next run reads the held record again. */
			if (w->hold.on)
				w->rc = 2;
			break;
		}
		if (w->hold.on && retry_wait_ms(w) == 0) {
			const int r = rewind_log(w, &first);

			if (r < 0)
				return r;
			lost_seen = w->k.lost;
			continue;
		}
		/* At rest it sleeps until the kernel logs something. Only an open
		 * WARN block (its end may be lost) and sources that cannot be
		 * polled (klogctl before 3.5, a regular file in tests) look again
		 * after a while. */
		if (w->hold.on)
			sleep_until_retry(w);
		else
			idle_wait(w, cgfb_detector_holding(w->det) ? w->close_idle_ms :
				     !cgfb_klog_pollable(&w->k) ? w->idle_ms : -1);
	}
	return 0;
}

/* The waits of the loop: the defaults, or the test suite's (TEST_IDLE_ENV);
 * a value out of range is said and ignored. */
static void set_idle(struct watcher *w)
{
	const char *v = getenv(TEST_IDLE_ENV);
	char *end;
	long ms;

	w->idle_ms = IDLE_WAIT_MS;
	w->close_idle_ms = CLOSE_IDLE_MS;
	if (!v)
		return;
	errno = 0;
	ms = strtol(v, &end, 10);
	if (errno || end == v || *end || ms < 50 || ms > 2000) {
		cgfb_log(LOG_WARNING, "%s=%s ignored: not 50 to 2000 (ms)", TEST_IDLE_ENV, v);
		return;
	}
	w->idle_ms = w->close_idle_ms = (int)ms;
	cgfb_log(LOG_WARNING, "%s=%ld: idle waits of %ld ms (for tests only)", TEST_IDLE_ENV, ms,
		 ms);
}

int cgfb_watch(const struct cgfb_watch_opts *o)
{
	struct watcher *w = calloc(1, sizeof(*w));
	int rc;

	if (!w) {
		cgfb_log(LOG_ERR, "out of memory");
		return 2;
	}
	w->o = o;
	w->sd.fd = -1;
	w->lock_fd = -1;
	set_idle(w);
	install_signals(&w->stop);
	cgfb_children_stop_on(&stop_requested);
	rc = setup(w);
	if (rc == 0)
		rc = loop(w);
	if (w->det) {
		cgfb_detector_finish(w->det);
		if (rc == 0 && w->dirty)
			save(w);
	}
	cgfb_detector_free(w->det);
	cgfb_klog_close(&w->k);
	if (w->lock_fd >= 0)
		close(w->lock_fd);
	cgfb_statedir_close(&w->sd);
	rc = rc < 0 ? 2 : w->rc;
	free(w);
	return rc;
}
