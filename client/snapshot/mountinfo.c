#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot/attrs.h"
#include "snapshot/mountinfo.h"
#include "cgfb/readfile.h"

#define MOUNTINFO_MAX (16u << 20)
#define FIELDS_MAX 64

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') << 6 | (r[2] - '0') << 3 | (r[3] - '0'));
			r += 3;
			continue;
		}
		*w++ = *r;
	}
	*w = '\0';
}

/* Split a line at spaces in place; returns the number of fields. */
static unsigned split(char *line, char **f, unsigned max)
{
	unsigned n = 0;
	char *save = NULL;

	for (char *t = strtok_r(line, " ", &save); t && n < max; t = strtok_r(NULL, " ", &save))
		f[n++] = t;
	return n;
}

/* Super options of a v1 mount: "rw,cpu,cpuacct", "rw,xattr,name=systemd". */
static void v1_options(char *opts, struct cgfb_mount *m)
{
	char *save = NULL;

	for (char *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		const int c = cgfb_ctrl_index(o, strlen(o));

		if (c >= 0)
			m->controllers |= UINT32_C(1) << c;
		else if (strncmp(o, "name=", 5) == 0)
			snprintf(m->name, sizeof(m->name), "%s", o + 5);
		else if (strcmp(o, "noprefix") == 0)
			m->noprefix = true;
	}
}

/* One line: "36 35 0:32 / /sys/fs/cgroup/memory rw,... shared:1 - cgroup cgroup rw,memory".
 * Returns 1 for a cgroup mount filled into m, 0 for another mount, -EINVAL. */
static int parse_line(char *line, struct cgfb_mount *m)
{
	char *f[FIELDS_MAX];
	const unsigned n = split(line, f, FIELDS_MAX);
	unsigned sep = 6;

	while (sep < n && strcmp(f[sep], "-") != 0)
		sep++;
	if (n < 6 || sep + 3 >= n + 1 || sep + 2 >= n)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	if (sscanf(f[2], "%u:%u", &m->dev_major, &m->dev_minor) != 2)
		return -EINVAL;
	if (strcmp(f[sep + 1], "cgroup2") == 0)
		m->version = 2;
	else if (strcmp(f[sep + 1], "cgroup") == 0)
		m->version = 1;
	else
		return 0;
	if (m->version == 1 && sep + 3 < n)
		v1_options(f[sep + 3], m);
	unescape(f[4]);
	m->path = f[4];            /* points into line until copied */
	return 1;
}

static bool seen(const struct cgfb_mounts *ms, const struct cgfb_mount *m)
{
	for (unsigned i = 0; i < ms->n; i++)
		if (ms->m[i].dev_major == m->dev_major && ms->m[i].dev_minor == m->dev_minor)
			return true;
	return false;
}

static int add(struct cgfb_mounts *ms, struct cgfb_mount *m, const char *root)
{
	const char *r = root ? root : "";
	char *path;

	if (seen(ms, m))
		return 0;
	if (ms->n == CGFB_HIER_MAX) {
		ms->dropped++;
		return 0;
	}
	path = malloc(strlen(r) + strlen(m->path) + 1);
	if (!path)
		return -ENOMEM;
	strcpy(path, r);
	strcat(path, m->path);
	m->path = path;
	ms->m[ms->n++] = *m;
	return 0;
}

int cgfb_mountinfo_parse(const char *buf, size_t len, const char *root, struct cgfb_mounts *out)
{
	char *copy = malloc(len + 1), *p, *save = NULL;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!copy)
		return -ENOMEM;
	memcpy(copy, buf, len);
	copy[len] = '\0';
	for (p = strtok_r(copy, "\n", &save); p && rc == 0; p = strtok_r(NULL, "\n", &save)) {
		struct cgfb_mount m;
		const int r = parse_line(p, &m);

		if (r < 0)
			out->malformed++;
		else if (r == 1)
			rc = add(out, &m, root);
	}
	free(copy);
	if (rc < 0)
		cgfb_mounts_free(out);
	return rc;
}

int cgfb_mountinfo_read(const char *path, const char *root, struct cgfb_mounts *out)
{
	struct cgfb_buf b = { 0 };
	int rc;

	memset(out, 0, sizeof(*out));
	rc = cgfb_read_file(path, MOUNTINFO_MAX, 0, &b);
	if (rc == 0)
		rc = cgfb_mountinfo_parse(b.data, b.len, root, out);
	cgfb_buf_free(&b);
	return rc;
}

void cgfb_mounts_free(struct cgfb_mounts *ms)
{
	for (unsigned i = 0; i < ms->n; i++)
		free(ms->m[i].path);
	memset(ms, 0, sizeof(*ms));
}

enum cgfb_cgroup_mode cgfb_mounts_mode(const struct cgfb_mounts *ms)
{
	bool v1 = false, v2 = false;

	for (unsigned i = 0; i < ms->n; i++) {
		if (ms->m[i].version == 2)
			v2 = true;
		else
			v1 = true;
	}
	if (v1 && v2)
		return CGFB_MODE_HYBRID;
	if (v2)
		return CGFB_MODE_UNIFIED;
	return v1 ? CGFB_MODE_LEGACY : CGFB_MODE_NONE;
}

const char *cgfb_cgroup_mode_name(enum cgfb_cgroup_mode mode)
{
	static const char *const names[] = { "none", "legacy", "hybrid", "unified" };

	return names[mode];
}
