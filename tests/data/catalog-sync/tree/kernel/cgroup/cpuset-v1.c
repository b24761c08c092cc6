// SPDX-License-Identifier: GPL-2.0
/* catalog-sync fixture: %s of cft->name resolved through the cftype array
 * to the knobs whose handler prints it. */
#include "cgroup-internal.h"

static int cpuset_write_u64(struct cgroup_subsys_state *css, struct cftype *cft, u64 val)
{
	pr_warn_once("cpuset.%s is obsolete and will be removed\n", cft->name);
	return 0;
}

static int cpuset_write_s64(struct cgroup_subsys_state *css, struct cftype *cft, s64 val)
{
	return 0;
}

static struct cftype legacy_files[] = {
	{
		.name = "frob_spread_a",
		.write_u64 = cpuset_write_u64,
	},
	{
		.name = "frob_spread_b",
		.write_u64 = cpuset_write_u64,
	},
	{
		.name = "frob_relax_level",
		.write_s64 = cpuset_write_s64,
	},
	{ }	/* terminate */
};
