#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot/analysis.h"

static const char *const reason_names[CGFB_R_N] = {
	"parent_has_tasks", "parent_has_limit", "children_limits_exceed_parent",
	"children_share_parent_limit", "nested_flat_children",
};

bool cgfb_analysis_wants_flat(const struct cgfb_entry *e, const char *controller)
{
	if (!e)
		return true;
	if (e->knob && strcmp(e->knob, "memory.use_hierarchy") == 0)
		return true;
	/* C1 names the controller; for memory it is the flat-hierarchy case
	 * (and without a message we cannot tell it is not). */
	return strcmp(e->id, "C1") == 0 && (!controller || strcmp(controller, "memory") == 0);
}

static bool is_memory_v1(const struct cgfb_hier *h)
{
	return h->version == 1 && (h->controllers & (1u << CGFB_C_MEMORY));
}

static uint64_t attr_or(const struct cgfb_node *n, enum cgfb_attr a, uint64_t dflt)
{
	return cgfb_node_has(n, a) ? n->v[a] : dflt;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Children lists of a pre-order array: first[i], then next[c] ... */
struct kids {
	uint32_t *first, *next;
};

static int kids_build(const struct cgfb_hier *h, struct kids *k)
{
	k->first = malloc((h->n ? h->n : 1) * sizeof(uint32_t));
	k->next = malloc((h->n ? h->n : 1) * sizeof(uint32_t));
	if (!k->first || !k->next)
		return -ENOMEM;
	for (size_t i = 0; i < h->n; i++)
		k->first[i] = k->next[i] = CGFB_NO_PARENT;
	/* Backwards, so that each list ends up in pre-order. */
	for (size_t i = h->n; i-- > 1;) {
		const uint32_t p = h->nodes[i].parent;

		k->next[i] = k->first[p];
		k->first[p] = (uint32_t)i;
	}
	return 0;
}

static void kids_free(struct kids *k)
{
	free(k->first);
	free(k->next);
}

static bool flat_root(const struct cgfb_hier *h, const struct kids *k, size_t i)
{
	const struct cgfb_node *n = &h->nodes[i];

	return n->depth >= 1 && cgfb_node_has(n, CGFB_A_USE_HIERARCHY) &&
	       n->v[CGFB_A_USE_HIERARCHY] == 0 && k->first[i] != CGFB_NO_PARENT;
}

/* The verdict on node i; children were judged before (higher indices). */
static void judge(const struct cgfb_hier *h, const struct kids *k, const bool *affected,
		  size_t i, struct cgfb_flat *f)
{
	const struct cgfb_node *a = &h->nodes[i];
	const uint64_t limit = attr_or(a, CGFB_A_LIMIT, CGFB_UNLIMITED);
	const uint64_t memsw = attr_or(a, CGFB_A_MEMSW_LIMIT, CGFB_UNLIMITED);
	uint64_t sum = 0;

	f->reasons = 0;
	f->n_children = 0;
	if (a->tasks)
		f->reasons |= 1u << CGFB_R_PARENT_HAS_TASKS;
	if (limit != CGFB_UNLIMITED || memsw != CGFB_UNLIMITED)
		f->reasons |= 1u << CGFB_R_PARENT_HAS_LIMIT;
	for (uint32_t c = k->first[i]; c != CGFB_NO_PARENT; c = k->next[c]) {
		sum = sat_add(sum, attr_or(&h->nodes[c], CGFB_A_LIMIT, CGFB_UNLIMITED));
		if (affected[c])
			f->reasons |= 1u << CGFB_R_NESTED_FLAT;
		if (f->n_children < CGFB_FLAT_CHILDREN_MAX)
			f->children[f->n_children++] = c;
	}
	if (limit != CGFB_UNLIMITED)
		f->reasons |= 1u << (sum > limit ? CGFB_R_CHILDREN_EXCEED : CGFB_R_CHILDREN_SHARE);
	f->node = (uint32_t)i;
	f->affected = f->reasons != 0;
}

static int flat_hier(struct cgfb_analysis *an, const struct cgfb_hier *h, unsigned hi)
{
	struct kids k = { 0 };
	bool *affected = calloc(h->n ? h->n : 1, sizeof(bool));
	bool *flat = calloc(h->n ? h->n : 1, sizeof(bool));
	struct cgfb_flat f;
	int rc = -ENOMEM;

	if (!affected || !flat || kids_build(h, &k) < 0)
		goto out;
	/* Bottom-up first: a verdict depends on the children's. */
	for (size_t i = h->n; i-- > 1;) {
		flat[i] = flat_root(h, &k, i);
		if (!flat[i])
			continue;
		judge(h, &k, affected, i, &f);
		affected[i] = f.affected;
	}
	/* Then listed top-down, so that a cut keeps the outermost. */
	for (size_t i = 1; i < h->n; i++) {
		if (!flat[i])
			continue;
		if (an->n_flat == CGFB_FLAT_MAX) {
			an->flat_truncated = true;
			break;
		}
		judge(h, &k, affected, i, &an->flat[an->n_flat]);
		an->flat[an->n_flat++].hier = hi;
	}
	rc = 0;
out:
	kids_free(&k);
	free(affected);
	free(flat);
	return rc;
}

static void count_value(struct cgfb_knob_users *u, enum cgfb_attr a, uint64_t v)
{
	char buf[CGFB_ATTR_TEXT_MAX];
	const char *text = cgfb_attr_text(a, v, buf);

	for (size_t i = 0; i < u->n_values; i++)
		if (strcmp(u->values[i].text, text) == 0) {
			u->values[i].count++;
			return;
		}
	if (u->n_values == CGFB_KNOB_VALUES_MAX)
		return;
	strncpy(u->values[u->n_values].text, text, sizeof(u->values[0].text) - 1);
	u->values[u->n_values++].count = 1;
}

/* Cgroups of h that set attribute a away from its default. */
static void knob_users(struct cgfb_analysis *an, const struct cgfb_hier *h, unsigned hi,
		       enum cgfb_attr a, const char *knob, bool keep_empty)
{
	const struct cgfb_attr_def *d = cgfb_attr(a);
	struct cgfb_knob_users *u;

	if (an->n_knob == CGFB_KNOB_USERS_MAX || !(cgfb_hier_attrs(h) & (UINT32_C(1) << a)))
		return;
	u = &an->knob[an->n_knob];
	memset(u, 0, sizeof(*u));
	u->knob = knob ? knob : d->file;
	u->attr = a;
	u->hier = hi;
	for (size_t i = 0; i < h->n; i++) {
		const struct cgfb_node *n = &h->nodes[i];

		if (!cgfb_node_has(n, a) || cgfb_attr_is_default(a, n->v[a], n->depth))
			continue;
		u->count++;
		if (u->n_nodes < CGFB_KNOB_NODES_MAX)
			u->nodes[u->n_nodes++] = (uint32_t)i;
		count_value(u, a, n->v[a]);
	}
	if (u->count || keep_empty)
		an->n_knob++;
}

static void knob_all(struct cgfb_analysis *an, const struct cgfb_topology *t)
{
	for (unsigned hi = 0; hi < t->n; hi++)
		for (int a = 0; a < CGFB_A_N; a++)
			if (cgfb_attr(a)->replacement)
				knob_users(an, &t->h[hi], hi, a, NULL, false);
}

int cgfb_analyse(const struct cgfb_topology *t, const struct cgfb_entry *e, const char *knob,
		 const char *controller, struct cgfb_analysis *an)
{
	const bool flat = cgfb_analysis_wants_flat(e, controller ? controller :
						      e ? e->controller : NULL);
	int attr;
	int rc = 0;

	memset(an, 0, sizeof(*an));
	an->flat = flat ? malloc(CGFB_FLAT_MAX * sizeof(*an->flat)) : NULL;
	if (flat && !an->flat)
		return -ENOMEM;
	for (unsigned hi = 0; hi < t->n && flat && rc == 0; hi++)
		if (is_memory_v1(&t->h[hi]))
			rc = flat_hier(an, &t->h[hi], hi);
	if (rc < 0) {
		cgfb_analysis_free(an);
		return rc;
	}
	if (!e) {
		knob_all(an, t);
		return 0;
	}
	if (!knob)
		knob = flat ? "memory.use_hierarchy" : e->knob;
	attr = knob ? cgfb_attr_for_knob(knob) : -1;
	for (unsigned hi = 0; hi < t->n && attr >= 0; hi++)
		knob_users(an, &t->h[hi], hi, (enum cgfb_attr)attr, knob, true);
	return 0;
}

void cgfb_analysis_free(struct cgfb_analysis *an)
{
	free(an->flat);
	memset(an, 0, sizeof(*an));
}

static json_object *ids_json(const uint32_t *ids, size_t n)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_int64(ids[i]));
	return a;
}

