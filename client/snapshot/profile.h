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

/* Whose facts a profile holds. */
enum cgfb_facts {
	CGFB_FACTS_HOST,    /* this machine's, read here: it printed the message */
	CGFB_FACTS_LOG,     /* another machine's log: its boot's release and command line */
	CGFB_FACTS_COPY,    /* a copy of another machine's files: its os-release, cmdline */
};

struct cgfb_profile {
	enum cgfb_facts facts;
	/* Another machine's: "" where the log or the files do not say (the
	 * report says "unknown"), and nothing of this machine (hw zero, init
	 * NULL). */
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
/* Another machine's, as its log shows it: release from its boot's "Linux
 * version" record and cmdline from its "Command line" record ("" when the
 * log showed none); the architecture when the release names it. 0 or
 * -ENOMEM. */
int cgfb_profile_from_log(const char *release, const char *cmdline, struct cgfb_profile *p);
/* Another machine's, as a copy of its files under root shows it: its
 * os-release, proc/sys/kernel/osrelease and proc/cmdline when the copy has
 * them (o's paths, when given, instead of the first and the last). 0 or
 * -ENOMEM. */
int cgfb_profile_from_copy(const char *root, const struct cgfb_profile_opts *o,
			   struct cgfb_profile *p);
void cgfb_profile_free(struct cgfb_profile *p);

/* Parsers, pure. */
void cgfb_os_release_parse(const char *buf, size_t len, char id[33], char version[33]);
int cgfb_cmdline_parse(const char *buf, size_t len, struct cgfb_cmdline *c);
void cgfb_cmdline_free(struct cgfb_cmdline *c);
const char *const *cgfb_cmdline_keys(void);
/* "6.1.0-13-amd64" -> release as the schema allows it and "6.1". */
void cgfb_kernel_release(const char *uname_release, char release[65], char series[8]);
/* The architecture a release names ("6.15.4-200.fc42.x86_64": x86_64,
 * "6.1.0-28-amd64": x86_64), or "unknown". */
void cgfb_arch_of_release(const char *release, char arch[17]);

#endif
