#include <ctype.h>
#include <errno.h>
#include <pwd.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "privacy/redact.h"

/* Shorter names ("adm", "ftp") are ordinary words; flagging them would
 * train people to click through. */
#define NAME_MIN 3

static const char *const kind_names[] = {
	"e-mail address", "IPv4 address", "IPv6 address", "URL with credentials", "token",
	"host name", "user name",
};

const char *cgfb_secret_name(enum cgfb_secret_kind k)
{
	return kind_names[k];
}

static const struct {
	enum cgfb_secret_kind kind;
	const char *re;
} patterns[] = {
	{ CGFB_SECRET_URL_CREDENTIALS, "[A-Za-z][A-Za-z0-9+.-]*://[^/[:space:]:@]+:[^/[:space:]@]+@" },
	{ CGFB_SECRET_EMAIL, "[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)+" },
	{ CGFB_SECRET_IPV4, "(^|[^0-9.])(25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])(\\.(25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])){3}($|[^0-9.])" },
	{ CGFB_SECRET_IPV6, "(^|[^0-9A-Fa-f:])[0-9A-Fa-f]{0,4}(:[0-9A-Fa-f]{0,4}){2,7}($|[^0-9A-Fa-f:])" },
	/* API keys, hashes, passwords pasted by accident: long runs that mix
	 * letters and digits. Checked for the mix below. */
	{ CGFB_SECRET_TOKEN, "[A-Za-z0-9_+/=-]{24,}" },
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

static void add_users(struct cgfb_local_names *ln, const char *passwd_file)
{
	FILE *f = fopen(passwd_file ? passwd_file : "/etc/passwd", "re");
	struct passwd *pw;
	const char *sudo_user = getenv("SUDO_USER");

	if (f) {
		while ((pw = fgetpwent(f)) != NULL)
			if (pw->pw_uid >= 1000 && pw->pw_uid < 65534 && real_shell(pw->pw_shell))
				cgfb_local_names_add(ln, pw->pw_name, CGFB_SECRET_USER);
		fclose(f);
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
			if (patterns[p].kind == CGFB_SECRET_IPV4 || patterns[p].kind == CGFB_SECRET_IPV6)
				trim_boundary(text + off, &m);
			const size_t s = off + (size_t)m.rm_so, len = (size_t)(m.rm_eo - m.rm_so);

			if (len && (patterns[p].kind != CGFB_SECRET_TOKEN || mixed(text + s, len)) &&
			    (patterns[p].kind != CGFB_SECRET_IPV6 || memchr(text + s, ':', len)))
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

size_t cgfb_find_secrets(const char *text, const struct cgfb_local_names *ln,
			 struct cgfb_finding *out, size_t max)
{
	size_t n = find_patterns(text, out, 0, max);

	if (ln)
		n = find_words(text, ln, out, n, max);
	qsort(out, n, sizeof(*out), by_start);
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
