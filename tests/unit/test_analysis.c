#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>

#include "snapshot/analysis.h"

#define M(x) ((uint64_t)(x) << 20)
#define NONE UINT64_MAX - 1     /* "the file was not there" in add() */

/* One memory v1 hierarchy built by hand, node by node in pre-order. */
static struct cgfb_topology t;

static uint32_t add(uint32_t parent, uint64_t tasks, uint64_t limit, int use_hierarchy)
{
	struct cgfb_hier *h = &t.h[0];
	struct cgfb_node *n;

	h->nodes = realloc(h->nodes, (h->n + 1) * sizeof(*h->nodes));
	n = &h->nodes[h->n];
	memset(n, 0, sizeof(*n));
	n->parent = parent;
	n->depth = parent == CGFB_NO_PARENT ? 0 : h->nodes[parent].depth + 1;
	n->tasks = tasks;
	snprintf(n->name, sizeof(n->name), "n%zu", h->n);
	if (limit != NONE) {
		n->have |= 1u << CGFB_A_LIMIT;
		n->v[CGFB_A_LIMIT] = limit;
	}
	n->have |= 1u << CGFB_A_USE_HIERARCHY;
	n->v[CGFB_A_USE_HIERARCHY] = (uint64_t)use_hierarchy;
	if (parent != CGFB_NO_PARENT)
		h->nodes[parent].children++;
	h->total = ++h->n;
	return (uint32_t)(h->n - 1);
}

static int reset(void **state)
{
	free(t.h[0].nodes);
	memset(&t, 0, sizeof(t));
	t.n = 1;
	t.h[0].version = 1;
	t.h[0].controllers = 1u << CGFB_C_MEMORY;
	return 0;
}

static void analyse_all(struct cgfb_analysis *an)
{
	assert_int_equal(cgfb_analyse(&t, NULL, NULL, NULL, an), 0);
}

static bool has(const struct cgfb_flat *f, enum cgfb_flat_reason r)
{
	return f->reasons & (1u << r);
}

/* The patch's picture: A, B, C with tasks and limits; B + C > A. */
static void patch_picture_affected(void **state)
{
	struct cgfb_analysis an;
	const uint32_t root = add(CGFB_NO_PARENT, 100, CGFB_UNLIMITED, 0);
	const uint32_t a = add(root, 3, M(1024), 0);
	const uint32_t b = add(a, 2, M(768), 0);
	const uint32_t c = add(a, 2, M(512), 0);
	json_object *j, *f;

	analyse_all(&an);
	assert_int_equal(an.n_flat, 1);          /* the root's children are not flat subtrees */
	assert_int_equal(an.flat[0].node, a);
	assert_int_equal(an.flat[0].n_children, 2);
	assert_int_equal(an.flat[0].children[0], b);
	assert_int_equal(an.flat[0].children[1], c);
	assert_true(an.flat[0].affected);
	assert_true(has(&an.flat[0], CGFB_R_PARENT_HAS_TASKS));
	assert_true(has(&an.flat[0], CGFB_R_PARENT_HAS_LIMIT));
	assert_true(has(&an.flat[0], CGFB_R_CHILDREN_EXCEED));
	assert_false(has(&an.flat[0], CGFB_R_CHILDREN_SHARE));
	j = cgfb_analysis_json(&an);
	f = json_object_array_get_idx(json_object_object_get(j, "flat_subtrees"), 0);
	assert_string_equal(json_object_get_string(json_object_object_get(f, "verdict")), "affected");
	assert_string_equal(json_object_to_json_string_ext(json_object_object_get(f, "reorganisation"),
							    JSON_C_TO_STRING_PLAIN),
			    "{\"new_parent\":{\"use_hierarchy\":1,\"limit\":\"max\",\"tasks\":\"0\"},"
			    "\"move_under_new_parent\":[1,2,3]}");
	json_object_put(j);
	cgfb_analysis_free(&an);
}

/* A limited but empty, children fit under it: still changes (they would
 * share A's limit), reasons say how. */
static void limit_shared(void **state)
{
	struct cgfb_analysis an;
	const uint32_t root = add(CGFB_NO_PARENT, 1, CGFB_UNLIMITED, 1);
	const uint32_t a = add(root, 0, M(2048), 0);

	add(a, 1, M(512), 0);
	add(a, 1, M(1024), 0);
	analyse_all(&an);
	assert_int_equal(an.n_flat, 1);
	assert_true(an.flat[0].affected);
	assert_false(has(&an.flat[0], CGFB_R_PARENT_HAS_TASKS));
	assert_true(has(&an.flat[0], CGFB_R_PARENT_HAS_LIMIT));
	assert_true(has(&an.flat[0], CGFB_R_CHILDREN_SHARE));
	cgfb_analysis_free(&an);
}

/* An unlimited child under a limited A exceeds it. */
static void unlimited_child_exceeds(void **state)
{
	struct cgfb_analysis an;
	const uint32_t a = add(add(CGFB_NO_PARENT, 1, CGFB_UNLIMITED, 1), 0, M(64), 0);

	add(a, 1, CGFB_UNLIMITED, 0);
	analyse_all(&an);
	assert_true(has(&an.flat[0], CGFB_R_CHILDREN_EXCEED));
	cgfb_analysis_free(&an);
}

