/* The readiness rules (data/readiness.json): the ways a machine depends on
 * cgroup v1, which probe finds each, where it breaks and what to do
 * instead. Data like the catalog, so that a fact is corrected without
 * touching the probes. */
#ifndef CGFB_RULES_H
#define CGFB_RULES_H

#include <stdbool.h>
#include <stddef.h>

#define CGFB_RULE_FILES_MAX   8
#define CGFB_RULE_VALUES_MAX  8
#define CGFB_RULE_DISTROS_MAX 4

enum cgfb_probe {
	CGFB_PROBE_MODE, CGFB_PROBE_HIERARCHY, CGFB_PROBE_PROCS, CGFB_PROBE_KNOB,
	CGFB_PROBE_CMDLINE, CGFB_PROBE_KCONFIG, CGFB_PROBE_SYSTEMD, CGFB_PROBE_CONFIG,
	CGFB_PROBE_N
};

enum cgfb_severity { CGFB_SEV_BREAKS, CGFB_SEV_DEPRECATED, CGFB_SEV_INFO, CGFB_SEV_N };

/* How a knob's value is told from its default. */
enum cgfb_knob_test {
	CGFB_TEST_NE,            /* the value (trimmed) is not `value` */
	CGFB_TEST_LIMIT,         /* a byte limit below "unlimited" (2^62) */
	CGFB_TEST_LINE,          /* the line "key N" has N other than `value` */
	CGFB_TEST_NE_ROOT,       /* differs from the hierarchy root's value */
	CGFB_TEST_LINES_NONZERO, /* a line whose last field is not 0 */
	CGFB_TEST_NONEMPTY,      /* any content */
	CGFB_TEST_N
};

/* Where a rule stops working; NULL members say nothing. Versions are
 * dotted numbers ("6.11", "1.35"). */
struct cgfb_breaks_in {
	char *kernel, *kernel_config, *systemd, *kubelet;
	char *distro[CGFB_RULE_DISTROS_MAX];
	unsigned n_distro;
};

struct cgfb_rule {
	char *id, *title, *effect, *replacement, *catalog, *source;
	enum cgfb_probe probe;
	enum cgfb_severity severity;
	struct cgfb_breaks_in breaks_in;
	/* The probe's arguments; each probe reads its own. */
	char *controller;                      /* hierarchy, procs, knob, kconfig: "*" any */
	char *files[CGFB_RULE_FILES_MAX];      /* knob */
	unsigned n_files;
	enum cgfb_knob_test test;              /* knob */
	char *value, *key;                     /* knob */
	bool nonroot;                          /* knob: the root's value is the kernel's */
	char *except;                          /* knob: ERE on the cgroup's path below the
	                                          mount: whoever made it moves it to v2 */
	char *param;                           /* cmdline */
	char *values[CGFB_RULE_VALUES_MAX];    /* cmdline (none: any value), mode */
	unsigned n_values;
	char *option, *since;                  /* kconfig */
	char *from;                            /* systemd */
	char *paths[CGFB_RULE_FILES_MAX];      /* config: globs under the root */
	unsigned n_paths;
	char *match;                           /* config: POSIX ERE on each line */
};

struct cgfb_rules {
	size_t n;
	struct cgfb_rule *r;
};

/* Load rules from JSON text; each rule is checked whole (its probe's
 * arguments, severity, a "breaks" rule saying where it breaks). On error
 * err says which rule and member. 0, -EINVAL or -ENOMEM. */
int cgfb_rules_load_buffer(struct cgfb_rules *out, const char *json, size_t len,
			   char *err, size_t errsz);
int cgfb_rules_load_file(struct cgfb_rules *out, const char *path, char *err, size_t errsz);
/* The copy built into the program. */
int cgfb_rules_load_builtin(struct cgfb_rules *out, char *err, size_t errsz);
void cgfb_rules_free(struct cgfb_rules *rs);

const char *cgfb_severity_name(enum cgfb_severity s);
const char *cgfb_probe_name(enum cgfb_probe p);

#endif
