/* Noise for the public counts (summary.h): the two-sided geometric
 * distribution, the discrete form of the Laplace mechanism of
 * differential privacy. P(X = x) is proportional to exp(-eps * |x| / s)
 * for a count that one install changes by at most s. */
#ifndef CGFB_SERVER_NOISE_H
#define CGFB_SERVER_NOISE_H

#include <stdint.h>

#define NOISE_KEY_LEN 32

/* The draw for label, a pure function of key and label: HMAC-SHA256 of the
 * label under the key is the randomness (a keyed pseudorandom function, so
 * with a key from getrandom(2) the draws are those of a CSPRNG). The
 * caller's label names the count and its true value, so the same numbers
 * get the same noise in every recomputation (averaging many summaries of
 * one state gains nothing), and changed numbers get a fresh draw. 0 when
 * eps_per_unit is not above 0. */
int64_t noise_geometric(const unsigned char key[NOISE_KEY_LEN], const char *label,
			double eps_per_unit);

#endif
