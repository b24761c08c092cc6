/* The machine's size and virtualisation, enumerated through libudev. */
#ifndef CGFB_HWPROFILE_H
#define CGFB_HWPROFILE_H

#include <stdint.h>

struct cgfb_hw {
	unsigned cpus;              /* cpu devices */
	unsigned numa_nodes;        /* node devices; 1 on kernels without NUMA */
	uint64_t memory;            /* bytes: online memory blocks */
	const char *virt;           /* none kvm vmware hyperv xen other */
};

/* Fills hw; never fails, unknown values stay 0 / "other". */
void cgfb_hw_collect(struct cgfb_hw *hw);

/* The class of a DMI system ("QEMU", "Standard PC (Q35 + ICH9, 2009)"), or
 * NULL when the strings name no hypervisor. Pure, for tests. */
const char *cgfb_virt_from_dmi(const char *sys_vendor, const char *product_name,
			       const char *bios_vendor);

#endif
