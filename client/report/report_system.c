#include "privacy/bucket.h"
#include "report/report_system.h"

static json_object *pair(const char *k1, const char *v1, const char *k2, const char *v2)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, k1, json_object_new_string(v1));
	json_object_object_add(o, k2, json_object_new_string(v2));
	return o;
}

static json_object *cmdline_json(const struct cgfb_cmdline *c)
{
	const char *const *keys = cgfb_cmdline_keys();
	json_object *o = json_object_new_object();

	for (int i = 0; i < CGFB_CMDLINE_KEYS; i++)
		if (c->value[i])
			json_object_object_add(o, keys[i], json_object_new_string(c->value[i]));
	return o;
}

json_object *cgfb_report_system(const struct cgfb_profile *p, enum cgfb_cgroup_mode mode)
{
	json_object *o = json_object_new_object(), *k;
	char buf[CGFB_BUCKET_MAX];

	k = pair("release", p->release, "series", p->series);
	json_object_object_add(k, "arch", json_object_new_string(p->arch));
	json_object_object_add(o, "kernel", k);
	json_object_object_add(o, "distribution", pair("id", p->distro_id, "version_id",
						       p->distro_version));
	json_object_object_add(o, "cpus", json_object_new_string(cgfb_bucket_count(p->hw.cpus,
										   buf)));
	json_object_object_add(o, "numa_nodes", json_object_new_int(p->hw.numa_nodes > 4096 ? 4096 :
									 (int)p->hw.numa_nodes));
	json_object_object_add(o, "memory", json_object_new_string(cgfb_bucket_size(p->hw.memory,
										    buf)));
	json_object_object_add(o, "virtualization", json_object_new_string(p->hw.virt));
	json_object_object_add(o, "cgroup_mode", json_object_new_string(cgfb_cgroup_mode_name(mode)));
	json_object_object_add(o, "init", json_object_new_string(p->init));
	json_object_object_add(o, "cmdline", cmdline_json(&p->cmdline));
	return o;
}
