#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "privacy/allowlist.h"
#include "privacy/anon.h"
#include "privacy/rekey.h"
#include "privacy/reported.h"

/* What ends a word: a cgroup name holds none of these in practice, but
 * '.', '-', '_', '@', ':' and '\' (systemd's escapes) it does. */
static const char delims[] = " \t\r\n,;()[]{}<>\"'`/=|*!?";

/* "h:" and exactly CGFB_TOKEN_HEX hex digits, not inside a longer run. */
static bool has_token(const char *report, size_t len, const char tok[CGFB_ANON_MAX])
{
	const size_t n = strlen(tok);

	for (const char *p = report, *end = report + len; p + n <= end; p++) {
		p = memmem(p, (size_t)(end - p), tok, n);
		if (!p)
			return false;
		if (p + n == end || !isxdigit((unsigned char)p[n]))
			return true;
	}
	return false;
}

static bool reported(struct cgfb_anon *a, struct cgfb_rekey *rk, const char *w, size_t n,
		     const char *report, size_t len)
{
	char tok[CGFB_ANON_MAX];

	cgfb_anon_token(a, w, n, tok);
	if (strncmp(tok, "h:", 2) != 0 || strlen(tok) != 2 + CGFB_TOKEN_HEX)
		return false;
	if (has_token(report, len, tok))
		return true;
	if (!rk)
		return false;
	cgfb_rekey_hex(rk, tok + 2, true);
	return has_token(report, len, tok);
}

static int add_word(struct cgfb_local_names *ln, const char *w, size_t n)
{
	char word[CGFB_ANON_MAX];

	if (n >= sizeof(word))
		return 0;
	memcpy(word, w, n);
	word[n] = '\0';
	return cgfb_local_names_add(ln, word, CGFB_SECRET_CGROUP);
}

int cgfb_local_names_add_reported(struct cgfb_local_names *ln, const char *text,
				  const char *report, size_t len,
				  const uint8_t key[CGFB_SECRET_LEN], const char *endpoint)
{
	struct cgfb_allowlist *al = NULL;
	struct cgfb_anon *a = NULL;
	struct cgfb_rekey *rk = NULL;
	char err[256];
	int rc, found = 0;

	rc = cgfb_allowlist_load(&al, NULL, err, sizeof(err));
	if (rc == 0)
		rc = cgfb_anon_new(key, al, &a);
	if (rc == 0 && endpoint && *endpoint)
		rc = cgfb_rekey_new(key, endpoint, &rk);
	for (const char *p = text; rc == 0 && p && *p;) {
		size_t n;

		p += strspn(p, delims);
		n = strcspn(p, delims);
		/* A sentence's end is no part of a name ("... cgroup acmedb."). */
		for (size_t m = n; m > 0; m--) {
			if (reported(a, rk, p, m, report, len)) {
				rc = add_word(ln, p, m);
				found++;
				break;
			}
			if (!strchr(".:,", p[m - 1]))
				break;
		}
		p += n;
	}
	cgfb_rekey_free(rk);
	cgfb_anon_free(a);
	cgfb_allowlist_free(al);
	return rc < 0 ? rc : found;
}
