// SPDX-License-Identifier: GPL-2.0
/* catalog-sync fixture: pr_fmt from a local header; invalfc gets none. */
#include "cgroup-internal.h"

/* an existing catalog message (C4), unchanged: kept on its id */
static int cgroup1_reconfigure(struct fs_context *fc)
{
	if (changed)
		pr_warn("option changes via remount are deprecated (pid=%d comm=%s)\n",
			task_tgid_nr(current), current->comm);
	return 0;
}

/* pr_fmt applied */
static int cgroup1_frob_mount(struct fs_context *fc)
{
	pr_warn("the frob mount option is deprecated and will be removed\n");
	return 0;
}

/* invalfc: the format is the second argument, no pr_fmt */
static int cgroup1_frob_param(struct fs_context *fc, struct fs_parameter *param)
{
	return invalfc(fc, "frob_v1 is obsolete, mount cgroup2 instead");
}

/* warnfc: level 4, the type's name first, then a capture: its group is 2 */
static int cgroup1_frob_warn(struct fs_context *fc)
{
	warnfc(fc, "frob_v2 used by %s is deprecated", current->comm);
	return 0;
}
