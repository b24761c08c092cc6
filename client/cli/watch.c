#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgfb/atomic.h"
#include "cgfb/log.h"
#include "detect/detect.h"
#include "log/klog.h"
#include "cli/output.h"
#include "cli/state.h"
#include "consent/notify.h"
#include "cli/watch.h"

#define IDLE_WAIT_MS 2000

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

struct watcher {
	const struct cgfb_watch_opts *o;
	struct cgfb_state st;
	struct cgfb_klog k;
	struct cgfb_detector *det;
	struct cgfb_snapshot *snap;  /* NULL: reports are not written */
	uint64_t pos;              /* next position after the record being fed */
	bool has_pos;
	bool dirty;
	int rc;
};

static int save(struct watcher *w)
{
	int rc;

	w->st.has_pos = w->has_pos;
	w->st.pos = w->pos;
	w->st.lost = w->k.lost;
	rc = cgfb_state_save(w->o->state_dir, &w->st);
	if (rc < 0) {
		/* Keep going: at worst a restart reports something again. */
		cgfb_log(LOG_ERR, "saving state in %s: %s", w->o->state_dir, strerror(-rc));
		return rc;
	}
	w->dirty = false;
	return 0;
}

/* <state-dir>/reports/<id>.json for a new detection. Failing to write one
 * (a full disk, an unreadable mountinfo) is logged here and never stops
 * the watcher. */
/* The review of a new report, in the terminal the watcher runs in. A child
 * process of its own: whatever it sends, the watcher opened no socket. */
static void prompt_review(const struct watcher *w, const char *id)
{
	const char *argv[12];
	int n = 0, status;
	pid_t pid;

	argv[n++] = "cgroup-feedback";
	if (w->o->config_path) {
		argv[n++] = "--config";
		argv[n++] = w->o->config_path;
	}
	if (w->o->catalog_path) {
		argv[n++] = "--catalog";
		argv[n++] = w->o->catalog_path;
	}
	argv[n++] = "review";
	argv[n++] = "--state-dir";
	argv[n++] = w->o->state_dir;
	argv[n++] = id;
	argv[n] = NULL;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		execv("/proc/self/exe", (char *const *)argv);
		_exit(127);
	}
	if (pid < 0) {
		cgfb_log(LOG_ERR, "review of %s: fork: %s", id, strerror(errno));
		return;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

static void tell(struct watcher *w, const struct cgfb_detection *d, const char *id)
{
	if (w->o->config)
		cgfb_notify_new_report(w->o->config, NULL, w->o->cat, w->o->state_dir, id,
				       d->entry->id);
	if (w->o->prompt && isatty(STDIN_FILENO) && !cgfb_silenced(w->o->state_dir, d->entry->id))
		prompt_review(w, id);
}

static void write_report(struct watcher *w, const struct cgfb_detection *d)
{
	const char *source = w->k.use_klogctl ? "klogctl" : "kmsg";
	char id[CGFB_UUID_LEN + 1], err[512];
	struct cgfb_buf b = { 0 };
	int rc;

	rc = cgfb_snapshot_report(w->snap, d->entry, d, source, false, &b, id, err, sizeof(err));
	if (rc < 0) {
		cgfb_log(LOG_ERR, "report for %s not written: %s", d->entry->id, err);
		goto out;
	}
	rc = cgfb_snapshot_save(w->snap, id, &b);
	if (rc < 0)
		cgfb_log(LOG_ERR, "report for %s not written to %s/reports/%s.json: %s",
			 d->entry->id, w->o->state_dir, id, strerror(-rc));
	else
		tell(w, d, id);
out:
	cgfb_buf_free(&b);
}

static void on_detection(const struct cgfb_detection *d, void *arg)
{
	struct watcher *w = arg;
	const char *id = d->entry->id;

	if (cgfb_state_set_count(&w->st, id, d->occurrence) < 0)
		cgfb_log(LOG_WARNING, "state: too many distinct ids to remember %s", id);
	/* Report, state, then output: killed in between, a restart may write a
	 * second report but never loses one, and never repeats what it printed. */
	if (d->occurrence == 1 && w->snap)
		write_report(w, d);
	save(w);
	if (d->occurrence == 1) {
		if (cgfb_detection_print(stdout, d, NULL, w->o->json) < 0)
			w->rc = 2;
		fflush(stdout);
		cgfb_log(LOG_NOTICE, "detected %s: %s", id, d->entry->title);
	}
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	/* No SA_RESTART: poll() must return so that the state gets saved. */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static int setup(struct watcher *w)
{
	const struct cgfb_watch_opts *o = w->o;
	char boot[40], err[512];
	int rc;

	rc = cgfb_mkdir_p(o->state_dir, 0700);
	if (rc < 0) {
		cgfb_log(LOG_ERR, "state directory %s: %s", o->state_dir, strerror(-rc));
		return rc;
	}
	rc = cgfb_read_boot_id(o->boot_id_path ? o->boot_id_path : CGFB_BOOT_ID_PATH, boot,
			       sizeof(boot));
	if (rc < 0) {
		cgfb_log(LOG_ERR, "reading the boot id: %s", strerror(-rc));
		return rc;
	}
	rc = cgfb_state_load(o->state_dir, &w->st);
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
	if (o->snapshot && cgfb_snapshot_new(o->snapshot, &w->snap) < 0)
		cgfb_log(LOG_WARNING, "no reports will be written; detections are still logged");
	for (unsigned i = 0; i < w->st.n_ids; i++)
		cgfb_detector_set_count(w->det, w->st.ids[i].id, w->st.ids[i].count);
	w->has_pos = w->st.has_pos;
	w->pos = w->st.pos;
	w->k.lost = w->st.lost;
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

static void feed(struct watcher *w, const struct cgfb_record *rec, bool *first)
{
	uint64_t at;
	const bool known = position(rec, &at);

	if (known && w->has_pos && at < w->pos)
		return;                              /* handled before a restart */
	if (known && *first && w->st.has_pos && at > w->pos && rec->has_seq)
		cgfb_log(LOG_WARNING,
			 "kernel log records %llu to %llu were overwritten while nobody watched; "
			 "scan the saved logs (journalctl -k, /var/log/kern.log) for them",
			 (unsigned long long)w->pos, (unsigned long long)at - 1);
	*first = false;
	if (known) {
		w->pos = at + 1;
		w->has_pos = true;
	}
	w->dirty = true;
	cgfb_detector_feed(w->det, rec);
}

static int loop(struct watcher *w)
{
	struct cgfb_record rec;
	unsigned long lost_seen = w->k.lost;
	bool first = true;

	while (!stop_requested) {
		const int rc = cgfb_klog_next(&w->k, &rec);

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
		if (w->dirty && !cgfb_detector_in_block(w->det))
			save(w);
		if (w->o->once)
			break;
		cgfb_klog_wait(&w->k, IDLE_WAIT_MS);
	}
	return 0;
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
	install_signals();
	rc = setup(w);
	if (rc == 0)
		rc = loop(w);
	if (w->det) {
		cgfb_detector_finish(w->det);
		if (rc == 0 && w->dirty)
			save(w);
	}
	cgfb_detector_free(w->det);
	cgfb_snapshot_free(w->snap);
	cgfb_klog_close(&w->k);
	rc = rc < 0 ? 2 : w->rc;
	free(w);
	return rc;
}
