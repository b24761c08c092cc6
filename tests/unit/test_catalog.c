#include <stdio.h>

#include "testutil.h"

#include <errno.h>

static void builtin_loads(void **state)
{
	struct cgfb_catalog *cat = test_catalog();
	static const char *const ids[] = {
		"S1", "S2", "C1", "C2", "C3", "C4", "M1a", "M1b", "M2", "M3", "M4", "M5", "M6",
		"M7", "M8", "M9a", "M9b", "M10", "V1", "V2", "V3", "V4", "G1",
	};

	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if (!cgfb_catalog_find(cat, ids[i]))
			fail_msg("catalog lacks %s", ids[i]);
	assert_null(cgfb_catalog_find(cat, "nope"));
	/* The functions each message is printed from; no other. */
	assert_true(cgfb_catalog_function(cgfb_catalog_find(cat, "S1"), "mem_cgroup_css_alloc"));
	assert_true(cgfb_catalog_function(cgfb_catalog_find(cat, "M3"), "mem_cgroup_write"));
	assert_false(cgfb_catalog_function(cgfb_catalog_find(cat, "S1"), "jdoe_debug_hook"));
	assert_false(cgfb_catalog_function(cgfb_catalog_find(cat, "G1"), "mem_cgroup_write"));
	cgfb_catalog_free(cat);
}

/* The facts of issue 42 part 3, against docs/kernel-warnings.md. */
static void facts_checked(void **state)
{
	struct cgfb_catalog *cat = test_catalog();
	const struct cgfb_entry *v1 = cgfb_catalog_find(cat, "V1");
	const struct cgfb_entry *m4 = cgfb_catalog_find(cat, "M4");

	/* sched_relax_domain_level: cpuset_write_s64; memory_spread_slab warns. */
	assert_true(cgfb_catalog_function(v1, "cpuset_write_s64"));
	assert_true(cgfb_catalog_function(v1, "cpuset_write_u64"));
	assert_non_null(strstr(v1->trigger, "sched_relax_domain_level"));
	assert_int_equal(cgfb_catalog_level(v1, "cpuset.memory_spread_slab"), 4);
	assert_int_equal(cgfb_catalog_level(v1, "cpuset.mem_hardwall"), 6);
	assert_int_equal(cgfb_catalog_level(v1, NULL), 6);
	/* C4 is printed at every remount; the once-per-boot ones are not. */
	assert_true(cgfb_catalog_find(cat, "C4")->every_trigger);
	assert_false(cgfb_catalog_find(cat, "M8")->every_trigger);
	/* M4's two sites: the report's title says so instead of guessing. */
	assert_string_equal(m4->attribution, "ambiguous");
	assert_non_null(strstr(m4->title, "write or event_control"));
	assert_true(cgfb_catalog_function(m4, "memcg_write_event_control"));
	/* Who printed it: nobody (P1, P2), old kernels only, current ones. */
	assert_string_equal(cgfb_catalog_find(cat, "P1")->era, "unmerged");
	assert_string_equal(cgfb_catalog_find(cat, "P2")->era, "unmerged");
	assert_string_equal(cgfb_catalog_find(cat, "S1")->era, "old");
	assert_string_equal(cgfb_catalog_find(cat, "M1a")->era, "old");
	assert_string_equal(cgfb_catalog_find(cat, "M8")->era, "current");
	assert_string_equal(cgfb_catalog_find(cat, "P1")->contact, "cgroups@vger.kernel.org");
	/* kernels refreshed */
	assert_non_null(strstr(cgfb_catalog_find(cat, "M6")->kernels, "2026"));
	assert_non_null(strstr(cgfb_catalog_find(cat, "M7")->kernels, "EINVAL"));
	assert_non_null(strstr(cgfb_catalog_find(cat, "V4")->kernels, "cgroup_v1_proc="));
	for (size_t i = 0; i < cat->n; i++)
		if (!cat->entries[i].generic && !cat->entries[i].era)
			fail_msg("%s has no era", cat->entries[i].id);
	cgfb_catalog_free(cat);
}