/* The 2012 patch's A': a new parent with use_hierarchy=1, no limit and no
 * tasks, with A and its children moved below it. */
static json_object *reorganisation_json(const struct cgfb_flat *f)
{
	json_object *o = json_object_new_object(), *np = json_object_new_object();
	json_object *move = json_object_new_array();

	json_object_object_add(np, "use_hierarchy", json_object_new_int(1));
	json_object_object_add(np, "limit", json_object_new_string("max"));
	json_object_object_add(np, "tasks", json_object_new_string("0"));
	json_object_array_add(move, json_object_new_int64(f->node));
	for (size_t i = 0; i < f->n_children; i++)
		json_object_array_add(move, json_object_new_int64(f->children[i]));
	json_object_object_add(o, "new_parent", np);
	json_object_object_add(o, "move_under_new_parent", move);
	return o;
}

static json_object *flat_json(const struct cgfb_flat *f)
{
	json_object *o = json_object_new_object(), *reasons = json_object_new_array();

	for (int r = 0; r < CGFB_R_N; r++)
		if (f->reasons & (1u << r))
			json_object_array_add(reasons, json_object_new_string(reason_names[r]));
	json_object_object_add(o, "hierarchy", json_object_new_int((int)f->hier));
	json_object_object_add(o, "node", json_object_new_int64(f->node));
	json_object_object_add(o, "children", ids_json(f->children, f->n_children));
	json_object_object_add(o, "verdict", json_object_new_string(f->affected ? "affected" :
								     "unaffected"));
	json_object_object_add(o, "reasons", reasons);
	json_object_object_add(o, "reorganisation", reorganisation_json(f));
	return o;
}

