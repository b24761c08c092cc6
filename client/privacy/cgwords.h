/* The words of the cgroup and systemd vocabulary that look like host
 * names or addresses to a scan of free text: knobs ("memory.high"),
 * unit names ("system.slice", "user@1000.service"), controller and
 * hierarchy names. They name no one; a scan that flags them trains people
 * to click through its findings. */
#ifndef CGFB_CGWORDS_H
#define CGFB_CGWORDS_H

#include <stdbool.h>
#include <stddef.h>

/* "memory.high", "cgroup.procs", "cpu.cfs_quota_us": a controller's or the
 * core's prefix, a dot, the rest. */
bool cgfb_knob_shaped(const char *s, size_t n);

/* The length of the systemd unit suffix s ends with (".slice", ".scope",
 * ".service", ".socket", ".mount", ".target", ".swap", ".timer", ".path",
 * ".device"), case-insensitive; 0 when none. */
size_t cgfb_unit_suffix(const char *s, size_t n);

/* A unit name: one name without a dot, then a unit suffix ("system.slice",
 * "session-3.scope", "getty@tty1.service"). "db1.acme.service" is not. */
bool cgfb_unit_shaped(const char *s, size_t n);

/* A directory the cgroup mounts make: a controller ("memory"), a list of
 * them ("cpu,cpuacct"), a named or the unified hierarchy ("systemd",
 * "unified"). */
bool cgfb_hierarchy_name(const char *s, size_t n);

#endif
