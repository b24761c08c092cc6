#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "base/statedir.h"
#include "base/path.h"
#include "base/watchlock.h"
#include "cgfb/atomic.h"
#include "cgfb/log.h"
#include "cgfb/readfile.h"
#include "report/spool.h"

/* <id>.seen: 0, or -ENOENT when there is none (then *s is zeroed), or
 * -EBADMSG. */
static int cgfb_spool_load_seen(struct cgfb_spool *sp, const char *id, struct cgfb_seen *s);

#define STATE_MAX   (16u << 10)
/* No atomic write takes this long: a temporary this old was left by a
 * process killed mid-write, and nobody will rename it any more. */
#define STALE_TMP_SECONDS (15 * 60)

static const char *const state_names[] = {
	"pending", "declined", "consented", "sent", "withdrawn",
};

const char *cgfb_rstate_name(enum cgfb_rstate s)
{
	return (unsigned)s < 5 ? state_names[s] : "?";
}

static int rstate_parse(const char *s, enum cgfb_rstate *out)
{
	for (int i = 0; i < 5; i++)
		if (strcmp(s, state_names[i]) == 0) {
			*out = (enum cgfb_rstate)i;
			return 0;
		}
	return -EINVAL;
}

static int open_reports(const struct cgfb_statedir *sd)
{
	const int fd = openat(sd->fd, CGFB_REPORTS_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			      O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static void name_dir(struct cgfb_spool *sp, const struct cgfb_statedir *sd)
{
	snprintf(sp->dir, sizeof(sp->dir), "%s/" CGFB_REPORTS_DIR, sd->path);
	sp->send_depth = 0;
	sp->send_fd = -1;
}

int cgfb_spool_open(struct cgfb_spool *sp, const struct cgfb_statedir *sd)
{
	int rc;

	name_dir(sp, sd);
	sp->fd = -1;
	rc = cgfb_mkdir_at(sd->fd, CGFB_REPORTS_DIR, 0700);
	if (rc == 0)
		rc = open_reports(sd);
	if (rc < 0)
		return rc;
	sp->fd = rc;
	return 0;
}

int cgfb_spool_open_existing(struct cgfb_spool *sp, const struct cgfb_statedir *sd)
{
	const int fd = open_reports(sd);

	name_dir(sp, sd);
	sp->fd = -1;
	/* The watcher makes reports/ with its first report: none is an empty
	 * spool. One that cannot be entered (0700) is said here, not shown as
	 * an empty list. */
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	sp->fd = fd;
	return 0;
}

void cgfb_spool_close(struct cgfb_spool *sp)
{
	/* Its senders' lock goes with it. */
	if (sp->send_depth > 0 && sp->send_fd >= 0)
		close(sp->send_fd);
	sp->send_depth = 0;
	sp->send_fd = -1;
	if (sp->fd >= 0)
		close(sp->fd);
	sp->fd = -1;
}

/* quarantine/ open (made if needed), or -errno. */
static int open_quarantine(struct cgfb_spool *sp)
{
	int fd = cgfb_mkdir_at(sp->fd, CGFB_QUARANTINE_DIR, 0700);

	if (fd == 0)
		fd = openat(sp->fd, CGFB_QUARANTINE_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			    O_CLOEXEC);
	return fd == -1 ? -errno : fd;
}

/* The files quarantine/ holds, counted up to the cap. */
static size_t quarantine_held(int qfd)
{
	const int fd = openat(qfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;
	size_t n = 0;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return CGFB_QUARANTINE_MAX;     /* unreadable: full, nothing more in */
	}
	while (n < CGFB_QUARANTINE_MAX && (de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

void cgfb_spool_quarantine(struct cgfb_spool *sp, const char *name, const char *why)
{
	const int qfd = open_quarantine(sp);

	if (qfd < 0) {
		cgfb_log(LOG_ERR, "spool: cannot create %s/%s to move %s aside: %s (%s)", sp->dir,
			 CGFB_QUARANTINE_DIR, name, strerror(-qfd), why);
		return;
	}
	if (quarantine_held(qfd) >= CGFB_QUARANTINE_MAX)
		cgfb_log(LOG_ERR, "spool: %s/%s holds %d files, its most: %s left where it is, "
			 "unread (%s)", sp->dir, CGFB_QUARANTINE_DIR, CGFB_QUARANTINE_MAX, name, why);
	else if (renameat(sp->fd, name, qfd, name) < 0)
		cgfb_log(LOG_ERR, "spool: moving %s/%s aside failed: %s (%s)", sp->dir, name,
			 strerror(errno), why);
	else
		cgfb_log(LOG_WARNING, "spool: moved %s to %s/%s: %s", name, sp->dir,
			 CGFB_QUARANTINE_DIR, why);
	close(qfd);
}

/* The files of one listing that are not the spool's: moved to quarantine/
 * while it holds fewer than CGFB_QUARANTINE_MAX, else left where they are,
 * unread; told in one line at the end of the listing, not one a file. */
struct aside {
	int qfd;                /* quarantine/; -2 not opened yet, -1 cannot be */
	int err;                /* why the last one could not be moved */
	size_t held, foreign, moved;
	char first[256];
};

static void put_aside(struct cgfb_spool *sp, struct aside *a, const char *name)
{
	if (a->foreign++ == 0)
		snprintf(a->first, sizeof(a->first), "%s", name);
	if (a->qfd == -2) {
		a->qfd = open_quarantine(sp);
		if (a->qfd < 0) {
			a->err = -a->qfd;
			a->qfd = -1;
		} else {
			a->held = quarantine_held(a->qfd);
		}
	}
	if (a->qfd < 0 || a->held >= CGFB_QUARANTINE_MAX)
		return;
	if (renameat(sp->fd, name, a->qfd, name) < 0) {
		a->err = errno;
		return;
	}
	a->moved++;
	a->held++;
}

static void aside_done(struct cgfb_spool *sp, struct aside *a)
{
	char why[160] = "";

	if (a->qfd >= 0)
		close(a->qfd);
	if (!a->foreign)
		return;
	if (a->moved < a->foreign)
		snprintf(why, sizeof(why), " (%s)", a->err ? strerror(a->err) : "quarantine/ is full");
	cgfb_log(LOG_WARNING, "spool: %zu file%s in %s %s not reports of this spool (the first: "
		 "%s): %zu moved to %s/, %zu left where they are, unread%s; %s/ keeps at most %d "
		 "files", a->foreign, a->foreign == 1 ? "" : "s", sp->dir,
		 a->foreign == 1 ? "is" : "are", a->first, a->moved, CGFB_QUARANTINE_DIR,
		 a->foreign - a->moved, why, CGFB_QUARANTINE_DIR, CGFB_QUARANTINE_MAX);
}

/* A spool file: never through a link, never a FIFO or a device. A spool
 * whose reports/ does not exist yet holds nothing. */
static int read_file(const struct cgfb_spool *sp, const char *name, size_t max,
		     struct cgfb_buf *b)
{
	if (sp->fd < 0)
		return -ENOENT;
	return cgfb_read_file_at(sp->fd, name, max, CGFB_RF_REGULAR | CGFB_RF_NOFOLLOW, b);
}

static int write_file(const struct cgfb_spool *sp, const char *name, const char *data,
		      size_t len)
{
	if (sp->fd < 0)
		return -ENOENT;
	return cgfb_atomic_write_at(sp->fd, name, data, len, 0600);
}

static void get_string(json_object *o, const char *key, char *dst, size_t dstsz)
{
	json_object *v;

	if (json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string))
		snprintf(dst, dstsz, "%s", json_object_get_string(v));
}

static long long get_ll(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? (long long)json_object_get_int64(v) : 0;
}

static int state_from_json(json_object *o, struct cgfb_spool_entry *e)
{
	json_object *v;
	char st[16] = "";

	if (!json_object_is_type(o, json_type_object))
		return -EBADMSG;
	get_string(o, "state", st, sizeof(st));
	if (rstate_parse(st, &e->state) < 0)
		return -EBADMSG;
	get_string(o, "catalog_id", e->catalog_id, sizeof(e->catalog_id));
	e->created = get_ll(o, "created");
	e->updated = get_ll(o, "updated");
	e->attempts = (int)get_ll(o, "attempts");
	e->next_attempt = get_ll(o, "next_attempt");
	get_string(o, "last_error", e->last_error, sizeof(e->last_error));
	get_string(o, "deletion_token", e->deletion_token, sizeof(e->deletion_token));
	get_string(o, "endpoint", e->endpoint, sizeof(e->endpoint));
	get_string(o, "sha256", e->sha256, sizeof(e->sha256));
	if (json_object_object_get_ex(o, "receipt", &v)) {
		get_string(v, "id", e->receipt_id, sizeof(e->receipt_id));
		get_string(v, "sha256", e->receipt_sha256, sizeof(e->receipt_sha256));
		get_string(v, "received_at", e->receipt_time, sizeof(e->receipt_time));
	}
	return 0;
}

/* A report without a .state file is new: its catalog id and time come from
 * the report itself. */
static int state_from_report(const struct cgfb_buf *report, struct cgfb_spool_entry *e)
{
	json_object *r = NULL, *det;
	char err[160];
	int rc = -EBADMSG;

	/* Reports are written canonical; anything else was damaged or planted. */
	if (cgfb_canon_parse(report->data, report->len, CGFB_REPORT_DEPTH_MAX, &r, err,
			     sizeof(err)) < 0 ||
	    !json_object_object_get_ex(r, "detection", &det))
		goto out;
	get_string(det, "catalog_id", e->catalog_id, sizeof(e->catalog_id));
	e->state = CGFB_R_PENDING;
	rc = 0;
out:
	json_object_put(r);
	return rc;
}

/* The .state of id as it is now: its inode and modification time, 0 and
 * 0 when there is none. A save replaces it by rename, so either changes. */
static void state_identity(const struct cgfb_spool *sp, const char *id,
			   unsigned long long *ino, long long *mtime_ns)
{
	char name[64];
	struct stat sb;

	*ino = 0;
	*mtime_ns = 0;
	snprintf(name, sizeof(name), "%s" CGFB_STATE_SUFFIX, id);
	if (sp->fd >= 0 && fstatat(sp->fd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0) {
		*ino = (unsigned long long)sb.st_ino;
		*mtime_ns = (long long)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec;
	}
}

#define SEND_LOCK ".send-lock"

/* reports/.send-lock, made by whoever comes first and given to the
 * directory's owner (root's commands and the flush timer's service user
 * share it); a dot file, which the spool's listing passes over. */
static int open_send_lock(const struct cgfb_spool *sp)
{
	int fd = openat(sp->fd, SEND_LOCK, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT) {
		fd = cgfb_create_at(sp->fd, SEND_LOCK, 0600);
		if (fd >= 0)
			close(fd);
		if (fd >= 0 || fd == -EEXIST)
			fd = openat(sp->fd, SEND_LOCK, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		else
			errno = -fd;
	}
	return fd < 0 ? -errno : fd;
}

int cgfb_spool_lock_send(struct cgfb_spool *sp)
{
	int fd, rc;

	if (sp->send_depth > 0 || sp->fd < 0) {
		/* Taken already; or no reports/, so no state to change. */
		sp->send_depth++;
		return 0;
	}
	fd = open_send_lock(sp);
	if (fd < 0) {
		cgfb_log(LOG_ERR, "%s/%s: %s", sp->dir, SEND_LOCK, strerror(-fd));
		return fd;
	}
	rc = cgfb_flock_wait(fd, CGFB_SEND_WAIT_S * 1000L);
	if (rc == -EWOULDBLOCK) {
		cgfb_log(LOG_ERR, "another command has been changing reports in %s for %d s "
			 "(sending, or a withdrawal); nothing was done: try again", sp->dir,
			 CGFB_SEND_WAIT_S);
		close(fd);
		return -EAGAIN;
	}
	/* No flock here (NFS, flock(2) NOTES): as before the lock. */
	if (rc < 0)
		cgfb_log(LOG_WARNING, "%s/%s not locked (%s): a command changing a report "
			 "meanwhile could go unseen", sp->dir, SEND_LOCK, strerror(-rc));
	sp->send_fd = fd;
	sp->send_depth = 1;
	return 0;
}

void cgfb_spool_unlock_send(struct cgfb_spool *sp)
{
	if (sp->send_depth <= 0 || --sp->send_depth > 0)
		return;
	if (sp->send_fd >= 0)
		close(sp->send_fd);
	sp->send_fd = -1;
}

int cgfb_spool_load(struct cgfb_spool *sp, const char *id, struct cgfb_spool_entry *e,
		    struct cgfb_buf *bytes)
{
	char name[64];
	struct cgfb_buf report = { 0 }, st = { 0 };
	struct stat sb;
	json_object *o = NULL;
	int rc;

	if (!cgfb_report_id_valid(id))
		return -EINVAL;
	/* id may be e->id itself. */
	memmove(e->id, id, CGFB_REPORT_ID_LEN + 1);
	memset((char *)e + sizeof(e->id), 0, sizeof(*e) - sizeof(e->id));
	id = e->id;
	snprintf(name, sizeof(name), "%s" CGFB_REPORT_SUFFIX, id);
	rc = read_file(sp, name, CGFB_REPORT_MAX_BYTES, &report);
	if (rc < 0)
		goto out;
	if (fstatat(sp->fd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0)
		e->created = (long long)sb.st_mtime;
	snprintf(name, sizeof(name), "%s" CGFB_STATE_SUFFIX, id);
	/* Before the read: a save between the two makes a later save of
	 * this entry refuse (safe), never overwrite what it did not see. */
	state_identity(sp, id, &e->state_ino, &e->state_mtime_ns);
	rc = read_file(sp, name, STATE_MAX, &st);
	if (rc == -ENOENT) {
		rc = state_from_report(&report, e);
		e->updated = e->created;
	} else if (rc == 0) {
		o = json_tokener_parse(st.data);
		rc = o ? state_from_json(o, e) : -EBADMSG;
	}
	if (rc == 0 && cgfb_spool_load_seen(sp, id, &e->seen) < 0) {
		/* Never seen again, or its bookkeeping damaged: one boot. */
		memset(&e->seen, 0, sizeof(e->seen));
		e->seen.boots = 1;
		e->seen.first = e->seen.last = e->created;
	}
	if (rc == 0 && bytes) {
		cgfb_buf_free(bytes);
		*bytes = report;
		report.data = NULL;
	}
out:
	json_object_put(o);
	cgfb_buf_free(&report);
	cgfb_buf_free(&st);
	return rc;
}

int cgfb_spool_unchanged(struct cgfb_spool *sp, const struct cgfb_spool_entry *e)
{
	struct cgfb_spool_entry now;
	unsigned long long ino;
	long long mtime_ns;

	state_identity(sp, e->id, &ino, &mtime_ns);
	if (ino == e->state_ino && mtime_ns == e->state_mtime_ns)
		return 0;
	if (cgfb_spool_load(sp, e->id, &now, NULL) < 0)
		now.state = e->state;
	cgfb_log(LOG_ERR, "report %s was changed by another command meanwhile (it is %s now); "
		 "nothing was recorded over it: look at it again", e->id,
		 cgfb_rstate_name(now.state));
	return -ESTALE;
}

int cgfb_spool_save_state(struct cgfb_spool *sp, struct cgfb_spool_entry *e)
{
	json_object *o = json_object_new_object(), *r;
	char name[64];
	const char *s;
	int rc;

	e->updated = (long long)time(NULL);
	json_object_object_add(o, "state", json_object_new_string(cgfb_rstate_name(e->state)));
	json_object_object_add(o, "catalog_id", json_object_new_string(e->catalog_id));
	json_object_object_add(o, "created", json_object_new_int64(e->created));
	json_object_object_add(o, "updated", json_object_new_int64(e->updated));
	json_object_object_add(o, "attempts", json_object_new_int(e->attempts));
	json_object_object_add(o, "next_attempt", json_object_new_int64(e->next_attempt));
	json_object_object_add(o, "last_error", json_object_new_string(e->last_error));
	json_object_object_add(o, "deletion_token", json_object_new_string(e->deletion_token));
	json_object_object_add(o, "endpoint", json_object_new_string(e->endpoint));
	json_object_object_add(o, "sha256", json_object_new_string(e->sha256));
	if (e->receipt_id[0]) {
		r = json_object_new_object();
		json_object_object_add(r, "id", json_object_new_string(e->receipt_id));
		json_object_object_add(r, "sha256", json_object_new_string(e->receipt_sha256));
		json_object_object_add(r, "received_at", json_object_new_string(e->receipt_time));
		json_object_object_add(o, "receipt", r);
	}
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	snprintf(name, sizeof(name), "%s" CGFB_STATE_SUFFIX, e->id);
	rc = cgfb_spool_lock_send(sp);
	if (rc < 0)
		goto out;
	rc = cgfb_spool_unchanged(sp, e);
	if (rc == 0)
		rc = write_file(sp, name, s, strlen(s));
	if (rc == 0)
		state_identity(sp, e->id, &e->state_ino, &e->state_mtime_ns);
	cgfb_spool_unlock_send(sp);
out:
	json_object_put(o);
	return rc;
}

/* <id><ext>, written whole or not at all, readable by its owner only. */
static int save_file(struct cgfb_spool *sp, const char *id, const char *ext, const char *data,
		     size_t len)
{
	char name[64];

	if (!cgfb_report_id_valid(id))
		return -EINVAL;
	snprintf(name, sizeof(name), "%s%s", id, ext);
	return write_file(sp, name, data, len);
}

int cgfb_spool_save_report(struct cgfb_spool *sp, const char *id, const char *bytes, size_t len)
{
	return save_file(sp, id, CGFB_REPORT_SUFFIX, bytes, len);
}

int cgfb_spool_load_draft(struct cgfb_spool *sp, const char *id, size_t max, struct cgfb_buf *out)
{
	char name[64];

	if (!cgfb_report_id_valid(id))
		return -EINVAL;
	snprintf(name, sizeof(name), "%s" CGFB_DRAFT_SUFFIX, id);
	return read_file(sp, name, max, out);
}

int cgfb_spool_save_draft(struct cgfb_spool *sp, const char *id, const char *data, size_t len)
{
	return save_file(sp, id, CGFB_DRAFT_SUFFIX, data, len);
}

static int by_created(const void *a, const void *b)
{
	const struct cgfb_spool_entry *x = a, *y = b;

	if (x->created != y->created)
		return x->created < y->created ? -1 : 1;
	return strcmp(x->id, y->id);
}

/* What a directory entry is: 1 a report, 0 to ignore, -1 foreign. */
static int classify(const char *name, char id[CGFB_REPORT_ID_LEN + 1])
{
	const size_t n = strlen(name);

	if (name[0] == '.')
		return 0;            /* ".", "..", and temporaries of atomic writes */
	if (strcmp(name, CGFB_QUARANTINE_DIR) == 0)
		return 0;
	if (n == CGFB_REPORT_ID_LEN + 6 && (strcmp(name + CGFB_REPORT_ID_LEN, CGFB_STATE_SUFFIX) == 0 ||
					    strcmp(name + CGFB_REPORT_ID_LEN, CGFB_DRAFT_SUFFIX) == 0)) {
		memcpy(id, name, CGFB_REPORT_ID_LEN);
		id[CGFB_REPORT_ID_LEN] = '\0';
		return cgfb_report_id_valid(id) ? 0 : -1;
	}
	if (n == CGFB_REPORT_ID_LEN + 5 && strcmp(name + CGFB_REPORT_ID_LEN, CGFB_SEEN_SUFFIX) == 0) {
		memcpy(id, name, CGFB_REPORT_ID_LEN);
		id[CGFB_REPORT_ID_LEN] = '\0';
		return cgfb_report_id_valid(id) ? 0 : -1;
	}
	if (n == CGFB_REPORT_ID_LEN + 5 && strcmp(name + CGFB_REPORT_ID_LEN, CGFB_REPORT_SUFFIX) == 0) {
		memcpy(id, name, CGFB_REPORT_ID_LEN);
		id[CGFB_REPORT_ID_LEN] = '\0';
		return cgfb_report_id_valid(id) ? 1 : -1;
	}
	return -1;
}

/* ".NAME.tmp.PID" of an atomic write whose writer was killed. */
static void sweep_temporary(struct cgfb_spool *sp, const char *name)
{
	struct stat st;

	if (name[0] != '.' || !strstr(name, ".tmp.") ||
	    fstatat(sp->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_mtime > time(NULL) - STALE_TMP_SECONDS)
		return;
	if (unlinkat(sp->fd, name, 0) == 0)
		cgfb_log(LOG_NOTICE, "spool: removed %s/%s, left by an interrupted write", sp->dir,
			 name);
}

static void quarantine_report(struct cgfb_spool *sp, const char *id, const char *why)
{
	static const char *const sidecars[] = { CGFB_STATE_SUFFIX, CGFB_DRAFT_SUFFIX,
							CGFB_SEEN_SUFFIX };
	char name[64];

	snprintf(name, sizeof(name), "%s" CGFB_REPORT_SUFFIX, id);
	cgfb_spool_quarantine(sp, name, why);
	/* Its state, draft and repeat count go with it: alone they would name
	 * no report. */
	for (size_t i = 0; i < sizeof(sidecars) / sizeof(sidecars[0]); i++) {
		snprintf(name, sizeof(name), "%s%s", id, sidecars[i]);
		if (faccessat(sp->fd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
			cgfb_spool_quarantine(sp, name, why);
	}
}

/* "recent_boots": eight hex digits each; a file before them has none. */
static void recent_from_json(json_object *o, struct cgfb_seen *s)
{
	json_object *r;

	if (!json_object_object_get_ex(o, "recent_boots", &r) || !json_object_is_type(r, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(r) && s->n_recent < CGFB_SEEN_BOOTS; i++) {
		const char *v = json_object_get_string(json_object_array_get_idx(r, i));
		char *end;
		unsigned long h = v ? strtoul(v, &end, 16) : 0;

		if (v && *v && !*end && strlen(v) == 8)
			s->recent[s->n_recent++] = (uint32_t)h;
	}
}

static int seen_from_json(json_object *o, struct cgfb_seen *s)
{
	json_object *k;

	if (!json_object_is_type(o, json_type_object))
		return -EBADMSG;
	s->boots = (unsigned)get_ll(o, "boots");
	s->first = get_ll(o, "first_seen");
	s->last = get_ll(o, "last_seen");
	get_string(o, "last_boot", s->last_boot, sizeof(s->last_boot));
	if (s->boots == 0)
		return -EBADMSG;
	recent_from_json(o, s);
	if (!json_object_object_get_ex(o, "kernels", &k) || !json_object_is_type(k, json_type_array))
		return 0;
	for (size_t i = 0; i < json_object_array_length(k) && s->n_kernels < CGFB_SEEN_KERNELS; i++) {
		json_object *v = json_object_array_get_idx(k, i);

		if (json_object_is_type(v, json_type_string))
			snprintf(s->kernels[s->n_kernels++], sizeof(s->kernels[0]), "%s",
				 json_object_get_string(v));
	}
	return 0;
}

static int cgfb_spool_load_seen(struct cgfb_spool *sp, const char *id, struct cgfb_seen *s)
{
	char name[64];
	struct cgfb_buf b = { 0 };
	json_object *o = NULL;
	int rc;

	memset(s, 0, sizeof(*s));
	snprintf(name, sizeof(name), "%s" CGFB_SEEN_SUFFIX, id);
	rc = read_file(sp, name, STATE_MAX, &b);
	if (rc == 0) {
		o = json_tokener_parse(b.data);
		rc = o ? seen_from_json(o, s) : -EBADMSG;
	}
	if (rc < 0)
		memset(s, 0, sizeof(*s));
	json_object_put(o);
	cgfb_buf_free(&b);
	return rc;
}

int cgfb_spool_save_seen(struct cgfb_spool *sp, const char *id, const struct cgfb_seen *s)
{
	json_object *o = json_object_new_object(), *k = json_object_new_array();
	json_object *rb = json_object_new_array();
	char name[64];
	const char *text;
	int rc;

	if (!cgfb_report_id_valid(id)) {
		json_object_put(o);
		json_object_put(k);
		json_object_put(rb);
		return -EINVAL;
	}
	json_object_object_add(o, "boots", json_object_new_int64(s->boots));
	json_object_object_add(o, "first_seen", json_object_new_int64(s->first));
	json_object_object_add(o, "last_seen", json_object_new_int64(s->last));
	json_object_object_add(o, "last_boot", json_object_new_string(s->last_boot));
	for (unsigned i = 0; i < s->n_recent && i < CGFB_SEEN_BOOTS; i++) {
		char hex[9];

		snprintf(hex, sizeof(hex), "%08x", (unsigned)s->recent[i]);
		json_object_array_add(rb, json_object_new_string(hex));
	}
	json_object_object_add(o, "recent_boots", rb);
	for (unsigned i = 0; i < s->n_kernels && i < CGFB_SEEN_KERNELS; i++)
		json_object_array_add(k, json_object_new_string(s->kernels[i]));
	json_object_object_add(o, "kernels", k);
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
	snprintf(name, sizeof(name), "%s" CGFB_SEEN_SUFFIX, id);
	rc = write_file(sp, name, text, strlen(text));
	json_object_put(o);
	return rc;
}

/* A directory stream of reports/ with a description of its own: its
 * reading position is not sp->fd's. */
static DIR *open_listing(struct cgfb_spool *sp, int *err)
{
	const int fd = openat(sp->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);

	*err = d ? 0 : -errno;
	if (!d && fd >= 0)
		close(fd);
	return d;
}

int cgfb_spool_each_id(struct cgfb_spool *sp, int (*fn)(const char *id, void *ctx), void *ctx)
{
	char id[CGFB_REPORT_ID_LEN + 1];
	struct dirent *de;
	DIR *d;
	int rc;

	if (sp->fd < 0)
		return 0;
	d = open_listing(sp, &rc);
	if (!d)
		return rc;
	while (rc >= 0 && (de = readdir(d)) != NULL)
		if (classify(de->d_name, id) == 1)
			rc = fn(id, ctx);
	closedir(d);
	return rc < 0 ? rc : 0;
}

int cgfb_spool_each(struct cgfb_spool *sp, int (*fn)(const struct cgfb_spool_entry *e, void *ctx),
		    void *ctx)
{
	struct aside aside = { .qfd = -2 };
	struct cgfb_spool_entry e;
	struct dirent *de;
	char id[CGFB_REPORT_ID_LEN + 1];
	DIR *d;
	int rc = 0;

	if (sp->fd < 0)
		return 0;
	d = open_listing(sp, &rc);
	if (!d)
		return rc;
	while (rc >= 0 && (de = readdir(d)) != NULL) {
		const int kind = classify(de->d_name, id);

		if (kind < 0) {
			put_aside(sp, &aside, de->d_name);
			continue;
		}
		if (kind == 0) {
			sweep_temporary(sp, de->d_name);
			continue;
		}
		rc = cgfb_spool_load(sp, id, &e, NULL);
		if (rc == -EBADMSG || rc == -EFBIG || rc == -EINVAL)
			quarantine_report(sp, id, rc == -EFBIG ? "larger than any report can be"
							       : "corrupt report or state file");
		rc = rc == 0 ? fn(&e, ctx) : 0;
	}
	closedir(d);
	aside_done(sp, &aside);
	return rc < 0 ? rc : 0;
}

struct listing {
	struct cgfb_spool_entry *v;
	size_t n, cap;
};

static int add_entry(const struct cgfb_spool_entry *e, void *ctx)
{
	struct listing *l = ctx;

	if (l->n == l->cap) {
		const size_t cap = l->cap ? l->cap * 2 : 16;
		struct cgfb_spool_entry *bigger = realloc(l->v, cap * sizeof(*bigger));

		if (!bigger)
			return -ENOMEM;
		l->v = bigger;
		l->cap = cap;
	}
	l->v[l->n++] = *e;
	return 0;
}

int cgfb_spool_list(struct cgfb_spool *sp, struct cgfb_spool_entry **out, size_t *n)
{
	struct listing l = { NULL, 0, 0 };
	const int rc = cgfb_spool_each(sp, add_entry, &l);

	*out = NULL;
	*n = 0;
	if (rc < 0) {
		free(l.v);
		return rc;
	}
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), by_created);
	*out = l.v;
	*n = l.n;
	return 0;
}

static bool older(long long created, const char *id, const struct cgfb_pending_one *o)
{
	if (created != o->created)
		return created < o->created;
	return strcmp(id, o->id) < 0;
}

void cgfb_pending_add(struct cgfb_pending *p, long long created, const char *id,
		      const char *catalog_id)
{
	size_t at;

	p->count++;
	if (p->named == CGFB_PENDING_NAMED && !older(created, id, &p->oldest[p->named - 1]))
		return;
	if (p->named < CGFB_PENDING_NAMED)
		p->named++;
	/* Insertion into the few kept, oldest first; the newest falls off. */
	for (at = p->named - 1; at > 0 && older(created, id, &p->oldest[at - 1]); at--)
		p->oldest[at] = p->oldest[at - 1];
	p->oldest[at].created = created;
	snprintf(p->oldest[at].id, sizeof(p->oldest[at].id), "%s", id);
	snprintf(p->oldest[at].catalog_id, sizeof(p->oldest[at].catalog_id), "%s", catalog_id);
}

static int add_if_pending(const struct cgfb_spool_entry *e, void *ctx)
{
	if (e->state == CGFB_R_PENDING)
		cgfb_pending_add(ctx, e->created, e->id, e->catalog_id);
	return 0;
}

int cgfb_pending_list(struct cgfb_spool *sp, struct cgfb_pending *p)
{
	int rc;

	memset(p, 0, sizeof(*p));
	rc = cgfb_spool_each(sp, add_if_pending, p);
	p->known = rc == 0;
	return rc;
}

/* A report expiry may remove: answered, and nothing left to do with it. */
struct expirable {
	long long updated;
	char id[CGFB_REPORT_ID_LEN + 1];
};

struct expiry {
	struct cgfb_spool *sp;
	struct expirable *v;
	size_t n, cap;
};

/* Its .state only: the report itself is not read. */
static int consider(const char *id, void *ctx)
{
	struct expiry *x = ctx;
	char name[64];
	struct cgfb_buf b = { 0 };
	struct cgfb_spool_entry e;
	json_object *o = NULL;
	int rc;

	snprintf(name, sizeof(name), "%s" CGFB_STATE_SUFFIX, id);
	if (read_file(x->sp, name, STATE_MAX, &b) < 0)
		return 0;               /* none: pending */
	memset(&e, 0, sizeof(e));
	o = json_tokener_parse(b.data);
	rc = o ? state_from_json(o, &e) : -EBADMSG;
	json_object_put(o);
	cgfb_buf_free(&b);
	if (rc < 0 || (e.state != CGFB_R_DECLINED && e.state != CGFB_R_WITHDRAWN))
		return 0;
	if (x->n == x->cap) {
		const size_t cap = x->cap ? x->cap * 2 : 64;
		struct expirable *bigger = realloc(x->v, cap * sizeof(*bigger));

		if (!bigger)
			return -ENOMEM;
		x->v = bigger;
		x->cap = cap;
	}
	x->v[x->n].updated = e.updated;
	memcpy(x->v[x->n].id, id, CGFB_REPORT_ID_LEN + 1);
	x->n++;
	return 0;
}

static int newest_first(const void *a, const void *b)
{
	const struct expirable *x = a, *y = b;

	if (x->updated != y->updated)
		return x->updated > y->updated ? -1 : 1;
	return strcmp(y->id, x->id);
}

/* The report first, whole: killed after it, what is left are sidecars
 * naming no report, which no listing reads (and the next expiry of the
 * same id, were it ever made again, replaces). */
static int remove_report(struct cgfb_spool *sp, const char *id)
{
	static const char *const sidecars[] = { CGFB_STATE_SUFFIX, CGFB_DRAFT_SUFFIX,
							CGFB_SEEN_SUFFIX };
	char name[64];

	snprintf(name, sizeof(name), "%s" CGFB_REPORT_SUFFIX, id);
	if (unlinkat(sp->fd, name, 0) < 0)
		return -errno;
	for (size_t i = 0; i < sizeof(sidecars) / sizeof(sidecars[0]); i++) {
		snprintf(name, sizeof(name), "%s%s", id, sidecars[i]);
		unlinkat(sp->fd, name, 0);
	}
	return 0;
}

int cgfb_spool_expire(struct cgfb_spool *sp, long long now,
		      void (*removed)(const char *id, void *ctx), void *ctx, size_t *n_removed)
{
	struct expiry x = { .sp = sp };
	const long long before = now - (long long)CGFB_SPOOL_KEEP_DAYS * 86400;
	int rc;

	*n_removed = 0;
	rc = cgfb_spool_each_id(sp, consider, &x);
	if (rc < 0)
		goto out;
	if (x.n)
		qsort(x.v, x.n, sizeof(*x.v), newest_first);
	for (size_t i = 0; i < x.n; i++) {
		if (i < CGFB_SPOOL_KEEP_ANSWERED && x.v[i].updated >= before)
			continue;
		if (remove_report(sp, x.v[i].id) < 0)
			continue;       /* gone meanwhile, or not ours: left */
		(*n_removed)++;
		if (removed)
			removed(x.v[i].id, ctx);
	}
out:
	free(x.v);
	return rc;
}
