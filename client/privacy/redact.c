#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <pwd.h>
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "privacy/allowlist.h"
#include "privacy/cgnames.h"
#include "privacy/cgwords.h"
#include "privacy/normalise.h"
#include "privacy/redact.h"

/* Shorter names ("vm", "db") are ordinary words; flagging them would train
 * people to click through. From three characters ("db1") a name is found
 * as a whole word. */
#define NAME_MIN 3

static const char *const kind_names[] = {
	"e-mail address", "IPv4 address", "IPv6 address", "URL with credentials", "token",
	"host name", "user name", "URL", "home directory", "MAC address", "network share",
	"credentials", "cgroup name",
};

const char *cgfb_secret_name(enum cgfb_secret_kind k)
{
	return kind_names[k];
}

/* Patterns over the normalised text, most specific first: a later one does
 * not take bytes an earlier one found. group: the subexpression that is the
 * finding, when the pattern matches a boundary character around it (0: the
 * match, less the boundary characters of the old address patterns). */
static const struct {
	enum cgfb_secret_kind kind;
	int group;
	int flags;
	const char *re;
} patterns[] = {
	{ CGFB_SECRET_URL_CREDENTIALS, 0, 0, "[A-Za-z][A-Za-z0-9+.-]*://[^/[:space:]:@]+:[^/[:space:]@]+@[^[:space:]\"'<>]*" },
	/* Every URL names a place, credentials or not. */
	{ CGFB_SECRET_URL, 0, 0, "[A-Za-z][A-Za-z0-9+.-]*://[^[:space:]\"'<>]+" },
	/* Windows and Samba shares: \\fs01\payroll, //fs01/payroll. */
	{ CGFB_SECRET_SHARE, 0, 0, "\\\\\\\\[A-Za-z0-9_.$-]+(\\\\[^[:space:]\\\\\"'<>]+)*\\\\?" },
	{ CGFB_SECRET_SHARE, 2, 0, "(^|[^:/A-Za-z0-9._-])(//[A-Za-z0-9_$-]+(\\.[A-Za-z0-9_$-]+)*/[^[:space:]\"'<>]*)" },
	/* Connection strings: two or more "key=value;" in a row. */
	{ CGFB_SECRET_CREDENTIALS, 2, 0, "(^|[^A-Za-z0-9])(([A-Za-z]+( [A-Za-z]+)?[[:space:]]*=[^;=\n]*;[ \t]*){2,}([A-Za-z]+( [A-Za-z]+)?[[:space:]]*=[^;=[:space:]]*)?)" },
	/* "user app pass s3cr3t", "login: bob password: x": the pair. */
	{ CGFB_SECRET_CREDENTIALS, 2, REG_ICASE, "(^|[^A-Za-z0-9])((user(name)?|login)([[:space:]]*[:=][[:space:]]*|[[:space:]]+)[^[:space:],;]+[[:space:],;]+(password|passwd|pass|pwd|pw)([[:space:]]*[:=][[:space:]]*|[[:space:]]+(is[[:space:]]+)?)[^[:space:]]+)" },
	/* user:password@host without a scheme: the user goes too. */
	{ CGFB_SECRET_CREDENTIALS, 2, 0, "(^|[^A-Za-z0-9._%+/-])([A-Za-z0-9._%+-]+:[^[:space:]@/]+@[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*)" },
	/* user@host, user@host.domain; unit instances are told apart below. */
	{ CGFB_SECRET_EMAIL, 0, 0, "[A-Za-z0-9._%+-]+@[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*" },
	/* MAC addresses: 00:1a:2b:3c:4d:5e, 00-1A-..., 001a.2b3c.4d5e, and a
	 * bare run of 12 hex digits mixing letters and digits (checked below). */
	{ CGFB_SECRET_MAC, 2, 0, "(^|[^0-9A-Za-z:-])(([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2})($|[^0-9A-Za-z:-])" },
	{ CGFB_SECRET_MAC, 2, 0, "(^|[^0-9A-Za-z.])([0-9A-Fa-f]{4}\\.[0-9A-Fa-f]{4}\\.[0-9A-Fa-f]{4})($|[^0-9A-Za-z]|[.]($|[^0-9A-Za-z]))" },
	{ CGFB_SECRET_MAC, 2, 0, "(^|[^0-9A-Za-z])([0-9A-Fa-f]{12})($|[^0-9A-Za-z])" },
	/* A dot after the last octet may end the sentence: "ssh to 10.1.2.3."
	 * Octets may be zero-padded: 010.001.002.003. */
	{ CGFB_SECRET_IPV4, 0, 0, "(^|[^0-9.])(25[0-5]|2[0-4][0-9]|[01]?[0-9]?[0-9])(\\.(25[0-5]|2[0-4][0-9]|[01]?[0-9]?[0-9])){3}($|[^0-9.]|[.]($|[^0-9]))" },
	{ CGFB_SECRET_IPV6, 0, 0, "(^|[^0-9A-Fa-f:])[0-9A-Fa-f]{0,4}(:[0-9A-Fa-f]{0,4}){2,7}($|[^0-9A-Fa-f:])" },
	{ CGFB_SECRET_HOME, 0, 0, "(/home/|/Users/|/export/home/|/var/home/|~)[A-Za-z0-9._-]+" },
	/* Host names in any dotted form, '_' in labels too (db_01.corp.example,
	 * _ldap._tcp.example): labels, then a top-level label of letters. Knobs
	 * and unit names ("memory.high", "system.slice") are told apart below. */
	{ CGFB_SECRET_HOSTNAME, 2, 0, "(^|[^A-Za-z0-9_.-])([A-Za-z0-9_]([A-Za-z0-9_-]{0,62})(\\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,62}))*\\.[A-Za-z]{2,63})($|[^A-Za-z0-9_-])" },
	/* API keys, hashes, passwords pasted by accident: long runs that mix
	 * letters and digits. Checked for the mix below. */
	{ CGFB_SECRET_TOKEN, 0, 0, "[A-Za-z0-9_+/=-]{20,}" },
	{ CGFB_SECRET_TOKEN, 0, 0, "[0-9A-Fa-f]{16,}" },
};

