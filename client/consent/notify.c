#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utmpx.h>

#include "base/statedir.h"
#include "base/path.h"
#include "cgfb/atomic.h"
#include "cgfb/buf.h"
#include "base/hint.h"
#include "cgfb/log.h"
#include "cgfb/readfile.h"
#include "consent/destination.h"
#include "consent/notify.h"
#include "cgfb/wrap.h"
#include "report/repindex.h"

extern char **environ;

#define GROUPS_MAX 256

static int dir_and_name(const char *path, char *dir, size_t dsz, const char **name)
{
	const char *slash = strrchr(path, '/');

	if (!slash || slash == path || (size_t)(slash - path) >= dsz)
		return -EINVAL;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	*name = slash + 1;
	return 0;
}

static void banner_text(struct cgfb_buf *b, const struct cgfb_config *c,
			const struct cgfb_pending *p, const char *state_dir)
{
	char hint[CGFB_HINT_MAX];
	struct cgfb_buf where = { 0 };

	cgfb_buf_printf(b, "cgroup-feedback: the kernel asked for your use case %zu time%s:", p->count,
			p->count == 1 ? "" : "s");
	for (size_t i = 0; i < p->named; i++)
		cgfb_buf_printf(b, " %s", p->oldest[i].catalog_id);
	if (p->count > p->named)
		cgfb_buf_printf(b, " and %zu more", p->count - p->named);
	cgfb_buf_printf(b, "\n  Review what would be sent (nothing leaves without your yes):\n"
			"    %s\n", cgfb_sudo_hint(hint, sizeof(hint), state_dir, "review"));
	/* Where that yes goes, before it is given (consent/destination.h). */
	if (cgfb_buf_adds(&where, "Where a yes goes: ") == 0 &&
	    cgfb_destination_say(&where, c, NULL) == 0)
		cgfb_wrap(b, "  ", where.data, 76);
	cgfb_buf_free(&where);
}

/* The pending reports, listed; and kept for the next report writer,
 * which then need not list them (report/repindex.h, the pending cache):
 * reports/ is marked before the listing, so that a change during it or
 * after makes the cache stale. A cache that cannot be kept costs only
 * time. */
static int list_pending(const struct cgfb_statedir *sd, struct cgfb_pending *p)
{
	struct cgfb_spool sp = { .fd = -1 };
	struct stat mark;
	int rc = cgfb_spool_open_existing(&sp, sd);
	const bool marked = rc == 0 && sp.fd >= 0 && cgfb_reports_mark(&sp, &mark) == 0;

	if (rc == 0)
		rc = cgfb_pending_list(&sp, p);
	if (rc == 0 && marked)
		cgfb_pending_cache_save(sd, &mark, p);
	cgfb_spool_close(&sp);
	return rc;
}

/* Where login shows banners: pam_motd(8)'s default motd= files and
 * motd_dir= directories. */
static const char *const login_paths_default[] = {
	"/etc/motd", "/run/motd", "/usr/lib/motd", "/etc/motd.d", "/run/motd.d", "/usr/lib/motd.d",
	NULL,
};
static const char *const *login_paths = login_paths_default;

void cgfb_notify_set_login_paths(const char *const *paths)
{
	login_paths = paths ? paths : login_paths_default;
}

/* path with its directory resolved; the file itself may be missing (the
 * banner is removed while nothing is pending, and a link to it dangles).
 * A directory that does not exist is taken as written. */
static bool resolve(const char *path, char out[PATH_MAX])
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *name;

	if (dir_and_name(path, dir, sizeof(dir), &name) < 0)
		return false;
	if (!realpath(dir, real))
		snprintf(real, sizeof(real), "%s", dir);
	return snprintf(out, PATH_MAX, "%s/%s", strcmp(real, "/") ? real : "", name) < PATH_MAX;
}

