/* Giving up CAP_SYSLOG (privilege.h), with the raw system calls: the
 * watcher links no libcap. */
#include <errno.h>
#include <linux/capability.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "watch/privilege.h"

static int caps(struct __user_cap_data_struct d[2], int set)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };

	return syscall(set ? SYS_capset : SYS_capget, &h, d) < 0 ? -errno : 0;
}

int cgfb_drop_syslog(void)
{
	const uint32_t bit = UINT32_C(1) << (CAP_SYSLOG % 32);
	struct __user_cap_data_struct d[2];
	int rc = caps(d, 0);

	if (rc < 0)
		return rc;
	d[CAP_SYSLOG / 32].effective &= ~bit;
	d[CAP_SYSLOG / 32].permitted &= ~bit;
	d[CAP_SYSLOG / 32].inheritable &= ~bit;
	rc = caps(d, 1);
	if (rc < 0)
		return rc;
	if (prctl(PR_CAPBSET_DROP, CAP_SYSLOG, 0, 0, 0) < 0 && errno != EPERM)
		return -errno;
	return 0;
}
