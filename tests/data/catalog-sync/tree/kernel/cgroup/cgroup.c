// SPDX-License-Identifier: GPL-2.0
/* catalog-sync fixture: the file system types whose names logfc() puts
 * before an invalfc/warnfc message (fc->log.prefix = fs_type->name). */
#include "cgroup-internal.h"

static struct file_system_type cgroup_fs_type = {
	.name			= "cgroup",
	.init_fs_context	= cgroup_init_fs_context,
	.fs_flags		= FS_USERNS_MOUNT,
};

static struct file_system_type cgroup2_fs_type = {
	.name			= "cgroup2",
	.init_fs_context	= cgroup_init_fs_context,
};

#ifdef CONFIG_CPUSETS_V1
static struct file_system_type cpuset_fs_type = {
	.name			= "cpuset",
	.init_fs_context	= cpuset_init_fs_context,
};
#endif