#define NPATTERNS (sizeof(patterns) / sizeof(patterns[0]))

/* Compiled once: the review scans a few texts, the tests thousands. */
static regex_t compiled[NPATTERNS];
static bool compiled_ok[NPATTERNS];
static pthread_once_t compile_once = PTHREAD_ONCE_INIT;

static void compile_patterns(void)
{
	for (size_t p = 0; p < NPATTERNS; p++)
		compiled_ok[p] = regcomp(&compiled[p], patterns[p].re,
					 REG_EXTENDED | patterns[p].flags) == 0;
}

/* The accounts every installation of a distribution has (Debian's
 * base-passwd, systemd's, the usual daemons'): they say nothing about which
 * machine wrote the text, and some are words of any report ("root"). */
static bool distribution_account(const char *name)
{
	static const char *const common[] = {
		"root", "daemon", "bin", "sys", "sync", "games", "man", "lp", "mail", "news",
		"uucp", "proxy", "www-data", "backup", "list", "irc", "gnats", "nobody", "_apt",
		"messagebus", "sshd", "polkitd", "tss", "uuidd", "dnsmasq",
		"_rpc", "statd", "tcpdump", "avahi", "rtkit", "pulse", "colord", "saned",
		"geoclue", "usbmux", "_chrony", "chrony", "ntp", "halt", "shutdown", "operator",
		"adm", "ftp", "nfsnobody", "syslog", "_laurel",
	};

	if (strncmp(name, "systemd-", 8) == 0)       /* systemd's own, any version's */
		return true;
	for (size_t i = 0; i < sizeof(common) / sizeof(common[0]); i++)
		if (strcmp(name, common[i]) == 0)
			return true;
	return false;
}

int cgfb_local_names_add(struct cgfb_local_names *ln, const char *word, enum cgfb_secret_kind k)
{
	if (strlen(word) < NAME_MIN)
		return 0;
	for (size_t i = 0; i < ln->n; i++)
		if (strcasecmp(ln->word[i], word) == 0)
			return 0;
	if (ln->n >= CGFB_REDACT_MAX_WORDS)
		return -ENOSPC;
	ln->word[ln->n] = strdup(word);
	if (!ln->word[ln->n])
		return -ENOMEM;
	ln->kind[ln->n++] = k;
	return 0;
}

void cgfb_local_names_free(struct cgfb_local_names *ln)
{
	for (size_t i = 0; i < ln->n; i++)
		free(ln->word[i]);
	ln->n = 0;
}

