/* The kernel command line as its readers read it, and the switches systemd
 * takes from it about cgroups. A running host has one command line
 * (/proc/cmdline; in a container PID 1's, which is what systemd reads
 * there); a copy of a machine has its boot configuration instead, where
 * each boot entry and each generator's input is a command line of its
 * own. */
#ifndef CGFB_READINESS_CMDLINE_H
#define CGFB_READINESS_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

#define CGFB_CMDLINE_MAX   4096    /* COMMAND_LINE_SIZE of x86 is 2048 */
#define CGFB_CMDLINES_MAX  16      /* boot entries of a copy read */

/* The next parameter of a command line: white space separates, double
 * quotes keep it together (as the kernel's next_arg), "--" ends what the
 * kernel and systemd read. NULL at the end. */
const char *cgfb_cmdline_next(const char *p, size_t *len);

/* systemd's parse_boolean(): 1, 0, or -1 for a word it does not take. */
int cgfb_parse_boolean(const char *v, size_t len);

/* The cgroup switches of one command line; -1: not given. A switch given
 * without a value is true, as proc_cmdline_get_bool() reads it; given
 * twice, the last one counts. */
struct cgfb_switches {
	int unified;             /* systemd.unified_cgroup_hierarchy */
	int legacy_controller;   /* systemd.legacy_systemd_cgroup_controller */
	int force;               /* SYSTEMD_CGROUP_ENABLE_LEGACY_FORCE */
	bool no_v1_all;          /* cgroup_no_v1=all */
};

void cgfb_switches_read(const char *cmdline, struct cgfb_switches *s);
/* Whether the line asks systemd for a v1 hierarchy (unified is 0). */
bool cgfb_switches_want_v1(const struct cgfb_switches *s);

/* A command line and where it comes from ("/proc/cmdline",
 * "/boot/loader/entries/x.conf", "/etc/default/grub"). */
struct cgfb_bootline {
	char from[4096];
	char text[CGFB_CMDLINE_MAX];
};

struct cgfb_bootlines {
	struct cgfb_bootline l[CGFB_CMDLINES_MAX];
	unsigned n;
	unsigned dropped;        /* entries beyond CGFB_CMDLINES_MAX */
};

/* A BLS entry's options lines joined (there may be several), $kernelopts
 * replaced as grub's blscfg module does; out is always terminated. */
void cgfb_bls_options(const char *text, const char *kernelopts, char *out, size_t sz);
/* The value of name= in a file of shell assignments (/etc/default/grub),
 * quotes taken off and $name / ${name} replaced by what val held before
 * (grub.d drop-ins append that way); no other shell is evaluated. */
void cgfb_shell_var(const char *text, const char *name, char *val, size_t sz);

/* The boot configuration of a copy under root: /etc/kernel/cmdline
 * (kernel-install, UKIs), every /boot/loader/entries/ *.conf's options
 * (with $kernelopts from /boot/grub2/grubenv, as grub's blscfg expands it)
 * and /etc/default/grub's GRUB_CMDLINE_LINUX with _DEFAULT after it, as
 * grub-mkconfig's 10_linux joins them for the normal entries. 0, or
 * -ENOMEM; what is missing is simply not added. */
int cgfb_boot_cmdlines(const char *root, struct cgfb_bootlines *out);

#endif