static void match_and_fields(void **state)
{
	struct cgfb_catalog *cat = test_catalog();
	struct cgfb_fields f = { 0 };
	const struct cgfb_entry *e;
	static const char c1[] = "cgroup: cgroup: docker-runc (4918) created nested cgroup for "
				 "controller \"memory\" which has incomplete hierarchy support. "
				 "Nested cgroups may change behavior in the future.";
	static const char g1[] = "some new knob is going away, mail cgroups@vger.kernel.org";

	e = cgfb_catalog_match(cat, S(c1), &f);
	assert_non_null(e);
	assert_string_equal(e->id, "C1");
	assert_string_equal(cgfb_fields_get(&f, "comm"), "docker-runc");
	assert_string_equal(cgfb_fields_get(&f, "pid"), "4918");
	assert_string_equal(cgfb_fields_get(&f, "controller"), "memory");
	memset(&f, 0, sizeof(f));
	e = cgfb_catalog_match(cat, S(g1), &f);
	assert_non_null(e);
	assert_string_equal(e->id, "G1");
	assert_string_equal(cgfb_fields_get(&f, "address"), "cgroups@vger.kernel.org");
	/* The specific entry wins over the generic net. */
	e = cgfb_catalog_match(cat, S("Non-hierarchical mode is deprecated. Please report your "
				      "usecase to linux-mm@kvack.org if you depend on this "
				      "functionality."), NULL);
	assert_string_equal(e->id, "M8");
	/* Anchored: quoting the text inside another message is not the message. */
	assert_string_equal(cgfb_catalog_match(cat, S("audit: comm=\"Non-hierarchical mode is "
						       "deprecated. Please report your usecase to "
						       "linux-mm@kvack.org if you depend on this "
						       "functionality.\""), NULL)->id, "G1");
	assert_null(cgfb_catalog_match(cat, S("kmem.limit_in_bytes is deprecated"), NULL));
	/* A NUL inside a record is junk, not a match. */
	assert_null(cgfb_catalog_match(cat, S("oom_control is deprecated\0 linux-mm@kvack.org"), NULL));
	cgfb_catalog_free(cat);
}

static void questions(void **state)
{
	struct cgfb_catalog *cat = test_catalog();

	assert_string_equal(cgfb_catalog_find(cat, "S1")->questions->name, "flat");
	assert_string_equal(cgfb_catalog_find(cat, "M3")->questions->name, "knob");
	assert_string_equal(cgfb_catalog_find(cat, "G1")->questions->name, "generic");
	assert_string_equal(cgfb_catalog_find(cat, "M8")->questions->q[2].key, "reorganisation");
	cgfb_catalog_free(cat);
}

static void expect_error(const char *json, const char *want)
{
	struct cgfb_catalog *cat = NULL;
	char err[256] = "";
	const int rc = cgfb_catalog_load_buffer(&cat, json, strlen(json), err, sizeof(err));

	if (rc >= 0 || !strstr(err, want))
		fail_msg("catalog %s: rc %d, error '%s', want '%s'", json, rc, err, want);
	assert_null(cat);
}

static void rejects_bad_catalogs(void **state)
{
	expect_error("{", "not valid JSON");
	expect_error("{\"entries\": []}", "no 'question_sets'");
	expect_error("{\"question_sets\": {\"generic\": []}, \"entries\": [{\"id\": \"A\", "
		     "\"title\": \"t\", \"message\": \"m\", \"questions\": \"nope\", \"needles\": []}]}",
		     "A: no question set 'nope'");
	expect_error("{\"question_sets\": {\"generic\": []}, \"entries\": 3}", "entries");
	expect_error("{\"question_sets\": {\"generic\": []}, \"entries\": [{\"title\": \"t\", \"message\": \"m\", \"needles\": []}]}", "missing 'id'");
	expect_error("{\"question_sets\": {\"generic\": []}, \"entries\": [{\"id\": \"A\", \"needles\": []}]}", "A: missing 'title'");
	expect_error("{\"question_sets\": {\"generic\": []}, \"entries\": [{\"id\": \"A\", \"title\": \"t\", \"message\": \"m\", \"needles\": [\"short\"], "
		     "\"regex\": \"x\"}]}", "A: needle 0 shorter");
	expect_error("{\"question_sets\": {\"generic\": []}, \"entries\": [{\"id\": \"A\", \"title\": \"t\", \"message\": \"m\", \"needles\": "
		     "[\"long enough needle\"], \"regex\": \"(\"}]}", "A: bad regex");
	expect_error("{\"question_sets\": {\"generic\": []}, \"entries\": [{\"id\": \"A\", \"title\": \"t\", \"message\": \"m\", \"needles\": "
		     "[\"long enough needle\"], \"regex\": \"(x)\", \"fields\": {\"comm\": 2}}]}",
		     "A: bad field 'comm'");
	/* A report names only a function listed here: the list holds symbols. */
	expect_error("{\"question_sets\": {\"generic\": []}, \"entries\": [{\"id\": \"A\", \"title\": \"t\", \"message\": \"m\", \"needles\": "
		     "[\"long enough needle\"], \"functions\": [\"jdoe_hook+0x1a\"]}]}",
		     "A: function 0 is not a C symbol");
	expect_error("{\"question_sets\": {\"generic\": []}, \"entries\": [{\"id\": \"A\", \"title\": \"t\", \"message\": \"m\", \"needles\": "
		     "[\"long enough needle\"]}, {\"id\": \"A\", \"title\": \"t\", \"message\": \"m\", \"needles\": "
		     "[]}]}", "duplicate id A");
	expect_error("{\"question_sets\": {\"generic\": []}, \"entries\": [{\"id\": \"A\", \"title\": \"t\", \"message\": \"m\", \"second_site\": \"B\", "
		     "\"needles\": [\"long enough needle\"]}]}", "second_site B");
	expect_error("{\"question_sets\": {\"generic\": []}, \"entries\": [{\"id\": \"A\", \"title\": 5, \"needles\": []}]}",
		     "not a string");
	/* A message names only the entry's captures, brackets balanced. */
	expect_error("{\"question_sets\": {\"generic\": []}, \"entries\": [{\"id\": \"A\", \"title\": \"t\", \"needles\": "
		     "[\"long enough needle\"]}]}", "A: missing 'message'");
	expect_error("{\"question_sets\": {\"generic\": []}, \"entries\": [{\"id\": \"A\", \"title\": \"t\", \"needles\": "
		     "[\"long enough needle\"], \"regex\": \"(x)\", \"fields\": {\"comm\": 1}, "
		     "\"message\": \"{comm} {pid}\"}]}", "A: message names a field");
	expect_error("{\"question_sets\": {\"generic\": []}, \"entries\": [{\"id\": \"A\", \"title\": \"t\", \"needles\": "
		     "[\"long enough needle\"], \"message\": \"[open\"}]}", "A: message has unbalanced");
	/* Found by fuzz/catalog_load: json-c's foreach over a string walked
	 * a NULL table (UBSan). */
	expect_error("{\"question_sets\": {\"generic\": []}, \"entries\": [{\"id\": \"A\", \"title\": \"t\", \"needles\": "
		     "[\"long enough needle\"], \"regex\": \"(x)\", \"fields\": \"memory.use_hierarchy\", "
		     "\"message\": \"m\"}]}", "A: 'fields' is not an object");
	expect_error("{\"question_sets\": {\"generic\": []}, \"entries\": [{\"id\": \"A\", \"title\": \"t\", \"needles\": "
		     "[\"long enough needle\"], \"generic\": true, \"message\": \"m\"}]}",
		     "A: a generic entry has no message");
}

