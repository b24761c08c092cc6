/* Distribution releases as targets (releases.h): what each ships and how
 * its systemd is built, with the file that says so. */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "readiness/releases.h"

static const struct cgfb_release releases[] = {
	{ "rhel", "8", "RHEL 8", "4.18", "239", 'y', 'y', CGFB_MODE_LEGACY, true,
	  "RHEL 8 systemd.spec -Ddefault-hierarchy=legacy (239-7: 'change default cgroup hierarchy to legacy')" },
	{ "rhel", "9", "RHEL 9", "5.14", "252", 'y', 'y', CGFB_MODE_UNIFIED, true,
	  "RHEL 9 systemd.spec without -Ddefault-hierarchy (252's meson default: unified)" },
	{ "rhel", "10", "RHEL 10", "6.12", "257", '?', '?', CGFB_MODE_UNIFIED, false,
	  "leapp-repository el9toel10 inhibitcgroupsv1/actor.py 10-14 ('removed in RHEL 10. Both legacy and "
	  "hybrid modes are unsupported')" },
	{ "debian", "10", "Debian 10", "4.19", "241", 'y', 'y', CGFB_MODE_HYBRID, true,
	  "systemd NEWS for 233 and 243 (the upstream default-hierarchy was hybrid from 233 to 242; Debian 10 "
	  "ships 241) and Debian systemd's changelog 243-5 ('Switch default hierarchy (back) to hybrid'); "
	  "Debian 10's own debian/rules not read" },
	{ "debian", "11", "Debian 11", "5.10", "247", 'y', 'y', CGFB_MODE_UNIFIED, true,
	  "Debian systemd 247.3-7+deb11u5 debian/rules 62 (-Ddefault-hierarchy=unified)" },
	{ "debian", "12", "Debian 12", "6.1", "252", 'y', 'y', CGFB_MODE_UNIFIED, true,
	  "Debian systemd 252.39-1~deb12u2 debian/rules 59 (-Ddefault-hierarchy=unified)" },
	{ "debian", "13", "Debian 13", "6.12", "257", 'n', 'n', CGFB_MODE_UNIFIED, true,
	  "Debian linux 6.12.107-1 debian/config/config (MEMCG_V1, CPUSETS_V1 not set); systemd 257.13" },
	{ "ubuntu", "20.04", "Ubuntu 20.04", "5.4", "245", 'y', 'y', CGFB_MODE_HYBRID, true,
	  "ubuntu-devel, 17 Aug 2021 (Lukas Maerdian, 'systemd enabling cgroup v2 by default'): hybrid "
	  "until 21.10, while upstream 245 defaults to unified; Ubuntu 20.04's own debian/rules not read" },
	{ "ubuntu", "22.04", "Ubuntu 22.04", "5.15", "249", 'y', 'y', CGFB_MODE_UNIFIED, true,
	  "ubuntu-devel, 17 Aug 2021 'systemd enabling cgroup v2 by default' (unified from 21.10)" },
	{ "ubuntu", "24.04", "Ubuntu 24.04", "6.8", "255", 'y', 'y', CGFB_MODE_UNIFIED, true,
	  "ubuntu-devel, 17 Aug 2021 (unified from 21.10 on); Ubuntu 24.04 ships systemd 255 and linux 6.8, "
	  "which is before init/Kconfig MEMCG_V1 and CPUSETS_V1 (6.11, 6.12): both v1 controllers always built" },
};

/* "9.4" (RHEL's VERSION_ID) is release 9; "22.04" is 22.04. */
static bool is_release(const struct cgfb_release *r, const char *version)
{
	size_t n = strlen(r->version);

	return strncmp(r->version, version, n) == 0 && (version[n] == '\0' || version[n] == '.');
}

const struct cgfb_release *cgfb_release_find(const char *family, const char *version)
{
	for (size_t i = 0; i < sizeof(releases) / sizeof(*releases); i++)
		if (strcmp(releases[i].family, family) == 0 && is_release(&releases[i], version))
			return &releases[i];
	return NULL;
}

const struct cgfb_release *cgfb_release_next(const char *family, const struct cgfb_release *after)
{
	size_t i = after ? (size_t)(after - releases) + 1 : 0;

	for (; i < sizeof(releases) / sizeof(*releases); i++)
		if (strcmp(releases[i].family, family) == 0)
			return &releases[i];
	return NULL;
}

