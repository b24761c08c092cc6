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
#define CGFB_RULE_ASKS_MAX    8
#define CGFB_OWNER_RULES_MAX  16

enum cgfb_probe {
	CGFB_PROBE_MODE, CGFB_PROBE_HIERARCHY, CGFB_PROBE_PROCS, CGFB_PROBE_KNOB,
	CGFB_PROBE_CMDLINE, CGFB_PROBE_KCONFIG, CGFB_PROBE_SYSTEMD, CGFB_PROBE_CONFIG,
	CGFB_PROBE_KUBELET, CGFB_PROBE_N
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

/* A question the rule puts to a decider (decide.h): "decided_by" of the
 * data, e.g. {"kernel": ["5.11", "memcg_v1"], "systemd": ["v1_host"]}. */
struct cgfb_ask {
	int who;                           /* enum cgfb_decider */
	int q;                             /* enum cgfb_query */
	char *version;                     /* CGFB_Q_VERSION's */
};

/* A program that makes cgroups and moves what it set in them to cgroup v2
 * itself: a place a rule matches in one of its cgroups is the owner's,
 * not the administrator's (data/readiness.json "owners"). */
struct cgfb_owner {
	char *id, *title, *match, *source;
	char *translates[CGFB_OWNER_RULES_MAX];   /* rule ids */
	unsigned n_translates;
};

struct cgfb_rule {
	char *id, *title, *effect, *replacement, *catalog, *source;
	enum cgfb_probe probe;
	enum cgfb_severity severity;
	struct cgfb_ask asks[CGFB_RULE_ASKS_MAX];
	unsigned n_asks;
	/* The probe's arguments; each probe reads its own. */
	char *controller;                      /* hierarchy, procs, knob, kconfig: "*" any */
	char *files[CGFB_RULE_FILES_MAX];      /* knob */
	unsigned n_files;
	enum cgfb_knob_test test;              /* knob */
	char *value, *key;                     /* knob */
	bool nonroot;                          /* knob: the root's value is the kernel's */
	char *param;                           /* cmdline */
	char *values[CGFB_RULE_VALUES_MAX];    /* cmdline (none: any value), mode, kubelet
	                                          (opt_out or bad_flag) */
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
	size_t n_owners;
	struct cgfb_owner *owners;
};

/* Whether owner moves what rule r finds to v2 itself. */
bool cgfb_owner_translates(const struct cgfb_owner *o, const struct cgfb_rule *r);

/* Load rules from JSON text; each rule is checked whole (its probe's
 * arguments, severity, a "breaks" rule naming a decider). On error
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
