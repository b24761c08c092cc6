#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>

#include "privacy/rekey.h"

/* Feistel rounds over two 24-bit halves; each round function is HMAC, so
 * eight rounds leave no structure a reader of reports could use. */
#define ROUNDS 8
#define HALF_MASK 0xffffffu

struct cgfb_rekey {
	EVP_MAC *mac;
	EVP_MAC_CTX *ctx;
};

static int endpoint_key(const uint8_t key[CGFB_SECRET_LEN], const char *endpoint,
			unsigned char out[32])
{
	return cgfb_secret_derive(key, "tokens", endpoint, strlen(endpoint), out);
}

int cgfb_rekey_new(const uint8_t key[CGFB_SECRET_LEN], const char *endpoint,
		   struct cgfb_rekey **out)
{
	struct cgfb_rekey *rk = calloc(1, sizeof(*rk));
	char digest[] = "SHA256";
	OSSL_PARAM params[] = {
		OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
		OSSL_PARAM_construct_end(),
	};
	unsigned char k[32];
	int rc = -ENOMEM;

	*out = NULL;
	if (!rk)
		return -ENOMEM;
	rc = endpoint_key(key, endpoint, k);
	if (rc < 0)
		goto fail;
	rc = -ENOMEM;
	rk->mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	rk->ctx = rk->mac ? EVP_MAC_CTX_new(rk->mac) : NULL;
	if (!rk->ctx)
		goto fail;
	if (!EVP_MAC_init(rk->ctx, k, sizeof(k), params)) {
		rc = -EINVAL;
		goto fail;
	}
	OPENSSL_cleanse(k, sizeof(k));
	*out = rk;
	return 0;
fail:
	OPENSSL_cleanse(k, sizeof(k));
	cgfb_rekey_free(rk);
	return rc;
}

void cgfb_rekey_free(struct cgfb_rekey *rk)
{
	if (!rk)
		return;
	EVP_MAC_CTX_free(rk->ctx);
	EVP_MAC_free(rk->mac);
	free(rk);
}

static uint32_t round_fn(struct cgfb_rekey *rk, unsigned round, uint32_t half)
{
	const unsigned char in[4] = { (unsigned char)round, (unsigned char)(half >> 16),
				      (unsigned char)(half >> 8), (unsigned char)half };
	unsigned char md[EVP_MAX_MD_SIZE];
	size_t mdlen = 0;

	/* A failing MAC gives a constant: the token is then wrong, never the name. */
	if (!EVP_MAC_init(rk->ctx, NULL, 0, NULL) || !EVP_MAC_update(rk->ctx, in, sizeof(in)) ||
	    !EVP_MAC_final(rk->ctx, md, &mdlen, sizeof(md)) || mdlen < 3)
		return 0;
	return (uint32_t)md[0] << 16 | (uint32_t)md[1] << 8 | md[2];
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

void cgfb_rekey_hex(struct cgfb_rekey *rk, char hex[CGFB_TOKEN_HEX], bool forward)
{
	static const char digits[] = "0123456789abcdef";
	uint64_t v = 0;
	uint32_t l, r, t;

	for (int i = 0; i < CGFB_TOKEN_HEX; i++)
		v = v << 4 | (uint64_t)hexval(hex[i]);
	l = (uint32_t)(v >> 24) & HALF_MASK;
	r = (uint32_t)v & HALF_MASK;
	for (unsigned i = 0; i < ROUNDS; i++) {
		if (forward) {
			t = r;
			r = l ^ round_fn(rk, i, r);
			l = t;
		} else {
			t = l;
			l = r ^ round_fn(rk, ROUNDS - 1 - i, l);
			r = t;
		}
	}
	v = (uint64_t)l << 24 | r;
	for (int i = CGFB_TOKEN_HEX - 1; i >= 0; i--, v >>= 4)
		hex[i] = digits[v & 15];
}

size_t cgfb_rekey_text(struct cgfb_rekey *rk, char *s, size_t len, bool forward)
{
	size_t n = 0;

	for (size_t i = 0; i + 2 + CGFB_TOKEN_HEX <= len; i++) {
		size_t k = 0;

		if (s[i] != 'h' || s[i + 1] != ':')
			continue;
		while (k < CGFB_TOKEN_HEX && hexval(s[i + 2 + k]) >= 0)
			k++;
		if (k != CGFB_TOKEN_HEX ||
		    (i + 2 + k < len && hexval(s[i + 2 + k]) >= 0))
			continue;
		cgfb_rekey_hex(rk, s + i + 2, forward);
		n++;
		i += 1 + CGFB_TOKEN_HEX;
	}
	return n;
}
