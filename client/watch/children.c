/* The watcher's children (children.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cmdline.h"
#include "base/exec.h"
#include "base/hint.h"
#include "cgfb/atomic.h"
#include "cgfb/buf.h"
#include "cgfb/log.h"
#include "detect/handoff.h"
#include "watch/children.h"

static volatile sig_atomic_t *stopping;

void cgfb_children_stop_on(volatile sig_atomic_t *flag)
{
	stopping = flag;
}

/* A stop signal came while waiting for a child: it is asked to end and
 * not waited for (what it was doing is done again after a restart). */
static bool stop_now(pid_t pid)
{
	if (!stopping || !*stopping)
		return false;
	kill(pid, SIGTERM);
	return true;
}

/* The review of a new report, in the terminal the watcher runs in. A child
 * process of its own: whatever it sends, the watcher opened no socket.
 * Unlike the report writer it outlives a killed watcher: the questions are
 * the administrator's, and review writes no report, only its consent,
 * each step whole, as when run by hand beside a watcher. */
void cgfb_child_review(const struct cgfb_watch_opts *o, const char *id)
{
	const char *argv[12], *cli = getenv("CGFB_CLI");
	char path[PATH_MAX];
	int n = 0, status;
	pid_t pid;

	/* The command that started this watcher, or the installed one: the
	 * watcher itself cannot review (it links no delivery code). */
	if (!cli || !*cli) {
		if (cgfb_sibling_path(CGFB_CLI_NAME, path, sizeof(path)) < 0) {
			cgfb_log(LOG_ERR, "review of %s: %s not found", id, CGFB_CLI_NAME);
			return;
		}
		cli = path;
	}
	argv[n++] = CGFB_CLI_NAME;
	if (o->config_path) {
		argv[n++] = "--config";
		argv[n++] = o->config_path;
	}
	if (o->catalog_path) {
		argv[n++] = "--catalog";
		argv[n++] = o->catalog_path;
	}
	argv[n++] = "review";
	argv[n++] = "--state-dir";
	argv[n++] = o->state_dir;
	argv[n++] = id;
	argv[n] = NULL;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		execv(cli, (char *const *)argv);
		_exit(127);
	}
	if (pid < 0) {
		cgfb_log(LOG_ERR, "review of %s: fork: %s", id, strerror(errno));
		return;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

/* argv of the report writer: where the snapshot comes from, and the
 * configuration and catalog this watcher runs with. */
static int reporter_argv(const struct cgfb_watch_opts *o, const char *path,
			 const char *report_id, const char *argv[24])
{
	/* Only the paths of the snapshot's sources: what they hold is read by
	 * the writer, which has the code for it. */
	const struct cgfb_watch_sources *s = o->sources;
	int n = 0;

	argv[n++] = path;
	argv[n++] = "--state-dir";
	argv[n++] = o->state_dir;
#define OPT(flag, value) if (value) { argv[n++] = flag; argv[n++] = value; }
	OPT("--config", o->config_path);
	OPT("--catalog", o->catalog_path);
	OPT("--cgroup-root", s->cgroup_root);
	OPT("--mountinfo", s->mountinfo);
	OPT("--os-release", s->os_release);
	OPT("--cmdline", s->cmdline);
	OPT("--report-id", report_id);
	/* A boot counts once on a repeated report (report/repeat.h). */
	OPT("--boot-id-file", o->boot_id_path);
#undef OPT
	argv[n] = NULL;
	return n;
}

/* What the report writer's end says: written (and its id printed), not
 * for now (it said so, or was killed), or never (it logged why). */
static int writer_status(const char *reporter, const struct cgfb_detection *d, int status,
			 const char *id)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		cgfb_log(LOG_ERR, "report for %s not written: %s did not run", d->entry->id,
			 reporter);
		return -EIO;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) != 0 &&
	    WEXITSTATUS(status) != CGFB_EXIT_TEMPFAIL)
		return -EIO;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && id[0])
		return 0;
	/* An id reserved for the record makes trying again safe: a report
	 * that was written after all is found, not written twice. */
	cgfb_log(LOG_ERR, "report for %s not written for now (%s); the watcher tries again "
		 "later", d->entry->id, WIFSIGNALED(status) ? "its writer was killed" :
		 "see the error above");
	return -EAGAIN;
}

/* A new detection's report, by cgroup-feedback-report in a child process
 * that holds no capability: it links the snapshot, the crypto and the
 * schema that this process never maps. Its id (made from report_id when
 * not NULL: the writer binds it to the report's deletion token, the same
 * id for the same report_id) lands in id, "" if none. Returns 0, -EAGAIN when it may work later (a
 * full disk, a writer killed), or -EIO when it will not. */
