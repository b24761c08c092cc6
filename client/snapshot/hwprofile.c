#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>

#include <libudev.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "snapshot/hwprofile.h"

/* DMI strings of hypervisors, as systemd-detect-virt knows them. */
static const struct {
	const char *needle;
	const char *virt;
} dmi_vendors[] = {
	{ "KVM", "kvm" }, { "QEMU", "kvm" }, { "Amazon EC2", "kvm" }, { "Google", "kvm" },
	{ "OpenStack", "kvm" }, { "oVirt", "kvm" }, { "RHEV", "kvm" }, { "VMware", "vmware" },
	{ "VMW", "vmware" }, { "Microsoft Corporation", "hyperv" }, { "Hyper-V", "hyperv" },
	{ "Xen", "xen" }, { "innotek GmbH", "other" }, { "VirtualBox", "other" },
	{ "Parallels", "other" }, { "BHYVE", "other" }, { "Bochs", "other" },
	{ "Apple Virtualization", "other" },
};

static const char *dmi_match(const char *s)
{
	if (!s)
		return NULL;
	for (size_t i = 0; i < sizeof(dmi_vendors) / sizeof(dmi_vendors[0]); i++)
		if (strstr(s, dmi_vendors[i].needle))
			return dmi_vendors[i].virt;
	return NULL;
}

const char *cgfb_virt_from_dmi(const char *sys_vendor, const char *product_name,
			       const char *bios_vendor)
{
	const char *v = dmi_match(product_name);

	/* Microsoft sells hardware too: only its "Virtual Machine" is Hyper-V. */
	if (!v && sys_vendor && strstr(sys_vendor, "Microsoft Corporation") &&
	    !(product_name && strstr(product_name, "Virtual Machine")))
		return NULL;
	if (!v)
		v = dmi_match(sys_vendor);
	if (!v)
		v = dmi_match(bios_vendor);
	return v;
}

/* Without DMI (microVMs, some clouds): the CPUID hypervisor leaf. */
static const char *virt_from_cpuid(void)
{
#if defined(__x86_64__) || defined(__i386__)
	static const struct {
		const char *sig;
		const char *virt;
	} sigs[] = {
		{ "KVMKVMKVM", "kvm" }, { "TCGTCGTCGTCG", "kvm" }, { "Microsoft Hv", "hyperv" },
		{ "VMwareVMware", "vmware" }, { "XenVMMXenVMM", "xen" },
	};
	unsigned a, b, c, d;
	char sig[13];

	if (!__get_cpuid(1, &a, &b, &c, &d))
		return "other";
	if (!(c & (1u << 31)))
		return "none";
	__cpuid(0x40000000, a, b, c, d);
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	sig[12] = '\0';
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (strncmp(sig, sigs[i].sig, strlen(sigs[i].sig)) == 0)
			return sigs[i].virt;
#endif
	return "other";
}

static const char *virt(struct udev *udev)
{
	struct udev_device *dmi = udev_device_new_from_subsystem_sysname(udev, "dmi", "id");
	const char *v;

	if (!dmi)
		return virt_from_cpuid();
	v = cgfb_virt_from_dmi(udev_device_get_sysattr_value(dmi, "sys_vendor"),
			       udev_device_get_sysattr_value(dmi, "product_name"),
			       udev_device_get_sysattr_value(dmi, "bios_vendor"));
	udev_device_unref(dmi);
	/* DMI that names no hypervisor is a real machine's. */
	return v ? v : "none";
}

/* Devices of a subsystem whose name is prefix + digits: cpu0, node1, memory32. */
static unsigned count_devices(struct udev *udev, const char *subsystem, const char *prefix,
			      const char *online_attr)
{
	struct udev_enumerate *e = udev_enumerate_new(udev);
	struct udev_list_entry *le;
	unsigned n = 0;

	if (!e)
		return 0;
	udev_enumerate_add_match_subsystem(e, subsystem);
	udev_enumerate_scan_devices(e);
	udev_list_entry_foreach(le, udev_enumerate_get_list_entry(e)) {
		struct udev_device *dev = udev_device_new_from_syspath(udev,
							udev_list_entry_get_name(le));
		const char *name = dev ? udev_device_get_sysname(dev) : NULL;
		const char *state;

		if (name && strncmp(name, prefix, strlen(prefix)) == 0 &&
		    name[strlen(prefix)] >= '0' && name[strlen(prefix)] <= '9') {
			state = online_attr ? udev_device_get_sysattr_value(dev, online_attr) : NULL;
			if (!online_attr || (state && strcmp(state, "online") == 0))
				n++;
		}
		udev_device_unref(dev);
	}
	udev_enumerate_unref(e);
	return n;
}

static uint64_t memory_bytes(struct udev *udev)
{
	struct udev_device *root = udev_device_new_from_syspath(udev, "/sys/devices/system/memory");
	const char *bs = root ? udev_device_get_sysattr_value(root, "block_size_bytes") : NULL;
	const uint64_t block = bs ? strtoull(bs, NULL, 16) : 0;
	const unsigned blocks = block ? count_devices(udev, "memory", "memory", "state") : 0;
	struct sysinfo si;

	udev_device_unref(root);
	if (blocks)
		return block * blocks;
	/* No memory hotplug support in this kernel: no memory devices. */
	if (sysinfo(&si) == 0)
		return (uint64_t)si.totalram * si.mem_unit;
	return 0;
}

void cgfb_hw_collect(struct cgfb_hw *hw)
{
	struct udev *udev = udev_new();

	memset(hw, 0, sizeof(*hw));
	hw->virt = "other";
	if (!udev)
		return;
	hw->cpus = count_devices(udev, "cpu", "cpu", NULL);
	hw->numa_nodes = count_devices(udev, "node", "node", NULL);
	if (hw->numa_nodes == 0)
		hw->numa_nodes = 1;
	hw->memory = memory_bytes(udev);
	hw->virt = virt(udev);
	udev_unref(udev);
}
