/* The two-sided geometric draw of noise.h: the difference of two
 * geometric variables of ratio a = exp(-eps) has P(x) = (1-a)/(1+a) a^|x|. */
#include <math.h>
#include <string.h>

#include <openssl/evp.h>

#include "store/noise.h"

/* A uniform double in (0, 1] from 53 bits. */
static double unit(const unsigned char b[8])
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | b[i];
	return ((double)(v >> 11) + 1.0) / 9007199254740992.0;
}

/* floor(ln u / ln a): P(k) = (1 - a) a^k, k = 0, 1, ... */
static int64_t geometric(double u, double a)
{
	const double k = floor(log(u) / log(a));

	return k > 1e15 ? (int64_t)1e15 : (int64_t)k;
}

int64_t noise_geometric(const unsigned char key[NOISE_KEY_LEN], const char *label,
			double eps_per_unit)
{
	unsigned char mac[32];
	size_t len = sizeof(mac);
	double a;

	if (!(eps_per_unit > 0))
		return 0;
	/* Without a MAC there is no noise to add, and no count may go out
	 * bare: the caller treats the sentinel as "suppress". */
	if (!EVP_Q_mac(NULL, "HMAC", NULL, "SHA256", NULL, key, NOISE_KEY_LEN,
		       (const unsigned char *)label, strlen(label), mac, sizeof(mac), &len))
		return INT64_MIN;
	a = exp(-eps_per_unit);
	return geometric(unit(mac), a) - geometric(unit(mac + 8), a);
}
