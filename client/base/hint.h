/* The commands the program prints for a person to paste (the watcher's log
 * line, the login banner, status, the post-send hint): every one names the
 * state directory when it is not the default, so that it works as printed. */
#ifndef CGFB_HINT_H
#define CGFB_HINT_H

#include <stdbool.h>
#include <stddef.h>

#define CGFB_CLI_NAME          "cgroup-feedback"
#define CGFB_DEFAULT_STATE_DIR "/var/lib/cgroup-feedback"

/* The command line program calls this once: run as root through sudo, its
 * hints start with "sudo " so that the person who typed sudo can paste them
 * (as themselves, without sudo, they would be refused the spool). The
 * banner and the wall use cgfb_sudo_hint. */
void cgfb_hint_use_sudo(bool on);

/* "[sudo ]cgroup-feedback [--state-dir DIR] " then fmt, into buf (truncated to
 * bufsz); returns buf. DIR only when it is not the default, as one shell
 * word (single-quoted when it holds anything but safe bytes). */
const char *cgfb_hint(char *buf, size_t bufsz, const char *state_dir, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The same, always with "sudo " first (once): for the banner and the wall,
 * which speak to administrators logged in as themselves. */
const char *cgfb_sudo_hint(char *buf, size_t bufsz, const char *state_dir, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
