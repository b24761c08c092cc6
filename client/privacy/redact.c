#include <ctype.h>
#include <errno.h>
#include <pwd.h>
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "privacy/redact.h"

/* Shorter names ("vm", "db") are ordinary words; flagging them would train
 * people to click through. From three characters ("db1") a name is found
 * as a whole word. */
#define NAME_MIN 3

static const char *const kind_names[] = {
	"e-mail address", "IPv4 address", "IPv6 address", "URL with credentials", "token",
	"host name", "user name", "URL", "home directory",
};

const char *cgfb_secret_name(enum cgfb_secret_kind k)
{
	return kind_names[k];
}

static const struct {
	enum cgfb_secret_kind kind;
	const char *re;
} patterns[] = {
	{ CGFB_SECRET_URL_CREDENTIALS, "[A-Za-z][A-Za-z0-9+.-]*://[^/[:space:]:@]+:[^/[:space:]@]+@[^[:space:]\"'<>]*" },
	/* Every URL names a place, credentials or not. */
	{ CGFB_SECRET_URL, "[A-Za-z][A-Za-z0-9+.-]*://[^[:space:]\"'<>]+" },
	{ CGFB_SECRET_EMAIL, "[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)+" },
	/* A dot after the last octet may end the sentence: "ssh to 10.1.2.3." */
	{ CGFB_SECRET_IPV4, "(^|[^0-9.])(25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])(\\.(25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])){3}($|[^0-9.]|[.]($|[^0-9]))" },
	{ CGFB_SECRET_IPV6, "(^|[^0-9A-Fa-f:])[0-9A-Fa-f]{0,4}(:[0-9A-Fa-f]{0,4}){2,7}($|[^0-9A-Fa-f:])" },
	{ CGFB_SECRET_HOME, "(/home/|/Users/|/export/home/|/var/home/|~)[A-Za-z0-9._-]+" },
	/* Host names in any dotted form: labels, then a top-level label of
	 * letters. Knobs ("memory.high") are told apart below. */
	{ CGFB_SECRET_HOSTNAME, "(^|[^A-Za-z0-9_.-])[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*\\.[A-Za-z]{2,63}($|[^A-Za-z0-9_-])" },
	/* API keys, hashes, passwords pasted by accident: long runs that mix
	 * letters and digits. Checked for the mix below. */
	{ CGFB_SECRET_TOKEN, "[A-Za-z0-9_+/=-]{20,}" },
	{ CGFB_SECRET_TOKEN, "[0-9A-Fa-f]{16,}" },
};

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