static json_object *knob_json(const struct cgfb_knob_users *u)
{
	const char *repl = cgfb_attr(u->attr)->replacement;
	json_object *o = json_object_new_object(), *values = json_object_new_object();

	for (size_t i = 0; i < u->n_values; i++)
		json_object_object_add(values, u->values[i].text,
				       json_object_new_int64((int64_t)u->values[i].count));
	json_object_object_add(o, "knob", json_object_new_string(u->knob));
	json_object_object_add(o, "hierarchy", json_object_new_int((int)u->hier));
	json_object_object_add(o, "count", json_object_new_int64((int64_t)u->count));
	json_object_object_add(o, "nodes", ids_json(u->nodes, u->n_nodes));
	json_object_object_add(o, "values", values);
	json_object_object_add(o, "replacement", repl ? json_object_new_string(repl) : NULL);
	return o;
}

json_object *cgfb_analysis_json(const struct cgfb_analysis *an)
{
	json_object *o = json_object_new_object(), *flat = json_object_new_array();
	json_object *knobs = json_object_new_array();

	for (size_t i = 0; i < an->n_flat; i++)
		json_object_array_add(flat, flat_json(&an->flat[i]));
	for (size_t i = 0; i < an->n_knob; i++)
		json_object_array_add(knobs, knob_json(&an->knob[i]));
	json_object_object_add(o, "flat_subtrees", flat);
	json_object_object_add(o, "knob_users", knobs);
	return o;
}
