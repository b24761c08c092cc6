#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "cgfb/report_id.h"

#define VERSION_BYTE 6
#define VARIANT_BYTE 8

static const char label[] = "cgroup-feedback report id";   /* with its NUL */

static bool hash_hex(const char *h)
{
	return h && strlen(h) == 64 && strspn(h, "0123456789abcdef") == 64;
}

/* Bytes 8..15 of an id bound to h, variant bits set. */
static void binding(const char *h, uint8_t out[8])
{
	unsigned char msg[sizeof(label) + 64], md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	memcpy(msg, label, sizeof(label));
	memcpy(msg + sizeof(label), h, 64);
	EVP_Digest(msg, sizeof(msg), md, &n, EVP_sha256(), NULL);
	memcpy(out, md, 8);
	out[0] = (uint8_t)((out[0] & 0x3f) | 0x80);
}

static int unhex(char c)
{
	return c <= '9' ? c - '0' : c - 'a' + 10;
}

/* The 16 bytes of a valid id. */
static void id_bytes(const char *id, uint8_t u[16])
{
	for (int i = 0, j = 0; j < 16; i += 2, j++) {
		if (id[i] == '-')
			i++;
		u[j] = (uint8_t)(unhex(id[i]) << 4 | unhex(id[i + 1]));
	}
}

int cgfb_report_nonce_random(uint8_t nonce[CGFB_REPORT_NONCE_LEN])
{
	size_t got = 0;

	while (got < CGFB_REPORT_NONCE_LEN) {
		const ssize_t r = getrandom(nonce + got, CGFB_REPORT_NONCE_LEN - got, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		got += (size_t)r;
	}
	nonce[VERSION_BYTE] &= 0x0f;
	return 0;
}

int cgfb_report_id_nonce(const char *id, uint8_t nonce[CGFB_REPORT_NONCE_LEN])
{
	uint8_t u[16];

	if (!id || !cgfb_report_id_valid(id))
		return -EINVAL;
	id_bytes(id, u);
	memcpy(nonce, u, CGFB_REPORT_NONCE_LEN);
	nonce[VERSION_BYTE] &= 0x0f;
	return 0;
}

int cgfb_report_id_make(const uint8_t nonce[CGFB_REPORT_NONCE_LEN],
			const char *token_sha256_hex, char out[CGFB_REPORT_ID_LEN + 1])
{
	uint8_t u[16];

	if (!hash_hex(token_sha256_hex))
		return -EINVAL;
	memcpy(u, nonce, CGFB_REPORT_NONCE_LEN);
	u[VERSION_BYTE] = (uint8_t)((u[VERSION_BYTE] & 0x0f) | 0x40);
	binding(token_sha256_hex, u + VARIANT_BYTE);
	snprintf(out, CGFB_REPORT_ID_LEN + 1,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
		 u[13], u[14], u[15]);
	return 0;
}

bool cgfb_report_id_bound(const char *id, const char *token_sha256_hex)
{
	uint8_t u[16], want[8];

	if (!id || !cgfb_report_id_valid(id) || !hash_hex(token_sha256_hex))
		return false;
	id_bytes(id, u);
	binding(token_sha256_hex, want);
	/* The version nibble is no part of the binding, but an id without it
	 * is no id a client made. */
	return (u[VERSION_BYTE] >> 4) == 4 && CRYPTO_memcmp(u + VARIANT_BYTE, want, 8) == 0;
}