static void add_hostnames(struct cgfb_local_names *ln, const char *hostname_file)
{
	char buf[256];
	FILE *f;

	if (gethostname(buf, sizeof(buf)) == 0) {
		buf[sizeof(buf) - 1] = '\0';
		cgfb_local_names_add(ln, buf, CGFB_SECRET_HOSTNAME);
		/* The short name too: "db1" of "db1.example.com". */
		char *dot = strchr(buf, '.');

		if (dot) {
			*dot = '\0';
			cgfb_local_names_add(ln, buf, CGFB_SECRET_HOSTNAME);
		}
	}
	f = fopen(hostname_file ? hostname_file : "/etc/hostname", "re");
	if (f && fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\r\n")] = '\0';
		cgfb_local_names_add(ln, buf, CGFB_SECRET_HOSTNAME);
	}
	if (f)
		fclose(f);
}

static bool real_shell(const char *sh)
{
	return !strstr(sh, "nologin") && strcmp(sh, "/bin/false") != 0 &&
	       strcmp(sh, "/usr/bin/false") != 0 && *sh;
}

/* Any account that can log in or has a home directory in passwd (Debian's
 * "mysql" has "/nonexistent" and no shell): system accounts too
 * ("postgres", "git"), for they are named after what this machine runs. */
static void add_user(struct cgfb_local_names *ln, const struct passwd *pw)
{
	const bool home = pw->pw_dir && *pw->pw_dir && strcmp(pw->pw_dir, "/") != 0;

	if ((real_shell(pw->pw_shell) || home) && !distribution_account(pw->pw_name))
		cgfb_local_names_add(ln, pw->pw_name, CGFB_SECRET_USER);
}

/* Users from NSS (LDAP, SSSD, systemd-homed as much as /etc/passwd), or
 * from passwd_file for tests. */
static void add_users(struct cgfb_local_names *ln, const char *passwd_file)
{
	const char *sudo_user = getenv("SUDO_USER");
	struct passwd *pw;
	FILE *f;

	if (passwd_file) {
		f = fopen(passwd_file, "re");
		while (f && (pw = fgetpwent(f)) != NULL)
			add_user(ln, pw);
		if (f)
			fclose(f);
	} else {
		setpwent();
		while ((pw = getpwent()) != NULL)
			add_user(ln, pw);
		endpwent();
	}
	if (sudo_user)
		cgfb_local_names_add(ln, sudo_user, CGFB_SECRET_USER);
	if (getuid() != 0 && (pw = getpwuid(getuid())) != NULL)
		cgfb_local_names_add(ln, pw->pw_name, CGFB_SECRET_USER);
}

static int add_cgroup_name(void *arg, const char *name)
{
	return cgfb_local_names_add(arg, name, CGFB_SECRET_CGROUP);
}

int cgfb_local_names_add_cgroups(struct cgfb_local_names *ln, const char *root,
				 const struct cgfb_allowlist *al)
{
	return cgfb_cgroup_names(root, al, add_cgroup_name, ln);
}

int cgfb_local_names_load(struct cgfb_local_names *ln, const char *hostname_file,
			  const char *passwd_file)
{
	struct cgfb_allowlist *al = NULL;
	char err[256];

	memset(ln, 0, sizeof(*ln));
	add_hostnames(ln, hostname_file);
	add_users(ln, passwd_file);
	/* Without the allowlist every cgroup name would count: too many
	 * findings, not too few. It is compiled in; only ENOMEM fails it. */
	if (cgfb_allowlist_load(&al, NULL, err, sizeof(err)) == 0)
		cgfb_local_names_add_cgroups(ln, CGFB_CGROUP_ROOT, al);
	cgfb_allowlist_free(al);
	return 0;
}

static bool mixed(const char *s, size_t n)
{
	bool alpha = false, digit = false;

	for (size_t i = 0; i < n; i++) {
		alpha |= isalpha((unsigned char)s[i]) != 0;
		digit |= isdigit((unsigned char)s[i]) != 0;
	}
	return alpha && digit;
}

static size_t add(struct cgfb_finding *out, size_t n, size_t max, enum cgfb_secret_kind k,
		  size_t start, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (start < out[i].start + out[i].len && out[i].start < start + len)
			return n;     /* overlaps an earlier, more specific finding */
	if (n < max)
		out[n++] = (struct cgfb_finding){ k, start, len };
	return n;
}

/* The match without the boundary characters the pattern had to consume:
 * an address begins and ends with a digit (IPv4) or a hex digit or colon
 * (IPv6); "jdoe10.1.2.3" leaves "jdoe" to the name search. */
