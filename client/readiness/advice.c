/* The advice for this host type (advice.h). */
#include <stdio.h>
#include <string.h>

#include "readiness/advice.h"
#include "readiness/decide.h"

/* A rule about the host's mode or a switch that selects it. */
static bool about_mode(const struct cgfb_rule *r)
{
	return r->probe == CGFB_PROBE_MODE || r->probe == CGFB_PROBE_SYSTEMD ||
	       (r->probe == CGFB_PROBE_CMDLINE && r->param && strncmp(r->param, "cgroup_", 7) != 0 &&
		strcmp(r->param, "swapaccount") != 0);
}

/* How this distribution edits the kernel command line. */
static const char *edit_how(const struct cgfb_env *e, bool add)
{
	const char *fam = cgfb_env_family(e);

	if (strcmp(fam, "rhel") == 0 || strcmp(fam, "fedora") == 0)
		return add ? "grubby --update-kernel=ALL --args=\"systemd.unified_cgroup_hierarchy=1\", then reboot"
			   : "grubby --update-kernel=ALL --remove-args=\"systemd.unified_cgroup_hierarchy "
			     "systemd.legacy_systemd_cgroup_controller SYSTEMD_CGROUP_ENABLE_LEGACY_FORCE\", then reboot";
	if (strcmp(fam, "debian") == 0 || strcmp(fam, "ubuntu") == 0 || strstr(e->distro_like, "debian"))
		return add ? "add systemd.unified_cgroup_hierarchy=1 to GRUB_CMDLINE_LINUX in /etc/default/grub "
			     "(or a file in /etc/default/grub.d/), run update-grub, then reboot"
			   : "remove them from GRUB_CMDLINE_LINUX and GRUB_CMDLINE_LINUX_DEFAULT in "
			     "/etc/default/grub and /etc/default/grub.d/, run update-grub, then reboot";
	return add ? "add systemd.unified_cgroup_hierarchy=1 to the kernel command line in the boot "
		     "loader's configuration, then reboot"
		   : "remove them from the kernel command line in the boot loader's configuration, then reboot";
}

void cgfb_advice(const struct cgfb_env *e, const struct cgfb_finding *f, char *buf, size_t sz)
{
	const struct cgfb_rule *r = f->rule;

	if (!about_mode(r) || !e) {
		snprintf(buf, sz, "%s", r->replacement);
		return;
	}
	if (e->wsl) {
		snprintf(buf, sz, "in WSL the hierarchy is set up by WSL, not by this system: put "
			 "kernelCommandLine = cgroup_no_v1=all under [wsl2] in %%UserProfile%%\\.wslconfig "
			 "(and drop cgroups=v1 from [automount] in /etc/wsl.conf), then wsl --shutdown");
		return;
	}
	if (e->container[0] && !e->copy) {
		snprintf(buf, sz, "this container has its host's cgroup hierarchy: nothing to change in "
			 "here; move the host to cgroup v2 (run cgroup-feedback check there)");
		return;
	}
	if (e->sw.unified == 0 || (r->probe == CGFB_PROBE_CMDLINE && e->sw.unified != 1)) {
		snprintf(buf, sz, "once what uses v1 is moved, take systemd.unified_cgroup_hierarchy=0, "
			 "systemd.legacy_systemd_cgroup_controller and SYSTEMD_CGROUP_ENABLE_LEGACY_FORCE off "
			 "the command line (found in %s): %s", e->sw_from[0] ? e->sw_from : "the boot configuration",
			 edit_how(e, false));
		return;
	}
	snprintf(buf, sz, "v1 is this system's build default (nothing on the command line asks for "
		 "it), so there is nothing to remove: once what uses v1 is moved, %s%s",
		 edit_how(e, true), e->copy ? " (in the image's boot configuration)" : "");
}
