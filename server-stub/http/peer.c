#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "http/peer.h"

int peer_key(const struct sockaddr *sa, char out[PEER_KEY_MAX])
{
	char text[INET6_ADDRSTRLEN];
	struct in6_addr a6;

	if (sa && sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;

		return inet_ntop(AF_INET, &s4->sin_addr, out, PEER_KEY_MAX) ? 0 : -EAFNOSUPPORT;
	}
	if (!sa || sa->sa_family != AF_INET6)
		goto unknown;
	a6 = ((const struct sockaddr_in6 *)sa)->sin6_addr;
	if (IN6_IS_ADDR_V4MAPPED(&a6))
		return inet_ntop(AF_INET, &a6.s6_addr[12], out, PEER_KEY_MAX) ? 0 : -EAFNOSUPPORT;
	memset(&a6.s6_addr[PEER_V6_PREFIX / 8], 0, 16 - PEER_V6_PREFIX / 8);
	if (!inet_ntop(AF_INET6, &a6, text, sizeof(text)))
		goto unknown;
	snprintf(out, PEER_KEY_MAX, "%s/%d", text, PEER_V6_PREFIX);
	return 0;
unknown:
	snprintf(out, PEER_KEY_MAX, "unknown");
	return -EAFNOSUPPORT;
}
