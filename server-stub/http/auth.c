#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "http/auth.h"
#include "cgfb/hex.h"
#include "cgfb/sha256.h"
#include "cgfb/log.h"

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

unsigned auth_token_bits(const char *t, size_t n)
{
	bool seen[256] = { false };
	unsigned distinct = 0, set = 0;
	bool digit = false, lower = false, upper = false, other = false, hex = true;
	const unsigned char *u = (const unsigned char *)t;

	while (n && t[n - 1] == '=')
		n--;
	for (size_t i = 0; i < n; i++) {
		distinct += !seen[u[i]];
		seen[u[i]] = true;
		digit |= u[i] >= '0' && u[i] <= '9';
		lower |= u[i] >= 'a' && u[i] <= 'z';
		upper |= u[i] >= 'A' && u[i] <= 'Z';
		other |= strchr("-._~+/", u[i]) != NULL;
		hex &= strchr("0123456789abcdef", u[i]) != NULL;
	}
	if (distinct < 8)
		return 0;
	/* Hex in one case only: "deadbeef" is not drawn from 26 letters;
	 * digits alone are 10. */
	if (!hex) {
		hex = true;
		for (size_t i = 0; i < n; i++)
			hex &= strchr("0123456789ABCDEF", u[i]) != NULL;
	}
	if (hex && (lower || upper))
		set = 16;
	else
		set = 10 * digit + 26 * lower + 26 * upper + 6 * other;
	return (unsigned)((double)n * log2((double)set));
}

/* Says what to run: the bytes debian/cgroup-feedback-server.postinst and
 * make run make (tr -dc, not tr -d ' \n': the log escapes a backslash).
 * Under systemd the path is the credential's copy, not the file to edit. */
static void weak_token(const char *path, unsigned line)
{
	const char *cred = getenv("CREDENTIALS_DIRECTORY");
	const bool copy = cred && *cred && strncmp(path, cred, strlen(cred)) == 0;

	cgfb_log(LOG_ERR, "admin token %s:%u: too easy to guess (under %d bits: a random token "
		 "is at least 32 hex digits or 22 base64 characters); make one (256 bits) with: "
		 "od -An -N32 -tx1 /dev/urandom | tr -dc 0-9a-f > %s", path, line, AUTH_TOKEN_BITS,
		 copy ? "/etc/cgroup-feedback-server/admin-token (the file LoadCredential= names)" :
		 path);
}

static int add_token(struct auth *a, const char *path, unsigned line, const char *t, size_t n)
{
	unsigned int len = 0;
	size_t tn;

	if (!token68(t, &tn) || tn != n) {
		cgfb_log(LOG_ERR, "admin token %s:%u: a token has only letters, digits and "
			 "-._~+/ (and = at the end); no spaces", path, line);
		return -EINVAL;
	}
	if (auth_token_bits(t, n) < AUTH_TOKEN_BITS) {
		weak_token(path, line);
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
	pthread_mutex_init(&a->lock, NULL);
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
		OPENSSL_cleanse(a->tok, sizeof(a->tok));
		a->n = 0;
		return rc;
	}
	a->admin_enabled = true;
	return 0;
}

