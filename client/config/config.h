/* /etc/cgroup-feedback/cgroup-feedback.conf: "key = value" lines, '#'
 * comments. Every key is documented in cgroup-feedback.conf(5). */
#ifndef CGFB_CONFIG_H
#define CGFB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/hint.h"     /* CGFB_DEFAULT_CONFIG: the hints leave it out */
#define CGFB_CONFIG_STR_MAX 512
#define CGFB_CONFIG_ERRORS_MAX 20

enum cgfb_consent_mode {
	CGFB_CONSENT_ASK,     /* default: nothing leaves without a yes at a prompt */
	CGFB_CONSENT_NEVER,   /* reports stay local; export still works by hand */
	CGFB_CONSENT_AUTO,    /* configuration management: needs use-case-file */
};

enum cgfb_notify_channel {
	CGFB_NOTIFY_LOG = 1 << 0,
	CGFB_NOTIFY_MOTD = 1 << 1,
	CGFB_NOTIFY_WALL = 1 << 2,
	CGFB_NOTIFY_COMMAND = 1 << 3,
};

struct cgfb_config {
	char endpoint[CGFB_CONFIG_STR_MAX];      /* the collector; "" (the default): none */
	char ca_file[CGFB_CONFIG_STR_MAX];
	char pinned_public_key[CGFB_CONFIG_STR_MAX];
	char proxy[CGFB_CONFIG_STR_MAX];
	long connect_timeout;          /* seconds */
	long timeout;                  /* seconds, whole request */
	int max_attempts;
	enum cgfb_consent_mode consent;
	char use_case_file[CGFB_CONFIG_STR_MAX];
	unsigned notify;               /* CGFB_NOTIFY_* */
	char notify_command[CGFB_CONFIG_STR_MAX];
	char admin_group[64];
	/* Written for the system's spool, or for any other when login does
	 * not show it (consent/notify.h). */
	char motd_path[CGFB_CONFIG_STR_MAX];
	char mail_to[CGFB_CONFIG_STR_MAX];
	char mail_from[CGFB_CONFIG_STR_MAX];
	char smtp_url[CGFB_CONFIG_STR_MAX];     /* smtp://host:587, STARTTLS required */
	char sendmail[CGFB_CONFIG_STR_MAX];     /* used when smtp-url is empty */
	char allowlist_file[CGFB_CONFIG_STR_MAX];
};

void cgfb_config_defaults(struct cgfb_config *c);
/* The i-th key the file may set, NULL past the last. */
const char *cgfb_config_key(size_t i);
/* Load path over the defaults. A missing file is fine when !must_exist.
 * Every error of the file is in err, one "FILE:LINE: what" per line (the
 * first CGFB_CONFIG_ERRORS_MAX, then a count). Returns 0 or a negative
 * errno. */
int cgfb_config_load(struct cgfb_config *c, const char *path, bool must_exist, char *err,
		     size_t errsz);
/* The same over the bytes of a file, name naming it in errors. */
int cgfb_config_parse(struct cgfb_config *c, const char *buf, size_t len, const char *name,
		      char *err, size_t errsz);
/* The same for one "key = value" line (also used for --set KEY=VALUE). */
int cgfb_config_set(struct cgfb_config *c, const char *key, const char *value, char *err,
		    size_t errsz);

struct cgfb_globals;
/* The configuration file the global options name (--config, or the
 * default, which may be missing) over the defaults. Reports each error
 * itself, one log line each. */
int cgfb_load_config(const struct cgfb_globals *g, struct cgfb_config *c);

#endif
