// SPDX-License-Identifier: GPL-2.0
/* catalog-sync fixture (tests/integration/catalog-sync.sh): each function
 * plants one transformation the kernel applies to a format. Not a kernel. */
#include "memcontrol-v1.h"

/* split literals: the address and the next word split across literals */
static ssize_t mem_cgroup_frob_limit_write(struct kernfs_open_file *of, char *buf)
{
	pr_warn_once("memory.frob_limit is deprecated and will be removed. "
		     "Please report your usecase to linux-mm@"
		     "kvack.org if you depend on this functionality.\n");
	return 0;
}

/* two call sites of one text */
static int mem_cgroup_frob_events_write(struct cgroup_subsys_state *css, u64 val)
{
	pr_warn_once("memory.frob_events is deprecated. Contact cgroups@vger.kernel.org.\n");
	return 0;
}

static int memcg_frob_event_register(struct mem_cgroup *memcg)
{
	/* pr_warn("memory.commented_out is deprecated\n"); is not a call */
	pr_warn_once("memory.frob_events is deprecated. Contact cgroups@vger.kernel.org.\n");
	return 0;
}

/* %s of current->comm and %d of a pid */
static int mem_cgroup_frob_swap_write(struct cgroup_subsys_state *css, u64 val)
{
	pr_info_once("%s (%d): memory.frob_swap is obsolete and will be removed\n",
		     current->comm, task_pid_nr(current));
	return 0;
}

/* escapes: \" \\ \x41 \101 decoded, an embedded \n starts a second line */
static int mem_cgroup_frob_escape_write(struct cgroup_subsys_state *css, u64 val)
{
	pr_warn("memory.frob_\"esc\" \\ \x41\101 is deprecated.\nTell linux-mm@kvack.org what you use it for.\n");
	return 0;
}

/* trailing spaces kept; printk with KERN_NOTICE and once */
static int mem_cgroup_frob_space_write(struct cgroup_subsys_state *css, u64 val)
{
	printk_once(KERN_NOTICE "memory.frob_space is deprecated and will be removed  \n");
	return 0;
}

/* an existing catalog message (M7's text) at another level: changed */
static int mem_cgroup_move_charge_write(struct cgroup_subsys_state *css, u64 val)
{
	pr_info_once("Cgroup memory moving (move_charge_at_immigrate) is deprecated. "
		     "Please report your usecase to linux-mm@kvack.org if you "
		     "depend on this functionality.\n");
	return 0;
}

/* out of scope: neither deprecated nor an address */
static void mem_cgroup_frob_noise(int n)
{
	pr_warn("memcg frob noise %d\n", n);
}
