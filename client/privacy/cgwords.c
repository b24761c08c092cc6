#include <string.h>
#include <strings.h>

#include "privacy/cgwords.h"

static const char *const controllers[] = {
	"memory", "cgroup", "cpuset", "blkio", "cpu", "cpuacct", "io", "pids", "freezer",
	"hugetlb", "devices", "net_cls", "net_prio", "perf_event", "rdma", "misc", "kmem",
};

static bool controller(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(controllers) / sizeof(controllers[0]); i++)
		if (n == strlen(controllers[i]) && memcmp(s, controllers[i], n) == 0)
			return true;
	return false;
}

bool cgfb_knob_shaped(const char *s, size_t n)
{
	const char *dot = memchr(s, '.', n);

	return dot && controller(s, (size_t)(dot - s));
}

size_t cgfb_unit_suffix(const char *s, size_t n)
{
	static const char *const suffixes[] = {
		".slice", ".scope", ".service", ".socket", ".mount", ".target", ".swap",
		".timer", ".path", ".device", ".automount",
	};

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		const size_t l = strlen(suffixes[i]);

		if (n > l && strncasecmp(s + n - l, suffixes[i], l) == 0)
			return l;
	}
	return 0;
}

bool cgfb_unit_shaped(const char *s, size_t n)
{
	const size_t l = cgfb_unit_suffix(s, n);

	return l && !memchr(s, '.', n - l);
}

bool cgfb_hierarchy_name(const char *s, size_t n)
{
	static const char *const named[] = { "systemd", "unified", "elogind", "name=systemd" };

	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (n == strlen(named[i]) && memcmp(s, named[i], n) == 0)
			return true;
	while (n) {
		const char *comma = memchr(s, ',', n);
		const size_t l = comma ? (size_t)(comma - s) : n;

		if (!controller(s, l))
			return false;
		n -= comma ? l + 1 : l;
		s += comma ? l + 1 : l;
	}
	return true;
}
