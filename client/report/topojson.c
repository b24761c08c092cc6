#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgfb/canon.h"
#include "privacy/bucket.h"
#include "report/topojson.h"

struct plan {
	size_t n;
	uint32_t *order;       /* pinned nodes first, then the rest, each in pre-order */
	size_t *cost;          /* canonical bytes of order[k], with its comma */
	size_t need;           /* bytes to list every node */
	size_t take;           /* how many of order are listed */
};

static void add_attr(json_object *group, enum cgfb_attr a, uint64_t v)
{
	const struct cgfb_attr_def *d = cgfb_attr(a);
	char buf[CGFB_ATTR_TEXT_MAX];
	json_object *val;

	switch (d->kind) {
	case CGFB_K_INT:
	case CGFB_K_OOM:
		val = json_object_new_int64((int64_t)v);
		break;
	case CGFB_K_CTRL_LIST:
		val = json_object_new_array();
		for (unsigned c = 0; c < CGFB_C_N; c++)
			if (v & (UINT64_C(1) << c))
				json_object_array_add(val, json_object_new_string(cgfb_ctrl_name(c)));
		break;
	default:
		val = json_object_new_string(cgfb_attr_text(a, v, buf));
	}
	json_object_object_add(group, d->key, val);
}

/* Attributes at their default are left out, except those marked always. */
static void add_attrs(json_object *o, const struct cgfb_node *n)
{
	for (int a = 0; a < CGFB_A_N; a++) {
		const struct cgfb_attr_def *d = cgfb_attr(a);
		json_object *group;

		if (!cgfb_node_has(n, a) ||
		    (!d->always && cgfb_attr_is_default(a, n->v[a], n->depth)))
			continue;
		if (!json_object_object_get_ex(o, d->group, &group)) {
			group = json_object_new_object();
			json_object_object_add(o, d->group, group);
		}
		add_attr(group, a, n->v[a]);
	}
}

json_object *cgfb_node_json(const struct cgfb_hier *h, size_t i)
{
	const struct cgfb_node *n = &h->nodes[i];
	json_object *o = json_object_new_object();
	char buf[CGFB_BUCKET_MAX];

	json_object_object_add(o, "id", json_object_new_int64((int64_t)i));
	json_object_object_add(o, "parent", n->parent == CGFB_NO_PARENT ? NULL :
				json_object_new_int64(n->parent));
	json_object_object_add(o, "name", json_object_new_string(n->name));
	json_object_object_add(o, "depth", json_object_new_int64(n->depth));
	json_object_object_add(o, "children", json_object_new_int64(n->children));
	json_object_object_add(o, "tasks", json_object_new_string(cgfb_bucket_count(n->tasks,
										       buf)));
	add_attrs(o, n);
	return o;
}

static void pin(uint8_t *pinned, const struct cgfb_hier *h, uint32_t i)
{
	while (i != CGFB_NO_PARENT && i < h->n && !pinned[i]) {
		pinned[i] = 1;
		i = h->nodes[i].parent;
	}
}

static void pin_analysis(uint8_t *pinned, const struct cgfb_hier *h, unsigned hi,
			 const struct cgfb_analysis *an)
{
	for (size_t f = 0; an && f < an->n_flat; f++) {
		if (an->flat[f].hier != hi)
			continue;
		pin(pinned, h, an->flat[f].node);
		for (size_t c = 0; c < an->flat[f].n_children; c++)
			pin(pinned, h, an->flat[f].children[c]);
	}
	for (size_t k = 0; an && k < an->n_knob; k++)
		for (size_t j = 0; an->knob[k].hier == hi && j < an->knob[k].n_nodes; j++)
			pin(pinned, h, an->knob[k].nodes[j]);
}

static size_t node_bytes(const struct cgfb_hier *h, size_t i)
{
	json_object *o = cgfb_node_json(h, i);
	struct cgfb_buf b = { 0 };
	size_t n = SIZE_MAX / 4;

	if (cgfb_canon_serialize(o, SIZE_MAX / 4, &b) == 0)
		n = b.len + 1;
	cgfb_buf_free(&b);
	json_object_put(o);
	return n;
}

/* With sizes false (budget 0: the report is being measured without its
 * nodes) the costs are left out: they take most of the time. */
static int plan_make(struct plan *p, const struct cgfb_hier *h, unsigned hi,
		     const struct cgfb_analysis *an, bool sizes)
{
	uint8_t *pinned = calloc(h->n ? h->n : 1, 1);
	size_t k = 0;

	p->n = h->n;
	p->order = malloc((h->n ? h->n : 1) * sizeof(*p->order));
	p->cost = malloc((h->n ? h->n : 1) * sizeof(*p->cost));
	if (!pinned || !p->order || !p->cost) {
		free(pinned);
		return -1;
	}
	pin_analysis(pinned, h, hi, an);
	for (int pass = 1; pass >= 0; pass--)
		for (size_t i = 0; i < h->n; i++)
			if (pinned[i] == pass)
				p->order[k++] = (uint32_t)i;
	p->need = 0;
	for (k = 0; k < h->n; k++) {
		p->cost[k] = sizes ? node_bytes(h, p->order[k]) : 1;
		p->need += p->cost[k];
	}
	free(pinned);
	return 0;
}

