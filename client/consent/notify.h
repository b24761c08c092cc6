/* Telling the administrator that the kernel asked for feedback, on a
 * headless server first: a log line (journal), a login banner, a message on
 * the terminals of logged-in administrators, an optional command. */
#ifndef CGFB_NOTIFY_H
#define CGFB_NOTIFY_H

#include "cgfb/catalog.h"
#include "config/config.h"
#include "report/spool.h"

struct cgfb_notify_paths {
	const char *utmp;        /* NULL: the system's */
	const char *dev_dir;     /* where ut_line lives; NULL: /dev */
};

/* A new report was written: every channel the config enables. Failures are
 * logged, never fatal: a missing banner must not stop the watcher.
 * by_check: the finding came from cgroup-feedback check (the kernel
 * printed nothing), and the log line and the wall say so. */
void cgfb_notify_new_report(const struct cgfb_config *c, const struct cgfb_notify_paths *p,
			    const struct cgfb_catalog *cat, const struct cgfb_statedir *sd,
			    const char *report_id, const char *catalog_id, bool by_check);

/* The same, with the pending reports already known (the report writer
 * keeps them, report/spool.h): the banner is written from them, without
 * listing the spool. When pending is not known, it is listed and pending
 * filled, for the writer to keep. */
void cgfb_notify_new_report_with(const struct cgfb_config *c, const struct cgfb_notify_paths *p,
				 const struct cgfb_catalog *cat, const struct cgfb_statedir *sd,
				 const char *report_id, const char *catalog_id, bool by_check,
				 struct cgfb_pending *pending);

/* What a wall did: the terminals of logged-in administrators, and of
 * those the ones written to whole, the ones whose owner refused messages
 * (mesg n, or the terminal not writable by us), and the rest. */
struct cgfb_wall_count {
	unsigned terminals, reached, refused, failed;
	int first_errno;          /* why the first of the failed failed */
};

/* msg to every terminal of a logged-in member of the admin group, without
 * blocking. 0 and the counts, or -ENOENT (no such group), -errno (utmp). */
int cgfb_wall_admins(const struct cgfb_config *c, const struct cgfb_notify_paths *p,
		     const char *msg, struct cgfb_wall_count *n);

/* The banner's mode: readable by everyone who logs in (see notify.c). */
#define CGFB_BANNER_MODE 0644

/* Rewrite the login banner from the spool: the pending reports, or no file
 * at all once nothing is pending. The watcher calls it at its start, so a
 * reboot (an empty /run) brings the banner back while reports wait. */
int cgfb_notify_refresh_motd(const struct cgfb_config *c, const struct cgfb_statedir *sd);
/* The banner from p, listed from the spool first when p is not known.
 * Never written for a spool other than the system's when login shows it
 * (pam_motd's files and directories, or a link there names it). */
int cgfb_notify_motd(const struct cgfb_config *c, const struct cgfb_statedir *sd,
		     struct cgfb_pending *p);

/* Tests: the files and directories login shows banners from, instead of
 * pam_motd's (NULL: those again). */
void cgfb_notify_set_login_paths(const char *const *paths);

/* Ids the administrator asked never to be asked about again. */
int cgfb_silence_add(const struct cgfb_statedir *sd, const char *catalog_id);
/* Ask about catalog_id again: 1 when it was silenced, 0 when it was not,
 * or a negative errno. */
int cgfb_silence_remove(const struct cgfb_statedir *sd, const char *catalog_id);
bool cgfb_silenced(const struct cgfb_statedir *sd, const char *catalog_id);
/* The silenced ids, space-separated, into out ("" for none). */
int cgfb_silenced_ids(const struct cgfb_statedir *sd, char *out, size_t sz);

#endif