static void trim_boundary(const char *text, regmatch_t *m, bool v6)
{
	while (m->rm_so < m->rm_eo && !(v6 ? isxdigit((unsigned char)text[m->rm_so]) ||
					   text[m->rm_so] == ':' : isdigit((unsigned char)text[m->rm_so])))
		m->rm_so++;
	while (m->rm_eo > m->rm_so && !(v6 ? isxdigit((unsigned char)text[m->rm_eo - 1]) ||
					   text[m->rm_eo - 1] == ':' : isdigit((unsigned char)text[m->rm_eo - 1])))
		m->rm_eo--;
}

/* Not a secret: a finding that only keeps other patterns off these bytes. */
#define PUBLIC ((enum cgfb_secret_kind)-1)

/* The lists the kernel's messages name are public, and no one's secret. */
static bool public_list(const char *s, size_t len)
{
	static const char *const lists[] = {
		"linux-mm@kvack.org", "linux-mm-@kvack.org", "cgroups@vger.kernel.org",
	};

	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		if (len == strlen(lists[i]) && strncasecmp(s, lists[i], len) == 0)
			return true;
	return false;
}

/* "user@1000.service", "getty@tty1.service" are unit instances; a host
 * without a dot must have a letter ("alice@db01", not "user@1000"). */
static bool email_shaped(const char *s, size_t len)
{
	const char *at = memchr(s, '@', len);
	const size_t hl = len - (size_t)(at + 1 - s);
	bool letter = false;

	if (cgfb_unit_shaped(at + 1, hl))
		return false;
	for (size_t i = 0; i < hl; i++)
		letter |= isalpha((unsigned char)at[1 + i]) != 0;
	return letter;
}

static bool keep_match(enum cgfb_secret_kind k, const char *s, size_t len)
{
	switch (k) {
	case CGFB_SECRET_TOKEN:
		return mixed(s, len);
	case CGFB_SECRET_MAC:
		return len != 12 || mixed(s, len);
	case CGFB_SECRET_IPV6:
		return memchr(s, ':', len) != NULL;
	case CGFB_SECRET_HOSTNAME:
		return !cgfb_knob_shaped(s, len) && !cgfb_unit_shaped(s, len);
	case CGFB_SECRET_EMAIL:
		return email_shaped(s, len);
	default:
		return true;
	}
}

/* Trailing blanks a group had to take ("a=b; c=d; "). */
static void trim_space(const char *text, regmatch_t *m)
{
	while (m->rm_eo > m->rm_so && isspace((unsigned char)text[m->rm_eo - 1]))
		m->rm_eo--;
}

static size_t find_pattern(size_t p, const char *text, struct cgfb_finding *out, size_t n,
			   size_t max)
{
	regmatch_t m[8];
	size_t off = 0;

	while (text[off] && regexec(&compiled[p], text + off, 8, m, off ? REG_NOTBOL : 0) == 0) {
		regmatch_t g = m[patterns[p].group];

		if (m[0].rm_eo == 0 || g.rm_so < 0) {
			off++;
			continue;
		}
		/* The old address patterns match a boundary character. */
		if (patterns[p].group)
			trim_space(text + off, &g);
		else if (patterns[p].kind == CGFB_SECRET_IPV4 || patterns[p].kind == CGFB_SECRET_IPV6)
			trim_boundary(text + off, &g, patterns[p].kind == CGFB_SECRET_IPV6);
		const size_t s = off + (size_t)g.rm_so, len = (size_t)(g.rm_eo - g.rm_so);

		/* A public list's address is claimed, so that no later pattern
		 * takes its domain for a host name, and dropped at the end. */
		if (len && patterns[p].kind == CGFB_SECRET_EMAIL && public_list(text + s, len))
			n = add(out, n, max, PUBLIC, s, len);
		else if (len && keep_match(patterns[p].kind, text + s, len))
			n = add(out, n, max, patterns[p].kind, s, len);
		off = s + (len ? len : 1);
	}
	return n;
}

static size_t find_patterns(const char *text, struct cgfb_finding *out, size_t n, size_t max)
{
	pthread_once(&compile_once, compile_patterns);
	for (size_t p = 0; p < NPATTERNS; p++)
		if (compiled_ok[p])
			n = find_pattern(p, text, out, n, max);
	return n;
}