static int by_need(const void *a, const void *b, void *arg)
{
	const struct plan *p = arg;
	const size_t x = p[*(const unsigned *)a].need, y = p[*(const unsigned *)b].need;

	return x < y ? -1 : x > y;
}

/* Water-filling: the smallest hierarchies are listed whole when they fit
 * their share, and what they leave goes to the bigger ones. */
static void share_budget(struct plan *p, unsigned n, size_t budget)
{
	unsigned idx[CGFB_HIER_MAX];

	for (unsigned i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof(idx[0]), by_need, p);
	for (unsigned k = 0; k < n; k++) {
		struct plan *q = &p[idx[k]];
		const size_t share = budget == SIZE_MAX ? SIZE_MAX : budget / (n - k);
		size_t used = 0;

		q->take = 0;
		while (q->take < q->n && q->cost[q->take] <= share - used) {
			used += q->cost[q->take];
			q->take++;
		}
		if (budget != SIZE_MAX)
			budget -= used;
	}
}

/* Why the hierarchy's list is not whole, and how much is missing. A tree
 * deeper than the walk goes says so first: below it nothing was counted,
 * so its number is a floor (the cgroups right below the deepest level). */
static json_object *cut_json(const struct cgfb_hier *h, size_t listed)
{
	const uint64_t by_walk = h->total - h->n, by_size = h->n - listed;
	const uint64_t by_depth = h->depth_omitted;
	const char *reason = by_depth ? "depth_cap" : by_size > by_walk ? "size_cap" : "node_cap";
	json_object *o;

	if (by_walk + by_size + by_depth == 0)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "reason", json_object_new_string(reason));
	json_object_object_add(o, "nodes_omitted",
			       json_object_new_int64((int64_t)(by_walk + by_size + by_depth)));
	return o;
}

static json_object *hier_json(const struct cgfb_hier *h, unsigned hi, const struct plan *p)
{
	json_object *o = json_object_new_object(), *ctrls = json_object_new_array();
	json_object *nodes = json_object_new_array();
	uint8_t *keep = calloc(h->n ? h->n : 1, 1);

	if (!keep) {
		json_object_put(o);
		json_object_put(ctrls);
		json_object_put(nodes);
		return NULL;
	}
	for (size_t k = 0; k < p->take; k++)
		keep[p->order[k]] = 1;
	for (size_t i = 0; i < h->n; i++)
		if (keep[i])
			json_object_array_add(nodes, cgfb_node_json(h, i));
	free(keep);
	for (unsigned c = 0; c < CGFB_C_N; c++)
		if (h->controllers & (1u << c))
			json_object_array_add(ctrls, json_object_new_string(cgfb_ctrl_name(c)));
	json_object_object_add(o, "id", json_object_new_int(hi));
	json_object_object_add(o, "version", json_object_new_int(h->version));
	json_object_object_add(o, "controllers", ctrls);
	json_object_object_add(o, "name", h->name[0] ? json_object_new_string(h->name) : NULL);
	json_object_object_add(o, "nodes_total", json_object_new_int64((int64_t)h->total));
	json_object_object_add(o, "nodes_listed", json_object_new_int64((int64_t)p->take));
	json_object_object_add(o, "max_depth", json_object_new_int64(h->max_depth));
	json_object_object_add(o, "cut", cut_json(h, p->take));
	json_object_object_add(o, "nodes", nodes);
	return o;
}

json_object *cgfb_topology_json(const struct cgfb_topology *t, const struct cgfb_analysis *an,
				size_t max_bytes, size_t budget)
{
	struct plan p[CGFB_HIER_MAX];
	json_object *o = NULL, *arr;
	unsigned made = 0;

	memset(p, 0, sizeof(p));
	for (; made < t->n; made++)
		if (plan_make(&p[made], &t->h[made], made, an, budget > 0) < 0)
			goto out;
	share_budget(p, t->n, budget);
	o = json_object_new_object();
	arr = json_object_new_array();
	json_object_object_add(o, "max_nodes", json_object_new_int64(t->max_nodes));
	json_object_object_add(o, "max_bytes", json_object_new_int64((int64_t)max_bytes));
	json_object_object_add(o, "hierarchies", arr);
	for (unsigned i = 0; i < t->n; i++) {
		json_object *h = hier_json(&t->h[i], i, &p[i]);

		if (!h) {
			json_object_put(o);
			o = NULL;
			break;
		}
		json_object_array_add(arr, h);
	}
out:
	for (unsigned i = 0; i < t->n; i++) {
		free(p[i].order);
		free(p[i].cost);
	}
	return o;
}
