#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "http/auth.h"
#include "cgfb/hex.h"
#include "cgfb/sha256.h"
#include "cgfb/log.h"

#define TOKEN_MIN 16
/* A session made by another instance whose clock is a little ahead. */
#define CLOCK_SLACK 60

/* RFC 6750's b64token (RFC 9110's token68): the only bytes a bearer token
 * may have. White space at the end of the header is not part of its value
 * (RFC 9110 5.5; libmicrohttpd 0.9.75 keeps it) and is skipped; a space, a
 * tab or a control character inside is refused, never trimmed to something
 * that happens to match. The token's length, without that white space, goes
 * to *len. */
static bool token68(const char *t, size_t *len)
{
	size_t n = strspn(t, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			     "0123456789-._~+/");

	if (n == 0)
		return false;
	n += strspn(t + n, "=");
	*len = n;
	return t[n + strspn(t + n, " \t")] == '\0';
}

static int add_token(struct auth *a, const char *path, unsigned line, const char *t, size_t n)
{
	unsigned char idmd[32];
	unsigned int len = 0;
	size_t tn;

	if (n < TOKEN_MIN || !token68(t, &tn) || tn != n) {
		cgfb_log(LOG_ERR, "admin token %s:%u: a token is at least %d characters, only "
			 "letters, digits and -._~+/ (and = at the end); no spaces", path, line,
			 TOKEN_MIN);
		return -EINVAL;
	}
	if (a->n == AUTH_MAX_TOKENS) {
		cgfb_log(LOG_ERR, "admin token %s:%u: more than %d tokens", path, line,
			 AUTH_MAX_TOKENS);
		return -E2BIG;
	}
	struct auth_token *k = &a->tok[a->n];

	EVP_Digest(t, n, k->key, &len, EVP_sha256(), NULL);
	for (size_t i = 0; i < a->n; i++)
		if (CRYPTO_memcmp(a->tok[i].key, k->key, sizeof(k->key)) == 0) {
			cgfb_log(LOG_ERR, "admin token %s:%u: the same token as line %u", path, line,
				 a->tok[i].line);
			return -EINVAL;
		}
	/* The cookie names its token by a hash of the hash: nothing to test
	 * guesses against. */
	EVP_Digest(k->key, sizeof(k->key), idmd, &len, EVP_sha256(), NULL);
	cgfb_hex(idmd, 8, k->id);
	k->line = line;
	a->n++;
	return 0;
}

int auth_load(struct auth *a, const char *path)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned no = 0;
	ssize_t n;
	int rc = 0;
	FILE *f;

	memset(a, 0, sizeof(*a));
	if (!path)
		return 0;
	f = fopen(path, "re");
	if (!f) {
		rc = -errno;
		cgfb_log(LOG_ERR, "admin token %s: %s", path, strerror(errno));
		return rc;
	}
	while (rc == 0 && (n = getline(&line, &cap, f)) >= 0) {
		no++;
		n = (ssize_t)strcspn(line, "\r\n");
		line[n] = '\0';
		if (n == 0 || line[0] == '#')
			continue;
		rc = add_token(a, path, no, line, (size_t)n);
		OPENSSL_cleanse(line, (size_t)n);
	}
	if (line)
		OPENSSL_cleanse(line, cap);
	free(line);
	fclose(f);
	if (rc == 0 && a->n == 0) {
		cgfb_log(LOG_ERR, "admin token %s: no token in the file", path);
		rc = -EINVAL;
	}
	if (rc < 0) {
		OPENSSL_cleanse(a, sizeof(*a));
		return rc;
	}
	a->admin_enabled = true;
	return 0;
}

static const char *bearer(const char *h, size_t *len)
{
	if (!h || strncasecmp(h, "Bearer ", 7) != 0)
		return NULL;
	h += 7;
	while (*h == ' ')
		h++;
	return token68(h, len) ? h : NULL;
}

/* The token of the request's Bearer header, or NULL. Every token is
 * compared, whichever matches. */
static const struct auth_token *bearer_token(const struct auth *a, const char *authorization)
{
	const struct auth_token *found = NULL;
	unsigned char md[32];
	unsigned int mdlen = 0;
	size_t len;
	const char *t = bearer(authorization, &len);

	if (!a->admin_enabled || !t)
		return NULL;
	EVP_Digest(t, len, md, &mdlen, EVP_sha256(), NULL);
	for (size_t i = 0; i < a->n; i++)
		if (CRYPTO_memcmp(md, a->tok[i].key, sizeof(md)) == 0)
			found = &a->tok[i];
	return found;
}

