// SPDX-License-Identifier: GPL-2.0
/* catalog-sync fixture: outside the cgroup sources, found by the address. */
static void frob_probe(void)
{
	pr_err("frob: please mail cgroups@vger.kernel.org about frob groups\n");
	pr_err("frob: deprecated but no address and out of scope\n");
}
