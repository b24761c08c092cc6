/* The cgroup topology: every mounted hierarchy walked from its mount point,
 * each cgroup with its shape and the attributes its controllers make worth
 * knowing. Names are anonymised as the walker meets them; the raw names are
 * never stored. */
#ifndef CGFB_TOPOLOGY_H
#define CGFB_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "privacy/anon.h"
#include "snapshot/attrs.h"
#include "snapshot/mountinfo.h"

#define CGFB_TOPO_MAX_NODES   50000      /* listed with attributes, all hierarchies */
#define CGFB_TOPO_COUNT_MAX   1000000    /* counted at all; the walk stops there */
#define CGFB_TOPO_MAX_DEPTH   256        /* one open directory per level */
#define CGFB_NO_PARENT        UINT32_MAX

struct cgfb_node {
	uint32_t parent;             /* index in the hierarchy, CGFB_NO_PARENT for the root */
	uint32_t depth;
	uint32_t children;           /* subdirectories seen, listed or not */
	uint64_t tasks;              /* lines of cgroup.procs (tasks on old kernels) */
	uint32_t have;               /* bit per enum cgfb_attr read */
	uint64_t v[CGFB_A_N];
	char name[CGFB_ANON_MAX];
};

struct cgfb_hier {
	int version;
	uint32_t controllers;        /* v2: from the root's cgroup.controllers */
	char name[CGFB_ANON_MAX];    /* anonymised name=, "" for none */
	size_t n, cap;
	struct cgfb_node *nodes;     /* pre-order: a parent before its children */
	uint64_t total;              /* cgroups counted, listed or not */
	uint32_t max_depth;
	bool count_capped;           /* stopped counting at CGFB_TOPO_COUNT_MAX */
	bool depth_capped;           /* cgroups below CGFB_TOPO_MAX_DEPTH not counted */
	uint64_t depth_omitted;      /* cgroups right below that depth, left out (their
	                                own subtrees are not counted) */
	int error;                   /* the mount point could not be opened */
};

/* What went wrong along the way, for one log line with context. */
struct cgfb_topo_trouble {
	unsigned long vanished;      /* cgroups removed while they were walked */
	unsigned long unreadable;    /* files or directories that refused to be read */
	int first_errno;
	char first[512];             /* path of the first unreadable one */
};

struct cgfb_topology {
	enum cgfb_cgroup_mode mode;
	unsigned max_nodes;
	unsigned n;
	struct cgfb_hier h[CGFB_HIER_MAX];
	struct cgfb_topo_trouble trouble;
};

struct cgfb_topo_opts {
	unsigned max_nodes;          /* 0: CGFB_TOPO_MAX_NODES */
	/* Tests only: called with a directory's fd after its subdirectories
	 * were listed and before they are entered, to make one vanish. */
	void (*listed_hook)(void *arg, int dirfd, uint32_t depth);
	void *hook_arg;
};

/* Walk every hierarchy of ms. Unreadable and vanishing cgroups are counted
 * in t->trouble, not errors. Returns 0 or -ENOMEM. */
int cgfb_topology_walk(const struct cgfb_mounts *ms, struct cgfb_anon *anon,
		       const struct cgfb_topo_opts *o, struct cgfb_topology *t);
void cgfb_topology_free(struct cgfb_topology *t);

static inline bool cgfb_node_has(const struct cgfb_node *n, enum cgfb_attr a)
{
	return n->have & (UINT32_C(1) << a);
}

/* Which attributes a hierarchy's cgroups have. */
uint32_t cgfb_hier_attrs(const struct cgfb_hier *h);

#endif