int cgfb_child_report(const struct cgfb_watch_opts *o, const char *reporter,
		      const struct cgfb_detection *d, const char *source, const char *report_id,
		      char id[64])
{
	const char *argv[24];
	struct cgfb_buf msg = { 0 };
	int rc, status = 0;

	id[0] = '\0';
	rc = cgfb_handoff_encode(d, source, &msg);
	if (rc == 0) {
		reporter_argv(o, reporter, report_id, argv);
		rc = cgfb_run_filter(reporter, argv, msg.data, msg.len, id, 64, &status, stop_now);
	}
	if (rc == -EINTR) {
		cgfb_log(LOG_NOTICE, "report for %s not written: stopping (the next start writes it)",
			 d->entry->id);
		rc = -EAGAIN;
	} else if (rc < 0) {
		cgfb_log(LOG_ERR, "report for %s not written: %s", d->entry->id, strerror(-rc));
		rc = -EAGAIN;
	} else {
		id[strcspn(id, "\n")] = '\0';
		rc = writer_status(reporter, d, status, id);
	}
	cgfb_buf_free(&msg);
	return rc;
}

/* The report writer in one of its modes of its own (--check,
 * --refresh-banner), nothing on its standard input or output and without
 * the watcher's capability: its exit status, or -errno. */
static int run_reporter(const struct cgfb_watch_opts *o, const char *reporter, const char *mode)
{
	const char *argv[24];
	int n, status = 0;
	pid_t pid, parent;

	n = reporter_argv(o, reporter, NULL, argv);
	argv[n++] = mode;
	argv[n] = NULL;
	fflush(NULL);
	parent = getpid();
	pid = fork();
	if (pid == 0) {
		const int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
		cgfb_die_with_parent(parent);
		if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0)
			_exit(127);
		execv(reporter, (char *const *)argv);
		_exit(127);
	}
	if (pid < 0)
		return -errno;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -EIO;
}

/* The report writer's --check: 0 when the configuration and what it names
 * can be used, else its exit status (it said why), or -errno. */
int cgfb_child_check(const struct cgfb_watch_opts *o, const char *reporter)
{
	return run_reporter(o, reporter, "--check");
}

/* /run was emptied by a reboot, or the banner is stale: the report writer
 * makes it say what the spool says now (cgroup-feedback-report
 * --refresh-banner, which knows whether the configuration wants a banner).
 * Failures are logged there and do not stop the watcher. */
void cgfb_child_refresh_banner(const struct cgfb_watch_opts *o, const char *reporter)
{
	const int rc = run_reporter(o, reporter, "--refresh-banner");

	/* Only what the writer could not say itself: that it never ran. */
	if (rc < 0 && rc != -EIO)
		cgfb_log(LOG_WARNING, "login banner not refreshed: fork: %s", strerror(-rc));
}

/* The records come back on a pipe, a line each; the writer's end status
 * says whether the lookup worked. */
int cgfb_child_journal_gap(const struct cgfb_watch_opts *o, const char *reporter,
			   const char *boot, uint64_t from_usec, uint64_t to_usec,
			   void (*fn)(const char *line, size_t len, void *arg), void *arg)
{
	const char *argv[8];
	char spec[96], *line = NULL;
	size_t cap = 0;
	int out[2], n = 0, status = 0, count = 0;
	ssize_t len;
	FILE *f;
	pid_t pid, parent;

	snprintf(spec, sizeof(spec), "%s:%" PRIu64 ":%" PRIu64, boot, from_usec, to_usec);
	argv[n++] = reporter;
	argv[n++] = "--journal-gap";
	argv[n++] = spec;
	if (o->journal_dir) {
		argv[n++] = "--journal-dir";
		argv[n++] = o->journal_dir;
	}
	argv[n] = NULL;
	if (pipe2(out, O_CLOEXEC) < 0)
		return -errno;
	fflush(NULL);
	parent = getpid();
	pid = fork();
	if (pid == 0) {
		prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
		cgfb_die_with_parent(parent);
		if (dup2(out[1], STDOUT_FILENO) < 0)
			_exit(127);
		execv(reporter, (char *const *)argv);
		_exit(127);
	}
	close(out[1]);
	if (pid < 0) {
		close(out[0]);
		return -errno;
	}
	f = fdopen(out[0], "r");
	while (f && (len = getline(&line, &cap, f)) > 0) {
		fn(line, (size_t)len - (line[len - 1] == '\n'), arg);
		count++;
	}
	free(line);
	if (f)
		fclose(f);
	else
		close(out[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? count : -EIO;
}
