/* The programs of the client: cgroup-feedback, which an administrator runs;
 * the commands of it that decide about and send reports, a program of
 * their own that it starts (the only one linking libcurl and ICU); the
 * long-running watcher, which reads the kernel log with CAP_SYSLOG and
 * links no network library at all; and the report writer it starts for
 * each new detection. Each starts the next by path, never through $PATH. */
#ifndef CGFB_EXEC_H
#define CGFB_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/hint.h"

#define CGFB_WATCHER_NAME  "cgroup-feedback-watch"
/* Takes the snapshot and writes the report of one detection, without
 * CAP_SYSLOG, so that the reader of the kernel log maps no crypto, udev or
 * schema code either and stays small at rest. */
#define CGFB_REPORTER_NAME "cgroup-feedback-report"
/* review, submit, decline, reopen, withdraw, flush and export: the commands
 * that read free text (ICU, for the secret scan) or send (libcurl), so that
 * scan, check, status and catalog map neither (docs/ARCHITECTURE.md). */
#define CGFB_SENDER_NAME   "cgroup-feedback-send"

/* Where the other program is: next to this one (the build tree), or where
 * it is installed (LIBEXECDIR for the watcher, BINDIR for the command).
 * 0 and the path in out, or -ENOENT. */
int cgfb_sibling_path(const char *name, char *out, size_t outsz);

/* In a child just forked by parent (its getpid() before the fork): the
 * child is killed when its parent dies. A report writer works for the
 * watcher (or scan, check) that started it alone: left running by a
 * killed watcher it would work for nobody, beside the next watcher's
 * writer; what it was doing is done again by the next watcher, as after
 * any kill. _exit(127) when the parent is already gone. */
void cgfb_die_with_parent(pid_t parent);

/* Run path with argv, in on its standard input and its standard output
 * (up to outsz - 1 bytes, NUL-terminated) into out; without ambient
 * capabilities (the watcher's CAP_SYSLOG stays with the reader), killed
 * if this process dies (cgfb_die_with_parent). stop, when not NULL, is
 * asked whenever a wait is interrupted by a signal: true stops waiting for
 * the child (stop asked it to end; it is killed when this process ends)
 * and returns -EINTR. 0 and the wait status in *status, or a negative
 * errno. */
int cgfb_run_filter(const char *path, const char *const *argv, const char *in, size_t inlen,
		    char *out, size_t outsz, int *status, bool (*stop)(pid_t pid));
/* Make the hints (base/hint.h) name the command line program as it runs:
 * "cgroup-feedback" when it is the installed one in BINDIR, else its
 * absolute path (a build tree), so that a pasted hint runs the same
 * program. self: this process is that program; else (the watcher, the
 * report writer) it is the one beside this process (cgfb_sibling_path). */
void cgfb_hint_name_cli(bool self);
/* The same for the program at path, which started this one (the sender's
 * --cli): its hints name the program the administrator ran, as that
 * program's own would. NULL or a relative path: as cgfb_hint_name_cli(false). */
void cgfb_hint_name_cli_as(const char *path);

/* `cgroup-feedback watch ...`: exec the watcher with the global options
 * (--config, --catalog, --state-dir; each may be NULL) and the command's
 * own, which come later and so win. Returns only on failure, having said
 * why. */
int cgfb_exec_watcher(const char *config_path, const char *catalog_path,
		      const char *state_dir, int argc, char **argv);

/* `cgroup-feedback review ...` and the other commands of CGFB_SENDER_NAME:
 * exec it with --cli (this program's path), the global options and argv
 * from the command's name on. Returns only on failure, having said why. */
int cgfb_exec_sender(const char *config_path, const char *catalog_path,
		     const char *state_dir, int argc, char **argv);

#endif
