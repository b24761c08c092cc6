/* The public aggregates (summary.h), computed over the store: pubsum.c
 * calls this on its own thread and serves the bytes. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "store/known.h"
#include "store/summary.h"

struct dim_ctx {
	const struct summary_policy *p;
	enum store_dim d;
	json_object *groups;
	int64_t suppressed;
};

/* Whether the policy lets a key of dimension d be shown at all. */
static bool showable(const struct dim_ctx *c, const char *key)
{
	if (!c->p)
		return true;
	switch (c->d) {
	case DIM_CATALOG_ID:
	case DIM_CHECK_CATALOG_ID:
		return !c->p->catalog || cgfb_catalog_find(c->p->catalog, key);
	case DIM_SOFTWARE:
		return known_software(key);
	default:
		return true;
	}
}

/* value plus noise for one published number; the label names it and its
 * true value (noise.h). INT64_MIN when no noise could be drawn. */
static int64_t noisy(const struct dim_ctx *c, const char *key, const char *what, int64_t value,
		     int64_t other, double sensitivity)
{
	char label[256];
	int64_t x;

	if (!c->p || !(c->p->epsilon > 0))
		return value;
	snprintf(label, sizeof(label), "%s\x1f%s\x1f%s\x1f%" PRId64 "\x1f%" PRId64,
		 store_dim_name(c->d), key, what, value, other);
	x = noise_geometric(c->p->key, label, c->p->epsilon / sensitivity);
	if (x == INT64_MIN)
		return INT64_MIN;
	return value + x < 0 ? 0 : value + x;
}

static int on_group(const struct store_group *g, void *ud)
{
	struct dim_ctx *c = ud;
	const bool noise = c->p && c->p->epsilon > 0;
	int64_t installs, reports;
	json_object *o;

	if (!showable(c, g->key))
		return 0;
	installs = noisy(c, g->key, "installs", g->installs, g->capped, 1);
	reports = noisy(c, g->key, "reports", noise ? g->capped : g->reports, g->installs,
			STORE_CAP_PER_INSTALL);
	if (installs == INT64_MIN || reports == INT64_MIN || installs < SUMMARY_MIN_INSTALLS) {
		c->suppressed++;
		return 0;
	}
	o = json_object_new_object();
	json_object_object_add(o, "key", json_object_new_string(g->key));
	json_object_object_add(o, "reports",
			       json_object_new_int64(reports < installs ? installs : reports));
	json_object_object_add(o, "installs", json_object_new_int64(installs));
	json_object_array_add(c->groups, o);
	return 0;
}

static int add_dim(struct store *s, const struct summary_policy *p, enum store_dim d,
		   json_object *dims)
{
	struct dim_ctx c = { p, d, json_object_new_array(), 0 };
	json_object *o;
	int64_t small;
	const int rc = store_groups(s, d, on_group, &c);

	if (rc < 0) {
		json_object_put(c.groups);
		return rc;
	}
	/* A new rare key adds one suppressed group: that count is published
	 * too, so it is blurred like the others. */
	small = noisy(&c, "", "suppressed", c.suppressed, 0, 1);
	o = json_object_new_object();
	json_object_object_add(o, "groups", c.groups);
	json_object_object_add(o, "suppressed_groups",
			       json_object_new_int64(small == INT64_MIN ? 0 : small));
	json_object_object_add(dims, store_dim_name(d), o);
	return 0;
}

/* One group's counts into an object under key of out, "suppressed" when
 * the group is under the threshold (or empty). */
static int add_count(struct store *s, const struct summary_policy *p, enum store_dim d,
		     const char *key, json_object *out)
{
	struct dim_ctx c = { p, d, json_object_new_array(), 0 };
	json_object *total = json_object_new_object();
	const int rc = store_groups(s, d, on_group, &c);
	json_object *all = json_object_array_get_idx(c.groups, 0);
	json_object *v;

	if (all && json_object_object_get_ex(all, "reports", &v))
		json_object_object_add(total, "reports", json_object_get(v));
	if (all && json_object_object_get_ex(all, "installs", &v))
		json_object_object_add(total, "installs", json_object_get(v));
	json_object_object_add(total, "suppressed", json_object_new_boolean(!all));
	json_object_object_add(out, key, total);
	json_object_put(c.groups);
	return rc;
}

/* Every report, and inside it those found by check (which the kernel
 * did not print), each under the same threshold. */
static int add_total(struct store *s, const struct summary_policy *p, json_object *out)
{
	int rc = add_count(s, p, DIM_ALL, "total", out);

	if (rc == 0)
		rc = add_count(s, p, DIM_CHECK_ALL, "check", json_object_object_get(out, "total"));
	return rc;
}

int summary_build(struct store *s, const char *since, const struct summary_policy *p,
		  json_object **out)
{
	json_object *o = json_object_new_object();
	json_object *dims = json_object_new_object();
	int rc;

	json_object_object_add(o, "min_installs", json_object_new_int(SUMMARY_MIN_INSTALLS));
	if (p)
		json_object_object_add(o, "epsilon", json_object_new_double(p->epsilon));
	json_object_object_add(o, "since", since ? json_object_new_string(since) : NULL);
	json_object_object_add(o, "dimensions", dims);
	rc = store_groups_begin(s, since);
	if (rc == 0) {
		rc = add_total(s, p, o);
		for (int d = 0; d < DIM_ALL && rc == 0; d++)
			rc = add_dim(s, p, (enum store_dim)d, dims);
		store_groups_end(s);
	}
	if (rc < 0) {
		json_object_put(o);
		return rc;
	}
	*out = o;
	return 0;
}
