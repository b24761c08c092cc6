#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <openssl/crypto.h>

#include "auth.h"
#include "cgfb/canon.h"
#include "cgfb/log.h"

#define TOKEN_MIN 16

int auth_load(struct auth *a, const char *path)
{
	char line[512];
	FILE *f;
	size_t n;

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
	if (n < TOKEN_MIN) {
		cgfb_log(LOG_ERR, "admin token %s: shorter than %d characters", path, TOKEN_MIN);
		return -EINVAL;
	}
	cgfb_sha256_hex(line, n, a->admin_sha256);
	OPENSSL_cleanse(line, sizeof(line));
	a->admin_enabled = true;
	return 0;
}

static const char *bearer(const struct http_request *rq)
{
	const char *h = http_header(rq, "Authorization");

	if (!h || strncasecmp(h, "Bearer ", 7) != 0)
		return NULL;
	h += 7;
	while (*h == ' ')
		h++;
	return *h ? h : NULL;
}

bool auth_is_admin(const struct auth *a, const struct http_request *rq)
{
	const char *token = bearer(rq);
	char got[65];

	if (!a->admin_enabled || !token)
		return false;
	cgfb_sha256_hex(token, strlen(token), got);
	return CRYPTO_memcmp(got, a->admin_sha256, 64) == 0;
}

const char *auth_deletion_token(const struct http_request *rq)
{
	const char *t = http_header(rq, "X-Deletion-Token");

	return t && *t ? t : bearer(rq);
}