/* "v1.ID.EXPIRY" and its MAC under the token's key, in hex. */
static int session_mac(const struct auth_token *k, const char *head, size_t n, char out[65])
{
	unsigned char md[32];
	size_t mdlen = 0;
	unsigned char msg[64];

	if (n + 13 > sizeof(msg))
		return -EINVAL;
	memcpy(msg, "cgfb-session", 13);     /* with its NUL: a domain apart */
	memcpy(msg + 13, head, n);
	if (!EVP_Q_mac(NULL, "HMAC", NULL, "SHA256", NULL, k->key, sizeof(k->key), msg, n + 13,
		       md, sizeof(md), &mdlen))
		return -EIO;
	cgfb_hex(md, sizeof(md), out);
	return 0;
}

unsigned auth_session_new(const struct auth *a, const char *authorization, time_t now,
			  char out[AUTH_SESSION_MAX])
{
	const struct auth_token *k = bearer_token(a, authorization);
	int n;

	if (!k)
		return 0;
	n = snprintf(out, AUTH_SESSION_MAX, "v1.%s.%" PRIdMAX ".", k->id,
		     (intmax_t)now + AUTH_SESSION_TTL);
	if (n < 0 || n + 65 > AUTH_SESSION_MAX || session_mac(k, out, (size_t)n - 1, out + n) < 0)
		return 0;
	return k->line;
}

static bool all_of(const char *s, size_t n, const char *set)
{
	for (size_t i = 0; i < n; i++)
		if (!strchr(set, s[i]) || s[i] == '\0')
			return false;
	return n > 0;
}

bool auth_session_valid(const struct auth *a, const char *v, size_t len, time_t now)
{
	const char *exp = v + 3 + 16 + 1, *dot, *mac;
	char want[65], head[40];
	const struct auth_token *k = NULL;
	intmax_t expiry = 0;

	if (!a->admin_enabled || len < 3 + 16 + 1 + 1 + 1 + 64 || len >= AUTH_SESSION_MAX ||
	    memcmp(v, "v1.", 3) != 0 || !all_of(v + 3, 16, "0123456789abcdef") || v[19] != '.')
		return false;
	dot = memchr(exp, '.', len - (size_t)(exp - v));
	if (!dot || dot - exp > 12 || !all_of(exp, (size_t)(dot - exp), "0123456789"))
		return false;
	mac = dot + 1;
	if ((size_t)(v + len - mac) != 64 || (size_t)(mac - v) >= sizeof(head))
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (memcmp(a->tok[i].id, v + 3, 16) == 0)
			k = &a->tok[i];
	if (!k)
		return false;
	for (const char *p = exp; p < dot; p++)
		expiry = expiry * 10 + (*p - '0');
	if (expiry <= (intmax_t)now || expiry > (intmax_t)now + AUTH_SESSION_TTL + CLOCK_SLACK)
		return false;
	memcpy(head, v, (size_t)(dot - v));
	if (session_mac(k, head, (size_t)(dot - v), want) < 0)
		return false;
	return CRYPTO_memcmp(want, mac, 64) == 0;
}

const char *auth_cookie(const char *h, const char *name, size_t *len)
{
	const size_t nl = strlen(name);

	while (h && *h) {
		h += strspn(h, " \t;");
		const size_t pair = strcspn(h, ";");

		if (pair > nl && strncmp(h, name, nl) == 0 && h[nl] == '=') {
			size_t n = pair - nl - 1;

			while (n && (h[nl + 1 + n - 1] == ' ' || h[nl + 1 + n - 1] == '\t'))
				n--;
			*len = n;
			return h + nl + 1;
		}
		h += pair;
	}
	return NULL;
}

bool auth_is_admin(const struct auth *a, const char *method, const char *authorization,
		   const char *cookie, time_t now)
{
	const char *c;
	size_t len;

	if (bearer_token(a, authorization))
		return true;
	/* A cookie rides along with any request the browser makes, forged
	 * forms included: it is good for reading only. */
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return false;
	c = auth_cookie(cookie, AUTH_COOKIE, &len);
	return c && auth_session_valid(a, c, len, now);
}

const char *auth_deletion_token(const struct http_request *rq, size_t *len)
{
	const char *t = http_header(rq, "X-Deletion-Token");

	if (t)
		return token68(t, len) ? t : NULL;
	return bearer(http_header(rq, "Authorization"), len);
}