/* A name's edge against its neighbour: apart when the neighbour is no
 * letter or digit ("jdoe-admin", "backup.jdoe", "acmedb01_data"), or a
 * digit after a letter ("jdoe2"); "jdoes" and "db1x" are other words. */
static bool apart(char edge, char next)
{
	return !isalnum((unsigned char)next) ||
	       (isalpha((unsigned char)edge) && isdigit((unsigned char)next));
}

/* Names compare as a reader tells them apart: case, and the digits that
 * pass for letters ("acmedb0l" with a letter o and an l is "acmedb01"). */
static char look(char c)
{
	c = (char)tolower((unsigned char)c);
	return c == '0' ? 'o' : c == '1' || c == 'i' ? 'l' : c;
}

static bool same_look(const char *s, const char *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (look(s[i]) != look(w[i]))
			return false;
	return true;
}

static bool covered(const struct cgfb_finding *out, size_t n, size_t pos)
{
	for (size_t i = 0; i < n; i++)
		if (out[i].kind != PUBLIC && pos >= out[i].start && pos < out[i].start + out[i].len)
			return true;
	return false;
}

static size_t find_words_once(const char *text, const struct cgfb_local_names *ln,
			      struct cgfb_finding *out, size_t n, size_t max)
{
	const size_t tlen = strlen(text);

	for (size_t w = 0; w < ln->n; w++) {
		const char *word = ln->word[w];
		const size_t wl = strlen(word);

		for (size_t i = 0; i + wl <= tlen; i++) {
			if (!same_look(text + i, word, wl))
				continue;
			/* A neighbour that is itself found will be "[redacted …]". */
			if ((i > 0 && !apart(word[0], text[i - 1]) && !covered(out, n, i - 1)) ||
			    (!apart(word[wl - 1], text[i + wl]) && !covered(out, n, i + wl)))
				continue;
			n = add(out, n, max, ln->kind[w], i, wl);
		}
	}
	return n;
}

/* Until nothing more is found: the redacted text, scanned again, must
 * not show a name that was hidden by its neighbour ("db1db1"). */
static size_t find_words(const char *text, const struct cgfb_local_names *ln,
			 struct cgfb_finding *out, size_t n, size_t max)
{
	size_t before;

	do {
		before = n;
		n = find_words_once(text, ln, out, n, max);
	} while (n != before && n < max);
	return n;
}

static bool word_at(const char *s, const char *w)
{
	return strncasecmp(s, w, strlen(w)) == 0;
}

/* Labels a secret follows: "password is hunter2", "token: x", "pw x". */
static const struct {
	const char *label;
	bool password;          /* "is" is enough: "password is swordfish" */
} labels[] = {
	{ "passphrase", true }, { "password", true }, { "passwd", true }, { "pass", true },
	{ "pwd", true }, { "pw", true }, { "api key", false }, { "api-key", false },
	{ "api_key", false }, { "apikey", false }, { "access key", false },
	{ "access_key", false }, { "token", false }, { "secret", false },
};

