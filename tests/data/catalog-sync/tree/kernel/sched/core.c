// SPDX-License-Identifier: GPL-2.0
/* catalog-sync fixture: in kernel/sched/ only the cpu controller's knob
 * handlers speak for cgroups; a deprecated boot option does not. */

static int cpu_frob_shares_write_u64(struct cgroup_subsys_state *css, struct cftype *cft, u64 val)
{
	pr_warn_once("cpu.frob_shares is deprecated, use cpu.weight\n");
	return 0;
}

static int __init setup_frob_decay(char *str)
{
	pr_warn("Ignoring the deprecated frob_decay= option\n");
	return 1;
}
__setup("frob_decay=", setup_frob_decay);

static struct cftype cpu_legacy_files[] = {
	{
		.name = "frob_shares",
		.write_u64 = cpu_frob_shares_write_u64,
	},
	{ }	/* Terminate */
};
