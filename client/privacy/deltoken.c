#include <errno.h>
#include <string.h>

#include <openssl/evp.h>

#include "cgfb/hex.h"
#include "cgfb/sha256.h"
#include "privacy/deltoken.h"

static int derive(const uint8_t secret[CGFB_SECRET_LEN], const uint8_t nonce[CGFB_REPORT_NONCE_LEN],
		  char token[CGFB_DELETION_TOKEN_HEX + 1])
{
	unsigned char md[32];
	const int rc = cgfb_secret_derive(secret, "deletion-token", nonce, CGFB_REPORT_NONCE_LEN, md);

	if (rc == 0)
		cgfb_hex(md, CGFB_DELETION_TOKEN_HEX / 2, token);
	explicit_bzero(md, sizeof(md));
	return rc;
}

int cgfb_deltoken_new_id(const uint8_t secret[CGFB_SECRET_LEN], const char *reserved,
			 char id[CGFB_REPORT_ID_LEN + 1])
{
	uint8_t nonce[CGFB_REPORT_NONCE_LEN];
	char token[CGFB_DELETION_TOKEN_HEX + 1], h[65];
	int rc;

	rc = reserved ? cgfb_report_id_nonce(reserved, nonce) : cgfb_report_nonce_random(nonce);
	if (rc == 0)
		rc = derive(secret, nonce, token);
	if (rc < 0)
		return rc;
	cgfb_sha256_hex(token, CGFB_DELETION_TOKEN_HEX, h);
	explicit_bzero(token, sizeof(token));
	return cgfb_report_id_make(nonce, h, id);
}

bool cgfb_deltoken_of(const uint8_t secret[CGFB_SECRET_LEN], const char *id,
		      char token[CGFB_DELETION_TOKEN_HEX + 1])
{
	uint8_t nonce[CGFB_REPORT_NONCE_LEN];
	char h[65];

	token[0] = '\0';
	if (cgfb_report_id_nonce(id, nonce) < 0 || derive(secret, nonce, token) < 0)
		return false;
	cgfb_sha256_hex(token, CGFB_DELETION_TOKEN_HEX, h);
	if (cgfb_report_id_bound(id, h))
		return true;
	explicit_bzero(token, CGFB_DELETION_TOKEN_HEX + 1);
	token[0] = '\0';
	return false;
}
