/* The watcher's one privilege, CAP_SYSLOG, is needed to open /dev/kmsg (or
 * to read through klogctl on kernels before 3.5), not to read from an open
 * descriptor nor to seek on it. Once the source is settled the watcher
 * gives it up, as OpenBSD's daemons pledge once they hold what they need. */
#ifndef CGFB_PRIVILEGE_H
#define CGFB_PRIVILEGE_H

/* Clear CAP_SYSLOG from this process's effective, permitted and
 * inheritable sets (the ambient set follows the permitted one), and from
 * its bounding set where it may (that needs CAP_SETPCAP, which the unit
 * does not give: there the cleared permitted set and NoNewPrivileges= keep
 * it from coming back). 0 or -errno. */
int cgfb_drop_syslog(void);

#endif