/* A catalog whose entry A has regex re (a C string, JSON-escaped already). */
static char *with_regex(char *buf, size_t sz, const char *re)
{
	snprintf(buf, sz, "{\"question_sets\": {\"generic\": []}, \"entries\": [{\"id\": \"A\", "
		 "\"title\": \"t\", \"message\": \"m\", \"needles\": [\"long enough needle\"], "
		 "\"regex\": \"%s\"}]}", re);
	return buf;
}

/* glibc's regcomp copies what a repetition repeats: "t+++...+" took 4 GB
 * (found by fuzz/catalog_load). Refused before regcomp runs; the
 * catalog's own regexes, bounded repetitions of 16 and classes, load. */
static void refuses_regexes_that_explode(void **state)
{
	struct cgfb_catalog *cat = NULL;
	char buf[512], err[256];

	expect_error(with_regex(buf, sizeof(buf), "let+++++++++++++++++++++++++"),
		     "A: bad regex: a quantifier on a quantifier");
	expect_error(with_regex(buf, sizeof(buf), "x{1,16}*"), "a quantifier on a quantifier");
	expect_error(with_regex(buf, sizeof(buf), "((((a{1,64}){1,64}){1,64}){1,64})"),
		     "A: bad regex: its repetitions would make more than 4096 copies");
	expect_error(with_regex(buf, sizeof(buf), "a{30000}"), "more than 4096 copies");
	/* What the real catalog writes is fine: classes, escapes, a bracket
	 * holding quantifier characters, {m,}. */
	with_regex(buf, sizeof(buf),
		   "^((.{1,16}) \\\\(([0-9]+)\\\\): )?x[[:space:]]+y[*+?]+ a z{2,} \\\\+$");
	if (cgfb_catalog_load_buffer(&cat, buf, strlen(buf), err, sizeof(err)) != 0)
		fail_msg("%s: %s", buf, err);
	cgfb_catalog_free(cat);
}

