#include <errno.h>
#include <fcntl.h>
#include <stdio.h>

#include "base/bootid.h"
#include "cgfb/readfile.h"

int cgfb_read_boot_id(const char *path, char *buf, size_t bufsz)
{
	ssize_t n = cgfb_read_at(AT_FDCWD, path, buf, bufsz);

	if (n < 0)
		return (int)n;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return n > 0 ? 0 : -EBADMSG;
}

void cgfb_boot_id_dashed(const char *hex32, char out[CGFB_BOOT_ID_MAX])
{
	const char *h = hex32;

	snprintf(out, CGFB_BOOT_ID_MAX, "%.8s-%.4s-%.4s-%.4s-%.12s", h, h + 8, h + 12, h + 16, h + 20);
}
