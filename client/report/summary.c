#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "report/summary.h"

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static const char *str(json_object *o, const char *key)
{
	json_object *v = get(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "-";
}

static int64_t num(json_object *o, const char *key)
{
	return json_object_get_int64(get(o, key));
}

static void print_words(FILE *out, json_object *arr, const char *none)
{
	const size_t n = arr ? json_object_array_length(arr) : 0;

	if (n == 0)
		fputs(none, out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%s", i ? " " : "", json_object_get_string(json_object_array_get_idx(arr,
											      i)));
}

static void print_system(FILE *out, json_object *sys)
{
	json_object *k = get(sys, "kernel"), *d = get(sys, "distribution");
	json_object *cmd = get(sys, "cmdline");

	fprintf(out, "System: kernel %s (%s, %s), %s %s\n", str(k, "release"), str(k, "series"),
		str(k, "arch"), str(d, "id"), str(d, "version_id"));
	fprintf(out, "        cpus %s, NUMA nodes %lld, memory %s, virtualization %s, init %s\n",
		str(sys, "cpus"), (long long)num(sys, "numa_nodes"), str(sys, "memory"),
		str(sys, "virtualization"), str(sys, "init"));
	fprintf(out, "        cgroup mode %s; command line:", str(sys, "cgroup_mode"));
	if (!cmd || json_object_object_length(cmd) == 0)
		fputs(" nothing cgroup-related", out);
	else {
		json_object_object_foreach(cmd, key, val)
			fprintf(out, " %s=%s", key, json_object_get_string(val));
	}
	fputc('\n', out);
}

static void print_groups(FILE *out, json_object *node)
{
	static const char *const groups[] = { "memory", "memory_v2", "cpuset", "freezer" };

	for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
		json_object *grp = get(node, groups[g]);

		if (!grp)
			continue;
		json_object_object_foreach(grp, key, val) {
			fprintf(out, " %s=", key);
			if (json_object_is_type(val, json_type_array))
				print_words(out, val, "-");
			else
				fputs(json_object_get_string(val), out);
		}
	}
}

static void print_nodes(FILE *out, json_object *nodes)
{
	const size_t n = json_object_array_length(nodes);

	for (size_t i = 0; i < n && i < CGFB_SUMMARY_NODES; i++) {
		json_object *node = json_object_array_get_idx(nodes, i);

		fprintf(out, "    %*s%s  #%lld, %lld children, tasks %s", (int)(2 * num(node, "depth")),
			"", str(node, "name"), (long long)num(node, "id"),
			(long long)num(node, "children"), str(node, "tasks"));
		print_groups(out, node);
		fputc('\n', out);
	}
	if (n > CGFB_SUMMARY_NODES)
		fprintf(out, "    ... %zu more in the report (--json)\n", n - CGFB_SUMMARY_NODES);
}

static void print_hierarchy(FILE *out, json_object *h)
{
	json_object *cut = get(h, "cut");

	fprintf(out, "\nHierarchy %lld: cgroup v%lld, controllers ", (long long)num(h, "id"),
		(long long)num(h, "version"));
	print_words(out, get(h, "controllers"), "none");
	if (get(h, "name"))
		fprintf(out, ", name %s", str(h, "name"));
	fprintf(out, "\n  %lld cgroup%s, %lld listed, depth %lld", (long long)num(h, "nodes_total"),
		num(h, "nodes_total") == 1 ? "" : "s", (long long)num(h, "nodes_listed"),
		(long long)num(h, "max_depth"));
	if (cut)
		fprintf(out, "; %lld left out (%s)", (long long)num(cut, "nodes_omitted"),
			str(cut, "reason"));
	fputc('\n', out);
	print_nodes(out, get(h, "nodes"));
}

static void print_flat(FILE *out, json_object *f)
{
	json_object *reorg = get(f, "reorganisation");
	const bool affected = strcmp(str(f, "verdict"), "affected") == 0;

	fprintf(out, "  hierarchy %lld, cgroup #%lld with %zu children: %s", (long long)num(f,
										     "hierarchy"),
		(long long)num(f, "node"), json_object_array_length(get(f, "children")),
		affected ? "AFFECTED by hierarchical accounting (" : "unaffected: it is empty and "
		"unlimited, already the patch's A'");
	if (affected) {
		print_words(out, get(f, "reasons"), "");
		fputc(')', out);
	}
	fputc('\n', out);
	if (reorg) {
		fputs("    keeps today's behaviour: a new parent A' (use_hierarchy=1, no limit, no "
		      "tasks)\n    in its place, with these cgroups moved below it: #", out);
		json_object *m = get(reorg, "move_under_new_parent");

		for (size_t i = 0; i < json_object_array_length(m); i++)
			fprintf(out, "%s%lld", i ? " #" : "",
				(long long)json_object_get_int64(json_object_array_get_idx(m, i)));
		fputc('\n', out);
	}
}

static void print_knob(FILE *out, json_object *k)
{
	json_object *values = get(k, "values");

	fprintf(out, "  %s in hierarchy %lld: %lld cgroup%s", str(k, "knob"),
		(long long)num(k, "hierarchy"), (long long)num(k, "count"),
		num(k, "count") == 1 ? "" : "s");
	if (values) {
		json_object_object_foreach(values, key, val)
			fprintf(out, ", %lldx %s", (long long)json_object_get_int64(val), key);
	}
	fprintf(out, "\n    in cgroup v2: %s\n", str(k, "replacement"));
}

static void print_analysis(FILE *out, json_object *an)
{
	json_object *flat = get(an, "flat_subtrees"), *knobs = get(an, "knob_users");

	fputs("\nFlat memory hierarchies (use_hierarchy=0 below the root):\n", out);
	if (json_object_array_length(flat) == 0)
		fputs("  none\n", out);
	for (size_t i = 0; i < json_object_array_length(flat); i++)
		print_flat(out, json_object_array_get_idx(flat, i));
	fputs("\nKnobs of deprecated features, set away from their defaults:\n", out);
	if (json_object_array_length(knobs) == 0)
		fputs("  none\n", out);
	for (size_t i = 0; i < json_object_array_length(knobs); i++)
		print_knob(out, json_object_array_get_idx(knobs, i));
}

int cgfb_summary_print(FILE *out, json_object *r)
{
	json_object *hs = get(get(r, "topology"), "hierarchies");

	fprintf(out, "Snapshot %s, %s (cgroup names anonymised; nothing was sent)\n\n",
		str(r, "report_id"), str(r, "created"));
	print_system(out, get(r, "system"));
	for (size_t i = 0; i < json_object_array_length(hs); i++)
		print_hierarchy(out, json_object_array_get_idx(hs, i));
	print_analysis(out, get(r, "analysis"));
	return ferror(out) ? -EIO : 0;
}
