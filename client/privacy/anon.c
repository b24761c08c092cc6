#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>

#include "cgfb/hex.h"
#include "privacy/anon.h"

struct cgfb_anon {
	const struct cgfb_allowlist *al;
	EVP_MAC *mac;
	EVP_MAC_CTX *ctx;
	uint8_t key[CGFB_SECRET_LEN];
};

int cgfb_anon_new(const uint8_t key[CGFB_SECRET_LEN], const struct cgfb_allowlist *al,
		  struct cgfb_anon **out)
{
	struct cgfb_anon *a = calloc(1, sizeof(*a));
	char digest[] = "SHA256";
	OSSL_PARAM params[] = {
		OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
		OSSL_PARAM_construct_end(),
	};
	int rc = -ENOMEM;

	*out = NULL;
	if (!a)
		return -ENOMEM;
	a->al = al;
	memcpy(a->key, key, CGFB_SECRET_LEN);
	a->mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	a->ctx = a->mac ? EVP_MAC_CTX_new(a->mac) : NULL;
	if (!a->ctx)
		goto fail;
	/* Initialised once; later EVP_MAC_init calls without a key reuse it. */
	if (!EVP_MAC_init(a->ctx, a->key, sizeof(a->key), params)) {
		rc = -EINVAL;
		goto fail;
	}
	*out = a;
	return 0;
fail:
	cgfb_anon_free(a);
	return rc;
}

void cgfb_anon_free(struct cgfb_anon *a)
{
	if (!a)
		return;
	EVP_MAC_CTX_free(a->ctx);
	EVP_MAC_free(a->mac);
	OPENSSL_cleanse(a->key, sizeof(a->key));
	free(a);
}

void cgfb_anon_token(struct cgfb_anon *a, const char *s, size_t len, char out[CGFB_ANON_MAX])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	size_t mdlen = 0;

	if (!EVP_MAC_init(a->ctx, NULL, 0, NULL) ||
	    !EVP_MAC_update(a->ctx, (const unsigned char *)s, len) ||
	    !EVP_MAC_final(a->ctx, md, &mdlen, sizeof(md)) || mdlen < CGFB_TOKEN_HEX / 2) {
		/* Never fall back to the name itself: a constant says "unknown". */
		memset(md, 0, sizeof(md));
	}
	memcpy(out, "h:", 2);
	cgfb_hex(md, CGFB_TOKEN_HEX / 2, out + 2);
}

void cgfb_anon_name(struct cgfb_anon *a, const char *name, size_t len, char out[CGFB_ANON_MAX])
{
	const char *kept = cgfb_allowlist_name(a->al, name, len);

	if (kept) {
		snprintf(out, CGFB_ANON_MAX, "%s", kept);
		return;
	}
	cgfb_anon_token(a, name, len, out);
}

void cgfb_anon_comm(struct cgfb_anon *a, const char *comm, size_t len, char out[CGFB_ANON_MAX])
{
	if (cgfb_allowlist_comm(a->al, comm, len) && len < CGFB_ANON_MAX) {
		memcpy(out, comm, len);
		out[len] = '\0';
		return;
	}
	/* The generalisations serve process names too: runc's children call
	 * themselves "runc:[1:CHILD]". */
	cgfb_anon_name(a, comm, len, out);
}
