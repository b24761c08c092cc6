/* The deciders: for each program that decides whether a use of cgroup v1
 * keeps working (the kernel by its version and configuration, systemd by
 * its version and environment, the kubelet by its version and
 * configuration, LXC by the host's hierarchy), the inputs it really reads
 * and the decision it really makes, each citing the source it comes from.
 * A finding breaks at a target only when the decider at that target
 * would refuse or lose it, given every opt-out and environment fact
 * found. Distributions are targets made of these: a release's kernel,
 * its configuration, its systemd and its default hierarchy. */
#ifndef CGFB_DECIDE_H
#define CGFB_DECIDE_H

#include <stdbool.h>

#include "readiness/env.h"
#include "readiness/releases.h"

enum cgfb_decider {
	CGFB_DEC_KERNEL, CGFB_DEC_SYSTEMD, CGFB_DEC_KUBELET, CGFB_DEC_LXC, CGFB_DEC_DISTRO,
	CGFB_DEC_N
};

enum cgfb_outcome {
	CGFB_OUT_NOT_HERE,   /* the decider is absent, or this is none of its business */
	CGFB_OUT_KEEPS,      /* it keeps working at every version known */
	CGFB_OUT_BREAKS,     /* it stops working from `at` */
	CGFB_OUT_BROKEN,     /* it does not work now, whatever the target */
	CGFB_OUT_UNKNOWN,    /* what decides could not be read */
	CGFB_OUT_N
};

/* The questions a rule asks its deciders (data/readiness.json
 * "decided_by"). */
enum cgfb_query {
	CGFB_Q_NONE,
	CGFB_Q_VERSION,      /* kernel: the behaviour changes at a version */
	CGFB_Q_MEMCG_V1,     /* kernel: memcg v1 is built in */
	CGFB_Q_CPUSETS_V1,   /* kernel: cpuset v1 is built in */
	CGFB_Q_CONTROLLERS,  /* kernel: the v1 controllers of the finding's hierarchies */
	CGFB_Q_INSTALLED,    /* kernel: the installed kernel the finding names */
	CGFB_Q_V1_HOST,      /* systemd, kubelet: the host stays on v1 */
	CGFB_Q_SWITCH,       /* systemd: a command-line switch takes effect */
	CGFB_Q_OPT_OUT,      /* kubelet: failCgroupV1 set to false */
	CGFB_Q_FLAG,         /* kubelet: a flag it cannot parse */
	CGFB_Q_V1_KEYS,      /* lxc: lxc.cgroup.* controller keys */
	CGFB_Q_N
};

struct cgfb_decision {
	enum cgfb_decider who;
	enum cgfb_outcome out;
	char at[128];        /* the version it breaks at ("256", "6.11", "RHEL 9") */
	char why[480];       /* what the decider does, on this host */
	const char *source;  /* where in its source */
	bool on_target;
};

struct cgfb_check;
struct cgfb_target;

/* Every finding of c decided, for the target t (NULL or none: the removal
 * of cgroup v1, wherever it comes). 0. */
int cgfb_decide(struct cgfb_check *c, const struct cgfb_target *t);
/* The cgroup mode a copy of a machine boots into with its own systemd
 * and boot configuration; NONE when that cannot be told. */
enum cgfb_cgroup_mode cgfb_predict_mode(const struct cgfb_env *e, char *why, size_t sz);

/* The kernel option a kernel decision turns on, NULL for none. */
const char *cgfb_decision_config(const struct cgfb_decision *d);
const char *cgfb_decider_name(enum cgfb_decider d);
const char *cgfb_outcome_name(enum cgfb_outcome o);
int cgfb_decider_index(const char *name);
int cgfb_question_index(enum cgfb_decider d, const char *name);

#endif
