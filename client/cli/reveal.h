/* show --reveal: which of this machine's cgroups (and running processes)
 * each keyed token of a report stands for, found by computing the token of
 * every local name with the install's secret. Printed for the
 * administrator only: nothing of it is in the report or leaves. */
#ifndef CGFB_REVEAL_H
#define CGFB_REVEAL_H

#include <stdio.h>

#include "base/statedir.h"
#include "cgfb/buf.h"

struct cgfb_reveal_opts {
	const char *cgroup_root;     /* NULL: / (a fixture tree for tests) */
	const char *mountinfo;       /* NULL: /proc/self/mountinfo */
	const char *proc;            /* NULL: /proc; "" : no processes */
};

/* The report's tokens and what each stands for here, to out. 0 or a
 * negative errno (reported). */
int cgfb_reveal(const struct cgfb_statedir *sd, const struct cgfb_buf *report,
		const struct cgfb_reveal_opts *o, FILE *out);

#endif
