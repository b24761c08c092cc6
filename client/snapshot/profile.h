/* The system profile of a report: kernel, distribution, size of the
 * machine, virtualisation, init system and the cgroup-related kernel
 * command-line parameters. Coarse by design: buckets and classes, never a
 * host name, serial number or machine id. */
#ifndef CGFB_PROFILE_H
#define CGFB_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "snapshot/hwprofile.h"

#define CGFB_CMDLINE_KEYS     10
#define CGFB_CMDVALUE_MAX     64

struct cgfb_cmdline {
	/* In the order of cgfb_cmdline_keys(); NULL when not given. A key
	 * given without "=" has the value "". Repeats are joined with ','. */
	char *value[CGFB_CMDLINE_KEYS];
};

struct cgfb_profile {
	char release[65];
	char series[8];
	char arch[17];
	char distro_id[33];
	char distro_version[33];
	struct cgfb_hw hw;
	const char *init;
	struct cgfb_cmdline cmdline;
};

struct cgfb_profile_opts {
	const char *os_release;    /* NULL: /etc/os-release, then /usr/lib/os-release */
	const char *cmdline;       /* NULL: /proc/cmdline */
};

/* Everything; what cannot be found is left at a neutral value. Returns 0
 * or -ENOMEM. */
int cgfb_profile_collect(const struct cgfb_profile_opts *o, struct cgfb_profile *p);
void cgfb_profile_free(struct cgfb_profile *p);

/* Parsers, pure. */
void cgfb_os_release_parse(const char *buf, size_t len, char id[33], char version[33]);
int cgfb_cmdline_parse(const char *buf, size_t len, struct cgfb_cmdline *c);
void cgfb_cmdline_free(struct cgfb_cmdline *c);
const char *const *cgfb_cmdline_keys(void);
/* "6.1.0-13-amd64" -> release as the schema allows it and "6.1". */
void cgfb_kernel_release(const char *uname_release, char release[65], char series[8]);

#endif