/* Words that follow a label in prose: "the password is not set". */
static bool prose(const char *s, size_t n)
{
	static const char *const words[] = {
		"not", "the", "a", "an", "set", "unset", "empty", "stored", "kept", "required",
		"needed", "valid", "invalid", "wrong", "correct", "same", "changed", "expired",
		"missing", "rotated", "managed", "used", "in", "on", "of", "to", "from", "for",
		"and", "or", "is", "was", "through", "it", "them", "that", "this",
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (n == strlen(words[i]) && strncasecmp(s, words[i], n) == 0)
			return true;
	return false;
}

/* Looks made up rather than written: a digit, a symbol or mixed case, six
 * characters at least ("hunter2", "s3cr3t", not "bucket" or "4G"). */
static bool secret_looking(const char *s, size_t n)
{
	bool digit = false, symbol = false, upper = false, lower = false;

	for (size_t i = 0; i < n; i++) {
		const unsigned char c = (unsigned char)s[i];

		digit |= isdigit(c) != 0;
		upper |= isupper(c) != 0;
		lower |= islower(c) != 0;
		symbol |= !isalnum(c);
	}
	return n >= 6 && (digit || symbol || (upper && lower));
}

/* The value after a label at s: its offset and length; 0 when there is
 * none or it reads as prose. */
static size_t label_value(const char *s, bool password, size_t *vs)
{
	size_t i = 0, n;
	int form;       /* 2: "x: v", "x=v"; 1: "x is v"; 0: "x v" */

	while (s[i] == ' ' || s[i] == '\t')
		i++;
	if (s[i] == ':' || s[i] == '=') {
		form = 2;
		i++;
	} else if (i && (word_at(s + i, "is ") || word_at(s + i, "was "))) {
		form = 1;
		i += s[i] == 'i' || s[i] == 'I' ? 3 : 4;
	} else if (i) {
		form = 0;
	} else {
		return 0;
	}
	while (s[i] == ' ' || s[i] == '\t')
		i++;
	*vs = i;
	for (n = 0; s[i + n] && !isspace((unsigned char)s[i + n]); n++)
		;
	while (n && strchr(".,;:!?)\"'", s[i + n - 1]))
		n--;
	if (!n || (form < 2 && prose(s + i, n)))
		return 0;
	if (form == 0 || (form == 1 && !password))
		return secret_looking(s + i, n) ? n : 0;
	return n;
}

static size_t find_labelled(const char *text, struct cgfb_finding *out, size_t n, size_t max)
{
	for (size_t i = 0; text[i]; i++) {
		if (i && isalnum((unsigned char)text[i - 1]))
			continue;
		for (size_t l = 0; l < sizeof(labels) / sizeof(labels[0]); l++) {
			const size_t ll = strlen(labels[l].label);
			size_t vs, vl;

			if (!word_at(text + i, labels[l].label) || isalnum((unsigned char)text[i + ll]))
				continue;
			vl = label_value(text + i + ll, labels[l].password, &vs);
			if (vl)
				n = add(out, n, max, CGFB_SECRET_CREDENTIALS, i + ll + vs, vl);
			break;
		}
	}
	return n;
}

static int by_start(const void *a, const void *b)
{
	const struct cgfb_finding *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Two findings in one code point's expansion overlap in the original:
 * the first takes both. */
static size_t merge_overlaps(struct cgfb_finding *out, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (k && out[i].start < out[k - 1].start + out[k - 1].len) {
			const size_t end = out[i].start + out[i].len;

			if (end > out[k - 1].start + out[k - 1].len)
				out[k - 1].len = end - out[k - 1].start;
			continue;
		}
		out[k++] = out[i];
	}
	return k;
}

size_t cgfb_find_secrets(const char *text, const struct cgfb_local_names *ln,
			 struct cgfb_finding *out, size_t max)
{
	struct cgfb_normal f = { 0 };
	size_t n = 0;

	/* Without memory for the normalised copy, scan the text as it is. */
	const bool normal = cgfb_normalise(text, &f) == 0;
	const char *scan = normal ? f.text : text;

	n = find_patterns(scan, out, 0, max);
	n = find_labelled(scan, out, n, max);
	if (ln)
		n = find_words(scan, ln, out, n, max);
	size_t kept = 0;

	for (size_t i = 0; i < n; i++)
		if (out[i].kind != PUBLIC)
			out[kept++] = out[i];
	n = kept;
	for (size_t i = 0; normal && i < n; i++) {
		size_t e = out[i].start + out[i].len;

		/* A finding that ends inside an expansion ("ﬁ" -> "fi") takes the
		 * whole code point. */
		while (e < f.len && f.at[e] == f.at[e - 1])
			e++;
		out[i].start = f.at[out[i].start];
		out[i].len = f.at[e] - out[i].start;
	}
	qsort(out, n, sizeof(*out), by_start);
	cgfb_normal_free(&f);
	return merge_overlaps(out, n);
}

char *cgfb_redact(const char *text, const struct cgfb_finding *f, size_t n)
{
	size_t cap = strlen(text) + 1, pos = 0, o = 0;
	char *out;

	for (size_t i = 0; i < n; i++)
		cap += strlen(cgfb_secret_name(f[i].kind)) + 12;
	out = malloc(cap);
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		memcpy(out + o, text + pos, f[i].start - pos);
		o += f[i].start - pos;
		o += (size_t)sprintf(out + o, "[redacted %s]", cgfb_secret_name(f[i].kind));
		pos = f[i].start + f[i].len;
	}
	strcpy(out + o, text + pos);
	return out;
}

char *cgfb_redact_replace(char *text, const struct cgfb_finding *f, size_t n)
{
	char *red = cgfb_redact(text, f, n);

	if (!red)
		return text;
	free(text);
	return red;
}
