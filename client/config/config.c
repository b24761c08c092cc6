#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cmdline.h"
#include "cgfb/atomic.h"
#include "cgfb/log.h"
#include "cgfb/readfile.h"
#include "base/suggest.h"
#include "base/urlshow.h"
#include "config/config.h"

#define LINE_MAX_LEN 1024
/* A configuration file is a few dozen lines. */
#define CONFIG_FILE_MAX (1u << 20)

void cgfb_config_defaults(struct cgfb_config *c)
{
	memset(c, 0, sizeof(*c));
	/* No collector: nobody runs a public one, and a default address on
	 * this machine would send consented reports (and their deletion
	 * tokens) to whoever binds its port first. Without an endpoint a yes
	 * makes the e-mail for the list the kernel message names
	 * (consent/destination.h). */
	c->endpoint[0] = '\0';
	c->connect_timeout = 10;
	c->timeout = 60;
	c->max_attempts = 20;
	c->consent = CGFB_CONSENT_ASK;
	c->notify = CGFB_NOTIFY_LOG | CGFB_NOTIFY_MOTD | CGFB_NOTIFY_WALL;
	snprintf(c->admin_group, sizeof(c->admin_group), "sudo");
	snprintf(c->motd_path, sizeof(c->motd_path), "/run/motd.d/cgroup-feedback.motd");
	snprintf(c->sendmail, sizeof(c->sendmail), "/usr/sbin/sendmail");
}

static int set_str(char *dst, size_t dstsz, const char *key, const char *value, char *err,
		   size_t errsz)
{
	if (strlen(value) >= dstsz) {
		snprintf(err, errsz, "%s: value longer than %zu bytes", key, dstsz - 1);
		return -EINVAL;
	}
	memcpy(dst, value, strlen(value) + 1);
	return 0;
}

static int set_long(long *dst, long lo, long hi, const char *key, const char *value, char *err,
		    size_t errsz)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(value, &end, 10);
	if (errno || end == value || *end || v < lo || v > hi) {
		snprintf(err, errsz, "%s: '%s' is not a whole number from %ld to %ld", key, value,
			 lo, hi);
		return -EINVAL;
	}
	*dst = v;
	return 0;
}

static int set_consent(struct cgfb_config *c, const char *value, char *err, size_t errsz)
{
	if (strcmp(value, "ask") == 0)
		c->consent = CGFB_CONSENT_ASK;
	else if (strcmp(value, "never") == 0)
		c->consent = CGFB_CONSENT_NEVER;
	else if (strcmp(value, "auto") == 0)
		c->consent = CGFB_CONSENT_AUTO;
	else {
		snprintf(err, errsz, "consent: '%s' is not ask, never or auto", value);
		return -EINVAL;
	}
	return 0;
}

