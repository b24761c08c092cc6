#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cgfb/buf.h"
#include "privacy/bucket.h"
#include "privacy/vocab.h"
#include "report/report_system.h"

static json_object *pair(const char *k1, const char *v1, const char *k2, const char *v2)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, k1, json_object_new_string(v1));
	json_object_object_add(o, k2, json_object_new_string(v2));
	return o;
}

/* Whether the schema's cmdline definition takes value for key. */
static bool cmdline_ok(const struct cgfb_schema *schema, const char *key, const char *value)
{
	json_object *trial = json_object_new_object();
	bool ok;

	json_object_object_add(trial, key, json_object_new_string(value));
	ok = cgfb_schema_check_def(schema, "cmdline", trial) == 0;
	json_object_put(trial);
	return ok;
}

/* key=a,b,c word by word: a word of the key's vocabulary stays, any other
 * becomes "other". */
static json_object *cmdline_value(const struct cgfb_schema *schema, const char *key,
				  const char *value)
{
	struct cgfb_buf out = { 0 };
	const char *p = value;
	json_object *v;

	do {
		const size_t n = strcspn(p, ",");
		char word[CGFB_CMDVALUE_MAX + 1];

		snprintf(word, sizeof(word), "%.*s", (int)n, p);
		if (p != value)
			cgfb_buf_adds(&out, ",");
		cgfb_buf_adds(&out, cmdline_ok(schema, key, word) ? word : "other");
		p += n;
	} while (*p++ == ',');
	v = json_object_new_string(out.data ? out.data : "");
	cgfb_buf_free(&out);
	return v;
}

static json_object *cmdline_json(const struct cgfb_schema *schema, const struct cgfb_cmdline *c)
{
	const char *const *keys = cgfb_cmdline_keys();
	json_object *o = json_object_new_object();

	for (int i = 0; i < CGFB_CMDLINE_KEYS; i++)
		if (c->value[i])
			json_object_object_add(o, keys[i], cmdline_value(schema, keys[i],
									 c->value[i]));
	return o;
}

/* Another machine's profile: what its log or its files show, "unknown"
 * for the rest; nothing of this machine (the schema's system.facts). */
static json_object *other_system(const struct cgfb_schema *schema, const struct cgfb_profile *p,
				 enum cgfb_cgroup_mode mode)
{
	json_object *o = json_object_new_object(), *k;
	char release[65];

	json_object_object_add(o, "facts", json_object_new_string(p->facts == CGFB_FACTS_COPY ?
								     "copy" : "log"));
	if (p->release[0])
		cgfb_report_release(schema, p->release, release);
	k = pair("release", p->release[0] ? release : "unknown", "series",
		 p->release[0] && strcmp(p->series, "0.0") ? p->series : "unknown");
	json_object_object_add(k, "arch", json_object_new_string(p->arch[0] ? p->arch : "unknown"));
	json_object_object_add(o, "kernel", k);
	json_object_object_add(o, "distribution", pair("id",
		p->distro_id[0] ? cgfb_vocab_or(schema, "distro_id", p->distro_id, "other") : "unknown",
		"version_id", p->distro_id[0] ?
		cgfb_vocab_or(schema, "distro_version", p->distro_version, "other") : ""));
	json_object_object_add(o, "cpus", json_object_new_string("unknown"));
	json_object_object_add(o, "numa_nodes", json_object_new_int(0));
	json_object_object_add(o, "memory", json_object_new_string("unknown"));
	json_object_object_add(o, "virtualization", json_object_new_string("unknown"));
	/* A copy's mounts are its own (check --root reads them); a log says
	 * nothing of them. */
	json_object_object_add(o, "cgroup_mode", json_object_new_string(
		p->facts == CGFB_FACTS_COPY ? cgfb_cgroup_mode_name(mode) : "unknown"));
	json_object_object_add(o, "init", json_object_new_string("unknown"));
	json_object_object_add(o, "cmdline", cmdline_json(schema, &p->cmdline));
	return o;
}

json_object *cgfb_report_system(const struct cgfb_schema *schema, const struct cgfb_profile *p,
				enum cgfb_cgroup_mode mode)
{
	json_object *o, *k;
	char buf[CGFB_BUCKET_MAX], release[65];

	if (p->facts != CGFB_FACTS_HOST)
		return other_system(schema, p, mode);
	o = json_object_new_object();
	cgfb_report_release(schema, p->release, release);
	k = pair("release", release, "series", p->series);
	json_object_object_add(k, "arch", json_object_new_string(p->arch));
	json_object_object_add(o, "kernel", k);
	json_object_object_add(o, "distribution", pair("id",
		cgfb_vocab_or(schema, "distro_id", p->distro_id, "other"), "version_id",
		cgfb_vocab_or(schema, "distro_version", p->distro_version, "other")));
	json_object_object_add(o, "cpus", json_object_new_string(cgfb_bucket_count(p->hw.cpus,
										   buf)));
	json_object_object_add(o, "numa_nodes", json_object_new_int(p->hw.numa_nodes > 4096 ? 4096 :
									 (int)p->hw.numa_nodes));
	json_object_object_add(o, "memory", json_object_new_string(cgfb_bucket_size(p->hw.memory,
										    buf)));
	json_object_object_add(o, "virtualization", json_object_new_string(p->hw.virt));
	json_object_object_add(o, "cgroup_mode", json_object_new_string(cgfb_cgroup_mode_name(mode)));
	json_object_object_add(o, "init", json_object_new_string(p->init));
	json_object_object_add(o, "cmdline", cmdline_json(schema, &p->cmdline));
	return o;
}
