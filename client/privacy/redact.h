/* Spotting what should not leave the machine in free text an administrator
 * typed: e-mail addresses, IP addresses, URLs, host names in dotted form,
 * home directories, tokens, this machine's host name and its users' names.
 * The text is scanned as NFKC would fold it (full-width '＠', '．', digits
 * count as '@', '.', digits); findings point into the original bytes. */
#ifndef CGFB_REDACT_H
#define CGFB_REDACT_H

#include <stddef.h>

#define CGFB_REDACT_MAX_FINDINGS 64
#define CGFB_REDACT_MAX_WORDS    256

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
};

struct cgfb_finding {
	enum cgfb_secret_kind kind;
	size_t start;
	size_t len;
};

/* Names that identify this machine: host name(s) and user names. */
struct cgfb_local_names {
	size_t n;
	char *word[CGFB_REDACT_MAX_WORDS];
	enum cgfb_secret_kind kind[CGFB_REDACT_MAX_WORDS];
};

/* From gethostname(2), hostname_file and passwd_file (users with uid >= 1000
 * and real shells, plus the invoking user). NULL paths use the system's. */
int cgfb_local_names_load(struct cgfb_local_names *ln, const char *hostname_file,
			  const char *passwd_file);
void cgfb_local_names_free(struct cgfb_local_names *ln);
int cgfb_local_names_add(struct cgfb_local_names *ln, const char *word, enum cgfb_secret_kind k);

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
