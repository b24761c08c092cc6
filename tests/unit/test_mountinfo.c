#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "snapshot/attrs.h"
#include "snapshot/mountinfo.h"

#define BIT(c) (UINT32_C(1) << (c))

/* Lines as kernels write them: a Debian 10 hybrid host. */
static const char hybrid[] =
	"21 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro\n"
	"25 21 0:22 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n"
	"26 25 0:23 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755\n"
	"27 26 0:24 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:10 - cgroup2 cgroup2 rw,nsdelegate\n"
	"28 26 0:25 / /sys/fs/cgroup/systemd rw,nosuid,nodev,noexec,relatime shared:11 - cgroup cgroup rw,xattr,name=systemd\n"
	"31 26 0:28 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime shared:14 - cgroup cgroup rw,cpu,cpuacct\n"
	"32 26 0:29 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime shared:15 - cgroup cgroup rw,memory\n"
	"33 26 0:30 / /sys/fs/cgroup/net_cls,net_prio rw,nosuid,nodev,noexec,relatime shared:16 - cgroup cgroup rw,net_cls,net_prio\n";

static void hybrid_host(void **state)
{
	struct cgfb_mounts ms;

	assert_int_equal(cgfb_mountinfo_parse(hybrid, sizeof(hybrid) - 1, NULL, &ms), 0);
	assert_int_equal(ms.n, 5);
	assert_int_equal(ms.m[0].version, 2);
	assert_string_equal(ms.m[0].path, "/sys/fs/cgroup/unified");
	assert_int_equal(ms.m[1].version, 1);
	assert_string_equal(ms.m[1].name, "systemd");
	assert_int_equal(ms.m[1].controllers, 0);
	assert_int_equal(ms.m[2].controllers, BIT(CGFB_C_CPU) | BIT(CGFB_C_CPUACCT));
	assert_string_equal(ms.m[2].path, "/sys/fs/cgroup/cpu,cpuacct");
	assert_int_equal(ms.m[3].controllers, BIT(CGFB_C_MEMORY));
	assert_int_equal(ms.m[4].controllers, BIT(CGFB_C_NET_CLS) | BIT(CGFB_C_NET_PRIO));
	assert_int_equal(cgfb_mounts_mode(&ms), CGFB_MODE_HYBRID);
	assert_string_equal(cgfb_cgroup_mode_name(cgfb_mounts_mode(&ms)), "hybrid");
	cgfb_mounts_free(&ms);
}

static void modes(void **state)
{
	static const char unified[] =
		"30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n";
	static const char legacy[] =
		"32 26 0:29 / /cgroup/memory rw,relatime - cgroup none rw,memory\n";
	static const char none[] = "21 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n";
	struct cgfb_mounts ms;

	assert_int_equal(cgfb_mountinfo_parse(unified, sizeof(unified) - 1, NULL, &ms), 0);
	assert_int_equal(cgfb_mounts_mode(&ms), CGFB_MODE_UNIFIED);
	cgfb_mounts_free(&ms);
	assert_int_equal(cgfb_mountinfo_parse(legacy, sizeof(legacy) - 1, NULL, &ms), 0);
	assert_int_equal(cgfb_mounts_mode(&ms), CGFB_MODE_LEGACY);
	cgfb_mounts_free(&ms);
	assert_int_equal(cgfb_mountinfo_parse(none, sizeof(none) - 1, NULL, &ms), 0);
	assert_int_equal(ms.n, 0);
	assert_int_equal(cgfb_mounts_mode(&ms), CGFB_MODE_NONE);
	cgfb_mounts_free(&ms);
}

/* Only controller words count: release_agent= carries a path, xattr and
 * noprefix are options. A hierarchy mounted twice (a container's bind
 * mount) is one hierarchy. Escaped spaces are unescaped and the fixture
 * root is prepended. */
static void options_binds_escapes(void **state)
{
	static const char text[] =
		"40 26 0:40 / /srv/my\\040cgroups/cpuset rw,relatime - cgroup cgroup rw,noprefix,release_agent=/sbin/agent,cpuset,clone_children\n"
		"41 26 0:41 /docker/abc /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
		"42 21 0:41 / /var/lib/docker/memory rw,relatime - cgroup cgroup rw,memory\n"
		"not a mountinfo line\n"
		"43 26 0:43 / /x rw shared:1 shared:2 master:3 - cgroup cgroup rw,memsw,debug\n";
	struct cgfb_mounts ms;

	assert_int_equal(cgfb_mountinfo_parse(text, sizeof(text) - 1, "/fixture", &ms), 0);
	assert_int_equal(ms.n, 3);
	assert_string_equal(ms.m[0].path, "/fixture/srv/my cgroups/cpuset");
	assert_true(ms.m[0].noprefix);
	assert_int_equal(ms.m[0].controllers, BIT(CGFB_C_CPUSET));
	assert_string_equal(ms.m[1].path, "/fixture/sys/fs/cgroup/memory");
	/* Optional fields before "-" and an unknown option ("memsw"). */
	assert_string_equal(ms.m[2].path, "/fixture/x");
	assert_int_equal(ms.m[2].controllers, BIT(CGFB_C_DEBUG));
	assert_int_equal(ms.malformed, 1);
	cgfb_mounts_free(&ms);
}

static void too_many(void **state)
{
	char text[8192];
	size_t n = 0;
	struct cgfb_mounts ms;

	for (int i = 0; i < CGFB_HIER_MAX + 3; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "%d 26 0:%d / /h%d rw - cgroup cgroup rw,name=h%d\n", 100 + i,
				      100 + i, i, i);
	assert_int_equal(cgfb_mountinfo_parse(text, n, NULL, &ms), 0);
	assert_int_equal(ms.n, CGFB_HIER_MAX);
	assert_int_equal(ms.dropped, 3);
	cgfb_mounts_free(&ms);
}

static void read_file(void **state)
{
	struct cgfb_mounts ms;

	assert_int_equal(cgfb_mountinfo_read("/nonexistent/mountinfo", NULL, &ms), -ENOENT);
	/* This process's own: it has a /proc, whatever else it has. */
	assert_int_equal(cgfb_mountinfo_read("/proc/self/mountinfo", NULL, &ms), 0);
	cgfb_mounts_free(&ms);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hybrid_host),
		cmocka_unit_test(modes),
		cmocka_unit_test(options_binds_escapes),
		cmocka_unit_test(too_many),
		cmocka_unit_test(read_file),
	};

	return cmocka_run_group_tests_name("mountinfo", tests, NULL, NULL);
}
