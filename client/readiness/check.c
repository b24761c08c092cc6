/* The check (check.h): the mounts read once, every probe run, findings kept
 * in rule order with the first places each was seen. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "readiness/check.h"
#include "snapshot/attrs.h"

static int probe_mode(const struct cgfb_rules *rs, const struct cgfb_mounts *ms, struct cgfb_check *c)
{
	const char *mode = cgfb_cgroup_mode_name(c->mode);
	unsigned v1 = 0;
	int rc = 0;

	for (unsigned k = 0; k < ms->n; k++)
		v1 += ms->m[k].version == 1;

	for (size_t i = 0; i < rs->n && !rc; i++) {
		const struct cgfb_rule *r = &rs->r[i];

		if (r->probe != CGFB_PROBE_MODE)
			continue;
		for (unsigned k = 0; k < r->n_values && !rc; k++)
			if (strcmp(r->values[k], mode) == 0)
				rc = cgfb_check_found(c, r, "cgroup mode %s (%u v1 hierarch%s mounted)",
						      mode, v1, v1 == 1 ? "y" : "ies");
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
			rc = cgfb_check_found(c, r, "%s (%s)", ms->m[k].path, ctl);
		}
	}
	return rc;
}

static int read_mounts(const struct cgfb_check_opts *o, struct cgfb_mounts *ms, struct cgfb_check *c)
{
	char path[4096];
	const char *file = o->mountinfo;
	int rc;

	if (!file) {
		if ((rc = cgfb_check_path(o, "/proc/self/mountinfo", path, sizeof(path))))
			return rc;
		file = path;
	}
	rc = cgfb_mountinfo_read(file, o->root, ms);
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0)
		return cgfb_check_unreadable(c, file, rc);
	c->sources++;
	return 0;
}

int cgfb_check_run(const struct cgfb_rules *rs, const struct cgfb_check_opts *o, struct cgfb_check *c)
{
	struct cgfb_mounts ms = { 0 };
	int rc;

	memset(c, 0, sizeof(*c));
	if ((rc = read_mounts(o, &ms, c)))
		goto out;
	c->mode = cgfb_mounts_mode(&ms);
	if (c->sources && ((rc = probe_mode(rs, &ms, c)) || (rc = probe_hierarchies(rs, &ms, c)) ||
			   (rc = cgfb_probe_tree(rs, &ms, o, c))))
		goto out;
	if ((rc = cgfb_probe_cmdline(rs, o, c)) || (rc = cgfb_probe_kconfig(rs, &ms, o, c)) ||
	    (rc = cgfb_probe_systemd(rs, o, c)) || (rc = cgfb_probe_config(rs, o, c)))
		goto out;
out:
	cgfb_mounts_free(&ms);
	return rc;
}
