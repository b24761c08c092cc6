/* What the snapshot reads from a cgroup, per controller, and how each value
 * appears in a report. One table drives the walker (which file, how to
 * parse it), the report (which member, when to leave it out) and the
 * analysis (which knob a catalog entry is about). */
#ifndef CGFB_ATTRS_H
#define CGFB_ATTRS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "privacy/bucket.h"


/* Controllers by bit. The list is closed on purpose: a v1 mount option that
 * is not one of these (release_agent=..., xattr, name=...) is never taken
 * for a controller, so nothing but these words can leave the machine. */
enum cgfb_ctrl {
	CGFB_C_CPUSET, CGFB_C_CPU, CGFB_C_CPUACCT, CGFB_C_IO, CGFB_C_BLKIO, CGFB_C_MEMORY,
	CGFB_C_DEVICES, CGFB_C_FREEZER, CGFB_C_NET_CLS, CGFB_C_PERF_EVENT, CGFB_C_NET_PRIO,
	CGFB_C_HUGETLB, CGFB_C_PIDS, CGFB_C_RDMA, CGFB_C_MISC, CGFB_C_DEBUG,
	CGFB_C_N
};

int cgfb_ctrl_index(const char *name, size_t len);
const char *cgfb_ctrl_name(unsigned i);
/* Bits of the controller words in a space-separated list (cgroup.controllers,
 * cgroup.subtree_control); unknown words are skipped. */
uint32_t cgfb_ctrl_parse_list(const char *s, size_t len);

enum cgfb_attr {
	CGFB_A_USE_HIERARCHY, CGFB_A_LIMIT, CGFB_A_MEMSW_LIMIT, CGFB_A_SOFT_LIMIT,
	CGFB_A_KMEM_LIMIT, CGFB_A_KMEM_TCP_LIMIT, CGFB_A_OOM_KILL_DISABLE, CGFB_A_MOVE_CHARGE,
	CGFB_A_SWAPPINESS,
	CGFB_A_V2_MAX, CGFB_A_V2_HIGH, CGFB_A_V2_LOW, CGFB_A_V2_MIN, CGFB_A_V2_SUBTREE,
	CGFB_A_SCHED_LOAD_BALANCE, CGFB_A_MEM_EXCLUSIVE, CGFB_A_MEM_HARDWALL,
	CGFB_A_MEMORY_MIGRATE, CGFB_A_MEMORY_SPREAD_PAGE, CGFB_A_MEMORY_SPREAD_SLAB,
	CGFB_A_MEMORY_PRESSURE_ENABLED,
	CGFB_A_FREEZER_STATE,
	CGFB_A_N
};

enum cgfb_attr_kind {
	CGFB_K_SIZE,       /* bytes, v1 style: a number, huge = unlimited */
	CGFB_K_SIZE_V2,    /* bytes or "max" */
	CGFB_K_INT,        /* a small integer in [0, max] */
	CGFB_K_OOM,        /* "oom_kill_disable N" line of memory.oom_control */
	CGFB_K_CTRL_LIST,  /* controller words, kept as bits */
	CGFB_K_FREEZER,    /* THAWED / FREEZING / FROZEN */
};

/* Which hierarchies an attribute is read in. */
enum cgfb_attr_scope { CGFB_S_MEMORY_V1, CGFB_S_V2, CGFB_S_CPUSET, CGFB_S_FREEZER };

struct cgfb_attr_def {
	const char *file;          /* as named in v1 with prefixes, or in v2 */
	const char *group;         /* report member holding it: memory, memory_v2, ... */
	const char *key;           /* member name inside the group */
	enum cgfb_attr_kind kind;
	enum cgfb_attr_scope scope;
	uint64_t max;              /* CGFB_K_INT: largest valid value */
	bool always;               /* reported even when it holds the default */
	uint64_t dflt;             /* the kernel's default; not reported unless always */
	/* The cgroup-v2 way to do the same, for the knob-users analysis. */
	const char *replacement;
	/* The root's value is the kernel's, not a choice (the root cpuset is
	 * always mem_exclusive). */
	bool root_fixed;
};

const struct cgfb_attr_def *cgfb_attr(enum cgfb_attr a);

/* True when v at this depth says nothing: the default, or a root value
 * nobody chose. Reports and the knob analysis leave such values out. */
bool cgfb_attr_is_default(enum cgfb_attr a, uint64_t v, uint32_t depth);

/* The attribute a catalog knob names ("memory.soft_limit_in_bytes",
 * "swapaccount=0"), or -1. */
int cgfb_attr_for_knob(const char *knob);

/* Parse file content for attribute a. Returns 0 and the value, or -EINVAL
 * when the content is not what the kernel writes. */
int cgfb_attr_parse(enum cgfb_attr a, const char *buf, size_t len, uint64_t *value);

/* The value as a report shows it: a size bucket, a number, a state name.
 * buf needs CGFB_ATTR_TEXT_MAX bytes. */
#define CGFB_ATTR_TEXT_MAX 24
const char *cgfb_attr_text(enum cgfb_attr a, uint64_t v, char *buf);


#endif
