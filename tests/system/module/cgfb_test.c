// SPDX-License-Identifier: GPL-2.0
/*
 * cgfb_test: makes a real kernel print the texts of cgroup deprecation
 * messages that no Debian kernel prints, for the full-system test
 * (tests/system/). Built against Debian's linux-headers of the guest's
 * kernel; never meant for a production system.
 *
 *   s1       the SUSE patch's WARN_ONCE (the seed patch,
 *            "memcg: warn on deeper hierarchies with use_hierarchy==0"),
 *            from a function called mem_cgroup_create in mm/memcontrol.c as
 *            far as the WARN banner says: a full WARN block (cut here,
 *            banner with CPU, PID, file:line and function, the message,
 *            modules, CPU/PID/comm/tainted, registers, call trace, end trace)
 *   s2       the SUSE force_empty text ("comm (pid): memory.force_empty
 *            is deprecated...", pr_info as in the SUSE kernels)
 *   p2       Glauber Costa's unmerged proposal: two lines in one printk
 *   g1       a message no catalog entry describes that names linux-mm@kvack.org
 *            (the catalog's safety net, G1)
 *   flood=N  N KERN_DEBUG filler lines of 200 bytes: enough of them
 *            overwrite the oldest records of the ring buffer
 *
 * Load with trigger=WHAT, or write WHAT to
 * /sys/module/cgfb_test/parameters/trigger: the message is printed in the
 * context of the process that writes (its comm and pid are in it).
 * WARN_ONCE fires once per load of the module, as the kernel's once per boot.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/string.h>

static noinline void mem_cgroup_create(void);

static void flood(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		printk(KERN_DEBUG "cgfb_test: filler %u of %u %s\n", i + 1, n,
		       "................................................................"
		       "................................................................"
		       "..................................................");
		if ((i & 255) == 255)
			cond_resched();
	}
}

static int trigger_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;

	if (sysfs_streq(val, "s1"))
		mem_cgroup_create();
	else if (sysfs_streq(val, "s2"))
		pr_info("%s (%d): memory.force_empty is deprecated and will be removed.  "
			"Let us know if it is needed in your usecase at linux-mm@kvack.org\n",
			current->comm, task_pid_nr(current));
	else if (sysfs_streq(val, "p2"))
		pr_warn("Setting this file to 0 (flat hierarchy) is considered deprecated.\n"
			"If you believe you have a valid use case for that, we kindly ask you "
			"to contact linux-mm@kvack.org and let us know\n");
	else if (sysfs_streq(val, "g1"))
		pr_warn("cgfb_test: this message is in no catalog; please report your usecase "
			"to linux-mm@kvack.org if you see it\n");
	else if (strncmp(val, "flood=", 6) == 0 && kstrtouint(val + 6, 10, &n) == 0 &&
		 n <= 1000000)
		flood(n);
	else
		return -EINVAL;
	return 0;
}

static const struct kernel_param_ops trigger_ops = {
	.set = trigger_set,
};
module_param_cb(trigger, &trigger_ops, NULL, 0200);
MODULE_PARM_DESC(trigger, "s1, s2, p2, g1 or flood=N: print that message now");

static int __init cgfb_test_init(void)
{
	return 0;
}

static void __exit cgfb_test_exit(void)
{
}

module_init(cgfb_test_init);
module_exit(cgfb_test_exit);
MODULE_DESCRIPTION("cgroup-feedback full-system test: prints cgroup deprecation texts");
MODULE_LICENSE("GPL");

/*
 * Last in the file: #line names the place of the seed patch's WARN_ONCE
 * (mm/memcontrol.c, the hunk at line 3106 of 2.6.32) for everything below,
 * so that the WARN banner says "at mm/memcontrol.c:3109 mem_cgroup_create".
 * The text is the patch's with the list's real address (the archived patch
 * shows it mangled by gmane) and, like the SUSE kernels, no newline.
 */
#line 3106 "mm/memcontrol.c"
static noinline void mem_cgroup_create(void)
{
	bool use_hierarchy = false;
	WARN_ONCE(!use_hierarchy,
		  "Creating hierarchies with use_hierarchy==0 "
		  "(flat hierarchy) is considered deprecated. "
		  "If you believe that your setup is correct, "
		  "we kindly ask you to contact linux-mm@kvack.org and let us know");
}