static void add_user(struct cgfb_local_names *ln, const struct passwd *pw)
{
	if (pw->pw_uid >= 1000 && pw->pw_uid < 65534 && real_shell(pw->pw_shell))
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

int cgfb_local_names_load(struct cgfb_local_names *ln, const char *hostname_file,
			  const char *passwd_file)
{
	memset(ln, 0, sizeof(*ln));
	add_hostnames(ln, hostname_file);
	add_users(ln, passwd_file);
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

/* The match without the boundary characters the pattern had to consume. */
static void trim_boundary(const char *text, regmatch_t *m)
{
	while (m->rm_so < m->rm_eo && !isalnum((unsigned char)text[m->rm_so]) &&
	       text[m->rm_so] != ':')
		m->rm_so++;
	while (m->rm_eo > m->rm_so && !isalnum((unsigned char)text[m->rm_eo - 1]) &&
	       text[m->rm_eo - 1] != ':')
		m->rm_eo--;
}

/* "memory.high", "cgroup.procs", "cpuset.cpus": a knob, not a host. */
static bool knob_shaped(const char *s, size_t n)
{
	static const char *const firsts[] = {
		"memory", "cgroup", "cpuset", "blkio", "cpu", "cpuacct", "io", "pids", "freezer",
		"hugetlb", "devices", "net_cls", "net_prio", "perf_event", "rdma", "misc", "kmem",
	};
	const char *dot = memchr(s, '.', n);

	for (size_t i = 0; dot && i < sizeof(firsts) / sizeof(firsts[0]); i++)
		if ((size_t)(dot - s) == strlen(firsts[i]) && memcmp(s, firsts[i], dot - s) == 0)
			return true;
	return false;
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

static bool keep_match(enum cgfb_secret_kind k, const char *s, size_t len)
{
	switch (k) {
	case CGFB_SECRET_TOKEN:
		return mixed(s, len);
	case CGFB_SECRET_IPV6:
		return memchr(s, ':', len) != NULL;
	case CGFB_SECRET_HOSTNAME:
		return !knob_shaped(s, len);
	default:
		return true;
	}
}

static size_t find_patterns(const char *text, struct cgfb_finding *out, size_t n, size_t max)
{
	for (size_t p = 0; p < sizeof(patterns) / sizeof(patterns[0]); p++) {
		regex_t re;
		regmatch_t m;
		size_t off = 0;

		if (regcomp(&re, patterns[p].re, REG_EXTENDED) != 0)
			continue;
		while (text[off] && regexec(&re, text + off, 1, &m, off ? REG_NOTBOL : 0) == 0) {
			if (m.rm_eo == 0) {
				off++;
				continue;
			}
			/* Only the address patterns match a boundary character. */
			if (patterns[p].kind == CGFB_SECRET_IPV4 || patterns[p].kind == CGFB_SECRET_IPV6 ||
			    patterns[p].kind == CGFB_SECRET_HOSTNAME)
				trim_boundary(text + off, &m);
			const size_t s = off + (size_t)m.rm_so, len = (size_t)(m.rm_eo - m.rm_so);

			/* A public list's address is claimed, so that no later pattern
			 * takes its domain for a host name, and dropped at the end. */
			if (len && patterns[p].kind == CGFB_SECRET_EMAIL && public_list(text + s, len))
				n = add(out, n, max, PUBLIC, s, len);
			else if (len && keep_match(patterns[p].kind, text + s, len))
				n = add(out, n, max, patterns[p].kind, s, len);
			off = s + (len ? len : 1);
		}
		regfree(&re);
	}
	return n;
}

static bool word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

static size_t find_words(const char *text, const struct cgfb_local_names *ln,
			 struct cgfb_finding *out, size_t n, size_t max)
{
	const size_t tlen = strlen(text);

	for (size_t w = 0; w < ln->n; w++) {
		const size_t wl = strlen(ln->word[w]);

		for (size_t i = 0; i + wl <= tlen; i++) {
			if (strncasecmp(text + i, ln->word[w], wl) != 0)
				continue;
			if ((i > 0 && word_char(text[i - 1])) || word_char(text[i + wl]))
				continue;
			n = add(out, n, max, ln->kind[w], i, wl);
		}
	}
	return n;
}

static int by_start(const void *a, const void *b)
{
	const struct cgfb_finding *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* One code point of s (at most n bytes): its value and length; an invalid
 * byte is itself, length 1. */
static uint32_t decode(const unsigned char *s, size_t n, size_t *len)
{
	const unsigned need = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 :
			      (s[0] & 0xf0) == 0xe0 ? 3 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
	uint32_t cp = need == 1 ? s[0] : need == 2 ? s[0] & 0x1f : need == 3 ? s[0] & 0x0f : s[0] & 0x07;

	*len = 1;
	if (need <= 1 || need > n)
		return s[0];
	for (unsigned i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return s[0];
		cp = cp << 6 | (s[i] & 0x3f);
	}
	*len = need;
	return cp;
}

/* The ASCII character NFKC folds cp to, for the characters the scan looks
 * for (digits, letters, '@', '.', ':', '/'); 0 for any other. */
static char fold_cp(uint32_t cp)
{
	static const char sup[] = "0\0\0\0" "456789";

	if (cp >= 0xff01 && cp <= 0xff5e)          /* full-width ASCII */
		return (char)(cp - 0xfee0);
	if (cp >= 0x1d7ce && cp <= 0x1d7ff)        /* mathematical digits */
		return (char)('0' + (cp - 0x1d7ce) % 10);
	if (cp >= 0x2080 && cp <= 0x2089)          /* subscript digits */
		return (char)('0' + cp - 0x2080);
	if (cp >= 0x2070 && cp <= 0x2079 && sup[cp - 0x2070])
		return sup[cp - 0x2070];
	switch (cp) {
	case 0x00b9: return '1';
	case 0x00b2: return '2';
	case 0x00b3: return '3';
	case 0x3000: return ' ';
	case 0x3002: case 0xff61: case 0xfe52: case 0x2024: return '.';
	case 0xfe6b: return '@';
	case 0xfe55: case 0xfe13: return ':';
	default: return 0;
	}
}

/* text as the scan sees it, and for each of its bytes the offset of the
 * original byte it came from (plus one entry for the end). */
struct folded {
	char *text;
	size_t *at;
};

static int fold(const char *text, struct folded *f)
{
	const size_t n = strlen(text);
	size_t o = 0;

	f->text = malloc(n + 1);
	f->at = malloc((n + 1) * sizeof(*f->at));
	if (!f->text || !f->at)
		return -ENOMEM;
	for (size_t i = 0; i < n;) {
		size_t len;
		const uint32_t cp = decode((const unsigned char *)text + i, n - i, &len);
		const char c = cp >= 0x80 ? fold_cp(cp) : 0;

		if (c) {
			f->at[o] = i;
			f->text[o++] = c;
		} else {
			for (size_t k = 0; k < len; k++) {
				f->at[o] = i + k;
				f->text[o++] = text[i + k];
			}
		}
		i += len;
	}
	f->at[o] = n;
	f->text[o] = '\0';
	return 0;
}

size_t cgfb_find_secrets(const char *text, const struct cgfb_local_names *ln,
			 struct cgfb_finding *out, size_t max)
{
	struct folded f = { 0 };
	size_t n = 0;

	/* Without memory for the folded copy, scan the text as it is. */
	const bool folded = fold(text, &f) == 0;
	const char *scan = folded ? f.text : text;

	n = find_patterns(scan, out, 0, max);
	if (ln)
		n = find_words(scan, ln, out, n, max);
	size_t kept = 0;

	for (size_t i = 0; i < n; i++)
		if (out[i].kind != PUBLIC)
			out[kept++] = out[i];
	n = kept;
	for (size_t i = 0; folded && i < n; i++) {
		const size_t end = f.at[out[i].start + out[i].len];

		out[i].start = f.at[out[i].start];
		out[i].len = end - out[i].start;
	}
	qsort(out, n, sizeof(*out), by_start);
	free(f.text);
	free(f.at);
	return n;
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
