/* uname -r as a report shows it (report_system.h). A release keeps the
 * upstream version, which is public; of what a distribution appends it keeps
 * the flavour, and the build number only when data/kernels.json says that
 * distribution published it for that upstream version: a locally rebuilt
 * kernel with a distribution's shape (6.1.0-1337-amd64) would otherwise be a
 * value no other machine has. A build number the table does not vouch for is
 * the word N, sub-builds it never vouches for (RHEL's z-stream .13.1) too. */
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "report/report_system.h"

extern const char cgfb_kernels_json[];

#define SHAPE_GROUPS 8

/* Whether entry e of a shape's "published" vouches for build of upstream
 * with flavour. */
static bool entry_vouches(json_object *e, const char *upstream, const char *flavour,
			  unsigned long build)
{
	json_object *v, *ranges;
	bool ok = false;

	if (!json_object_object_get_ex(e, "upstream", &v) ||
	    (strcmp(json_object_get_string(v), "*") && strcmp(json_object_get_string(v), upstream)))
		return false;
	if (json_object_object_get_ex(e, "flavour", &v)) {
		regex_t re;

		if (regcomp(&re, json_object_get_string(v), REG_EXTENDED | REG_NOSUB))
			return false;
		ok = regexec(&re, flavour, 0, NULL, 0) == 0;
		regfree(&re);
		if (!ok)
			return false;
	}
	if (!json_object_object_get_ex(e, "builds", &ranges))
		return false;
	for (size_t i = 0; i < json_object_array_length(ranges); i++) {
		json_object *r = json_object_array_get_idx(ranges, i);
		int64_t lo = json_object_get_int64(json_object_array_get_idx(r, 0));
		int64_t hi = json_object_get_int64(json_object_array_get_idx(r, 1));

		if (lo >= 0 && (uint64_t)lo <= build && build <= (uint64_t)hi)
			return true;
	}
	return false;
}

static int group(json_object *shape, const char *key)
{
	json_object *v;
	int g = json_object_object_get_ex(shape, key, &v) ? json_object_get_int(v) : 0;

	return g > 0 && g < SHAPE_GROUPS ? g : 0;
}

/* The group's text, "" when the shape has none or it did not take part. */
static void group_text(const char *s, const regmatch_t *m, int g, char *out, size_t n)
{
	int len = g && m[g].rm_so >= 0 ? (int)(m[g].rm_eo - m[g].rm_so) : 0;

	snprintf(out, n, "%.*s", len, s + (g ? m[g].rm_so : 0));
}

/* suffix (what follows the upstream version) generalised by the first shape
 * it has, into out; false when it has none of the table's shapes. */
static bool generalise(json_object *shapes, const char *upstream, const char *suffix,
		       char *out, size_t n)
{
	for (size_t i = 0; i < json_object_array_length(shapes); i++) {
		json_object *shape = json_object_array_get_idx(shapes, i), *v, *pub;
		regmatch_t m[SHAPE_GROUPS];
		int b = group(shape, "build"), sub = group(shape, "sub");
		char flavour[65], build[32], subs[65];
		bool vouched = false;
		regex_t re;
		int rc;

		if (!json_object_object_get_ex(shape, "match", &v) || !b ||
		    regcomp(&re, json_object_get_string(v), REG_EXTENDED))
			continue;
		rc = regexec(&re, suffix, SHAPE_GROUPS, m, 0);
		regfree(&re);
		if (rc)
			continue;
		group_text(suffix, m, group(shape, "flavour"), flavour, sizeof(flavour));
		group_text(suffix, m, b, build, sizeof(build));
		group_text(suffix, m, sub, subs, sizeof(subs));
		if (strcmp(build, "N") && strlen(build) < 10 &&
		    json_object_object_get_ex(shape, "published", &pub))
			for (size_t j = 0; !vouched && j < json_object_array_length(pub); j++)
				vouched = entry_vouches(json_object_array_get_idx(pub, j), upstream,
							flavour, strtoul(build, NULL, 10));
		/* Before the build, between build and sub-builds, after them. A
		 * dotted sub-build list goes with an unvouched build (N stands
		 * for all of it); an undotted one (Arch's pkgrel) is its own N. */
		snprintf(out, n, "%.*s%s%.*s%s%s", (int)m[b].rm_so, suffix, vouched ? build : "N",
			 sub ? (int)(m[sub].rm_so - m[b].rm_eo) : 0, suffix + m[b].rm_eo,
			 !subs[0] ? "" : subs[0] != '.' ? "N" : vouched ? ".N" : "",
			 suffix + (sub ? m[sub].rm_eo : m[b].rm_eo));
		return true;
	}
	return false;
}

void cgfb_report_release(const struct cgfb_schema *schema, const char *release, char out[65])
{
	unsigned major, minor, patch, rc;
	char upstream[32] = "", general[65];
	json_object *table = NULL, *shapes;
	const char *p = release;
	int n = 0, len = 0;

	/* The upstream part is public; whatever a local build appended to it
	 * (-acmedb01-build, +, a user name) is not. */
	if (sscanf(release, "%u.%u%n", &major, &minor, &n) == 2) {
		len = snprintf(out, 65, "%u.%u", major, minor);
		p = release + n;
		if (sscanf(p, ".%u%n", &patch, &n) == 1) {
			len += snprintf(out + len, 65 - (size_t)len, ".%u", patch);
			p += n;
		}
		snprintf(upstream, sizeof(upstream), "%s", out);
		if (sscanf(p, "-rc%u%n", &rc, &n) == 1) {
			len += snprintf(out + len, 65 - (size_t)len, "-rc%u", rc);
			p += n;
		}
	} else {
		n = 0;
	}
	if (n && cgfb_schema_check_word(schema, "kernel_release", release) == 0) {
		/* A shape the schema accepts: exact when nothing follows the
		 * upstream version or it is already -custom; else as the table
		 * vouches. */
		if (!*p || !strcmp(p, "-custom"))
			return (void)snprintf(out, 65, "%s", release);
		table = json_tokener_parse(cgfb_kernels_json);
		if (table && json_object_object_get_ex(table, "shapes", &shapes) &&
		    generalise(shapes, upstream, p, general, sizeof(general)) &&
		    (size_t)len + strlen(general) < 65) {
			/* Fits, just checked (memcpy: gcc -O1 cannot see that). */
			memcpy(out + len, general, strlen(general) + 1);
			json_object_put(table);
			if (cgfb_schema_check_word(schema, "kernel_release", out) == 0)
				return;
			table = NULL;
		}
		json_object_put(table);
	}
	if (n)
		snprintf(out + len, 65 - (size_t)len, "-custom");
	if (n == 0 || cgfb_schema_check_word(schema, "kernel_release", out) != 0)
		snprintf(out, 65, "0.0-custom");
}
