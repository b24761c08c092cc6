/* The environment facts the deciders read, gathered once per check and
 * shown with its verdict: what PID 1 is, whether this is a container, WSL
 * or a copy of a machine, the distribution, the cgroup mode as systemd and
 * the kubelet see it, and the command line systemd reads. */
#ifndef CGFB_ENV_H
#define CGFB_ENV_H

#include <stdbool.h>

#include "readiness/cmdline.h"
#include "snapshot/mountinfo.h"

#define CGFB_KERNELS_MAX 16

/* An installed kernel and how its configuration sets the v1 options:
 * 'y', 'n' (not set), '?' (no configuration read). */
struct cgfb_kernel {
	char release[128];
	char config[4096];               /* the file read, "" none */
	char memcg_v1, cpusets_v1;
};

/* The kubelet as its configuration shows it (kubelet.c). */
struct cgfb_kubelet {
	bool present;                    /* a configuration, unit or package found */
	char present_why[256];
	char version[32];                /* the installed package's, "" unknown */
	int fail_v1;                     /* failCgroupV1 in effect: -1 default, 0, 1 */
	char fail_v1_where[320];         /* where it was set */
	char bad_flag[320];              /* a flag the kubelet refuses to start with:
	                                    where, "" none */
	bool bad_flag_unknown;           /* a misspelt name (else a value as the next word) */
};

struct cgfb_env {
	bool copy;                       /* --root of an image: no /proc */
	char pid1[32];                   /* PID 1's comm, "" unknown */
	bool systemd_init;               /* PID 1 (or a copy's /sbin/init) is systemd */
	char container[32];              /* the manager's name ("docker", "lxc"), "" none */
	char container_why[640];
	bool wsl;
	char distro_id[32];              /* os-release ID ("rhel", "debian") */
	char distro_like[96];            /* ID_LIKE */
	char distro_version[32];         /* VERSION_ID */
	char distro_name[96];            /* PRETTY_NAME */
	/* The mode as systemd's cg_unified_cached() and runc's
	 * IsCgroup2UnifiedMode() find it: the file system at /sys/fs/cgroup
	 * (then /sys/fs/cgroup/unified), not every mount. NONE: unknown. */
	enum cgfb_cgroup_mode mode;
	char mode_why[160];
	/* The mode the host runs in, or a copy would boot with its systemd
	 * and boot configuration (decide.c); NONE: cannot be told. */
	enum cgfb_cgroup_mode effective;
	char effective_why[400];
	/* The command lines systemd reads: one on a running system, the boot
	 * configuration's in a copy; switches merged over them (a copy: any
	 * line asking for v1 counts). */
	struct cgfb_bootlines cmdlines;
	struct cgfb_switches sw;
	char sw_from[4096];               /* the line whose switches count */
	char systemd[64];                /* the installed systemd, "" unknown */
	char systemd_from[4096];
	struct cgfb_kernel kernels[CGFB_KERNELS_MAX];
	unsigned n_kernels;
	char running[128];                /* the running kernel's release */
	bool v1_memory, v1_cpuset;        /* mounted on v1 now (the running kernel has them) */
	struct cgfb_kubelet kubelet;
};

struct cgfb_check_opts;
struct cgfb_check;

/* A copy of a machine: a root with no /proc of its own and no mount table
 * given. */
bool cgfb_env_is_copy(const struct cgfb_check_opts *o);
/* Everything but the kernels, systemd and kubelet, which their probes
 * fill. Unreadable places go to c like the probes'. 0 or -ENOMEM. */
int cgfb_env_read(const struct cgfb_check_opts *o, const char *mountinfo_text,
		  struct cgfb_env *e, struct cgfb_check *c);

/* The mode from mountinfo text: the top mount at /sys/fs/cgroup (under
 * root), and for tmpfs the one at /sys/fs/cgroup/unified. */
enum cgfb_cgroup_mode cgfb_env_mode_of(const char *mountinfo, const char *root, char *why,
				       size_t whysz);

/* The kubelet's configuration under the root (kubelet.c). 0 or -ENOMEM. */
int cgfb_kubelet_read(const struct cgfb_check_opts *o, const char *status, struct cgfb_kubelet *k,
		      struct cgfb_check *c);

/* A distribution family for the deciders: "rhel" for RHEL and its
 * rebuilds, "debian", "ubuntu", or the ID itself. */
const char *cgfb_env_family(const struct cgfb_env *e);

#endif
