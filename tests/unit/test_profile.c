#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>

#include "snapshot/hwprofile.h"
#include "snapshot/profile.h"

static void os_release(void **state)
{
	static const char debian[] = "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n"
				     "NAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\nID=debian\n";
	static const char sles[] = "NAME=\"SLES\"\nVERSION=\"11.4\"\nVERSION_ID='11.4'\nID=\"sles\"\n";
	static const char odd[] = "ID=\"Weird Distro!\"\nVERSION_ID=\"1 2\"\n";
	char id[33], ver[33];

	cgfb_os_release_parse(debian, sizeof(debian) - 1, id, ver);
	assert_string_equal(id, "debian");
	assert_string_equal(ver, "12");
	cgfb_os_release_parse(sles, sizeof(sles) - 1, id, ver);
	assert_string_equal(id, "sles");
	assert_string_equal(ver, "11.4");
	/* Only what the schema allows; os-release(5)'s default ID otherwise. */
	cgfb_os_release_parse(odd, sizeof(odd) - 1, id, ver);
	assert_string_equal(id, "linux");
	assert_string_equal(ver, "1");
	cgfb_os_release_parse("", 0, id, ver);
	assert_string_equal(id, "linux");
	assert_string_equal(ver, "");
}

static const char *value(const struct cgfb_cmdline *c, const char *key)
{
	const char *const *keys = cgfb_cmdline_keys();

	for (int i = 0; i < CGFB_CMDLINE_KEYS; i++)
		if (strcmp(keys[i], key) == 0)
			return c->value[i];
	fail_msg("no key %s", key);
	return NULL;
}

static void cmdline(void **state)
{
	static const char text[] =
		"BOOT_IMAGE=/vmlinuz-6.1.0 root=UUID=1234-abcd ro quiet swapaccount=1 "
		"cgroup_enable=memory cgroup_enable=cpuset systemd.unified_cgroup_hierarchy "
		"cgroup_no_v1=all nfsroot=10.0.0.1:/srv/acme psi=\"1 2\" "
		"cgroup.memory=nokmem -- swapaccount=0 init-arg\n";
	struct cgfb_cmdline c;

	assert_int_equal(cgfb_cmdline_parse(text, sizeof(text) - 1, &c), 0);
	assert_string_equal(value(&c, "swapaccount"), "1");       /* after "--" is init's */
	assert_string_equal(value(&c, "cgroup_enable"), "memory,cpuset");
	assert_string_equal(value(&c, "systemd.unified_cgroup_hierarchy"), "");
	assert_string_equal(value(&c, "cgroup_no_v1"), "all");
	assert_string_equal(value(&c, "cgroup.memory"), "nokmem");
	assert_null(value(&c, "psi"));                             /* not the schema's shape */
	assert_null(value(&c, "cgroup_disable"));
	cgfb_cmdline_free(&c);
}

static void kernel_release(void **state)
{
	char r[65], s[8];

	cgfb_kernel_release("6.1.0-13-amd64", r, s);
	assert_string_equal(r, "6.1.0-13-amd64");
	assert_string_equal(s, "6.1");
	cgfb_kernel_release("3.0.101-84-default", r, s);
	assert_string_equal(s, "3.0");
	cgfb_kernel_release("5.15.0-91-generic #101 host.example", r, s);
	assert_string_equal(r, "5.15.0-91-generic");
	cgfb_kernel_release("linux", r, s);
	assert_string_equal(r, "0");
	assert_string_equal(s, "0.0");
}

static void dmi(void **state)
{
	assert_string_equal(cgfb_virt_from_dmi("QEMU", "Standard PC (Q35 + ICH9, 2009)", "SeaBIOS"),
			    "kvm");
	assert_string_equal(cgfb_virt_from_dmi("VMware, Inc.", "VMware Virtual Platform", NULL),
			    "vmware");
	assert_string_equal(cgfb_virt_from_dmi("Microsoft Corporation", "Virtual Machine", NULL),
			    "hyperv");
	assert_null(cgfb_virt_from_dmi("Microsoft Corporation", "Surface Laptop 5", NULL));
	assert_string_equal(cgfb_virt_from_dmi("Xen", "HVM domU", NULL), "xen");
	assert_string_equal(cgfb_virt_from_dmi("innotek GmbH", "VirtualBox", NULL), "other");
	assert_string_equal(cgfb_virt_from_dmi("Amazon EC2", "m5.large", NULL), "kvm");
	assert_null(cgfb_virt_from_dmi("Dell Inc.", "PowerEdge R640", "Dell Inc."));
	assert_null(cgfb_virt_from_dmi(NULL, NULL, NULL));
}

/* This machine, through libudev: only the shapes can be checked. */
static void this_machine(void **state)
{
	const struct cgfb_profile_opts o = { "/nonexistent/os-release", "/nonexistent/cmdline" };
	static const char *const virts[] = { "none", "kvm", "vmware", "hyperv", "xen", "other" };
	static const char *const inits[] = { "systemd", "openrc", "sysvinit", "upstart", "other" };
	struct cgfb_profile p;
	bool ok = false;

	assert_int_equal(cgfb_profile_collect(&o, &p), 0);
	assert_true(p.hw.cpus >= 1);
	assert_true(p.hw.numa_nodes >= 1);
	assert_true(p.hw.memory >= (64u << 20));
	for (size_t i = 0; i < sizeof(virts) / sizeof(virts[0]); i++)
		ok |= strcmp(p.hw.virt, virts[i]) == 0;
	assert_true(ok);
	ok = false;
	for (size_t i = 0; i < sizeof(inits) / sizeof(inits[0]); i++)
		ok |= strcmp(p.init, inits[i]) == 0;
	assert_true(ok);
	assert_string_equal(p.distro_id, "linux");     /* the given file is missing */
	assert_true(p.release[0] >= '0' && p.release[0] <= '9');
	cgfb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(os_release),
		cmocka_unit_test(cmdline),
		cmocka_unit_test(kernel_release),
		cmocka_unit_test(dmi),
		cmocka_unit_test(this_machine),
	};

	return cmocka_run_group_tests_name("profile", tests, NULL, NULL);
}
