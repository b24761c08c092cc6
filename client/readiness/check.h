/* cgroup-feedback check: what on this machine (or under a fixture root)
 * depends on cgroup v1, by the readiness rules. Read-only: the probes open
 * files and directories and nothing else. What they find stays on the
 * machine, so it names real paths. */
#ifndef CGFB_CHECK_H
#define CGFB_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "cgfb/buf.h"
#include "readiness/findings.h"
#include "readiness/rules.h"
#include "snapshot/mountinfo.h"

/* Run every rule's probe. Unreadable and vanishing places are counted in c,
 * not errors. 0 or -ENOMEM. */
int cgfb_check_run(const struct cgfb_rules *rs, const struct cgfb_check_opts *o,
		   struct cgfb_check *c);

/* The probes, each over every rule of its kind. */
int cgfb_probe_tree(const struct cgfb_rules *rs, const struct cgfb_mounts *ms,
		    const struct cgfb_check_opts *o, struct cgfb_check *c);
int cgfb_probe_cmdline(const struct cgfb_rules *rs, const struct cgfb_check_opts *o,
		       struct cgfb_check *c);
int cgfb_probe_kconfig(const struct cgfb_rules *rs, const struct cgfb_mounts *ms,
		       const struct cgfb_check_opts *o, struct cgfb_check *c);
int cgfb_probe_config(const struct cgfb_rules *rs, const struct cgfb_check_opts *o,
		      struct cgfb_check *c);
/* dpkg's status file under the root, whole (empty when there is none).
 * 0 or -ENOMEM. */
int cgfb_dpkg_read(const struct cgfb_check_opts *o, struct cgfb_buf *b);
/* The Version of pkg, installed, in dpkg's status text (NULL: none). */
bool cgfb_dpkg_version(const char *status, const char *pkg, char *out, size_t sz);
/* The installed systemd's version (dpkg's status, else its shared
 * library's name) into the environment. */
void cgfb_systemd_read(const struct cgfb_check_opts *o, const char *status, struct cgfb_check *c);
int cgfb_probe_systemd(const struct cgfb_rules *rs, struct cgfb_check *c);

#endif
