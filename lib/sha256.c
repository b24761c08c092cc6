#include <openssl/evp.h>

#include "cgfb/hex.h"
#include "cgfb/sha256.h"

void cgfb_sha256_hex(const void *data, size_t len, char hex[65])
{
	unsigned char md[32];
	unsigned int n = 0;

	EVP_Digest(data, len, md, &n, EVP_sha256(), NULL);
	cgfb_hex(md, sizeof(md), hex);
}
