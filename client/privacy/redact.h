/* Spotting what should not leave the machine in free text an administrator
 * typed: e-mail addresses, IP and MAC addresses, URLs, network shares, host
 * names in dotted form, home directories, tokens, labelled passwords and
 * connection strings, this machine's host name, its accounts' names and the
 * names of its cgroups that reports carry as tokens. The text is scanned as
 * privacy/normalise.h reads it (invisible characters dropped, NFKC, ASCII
 * confusables folded, defanged addresses undone); findings point into the
 * original bytes. A best effort: the administrator reviews what is sent. */
#ifndef CGFB_REDACT_H
#define CGFB_REDACT_H

#include <stddef.h>

#define CGFB_REDACT_MAX_FINDINGS 64
#define CGFB_REDACT_MAX_WORDS    1024

enum cgfb_secret_kind {
	CGFB_SECRET_EMAIL,
	CGFB_SECRET_IPV4,
	CGFB_SECRET_IPV6,
	CGFB_SECRET_URL_CREDENTIALS,
	CGFB_SECRET_TOKEN,
	CGFB_SECRET_HOSTNAME,
	CGFB_SECRET_USER,
	CGFB_SECRET_URL,
	CGFB_SECRET_HOME,
	CGFB_SECRET_MAC,
	CGFB_SECRET_SHARE,
	CGFB_SECRET_CREDENTIALS,
	CGFB_SECRET_CGROUP,
};

struct cgfb_finding {
	enum cgfb_secret_kind kind;
	size_t start;
	size_t len;
};

/* Names that identify this machine: host name(s), account names, cgroup
 * names. Found inside compounds ("acmedb01-replica", "backup.jdoe"). */
struct cgfb_local_names {
	size_t n;
	char *word[CGFB_REDACT_MAX_WORDS];
	enum cgfb_secret_kind kind[CGFB_REDACT_MAX_WORDS];
};

/* From gethostname(2), hostname_file and passwd_file (every account with a
 * login shell or a home directory, system accounts too, but the ones every
 * installation of a distribution has: "root", "daemon", "www-data"...;
 * plus the invoking user), and the cgroups under /sys/fs/cgroup
 * (cgfb_local_names_add_cgroups, built-in allowlist). NULL paths use the
 * system's. */
int cgfb_local_names_load(struct cgfb_local_names *ln, const char *hostname_file,
			  const char *passwd_file);
void cgfb_local_names_free(struct cgfb_local_names *ln);
int cgfb_local_names_add(struct cgfb_local_names *ln, const char *word, enum cgfb_secret_kind k);

struct cgfb_allowlist;
/* The names of the cgroups under root (a cgroup mount, or the directory
 * holding them) that reports carry as tokens (privacy/cgnames.h); bounded.
 * 0, -ENOSPC when the list filled up, or -errno when root cannot be read. */
int cgfb_local_names_add_cgroups(struct cgfb_local_names *ln, const char *root,
				 const struct cgfb_allowlist *al);

const char *cgfb_secret_name(enum cgfb_secret_kind k);

/* Findings in text, sorted, not overlapping. Returns how many (at most max). */
size_t cgfb_find_secrets(const char *text, const struct cgfb_local_names *ln,
			 struct cgfb_finding *out, size_t max);

/* A copy of text with every finding replaced by "[redacted <kind>]";
 * malloc'ed, NULL on ENOMEM. */
char *cgfb_redact(const char *text, const struct cgfb_finding *f, size_t n);
/* The same for a malloc'ed text that is replaced (and freed); on ENOMEM the
 * text is returned unchanged. */
char *cgfb_redact_replace(char *text, const struct cgfb_finding *f, size_t n);

#endif
