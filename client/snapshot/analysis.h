/* What a detection means for this very tree.
 *
 * Flat-hierarchy entries (S1, P1, P2, C1, C2, M8): every cgroup below the
 * root of a memory v1 hierarchy with use_hierarchy=0 and children is a
 * "flat subtree" A with children B, C, ... as in the 2012 patch. Turning on
 * hierarchical accounting changes its behaviour when A has tasks or its own
 * finite limit (then the children's charges count against A, and pressure
 * in one child reclaims from its siblings), or when a child is itself an
 * affected flat subtree. Otherwise A is empty and unlimited and already is
 * the patch's A'. Either way the patch's reorganisation for this tree is
 * given: a new A' (use_hierarchy=1, no limit, no tasks) in A's place with A
 * and its children moved below it, which keeps today's behaviour.
 *
 * Knob entries (M1-M10, V1, V3): the cgroups that set the knob away from
 * its default, with bucketed values and the cgroup-v2 replacement. */
#ifndef CGFB_ANALYSIS_H
#define CGFB_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "cgfb/catalog.h"
#include "snapshot/topology.h"

#define CGFB_FLAT_MAX            256
#define CGFB_FLAT_CHILDREN_MAX   1024
#define CGFB_KNOB_USERS_MAX      64
#define CGFB_KNOB_NODES_MAX      64
#define CGFB_KNOB_VALUES_MAX     64

enum cgfb_flat_reason {
	CGFB_R_PARENT_HAS_TASKS,
	CGFB_R_PARENT_HAS_LIMIT,
	CGFB_R_CHILDREN_EXCEED,
	CGFB_R_CHILDREN_SHARE,
	CGFB_R_NESTED_FLAT,
	CGFB_R_N
};

struct cgfb_flat {
	unsigned hier;
	uint32_t node;
	size_t n_children;
	uint32_t children[CGFB_FLAT_CHILDREN_MAX];
	bool affected;
	unsigned reasons;            /* bits of enum cgfb_flat_reason */
};

struct cgfb_knob_value {
	char text[24];
	uint64_t count;
};

struct cgfb_knob_users {
	const char *knob;            /* the catalog's knob, or the attribute's file */
	enum cgfb_attr attr;
	unsigned hier;
	uint64_t count;
	size_t n_nodes;
	uint32_t nodes[CGFB_KNOB_NODES_MAX];
	size_t n_values;
	struct cgfb_knob_value values[CGFB_KNOB_VALUES_MAX];
};

struct cgfb_analysis {
	size_t n_flat;
	struct cgfb_flat *flat;      /* malloc'ed, at most CGFB_FLAT_MAX */
	bool flat_truncated;
	size_t n_knob;
	struct cgfb_knob_users knob[CGFB_KNOB_USERS_MAX];
};

/* Which analyses an entry asks for. */
bool cgfb_analysis_wants_flat(const struct cgfb_entry *e, const char *controller);

/* Analyse t for catalog entry e (NULL: everything, for a plain snapshot);
 * knob and controller are the detection's (NULL: the entry's). Returns 0 or
 * -ENOMEM. */
int cgfb_analyse(const struct cgfb_topology *t, const struct cgfb_entry *e, const char *knob,
		 const char *controller, struct cgfb_analysis *a);
void cgfb_analysis_free(struct cgfb_analysis *a);


/* The analysis member of a report. */
json_object *cgfb_analysis_json(const struct cgfb_analysis *a);

#endif
