#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <openssl/crypto.h>

#include "http/auth.h"
#include "cgfb/sha256.h"
#include "cgfb/log.h"

#define TOKEN_MIN 16

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

int auth_load(struct auth *a, const char *path)
{
	char line[512];
	FILE *f;
	size_t n, tn;

	memset(a, 0, sizeof(*a));
	if (!path)
		return 0;
	f = fopen(path, "re");
	if (!f) {
		cgfb_log(LOG_ERR, "admin token %s: %s", path, strerror(errno));
		return -errno;
	}
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	n = strcspn(line, "\r\n");
	line[n] = '\0';
	if (n >= TOKEN_MIN && (!token68(line, &tn) || tn != n)) {
		cgfb_log(LOG_ERR, "admin token %s: the first line may hold only letters, digits "
			 "and -._~+/ (and = at the end); no spaces", path);
		OPENSSL_cleanse(line, sizeof(line));
		return -EINVAL;
	}
	if (n < TOKEN_MIN) {
		cgfb_log(LOG_ERR, "admin token %s: shorter than %d characters", path, TOKEN_MIN);
		return -EINVAL;
	}
	cgfb_sha256_hex(line, n, a->admin_sha256);
	OPENSSL_cleanse(line, sizeof(line));
	a->admin_enabled = true;
	return 0;
}

static const char *bearer(const struct http_request *rq, size_t *len)
{
	const char *h = http_header(rq, "Authorization");

	if (!h || strncasecmp(h, "Bearer ", 7) != 0)
		return NULL;
	h += 7;
	while (*h == ' ')
		h++;
	return token68(h, len) ? h : NULL;
}

bool auth_is_admin(const struct auth *a, const struct http_request *rq)
{
	size_t len;
	const char *token = bearer(rq, &len);
	char got[65];

	if (!a->admin_enabled || !token)
		return false;
	cgfb_sha256_hex(token, len, got);
	return CRYPTO_memcmp(got, a->admin_sha256, 64) == 0;
}

const char *auth_deletion_token(const struct http_request *rq, size_t *len)
{
	const char *t = http_header(rq, "X-Deletion-Token");

	if (t)
		return token68(t, len) ? t : NULL;
	return bearer(rq, len);
}
