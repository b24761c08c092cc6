// SPDX-License-Identifier: GPL-2.0
/* catalog-sync fixture: WARN_ONCE's format is its second argument. */
static int blkcg_frob_weight_write(struct cgroup_subsys_state *css, u64 val)
{
	WARN_ONCE(val > 1, "blkio.frob_weight is deprecated and will be removed\n");
	return 0;
}
