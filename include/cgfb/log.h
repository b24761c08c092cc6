/* Diagnostics on stderr. Under systemd (JOURNAL_STREAM set) each line gets a
 * sd-daemon "<N>" priority prefix so the journal keeps the level. */
#ifndef CGFB_LOG_H
#define CGFB_LOG_H

#include <syslog.h>

void cgfb_log_init(const char *progname);
void cgfb_log(int priority, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
