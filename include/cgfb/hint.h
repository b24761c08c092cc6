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
 * watcher's own hints (journal, banner, wall) say sudo where they need it. */
void cgfb_hint_use_sudo(bool on);

/* "[sudo ]cgroup-feedback [--state-dir DIR] " then fmt, into buf (truncated to
 * bufsz); returns buf. DIR only when it is not the default, as one shell
 * word (single-quoted when it holds anything but safe bytes). */
const char *cgfb_hint(char *buf, size_t bufsz, const char *state_dir, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