/* "log, motd wall" or "none" */
static int set_notify(struct cgfb_config *c, const char *value, char *err, size_t errsz)
{
	static const struct {
		const char *name;
		unsigned bit;
	} names[] = {
		{ "log", CGFB_NOTIFY_LOG }, { "motd", CGFB_NOTIFY_MOTD },
		{ "wall", CGFB_NOTIFY_WALL }, { "command", CGFB_NOTIFY_COMMAND },
		{ "none", 0 },
	};
	char buf[CGFB_CONFIG_STR_MAX], *save = NULL;
	unsigned bits = 0;

	snprintf(buf, sizeof(buf), "%s", value);
	for (char *tok = strtok_r(buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		size_t i = 0;

		while (i < sizeof(names) / sizeof(names[0]) && strcmp(names[i].name, tok) != 0)
			i++;
		if (i == sizeof(names) / sizeof(names[0])) {
			snprintf(err, errsz, "notify: unknown channel '%s' (log, motd, wall, command, none)",
				 tok);
			return -EINVAL;
		}
		bits |= names[i].bit;
	}
	c->notify = bits;
	return 0;
}

static bool loopback_host(const char *h, size_t n)
{
	return (n == 9 && memcmp(h, "localhost", 9) == 0) || (n == 5 && memcmp(h, "[::1]", 5) == 0) ||
	       (n >= 4 && memcmp(h, "127.", 4) == 0 && strspn(h, "0123456789.") == n);
}

/* An endpoint is https (or http to this machine), and never carries
 * credentials: a report records the endpoint it was consented for, and a
 * user:password@ in it would travel with every report. */
static int check_endpoint(const char *url, char *err, size_t errsz)
{
	const bool https = strncmp(url, "https://", 8) == 0;
	const char *host = url + (https ? 8 : 7);
	char shown[CGFB_CONFIG_STR_MAX];
	size_t n;

	cgfb_url_shown(shown, sizeof(shown), url);

	if (strpbrk(url, "\"' \t")) {
		snprintf(err, errsz, "endpoint: '%s' holds quotes or white space; write the URL bare",
			 shown);
		return -EINVAL;
	}
	if (!https && strncmp(url, "http://", 7) != 0) {
		snprintf(err, errsz, "endpoint: '%s' is not an https:// URL", shown);
		return -EINVAL;
	}
	n = strcspn(host, "/?#");
	if (memchr(host, '@', n)) {
		snprintf(err, errsz, "endpoint: user information (user:password@) is not allowed in "
			 "the endpoint; it would be recorded in every report");
		return -EINVAL;
	}
	const size_t hn = host[0] == '[' ? strcspn(host, "]") + 1 : strcspn(host, ":/?#");

	if (n == 0 || hn == 0) {
		snprintf(err, errsz, "endpoint: '%s' names no host", shown);
		return -EINVAL;
	}
	if (!https && !loopback_host(host, hn)) {
		snprintf(err, errsz, "endpoint: plain http is only for a collector on this machine "
			 "(127.0.0.1, [::1], localhost); use https://");
		return -EINVAL;
	}
	return 0;
}

/* "endpoint =" with no value: no collector (the default). */
static int set_endpoint(struct cgfb_config *c, const char *key, const char *value, char *err,
			size_t errsz)
{
	const int rc = value[0] ? check_endpoint(value, err, errsz) : 0;

	return rc < 0 ? rc : set_str(c->endpoint, sizeof(c->endpoint), key, value, err, errsz);
}

static int set_max_attempts(struct cgfb_config *c, const char *key, const char *value, char *err,
			    size_t errsz)
{
	long v;
	const int rc = set_long(&v, 1, 1000, key, value, err, errsz);

	if (rc == 0)
		c->max_attempts = (int)v;
	return rc;
}

static int set_consent_key(struct cgfb_config *c, const char *key, const char *value, char *err,
			   size_t errsz)
{
	return set_consent(c, value, err, errsz);
}

static int set_notify_key(struct cgfb_config *c, const char *key, const char *value, char *err,
			  size_t errsz)
{
	return set_notify(c, value, err, errsz);
}

/* Every key, once: the parser walks this table, and --dump-config-keys
 * (what the man-page test reads) prints it. */
static const struct key {
	const char *name;
	enum { K_STR, K_LONG, K_FN } kind;
	size_t off, size;        /* K_STR: the field; K_LONG: the long */
	long lo, hi;
	int (*fn)(struct cgfb_config *c, const char *key, const char *value, char *err,
		  size_t errsz);
} keys[] = {
#define STR(k, f) { k, K_STR, offsetof(struct cgfb_config, f), \
		    sizeof(((struct cgfb_config *)0)->f), 0, 0, NULL }
#define LONG(k, f, lo, hi) { k, K_LONG, offsetof(struct cgfb_config, f), 0, lo, hi, NULL }
#define FN(k, fn) { k, K_FN, 0, 0, 0, 0, fn }
	FN("endpoint", set_endpoint),
	STR("ca-file", ca_file),
	STR("pinned-public-key", pinned_public_key),
	STR("proxy", proxy),
	STR("use-case-file", use_case_file),
	STR("notify-command", notify_command),
	STR("admin-group", admin_group),
	STR("motd-path", motd_path),
	STR("mail-to", mail_to),
	STR("mail-from", mail_from),
	STR("smtp-url", smtp_url),
	STR("sendmail", sendmail),
	STR("allowlist-file", allowlist_file),
	LONG("connect-timeout", connect_timeout, 1, 600),
	LONG("timeout", timeout, 1, 3600),
	FN("max-attempts", set_max_attempts),
	FN("consent", set_consent_key),
	FN("notify", set_notify_key),
#undef STR
#undef LONG
#undef FN
};

/* A key this version does not know, with the nearest one it does. */
static void unknown_key(const char *key, char *err, size_t errsz)
{
	const char *names[sizeof(keys) / sizeof(keys[0])], *best;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		names[i] = keys[i].name;
	best = cgfb_suggest(key, names, sizeof(keys) / sizeof(keys[0]));
	if (best)
		snprintf(err, errsz, "unknown setting '%s'; did you mean '%s'?", key, best);
	else
		snprintf(err, errsz, "unknown setting '%s'", key);
}