static void renders(void **state)
{
	struct cgfb_catalog *cat = test_catalog();
	const struct cgfb_entry *v1 = cgfb_catalog_find(cat, "V1");
	const char *names[] = { "knob", "replacement" };
	const char *with[] = { "cpuset.x", "y" }, *without[] = { "cpuset.x", NULL };
	char out[128], tiny[8];

	assert_int_equal(cgfb_catalog_render(v1, names, with, 2, out, sizeof(out)), 0);
	assert_string_equal(out, "cpuset.x is deprecated, use y instead");
	/* An optional part whose field was not captured is left out. */
	assert_int_equal(cgfb_catalog_render(v1, names, without, 2, out, sizeof(out)), 0);
	assert_string_equal(out, "cpuset.x is deprecated");
	/* A field outside brackets without a value is a placeholder. */
	assert_int_equal(cgfb_catalog_render(v1, names, without, 0, out, sizeof(out)), 0);
	assert_string_equal(out, "_ is deprecated");
	assert_int_equal(cgfb_catalog_render(v1, names, with, 2, tiny, sizeof(tiny)), -ENOSPC);
	assert_string_equal(tiny, "cpuset.");
	assert_int_equal(cgfb_catalog_render(cgfb_catalog_find(cat, "G1"), names, with, 2, out,
					     sizeof(out)), -ENOENT);
	/* The generic entry's vocabulary: catalog words, any case; not others. */
	assert_true(cgfb_catalog_word(cgfb_catalog_find(cat, "G1"), "Deprecated", 10));
	assert_true(cgfb_catalog_word(cgfb_catalog_find(cat, "G1"), "use_hierarchy", 13));
	assert_false(cgfb_catalog_word(cgfb_catalog_find(cat, "G1"), "acme", 4));
	cgfb_catalog_free(cat);
}

static void loads_file(void **state)
{
	struct cgfb_catalog *cat = NULL;
	char err[256];

	assert_int_equal(cgfb_catalog_load_file(&cat, "data/catalog.json", err, sizeof(err)), 0);
	assert_non_null(cgfb_catalog_find(cat, "M8"));
	cgfb_catalog_free(cat);
	assert_int_equal(cgfb_catalog_load_file(&cat, "/nonexistent/catalog.json", err,
						sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/catalog.json"));
}

/* cgfb_catalog_shrink compiles again only what ran, and every match after
 * it is the match before it: entry, fields, and the continuation of P2. */
static void shrinks_to_the_same(void **state)
{
	struct cgfb_catalog *cat = test_catalog();
	static const char *const texts[] = {
		"cgroup: docker-runc (4918) created nested cgroup for controller \"memory\" which "
		"has incomplete hierarchy support. Nested cgroups may change behavior in the future.",
		"some new knob is going away, mail cgroups@vger.kernel.org",
		"Setting this file to 0 (flat hierarchy) is considered deprecated.",
		"kmem.limit_in_bytes is deprecated",
		"eth0: link up",
	};
	static const char cont[] = "If you believe you have a valid use case for that, we kindly "
				   "ask you to contact linux-mm@kvack.org and let us know";
	const struct cgfb_entry *before[5], *after[5];
	struct cgfb_fields fb[5] = { 0 }, fa[5] = { 0 };
	const struct cgfb_entry *p2 = cgfb_catalog_find(cat, "P2");

	assert_int_equal(cgfb_catalog_shrink(cat), 0);          /* nothing ran yet */
	for (size_t i = 0; i < 5; i++)
		before[i] = cgfb_catalog_match(cat, texts[i], strlen(texts[i]), &fb[i]);
	assert_true(cgfb_catalog_continues(p2, S(cont)));
	assert_true(cgfb_catalog_find(cat, "V1")->ran);        /* " is deprecated": tried, no match */
	assert_false(cgfb_catalog_find(cat, "V3")->ran);       /* its needle was in none */
	assert_true(cgfb_catalog_shrink(cat) > 0);
	for (size_t i = 0; i < cat->n; i++)
		assert_false(cat->entries[i].ran);
	assert_int_equal(cgfb_catalog_shrink(cat), 0);
	for (size_t i = 0; i < 5; i++) {
		after[i] = cgfb_catalog_match(cat, texts[i], strlen(texts[i]), &fa[i]);
		assert_ptr_equal(after[i], before[i]);
		assert_memory_equal(&fa[i], &fb[i], sizeof(fa[i]));
	}
	assert_string_equal(before[0]->id, "C1");
	assert_string_equal(cgfb_fields_get(&fa[0], "comm"), "docker-runc");
	assert_string_equal(before[1]->id, "G1");
	assert_string_equal(before[2]->id, "P2");
	assert_null(before[3]);
	assert_null(before[4]);
	assert_true(cgfb_catalog_continues(p2, S(cont)));
	cgfb_catalog_free(cat);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(builtin_loads),
		cmocka_unit_test(match_and_fields),
		cmocka_unit_test(rejects_bad_catalogs),
		cmocka_unit_test(refuses_regexes_that_explode),
		cmocka_unit_test(renders),
		cmocka_unit_test(questions),
		cmocka_unit_test(loads_file),
		cmocka_unit_test(shrinks_to_the_same),
		cmocka_unit_test(facts_checked),
	};

	return cmocka_run_group_tests_name("catalog", tests, NULL, NULL);
}
