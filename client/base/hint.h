/* The commands the program prints for a person to paste (the watcher's log
 * line, the login banner, status, the post-send hint): every one names the
 * program that printed it (its path when it is not the installed one), the
 * configuration and the state directory when they are not the defaults, so
 * that it works as printed. */
#ifndef CGFB_HINT_H
#define CGFB_HINT_H

#include <stdbool.h>
#include <stddef.h>

#define CGFB_CLI_NAME          "cgroup-feedback"
#define CGFB_DEFAULT_STATE_DIR "/var/lib/cgroup-feedback"
#define CGFB_DEFAULT_CONFIG    "/etc/cgroup-feedback/cgroup-feedback.conf"
/* Room for a hint: the program's path, the configuration's and the state
 * directory's, quoted; a truncated hint would not work when pasted. */
#define CGFB_HINT_MAX 2048

/* The command line program calls this once: run as root through sudo, its
 * hints start with "sudo " so that the person who typed sudo can paste them
 * (as themselves, without sudo, they would be refused the spool). The
 * banner and the wall use cgfb_sudo_hint. */
void cgfb_hint_use_sudo(bool on);

/* The program the hints name: NULL for CGFB_CLI_NAME (the installed one,
 * found through $PATH), else its path, absolute so that it runs from any
 * directory (a build tree's). base/exec.h's cgfb_hint_name_cli decides. */
void cgfb_hint_use_program(const char *path);

/* The configuration the program runs with (--config, $CGFB_CONFIG): NULL
 * or the default for none; a relative path is made absolute against the
 * working directory, since the hint is pasted elsewhere. */
void cgfb_hint_use_config(const char *path);

/* "[sudo ]PROGRAM [--config FILE] [--state-dir DIR] " then fmt, into buf
 * (truncated to bufsz); returns buf. PROGRAM, FILE and DIR as set above and
 * given, each as one shell word (single-quoted when it holds anything but
 * safe bytes); DIR only when it is not the default. */
const char *cgfb_hint(char *buf, size_t bufsz, const char *state_dir, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The same, always with "sudo " first (once): for the banner and the wall,
 * which speak to administrators logged in as themselves. */
const char *cgfb_sudo_hint(char *buf, size_t bufsz, const char *state_dir, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