/* Whether a link among the entries of directory d names want. */
static bool linked_from(const char *d, const char *want)
{
	DIR *dir = opendir(d);
	struct dirent *e;
	bool found = false;

	while (dir && !found && (e = readdir(dir))) {
		char link[PATH_MAX], target[PATH_MAX], to[2 * PATH_MAX], r[PATH_MAX];
		ssize_t n;

		if (snprintf(link, sizeof(link), "%s/%s", d, e->d_name) >= (int)sizeof(link) ||
		    (n = readlink(link, target, sizeof(target) - 1)) <= 0)
			continue;
		target[n] = '\0';
		snprintf(to, sizeof(to), "%s%s%s", target[0] == '/' ? "" : d,
			 target[0] == '/' ? "" : "/", target);
		found = resolve(to, r) && strcmp(r, want) == 0;
	}
	if (dir)
		closedir(dir);
	return found;
}

/* Whether login shows the file at path: one of pam_motd's files, a file
 * in one of its directories, or the file a link there names (the
 * packaged banner, /run/cgroup-feedback/motd, is shown through
 * /run/motd.d/cgroup-feedback.motd). */
static bool login_shows(const char *path)
{
	char want[PATH_MAX], r[PATH_MAX + 2];

	if (!resolve(path, want))
		return false;
	for (const char *const *p = login_paths; *p; p++) {
		char real[PATH_MAX];
		struct stat st;

		if (resolve(*p, r) && strcmp(r, want) == 0)
			return true;
		if (stat(*p, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		if (!realpath(*p, real))
			snprintf(real, sizeof(real), "%s", *p);
		snprintf(r, sizeof(r), "%s/", real);
		if (strncmp(want, r, strlen(r)) == 0 && !strchr(want + strlen(r), '/'))
			return true;
		if (linked_from(*p, want))
			return true;
	}
	return false;
}

/* Whether sd is the system's spool, the state directory the packaged
 * service keeps (by its path, or as the same directory under another). */
static bool system_spool(const struct cgfb_statedir *sd)
{
	struct stat a, b;

	if (strcmp(sd->path, CGFB_DEFAULT_STATE_DIR) == 0)
		return true;
	return sd->fd >= 0 && fstat(sd->fd, &a) == 0 && stat(CGFB_DEFAULT_STATE_DIR, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int cgfb_notify_motd(const struct cgfb_config *c, const struct cgfb_statedir *sd,
		     struct cgfb_pending *p)
{
	struct cgfb_buf b = { 0 };
	char dir[4096];
	const char *name;
	int dfd = -1, rc = 0;

	if (!c->motd_path[0] || dir_and_name(c->motd_path, dir, sizeof(dir), &name) < 0)
		return 0;
	/* A banner login shows is the system's and tells of the system's
	 * spool: a program run on another state directory (a trial, a copy,
	 * an experiment, a test) leaves it alone, whatever the configuration
	 * names (the packaged one names the system's banner, which a scratch
	 * --state-dir run on an installed machine rewrote: issue 38). Another
	 * file, as make run's and the suite's configurations name, is written
	 * for any spool. */
	if (!system_spool(sd) && login_shows(c->motd_path))
		return 0;
	/* One report in memory at a time: the spool may hold 100,000. */
	if (!p->known) {
		rc = list_pending(sd, p);
		if (rc < 0)
			return rc;
	}
	/* /run/motd.d is read by pam_motd at login; made if needed. The
	 * directory is reached from "/" by descriptors and the banner
	 * written in it by O_EXCL temporary + rename (lib/atomic.c): a
	 * directory on the way that another user owns (a motd-path under
	 * their home) can be swapped for a link while root writes, and no
	 * such link is followed. 0755 and 0644 whatever the umask: pam_motd
	 * reads motd files with the privileges of the user logging in, and
	 * the banner holds only a count, catalog ids, the command to run and
	 * where a yes goes (the configured collector, or the e-mail),
	 * nothing of the reports themselves. */
	dfd = cgfb_open_dir_path(dir, 0755, p->count ? CGFB_DIR_CREATE : 0);
	if (dfd < 0) {
		rc = dfd == -ENOENT && !p->count ? 0 : dfd;
		goto out;
	}
	if (p->count == 0) {
		rc = unlinkat(dfd, name, 0) < 0 && errno != ENOENT ? -errno : 0;
		goto out;
	}
	banner_text(&b, c, p, sd->path);
	rc = cgfb_atomic_write_at(dfd, name, b.data, b.len, CGFB_BANNER_MODE);
out:
	if (rc < 0)
		cgfb_log(LOG_WARNING, "login banner %s: %s", c->motd_path, strerror(-rc));
	if (dfd >= 0)
		close(dfd);
	cgfb_buf_free(&b);
	return rc;
}

int cgfb_notify_refresh_motd(const struct cgfb_config *c, const struct cgfb_statedir *sd)
{
	struct cgfb_pending p = { .known = false };

	return cgfb_notify_motd(c, sd, &p);
}

static bool in_group(const char *user, gid_t want)
{
	gid_t groups[GROUPS_MAX];
	int n = GROUPS_MAX;
	struct passwd *pw = getpwnam(user);

	if (!pw || getgrouplist(user, pw->pw_gid, groups, &n) < 0)
		return false;
	for (int i = 0; i < n; i++)
		if (groups[i] == want)
			return true;
	return pw->pw_uid == 0;
}

/* A utmp login whose process is gone is stale: a session killed without
 * its logout record (systemd stopping a getty leaves login's entry, whose
 * id differs from the unit's UtmpIdentifier). Writing to its terminal
 * would succeed and reach nobody. EPERM: alive, another user's. */
static bool session_alive(pid_t pid)
{
	return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

enum tty_outcome { TTY_REACHED, TTY_REFUSED, TTY_FAILED };

/* One terminal of an administrator: the message written whole, or why
 * not. mesg(1) is the terminal's group write bit, read before opening it:
 * we honour it even when run as root (as wall(1) does for users), and a
 * terminal that refuses is "refused", whereas one we may not open (the
 * unit's device policy, a device gone) "failed" with its errno. A terminal
 * whose buffer is full takes what fits and is never waited for. */
static enum tty_outcome write_tty(const char *path, const char *msg, int *err)
{
	const size_t len = strlen(msg);
	struct stat st;
	ssize_t w;
	int fd;

	if (stat(path, &st) < 0) {
		*err = errno;
		return TTY_FAILED;
	}
	if (!(st.st_mode & S_IWGRP))
		return TTY_REFUSED;
	fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		*err = errno;
		return TTY_FAILED;
	}
	/* What was opened is what was looked at: a terminal. */
	if (fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode) || !isatty(fd)) {
		*err = ENOTTY;
		close(fd);
		return TTY_FAILED;
	}
	w = write(fd, msg, len);
	*err = w < 0 ? errno : EAGAIN;
	close(fd);
	return w == (ssize_t)len ? TTY_REACHED : TTY_FAILED;
}

/* Like wall(1), but only to members of the admin group, and never blocking
 * on a stuck terminal. ut_line is checked so a crafted utmp entry cannot
 * make us write outside the device directory. */
int cgfb_wall_admins(const struct cgfb_config *c, const struct cgfb_notify_paths *p,
		     const char *msg, struct cgfb_wall_count *n)
{
	const char *dev = p && p->dev_dir ? p->dev_dir : "/dev";
	struct group *gr = getgrnam(c->admin_group);
	struct utmpx *u;

	memset(n, 0, sizeof(*n));
	if (!gr && strcmp(c->admin_group, "root") != 0)
		return -ENOENT;
	if (p && p->utmp && utmpxname(p->utmp) < 0)
		return -errno;
	setutxent();
	while ((u = getutxent()) != NULL) {
		char user[sizeof(u->ut_user) + 1], line[sizeof(u->ut_line) + 1], path[PATH_MAX];
		int err = 0;

		if (u->ut_type != USER_PROCESS || !session_alive(u->ut_pid))
			continue;
		snprintf(user, sizeof(user), "%.*s", (int)sizeof(u->ut_user), u->ut_user);
		snprintf(line, sizeof(line), "%.*s", (int)sizeof(u->ut_line), u->ut_line);
		if (!line[0] || strstr(line, "..") || line[0] == '/')
			continue;
		if (!in_group(user, gr ? gr->gr_gid : 0))
			continue;
		if (cgfb_path_join(path, sizeof(path), dev, line, NULL) < 0)
			continue;
		n->terminals++;
		switch (write_tty(path, msg, &err)) {
		case TTY_REACHED: n->reached++; break;
		case TTY_REFUSED: n->refused++; break;
		case TTY_FAILED:
			n->failed++;
			n->first_errno = n->first_errno ? n->first_errno : err;
			break;
		}
	}
	endutxent();
	return 0;
}

/* The journal says what the wall did, so that "nobody was told" is never
 * silent: the banner and the log line are then the only prompts. */
static void log_wall(const struct cgfb_config *c, const struct cgfb_wall_count *n)
{
	char more[160] = "";

	if (n->terminals == 0) {
		cgfb_log(LOG_NOTICE, "wall: no administrator (group %s) was logged in; the login "
			 "banner and this log are the prompt", c->admin_group);
		return;
	}
	if (n->refused && n->failed)
		snprintf(more, sizeof(more), " (%u refused messages, %u could not be written: %s)",
			 n->refused, n->failed, strerror(n->first_errno));
	else if (n->refused)
		snprintf(more, sizeof(more), " (%u refused messages: mesg n)", n->refused);
	else if (n->failed)
		snprintf(more, sizeof(more), " (%u could not be written: %s)", n->failed,
			 strerror(n->first_errno));
	cgfb_log(n->reached ? LOG_NOTICE : LOG_WARNING,
		 "wall: reached %u of %u terminal%s of group %s%s", n->reached, n->terminals,
		 n->terminals == 1 ? "" : "s", c->admin_group, more);
}

/* The hook runs detached from every pipe of ours: its standard input and
 * output are /dev/null (the report writer's output is the watcher's pipe,
 * and a hook holding it, or a daemon it leaves behind, would stall the
 * watcher until it exits), and it is ended after HOOK_SECONDS with its
 * whole process group (timeout(1), without --foreground). Its standard
 * error stays the journal. */
#define HOOK_SECONDS "60"

static void run_command(const struct cgfb_config *c, const char *id, const char *cat_id,
			const char *title)
{
	char e1[128], e2[64], e3[512];
	char *argv[] = { "/usr/bin/timeout", "--kill-after=5", HOOK_SECONDS, "/bin/sh", "-c",
			 (char *)c->notify_command, NULL };
	char *envp[] = { e1, e2, e3, "PATH=/usr/local/bin:/usr/bin:/bin", NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int rc;

	snprintf(e1, sizeof(e1), "CGFB_REPORT_ID=%s", id);
	snprintf(e2, sizeof(e2), "CGFB_CATALOG_ID=%s", cat_id);
	snprintf(e3, sizeof(e3), "CGFB_TITLE=%s", title);
	rc = posix_spawn_file_actions_init(&fa);
	if (rc == 0)
		rc = posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	if (rc == 0)
		rc = posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	/* A clean environment: nothing of ours leaks into the hook. Nobody
	 * waits for it: the report writer exits, and init reaps it. */
	if (rc == 0)
		rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0)
		cgfb_log(LOG_WARNING, "notify-command: %s", strerror(rc));
}

void cgfb_notify_new_report(const struct cgfb_config *c, const struct cgfb_notify_paths *p,
			    const struct cgfb_catalog *cat, const struct cgfb_statedir *sd,
			    const char *report_id, const char *catalog_id, bool by_check)
{
	struct cgfb_pending pending = { .known = false };

	cgfb_notify_new_report_with(c, p, cat, sd, report_id, catalog_id, by_check, &pending);
}

void cgfb_notify_new_report_with(const struct cgfb_config *c, const struct cgfb_notify_paths *p,
				 const struct cgfb_catalog *cat, const struct cgfb_statedir *sd,
				 const char *report_id, const char *catalog_id, bool by_check,
				 struct cgfb_pending *pending)
{
	/* The kernel printed nothing for check's findings: it would ask. */
	const char *const asked = by_check ? "check found what the kernel asks about" :
					     "the kernel asked for your use case";
	const char *const state_dir = sd->path;
	const struct cgfb_entry *e = cgfb_catalog_find(cat, catalog_id);
	const char *title = e ? e->title : catalog_id;
	struct cgfb_wall_count wc;
	char msg[CGFB_HINT_MAX + 512], hint[CGFB_HINT_MAX];
	int rc;

	if (cgfb_silenced(sd, catalog_id))
		return;
	if (c->notify & CGFB_NOTIFY_LOG)
		cgfb_log(LOG_NOTICE, "%s (%s: %s); report %s is ready for review: %s", asked,
			 catalog_id, title, report_id,
			 cgfb_hint(hint, sizeof(hint), state_dir, "review %s", report_id));
	if (c->notify & CGFB_NOTIFY_MOTD)
		cgfb_notify_motd(c, sd, pending);
	if (c->notify & CGFB_NOTIFY_WALL) {
		snprintf(msg, sizeof(msg),
			 "\r\n\a*** cgroup-feedback: %s ***\r\n"
			 "%s: %s\r\n"
			 "Review it (nothing is sent without your yes): %s\r\n\r\n",
			 asked, catalog_id, title,
			 cgfb_sudo_hint(hint, sizeof(hint), state_dir, "review %s", report_id));
		rc = cgfb_wall_admins(c, p, msg, &wc);
		if (rc < 0)
			cgfb_log(LOG_WARNING, "wall: admin-group %s: %s", c->admin_group,
				 strerror(-rc));
		else
			log_wall(c, &wc);
	}
	if ((c->notify & CGFB_NOTIFY_COMMAND) && c->notify_command[0])
		run_command(c, report_id, catalog_id, title);
}

static int read_silenced(const struct cgfb_statedir *sd, char *buf, size_t sz)
{
	const ssize_t n = cgfb_read_at(sd->fd, CGFB_SILENCED_FILE, buf, sz);

	if (n < 0)
		buf[0] = '\0';
	return n < 0 && n != -ENOENT ? (int)n : 0;
}

bool cgfb_silenced(const struct cgfb_statedir *sd, const char *catalog_id)
{
	char buf[4096], *save = NULL;

	if (read_silenced(sd, buf, sizeof(buf)) < 0)
		return false;
	for (char *t = strtok_r(buf, "\n", &save); t; t = strtok_r(NULL, "\n", &save))
		if (strcmp(t, catalog_id) == 0)
			return true;
	return false;
}

int cgfb_silenced_ids(const struct cgfb_statedir *sd, char *out, size_t sz)
{
	char buf[4096], *save = NULL;
	size_t n = 0;
	const int rc = read_silenced(sd, buf, sizeof(buf));

	out[0] = '\0';
	if (rc < 0)
		return rc;
	for (char *t = strtok_r(buf, "\n", &save); t; t = strtok_r(NULL, "\n", &save))
		n += (size_t)snprintf(out + n, n < sz ? sz - n : 0, "%s%s", n ? " " : "", t);
	return n < sz ? 0 : -ENOSPC;
}

int cgfb_silence_add(const struct cgfb_statedir *sd, const char *catalog_id)
{
	char buf[4096];
	struct cgfb_buf b = { 0 };
	int rc;

	if (cgfb_silenced(sd, catalog_id))
		return 0;
	rc = read_silenced(sd, buf, sizeof(buf));
	if (rc < 0)
		return rc;
	cgfb_buf_printf(&b, "%s%s\n", buf, catalog_id);
	rc = cgfb_atomic_write_at(sd->fd, CGFB_SILENCED_FILE, b.data, b.len, 0600);
	cgfb_buf_free(&b);
	return rc;
}

int cgfb_silence_remove(const struct cgfb_statedir *sd, const char *catalog_id)
{
	char buf[4096], *save = NULL;
	struct cgfb_buf b = { 0 };
	bool found = false;
	int rc = read_silenced(sd, buf, sizeof(buf));

	if (rc < 0)
		return rc;
	for (char *t = strtok_r(buf, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
		if (strcmp(t, catalog_id) == 0)
			found = true;
		else
			cgfb_buf_printf(&b, "%s\n", t);
	}
	if (found)
		rc = cgfb_atomic_write_at(sd->fd, CGFB_SILENCED_FILE, b.data ? b.data : "", b.len,
					  0600);
	cgfb_buf_free(&b);
	return rc < 0 ? rc : found;
}
