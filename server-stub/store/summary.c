/* The public aggregates (summary.h), computed over the store: pubsum.c
 * calls this on its own thread and serves the bytes. */

#include "store/summary.h"

struct dim_ctx {
	json_object *groups;
	int suppressed;
};

static int on_group(const char *key, int64_t reports, int64_t installs, void *ud)
{
	struct dim_ctx *c = ud;
	json_object *g;

	if (installs < SUMMARY_MIN_INSTALLS) {
		c->suppressed++;
		return 0;
	}
	g = json_object_new_object();
	json_object_object_add(g, "key", json_object_new_string(key));
	json_object_object_add(g, "reports", json_object_new_int64(reports));
	json_object_object_add(g, "installs", json_object_new_int64(installs));
	json_object_array_add(c->groups, g);
	return 0;
}

static int add_dim(struct store *s, enum store_dim d, json_object *dims)
{
	struct dim_ctx c = { json_object_new_array(), 0 };
	json_object *o;
	const int rc = store_groups(s, d, on_group, &c);

	if (rc < 0) {
		json_object_put(c.groups);
		return rc;
	}
	o = json_object_new_object();
	json_object_object_add(o, "groups", c.groups);
	json_object_object_add(o, "suppressed_groups", json_object_new_int(c.suppressed));
	json_object_object_add(dims, store_dim_name(d), o);
	return 0;
}

/* One group's counts into an object under key of out, "suppressed" when
 * the group is under the threshold (or empty). */
static int add_count(struct store *s, enum store_dim d, const char *key, json_object *out)
{
	struct dim_ctx c = { json_object_new_array(), 0 };
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
static int add_total(struct store *s, json_object *out)
{
	int rc = add_count(s, DIM_ALL, "total", out);

	if (rc == 0)
		rc = add_count(s, DIM_CHECK_ALL, "check", json_object_object_get(out, "total"));
	return rc;
}

int summary_build(struct store *s, const char *since, json_object **out)
{
	json_object *o = json_object_new_object();
	json_object *dims = json_object_new_object();
	int rc;

	json_object_object_add(o, "min_installs", json_object_new_int(SUMMARY_MIN_INSTALLS));
	json_object_object_add(o, "since", since ? json_object_new_string(since) : NULL);
	json_object_object_add(o, "dimensions", dims);
	rc = store_groups_begin(s, since);
	if (rc == 0) {
		rc = add_total(s, o);
		for (int d = 0; d < DIM_ALL && rc == 0; d++)
			rc = add_dim(s, (enum store_dim)d, dims);
		store_groups_end(s);
	}
	if (rc < 0) {
		json_object_put(o);
		return rc;
	}
	*out = o;
	return 0;
}