/* A unlimited and empty is already the patch's A'. */
static void unaffected(void **state)
{
	struct cgfb_analysis an;
	const uint32_t a = add(add(CGFB_NO_PARENT, 50, CGFB_UNLIMITED, 0), 0, CGFB_UNLIMITED, 0);

	add(a, 2, M(768), 0);
	add(a, 2, M(512), 0);
	analyse_all(&an);
	assert_int_equal(an.n_flat, 1);
	assert_false(an.flat[0].affected);
	assert_int_equal(an.flat[0].reasons, 0);
	cgfb_analysis_free(&an);
}

/* An empty, unlimited A whose child B is itself an affected flat subtree:
 * A's verdict follows B's. Listed outermost first. */
static void nested(void **state)
{
	struct cgfb_analysis an;
	const uint32_t a = add(add(CGFB_NO_PARENT, 50, CGFB_UNLIMITED, 1), 0, CGFB_UNLIMITED, 0);
	const uint32_t b = add(a, 4, M(256), 0);

	add(b, 1, M(128), 0);
	add(a, 0, M(128), 0);
	analyse_all(&an);
	assert_int_equal(an.n_flat, 2);
	assert_int_equal(an.flat[0].node, a);
	assert_int_equal(an.flat[1].node, b);
	assert_true(an.flat[1].affected);
	assert_true(an.flat[0].affected);
	assert_int_equal(an.flat[0].reasons, 1u << CGFB_R_NESTED_FLAT);
	cgfb_analysis_free(&an);
}

/* use_hierarchy=1 or no children: nothing to say. */
static void not_flat(void **state)
{
	struct cgfb_analysis an;
	const uint32_t root = add(CGFB_NO_PARENT, 50, CGFB_UNLIMITED, 0);

	add(add(root, 3, M(64), 1), 1, M(32), 1);
	add(root, 3, M(64), 0);
	analyse_all(&an);
	assert_int_equal(an.n_flat, 0);
	cgfb_analysis_free(&an);
}

static void knob_users(void **state)
{
	struct cgfb_catalog *cat = test_catalog();
	struct cgfb_analysis an;
	const uint32_t root = add(CGFB_NO_PARENT, 50, CGFB_UNLIMITED, 1);

	for (int i = 0; i < 100; i++) {
		const uint32_t i_node = add(root, 1, M(64), 1);    /* add() moves the array */
		struct cgfb_node *n = &t.h[0].nodes[i_node];

		n->have |= 1u << CGFB_A_SOFT_LIMIT;
		n->v[CGFB_A_SOFT_LIMIT] = i < 70 ? M(100) : (i < 90 ? CGFB_UNLIMITED : M(8));
	}
	assert_int_equal(cgfb_analyse(&t, cgfb_catalog_find(cat, "M3"), NULL, NULL, &an), 0);
	assert_int_equal(an.n_flat, 0);
	assert_int_equal(an.n_knob, 1);
	assert_string_equal(an.knob[0].knob, "memory.soft_limit_in_bytes");
	assert_int_equal(an.knob[0].count, 80);                /* the unlimited are defaults */
	assert_int_equal(an.knob[0].n_nodes, CGFB_KNOB_NODES_MAX);
	assert_int_equal(an.knob[0].n_values, 2);
	assert_string_equal(an.knob[0].values[0].text, "128M");
	assert_int_equal(an.knob[0].values[0].count, 70);
	assert_string_equal(an.knob[0].values[1].text, "8M");
	cgfb_analysis_free(&an);
	/* M7: nobody moves charges here; said, not left out. */
	assert_int_equal(cgfb_analyse(&t, cgfb_catalog_find(cat, "M7"), NULL, NULL, &an), 0);
	assert_int_equal(an.n_knob, 1);
	assert_int_equal(an.knob[0].count, 0);
	cgfb_analysis_free(&an);
	cgfb_catalog_free(cat);
}

static void which_entries(void **state)
{
	struct cgfb_catalog *cat = test_catalog();
	static const char *const flat[] = { "S1", "P1", "P2", "C2", "M8" };

	for (size_t i = 0; i < sizeof(flat) / sizeof(flat[0]); i++)
		assert_true(cgfb_analysis_wants_flat(cgfb_catalog_find(cat, flat[i]), NULL));
	assert_true(cgfb_analysis_wants_flat(cgfb_catalog_find(cat, "C1"), "memory"));
	assert_true(cgfb_analysis_wants_flat(cgfb_catalog_find(cat, "C1"), NULL));
	assert_false(cgfb_analysis_wants_flat(cgfb_catalog_find(cat, "C1"), "devices"));
	assert_false(cgfb_analysis_wants_flat(cgfb_catalog_find(cat, "M3"), "memory"));
	assert_false(cgfb_analysis_wants_flat(cgfb_catalog_find(cat, "V1"), "cpuset"));
	cgfb_catalog_free(cat);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(patch_picture_affected, reset),
		cmocka_unit_test_setup(limit_shared, reset),
		cmocka_unit_test_setup(unlimited_child_exceeds, reset),
		cmocka_unit_test_setup(unaffected, reset),
		cmocka_unit_test_setup(nested, reset),
		cmocka_unit_test_setup(not_flat, reset),
		cmocka_unit_test_setup(knob_users, reset),
		cmocka_unit_test_setup(which_entries, reset),
	};

	return cmocka_run_group_tests_name("analysis", tests, NULL, reset);
}
