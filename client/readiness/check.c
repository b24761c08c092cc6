/* The check (check.h): the mounts and the environment read once, every
 * probe run, findings kept in rule order with the first places each was
 * seen. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgfb/buf.h"
#include "cgfb/readfile.h"
#include "readiness/check.h"
#include "readiness/decide.h"
#include "snapshot/attrs.h"

#define MOUNTINFO_MAX (16u << 20)

/* The mode as systemd and the kubelet see it (/sys/fs/cgroup), or as a
 * copy would boot. */
static int probe_mode(const struct cgfb_rules *rs, const struct cgfb_mounts *ms, struct cgfb_check *c)
{
	const struct cgfb_env *e = c->env;
	const enum cgfb_cgroup_mode m = e->effective;
	const char *mode;
	char why[1024];
	unsigned v1 = 0;
	int rc = 0;

	for (unsigned k = 0; k < ms->n; k++)
		v1 += ms->m[k].version == 1;
	snprintf(why, sizeof(why), "%s (%u v1 hierarch%s mounted)", e->mode_why, v1, v1 == 1 ? "y" : "ies");
	if (e->copy)
		snprintf(why, sizeof(why), "a copy: %s%s%.500s", e->effective_why,
			 e->sw_from[0] ? "; boot configuration: " : "", e->sw_from);
	c->decided = m != CGFB_MODE_NONE;
	mode = cgfb_cgroup_mode_name(m);
	for (size_t i = 0; i < rs->n && !rc; i++) {
		const struct cgfb_rule *r = &rs->r[i];

		if (r->probe != CGFB_PROBE_MODE)
			continue;
		for (unsigned k = 0; k < r->n_values && !rc; k++)
			if (strcmp(r->values[k], mode) == 0)
				rc = cgfb_check_found(c, r, "cgroup mode %s: %s", mode, why);
	}
	return rc;
}

/* The kubelet's configuration as env.kubelet read it. */
static int probe_kubelet(const struct cgfb_rules *rs, struct cgfb_check *c)
{
	const struct cgfb_kubelet *k = &c->env->kubelet;
	int rc = 0;

	for (size_t i = 0; i < rs->n && !rc; i++) {
		const struct cgfb_rule *r = &rs->r[i];

		if (r->probe != CGFB_PROBE_KUBELET)
			continue;
		if (strcmp(r->values[0], "opt_out") == 0 && k->fail_v1 == 0)
			rc = cgfb_check_found(c, r, "%s", k->fail_v1_where);
		else if (strcmp(r->values[0], "bad_flag") == 0 && k->bad_flag[0])
			rc = cgfb_check_found(c, r, "%s", k->bad_flag);
	}
	return rc;
}

static void controllers_text(const struct cgfb_mount *m, char *buf, size_t sz)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < CGFB_C_N && len < sz; i++)
		if (m->controllers & (1u << i))
			len += (size_t)snprintf(buf + len, sz - len, "%s%s", len ? "," : "", cgfb_ctrl_name(i));
	if (m->name[0] && len < sz)
		snprintf(buf + len, sz - len, "%sname=%s", len ? "," : "", m->name);
}

static int probe_hierarchies(const struct cgfb_rules *rs, const struct cgfb_mounts *ms,
			     struct cgfb_check *c)
{
	char ctl[256];
	int rc = 0;

	for (size_t i = 0; i < rs->n && !rc; i++) {
		const struct cgfb_rule *r = &rs->r[i];

		if (r->probe != CGFB_PROBE_HIERARCHY)
			continue;
		for (unsigned k = 0; k < ms->n && !rc; k++) {
			if (!cgfb_mount_has(&ms->m[k], r->controller))
				continue;
			controllers_text(&ms->m[k], ctl, sizeof(ctl));
			rc = cgfb_check_found_ctl(c, r, ms->m[k].controllers, "%s (%s)", ms->m[k].path, ctl);
		}
	}
	return rc;
}

/* The mount table, as text for the environment and parsed for the probes.
 * A copy of a machine has none: that is no error. */
static int read_mounts(const struct cgfb_check_opts *o, struct cgfb_buf *text, struct cgfb_mounts *ms,
		       struct cgfb_check *c)
{
	char path[4096];
	const char *file = o->mountinfo;
	int rc;

	if (!file) {
		if ((rc = cgfb_check_path(o, "/proc/self/mountinfo", path, sizeof(path))))
			return rc;
		file = path;
	}
	rc = cgfb_read_file(file, MOUNTINFO_MAX, 0, text);
	if (rc == 0)
		rc = cgfb_mountinfo_parse(text->data ? text->data : "", text->len, o->root, ms);
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0) {
		cgfb_buf_free(text);
		return c->env->copy ? 0 : cgfb_check_unreadable(c, file, rc);
	}
	c->sources++;
	return 0;
}

int cgfb_check_run(const struct cgfb_rules *rs, const struct cgfb_check_opts *o, struct cgfb_check *c)
{
	struct cgfb_mounts ms = { 0 };
	struct cgfb_buf mi = { 0 }, dpkg = { 0 };
	int rc;

	memset(c, 0, sizeof(*c));
	if (!(c->env = calloc(1, sizeof(*c->env))))
		return -ENOMEM;
	if (o->root && *o->root && access(o->root, F_OK) < 0) {
		rc = cgfb_check_unreadable(c, o->root, errno);
		goto out;
	}
	c->env->copy = cgfb_env_is_copy(o);
	if ((rc = read_mounts(o, &mi, &ms, c)) || (rc = cgfb_env_read(o, mi.data, c->env, c)))
		goto out;
	for (unsigned i = 0; i < ms.n; i++) {
		c->env->v1_memory |= cgfb_mount_has(&ms.m[i], "memory");
		c->env->v1_cpuset |= cgfb_mount_has(&ms.m[i], "cpuset");
	}
	/* The mode of a copy is what its systemd makes of its boot
	 * configuration: systemd's version first, then what depends on the
	 * mode (the kernels this host needs, systemd's own rule). */
	if ((rc = cgfb_dpkg_read(o, &dpkg)))
		goto out;
	cgfb_systemd_read(o, dpkg.data, c);
	c->env->effective = c->env->mode;
	if (c->env->copy)
		c->env->effective = cgfb_predict_mode(c->env, c->env->effective_why,
						      sizeof(c->env->effective_why));
	if ((rc = cgfb_probe_kconfig(rs, &ms, o, c)) || (rc = cgfb_probe_systemd(rs, c)) ||
	    (rc = cgfb_kubelet_read(o, dpkg.data, &c->env->kubelet, c)))
		goto out;
	if ((rc = probe_mode(rs, &ms, c)) || (mi.data && ((rc = probe_hierarchies(rs, &ms, c)) ||
							  (rc = cgfb_probe_tree(rs, &ms, o, c)))))
		goto out;
	if ((rc = cgfb_probe_cmdline(rs, o, c)) || (rc = cgfb_probe_config(rs, o, c)) ||
	    (rc = probe_kubelet(rs, c)))
		goto out;
out:
	cgfb_buf_free(&dpkg);
	cgfb_buf_free(&mi);
	cgfb_mounts_free(&ms);
	return rc;
}