int cgfb_config_set(struct cgfb_config *c, const char *key, const char *value, char *err,
		    size_t errsz)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const struct key *k = &keys[i];

		if (strcmp(key, k->name) != 0)
			continue;
		switch (k->kind) {
		case K_STR:
			return set_str((char *)c + k->off, k->size, key, value, err, errsz);
		case K_LONG:
			return set_long((long *)((char *)c + k->off), k->lo, k->hi, key, value, err,
					errsz);
		default:
			return k->fn(c, key, value, err, errsz);
		}
	}
	unknown_key(key, err, errsz);
	return -EINVAL;
}

const char *cgfb_config_key(size_t i)
{
	return i < sizeof(keys) / sizeof(keys[0]) ? keys[i].name : NULL;
}

static char *trim(char *s)
{
	char *e = s + strlen(s);

	while (isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* Every error of a file, one "FILE:LINE: what" line each: a person fixes
 * them in one pass rather than one run per mistake. */
struct errs {
	char *buf;
	size_t size, len;
	unsigned n;
};

static void errs_add(struct errs *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void errs_add(struct errs *e, const char *fmt, ...)
{
	va_list ap;
	int m;

	if (e->n++ >= CGFB_CONFIG_ERRORS_MAX || !e->size || e->len + 1 >= e->size)
		return;
	if (e->len)
		e->buf[e->len++] = '\n';
	va_start(ap, fmt);
	m = vsnprintf(e->buf + e->len, e->size - e->len, fmt, ap);
	va_end(ap);
	if (m > 0)
		e->len += (size_t)m < e->size - e->len ? (size_t)m : e->size - e->len - 1;
	e->buf[e->len] = '\0';
}

static void check(const struct cgfb_config *c, const char *path, struct errs *e)
{
	if (c->consent == CGFB_CONSENT_AUTO && !c->use_case_file[0])
		errs_add(e, "%s: consent = auto needs use-case-file", path);
	/* Unattended sending is to a collector someone runs: auto never
	 * publishes an e-mail on a public list by itself. */
	if (c->consent == CGFB_CONSENT_AUTO && !c->endpoint[0])
		errs_add(e, "%s: consent = auto needs endpoint (a collector); without one a report "
			 "goes by e-mail, after a yes in review", path);
	if ((c->notify & CGFB_NOTIFY_COMMAND) && !c->notify_command[0])
		errs_add(e, "%s: notify = command needs notify-command", path);
}

static int errs_end(struct errs *e)
{
	if (e->n > CGFB_CONFIG_ERRORS_MAX && e->len + 1 < e->size)
		snprintf(e->buf + e->len, e->size - e->len, "\n(%u more errors)",
			 e->n - CGFB_CONFIG_ERRORS_MAX);
	return e->n ? -EINVAL : 0;
}

/* One line of the file (without its newline), NUL-terminated in place. */
static void parse_line(struct cgfb_config *c, char *line, const char *name, unsigned lineno,
		       struct errs *e)
{
	char *key, *eq, *value, msg[256];

	key = trim(line);
	if (!*key || *key == '#')
		return;
	eq = strchr(key, '=');
	if (!eq) {
		errs_add(e, "%s:%u: expected 'key = value'", name, lineno);
		return;
	}
	*eq = '\0';
	value = trim(eq + 1);
	key = trim(key);
	if (cgfb_config_set(c, key, value, msg, sizeof(msg)) < 0)
		errs_add(e, "%s:%u: %s", name, lineno, msg);
}

int cgfb_config_parse(struct cgfb_config *c, const char *buf, size_t len, const char *name,
		      char *err, size_t errsz)
{
	const char *p = buf, *end = buf + len;
	struct errs e = { err, errsz, 0, 0 };
	char line[LINE_MAX_LEN + 1];
	unsigned lineno = 0;

	if (errsz)
		err[0] = '\0';
	while (p < end) {
		const char *const ln = p, *const nl = memchr(p, '\n', (size_t)(end - p));
		const size_t n = (size_t)((nl ? nl : end) - ln);

		lineno++;
		p = nl ? nl + 1 : end;
		if (n > LINE_MAX_LEN)
			errs_add(&e, "%s:%u: line longer than %d bytes", name, lineno,
				 LINE_MAX_LEN);
		else if (memchr(ln, '\0', n))
			errs_add(&e, "%s:%u: a NUL byte is not text", name, lineno);
		else {
			memcpy(line, ln, n);
			line[n] = '\0';
			parse_line(c, line, name, lineno, &e);
		}
	}
	check(c, name, &e);
	return errs_end(&e);
}

/* The configuration names commands root runs (notify-command, sendmail)
 * and where root writes (motd-path): a file another user could change
 * makes root run what they chose. The state directory's rule (sshd's for
 * authorized_keys): the file and its directory belong to root or to whoever
 * runs this, and no one else may write them (a sticky directory, as /tmp,
 * is fine: no one else may replace a file in it). */
static bool trusted_owner(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

static int refuse(const char *path, const char *dir, const struct stat *st, char *err,
		  size_t errsz)
{
	const char *obj = dir ? dir : path;
	char buf[1024], owner[300];
	struct passwd pw, *found = NULL;

	if (getpwuid_r(st->st_uid, &pw, buf, sizeof(buf), &found) == 0 && found)
		snprintf(owner, sizeof(owner), "%s (uid %u)", found->pw_name, (unsigned)st->st_uid);
	else
		snprintf(owner, sizeof(owner), "uid %u", (unsigned)st->st_uid);
	snprintf(err, errsz, "%s: refused: %s%s belongs to %s, mode %04o; the configuration names "
		 "commands this program runs, so it and its directory must belong to root%s and "
		 "be writable by their owner alone (chown root: %s; chmod go-w %s)", path,
		 dir ? "its directory " : "the file", dir ? dir : "", owner,
		 (unsigned)(st->st_mode & 07777), geteuid() ? " or to you" : "", obj, obj);
	return -EPERM;
}

/* dir: the directory's name when fd is the directory, else NULL. */
static int check_trusted(int fd, const char *dir, const char *path, char *err, size_t errsz)
{
	struct stat st;
	bool loose;

	if (fstat(fd, &st) < 0) {
		snprintf(err, errsz, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (!dir && !S_ISREG(st.st_mode)) {
		snprintf(err, errsz, "%s: not a regular file", path);
		return -EINVAL;
	}
	loose = (st.st_mode & (S_IWGRP | S_IWOTH)) && !(dir && (st.st_mode & S_ISVTX));
	if (!trusted_owner(st.st_uid) || loose)
		return refuse(path, dir, &st, err, errsz);
	return 0;
}

/* path's directory reached without following a link another user could
 * change (lib/atomic.c), checked, then path opened in it, not through a
 * link and never waiting on a FIFO, and checked: what is read is what was
 * checked. */
static int read_trusted(const char *path, struct cgfb_buf *b, char *err, size_t errsz)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	char dir[PATH_MAX];
	int dfd, fd, rc;

	if (slash && (size_t)(slash - path) >= sizeof(dir))
		return -ENAMETOOLONG;
	snprintf(dir, sizeof(dir), "%.*s", slash ? (slash == path ? 1 : (int)(slash - path)) : 1,
		 slash ? path : ".");
	dfd = cgfb_open_dir_path(dir, 0, 0);
	if (dfd < 0)
		return dfd;
	rc = check_trusted(dfd, dir, path, err, errsz);
	fd = rc < 0 ? -1 : openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (rc == 0 && fd < 0)
		rc = -errno;
	close(dfd);
	if (rc == 0)
		rc = check_trusted(fd, NULL, path, err, errsz);
	if (rc == 0)
		rc = cgfb_read_fd(fd, CONFIG_FILE_MAX, 0, b);
	if (fd >= 0)
		close(fd);
	return rc;
}

int cgfb_config_load(struct cgfb_config *c, const char *path, bool must_exist, char *err,
		     size_t errsz)
{
	struct cgfb_buf b = { 0 };
	int rc;

	if (errsz)
		err[0] = '\0';
	rc = read_trusted(path, &b, err, errsz);
	if (rc == -ENOENT && !must_exist) {
		struct errs e = { err, errsz, 0, 0 };

		check(c, path, &e);
		rc = errs_end(&e);
	} else if (rc < 0 && errsz && err[0]) {
		/* said by the check */
	} else if (rc == -EFBIG) {
		snprintf(err, errsz, "%s: larger than %u bytes", path, CONFIG_FILE_MAX);
	} else if (rc == -ELOOP) {
		snprintf(err, errsz, "%s: a symbolic link, or reached through one another user could "
			 "change; name the file itself", path);
	} else if (rc < 0) {
		snprintf(err, errsz, "%s: %s", path, strerror(-rc));
	} else {
		rc = cgfb_config_parse(c, b.data, b.len, path, err, errsz);
	}
	cgfb_buf_free(&b);
	return rc;
}

int cgfb_load_config(const struct cgfb_globals *g, struct cgfb_config *c)
{
	char err[4096];
	int rc;

	cgfb_config_defaults(c);
	rc = cgfb_config_load(c, g->config_path ? g->config_path : CGFB_DEFAULT_CONFIG,
			      g->config_path != NULL, err, sizeof(err));
	/* One log line per error: the log escapes a newline inside a line. */
	for (char *line = err, *next; rc < 0 && line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		cgfb_log(LOG_ERR, "%s", line);
	}
	return rc;
}