void auth_free(struct auth *a)
{
	pthread_mutex_destroy(&a->lock);
	OPENSSL_cleanse(a, sizeof(*a));
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

bool auth_has_bearer(const char *authorization)
{
	return authorization && strncasecmp(authorization, "Bearer ", 7) == 0;
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

/* The table's entry for a cookie value, or NULL; the lock held. Values
 * are compared by their SHA-256 in constant time, every entry visited. */
static struct auth_session *session_find(struct auth *a, const char *v, size_t len,
					 int64_t now)
{
	struct auth_session *found = NULL;
	unsigned char md[32];
	unsigned int mdlen = 0;

	if (len != AUTH_SESSION_MAX - 1)
		return NULL;
	EVP_Digest(v, len, md, &mdlen, EVP_sha256(), NULL);
	for (size_t i = 0; i < AUTH_SESSIONS; i++)
		if (a->sess[i].end > now && CRYPTO_memcmp(md, a->sess[i].key, sizeof(md)) == 0)
			found = &a->sess[i];
	return found;
}

unsigned auth_session_new(struct auth *a, const char *authorization, int64_t now,
			  char out[AUTH_SESSION_MAX], bool *evicted)
{
	const struct auth_token *k = bearer_token(a, authorization);
	unsigned char id[32];
	unsigned int mdlen = 0;
	struct auth_session *e = NULL;

	*evicted = false;
	if (!k || RAND_priv_bytes(id, sizeof(id)) != 1)
		return 0;
	cgfb_hex(id, sizeof(id), out);
	OPENSSL_cleanse(id, sizeof(id));
	pthread_mutex_lock(&a->lock);
	/* A free or ended entry, else the live one closest to its end. */
	for (size_t i = 0; i < AUTH_SESSIONS; i++)
		if (!e || a->sess[i].end < e->end)
			e = &a->sess[i];
	*evicted = e->end > now;
	EVP_Digest(out, AUTH_SESSION_MAX - 1, e->key, &mdlen, EVP_sha256(), NULL);
	e->end = now + AUTH_SESSION_TTL;
	e->line = k->line;
	pthread_mutex_unlock(&a->lock);
	return k->line;
}

bool auth_session_valid(struct auth *a, const char *v, size_t len, int64_t now)
{
	bool ok;

	if (!a->admin_enabled)
		return false;
	pthread_mutex_lock(&a->lock);
	ok = session_find(a, v, len, now) != NULL;
	pthread_mutex_unlock(&a->lock);
	return ok;
}

unsigned auth_session_end(struct auth *a, const char *cookie, const char *name)
{
	struct auth_session *e;
	unsigned n = 0;
	size_t len;

	pthread_mutex_lock(&a->lock);
	for (const char *c = auth_cookie(cookie, name, &len); c; c = auth_cookie(c + len, name, &len))
		/* INT64_MIN: ended ones too, so that the entry's key goes. */
		if ((e = session_find(a, c, len, INT64_MIN))) {
			OPENSSL_cleanse(e, sizeof(*e));
			n++;
		}
	pthread_mutex_unlock(&a->lock);
	return n;
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

/* host[:port] of an origin "scheme://host[:port]", against the Host
 * header; both as the browser wrote them, letters in any case. */
static bool origin_is_host(const char *origin, const char *host)
{
	const char *p = origin ? strstr(origin, "://") : NULL;

	return p && host && *host && strcasecmp(p + 3, host) == 0;
}

bool auth_same_origin(const struct auth_request *r)
{
	/* Fetch Metadata (https://w3c.github.io/webappsec-fetch-metadata/):
	 * "same-site" is another port of the host, "none" a typed address. */
	if (r->sec_fetch_site)
		return strcmp(r->sec_fetch_site, "same-origin") == 0;
	return origin_is_host(r->origin, r->host);
}

bool auth_is_admin(struct auth *a, const struct auth_request *r, int64_t now)
{
	bool ok = false;
	size_t len;

	if (bearer_token(a, r->authorization))
		return true;
	/* A cookie rides along with any request the browser makes, forged
	 * forms and another port's <img> included: it is good for reading
	 * only, and only from the collector's own page. */
	if (!a->admin_enabled || (strcmp(r->method, "GET") != 0 && strcmp(r->method, "HEAD") != 0) ||
	    !auth_same_origin(r))
		return false;
	/* Every cookie of the name: one that another port planted with a
	 * longer Path comes first (RFC 6265 5.4 point 2) and must not hide
	 * the real one. */
	pthread_mutex_lock(&a->lock);
	for (const char *c = auth_cookie(r->cookie, r->cookie_name, &len); c && !ok;
	     c = auth_cookie(c + len, r->cookie_name, &len))
		ok = session_find(a, c, len, now) != NULL;
	pthread_mutex_unlock(&a->lock);
	return ok;
}

const char *auth_deletion_token(const struct http_request *rq, size_t *len)
{
	const char *t = http_header(rq, "X-Deletion-Token");

	if (t)
		return token68(t, len) ? t : NULL;
	return bearer(http_header(rq, "Authorization"), len);
}
