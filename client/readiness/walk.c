/* The tree probes (knob and procs rules): every v1 hierarchy walked from its
 * mount point through directory descriptors, each knob a rule names read
 * where its controller is, and the processes of non-root cgroups counted.
 * A cgroup removed while it is walked is counted, not an error: on a busy
 * host that is the normal case. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgfb/readfile.h"
#include "readiness/check.h"
#include "snapshot/topology.h"

/* --report's snapshot and this walk cut the same tree at the same level. */
_Static_assert(CGFB_CHECK_DEPTH == CGFB_TOPO_MAX_DEPTH, "the check's depth is the snapshot's");

#define KNOB_MAX    4096          /* a knob file read whole; devices.list can be long */
#define ROOT_VAL    64

struct walk {
	const struct cgfb_rules *rs;
	const struct cgfb_check_opts *o;
	const struct cgfb_mount *m;
	struct cgfb_check *c;
	char (*root_val)[CGFB_RULE_FILES_MAX][ROOT_VAL];  /* per rule and file */
	const regex_t *owners;            /* each owner's match, compiled */
	size_t *knobs, n_knobs;           /* the knob rules of this mount's controllers:
	                                     chosen once, not at every cgroup */
	const struct cgfb_rule *procs_rule;  /* the procs rule, for owners */
	unsigned long procs, busy;        /* processes and cgroups holding some */
	char first_busy[4096];
	char path[4096];
	size_t len;
};

static void trim(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
}

/* The line after l's, or NULL at the end. */
static const char *next_line(const char *l)
{
	const char *nl = strchr(l, '\n');

	return nl ? nl + 1 : NULL;
}

static bool line_differs(const char *s, const char *key, const char *value)
{
	size_t kl = strlen(key);

	for (const char *l = s; l && *l; l = next_line(l)) {
		if (strncmp(l, key, kl) == 0 && l[kl] == ' ') {
			size_t vl = strcspn(l + kl + 1, "\n");

			return vl != strlen(value) || strncmp(l + kl + 1, value, vl) != 0;
		}
	}
	return false;
}

static bool any_line_nonzero(const char *s)
{
	for (const char *l = s; l && *l; l = next_line(l)) {
		size_t len = strcspn(l, "\n");
		const char *last = l;

		for (size_t i = 0; i < len; i++)
			if (l[i] == ' ' && i + 1 < len)
				last = l + i + 1;
		if (len && !(l + len - last == 1 && *last == '0'))
			return true;
	}
	return false;
}

/* Whether a knob's value is set away from its default. v is trimmed. */
static bool knob_set(const struct cgfb_rule *r, const char *v, const char *root)
{
	unsigned long long n;
	char *end;

	switch (r->test) {
	case CGFB_TEST_NE: return strcmp(v, r->value) != 0;
	case CGFB_TEST_LIMIT:
		errno = 0;
		n = strtoull(v, &end, 10);
		/* "Unlimited" reads PAGE_COUNTER_MAX pages: 2^63 - page size. */
		return *v && !*end && !errno && n < (1ULL << 62);
	case CGFB_TEST_LINE: return line_differs(v, r->key, r->value);
	case CGFB_TEST_NE_ROOT: return root && *root && strcmp(v, root) != 0;
	case CGFB_TEST_LINES_NONZERO: return any_line_nonzero(v);
	case CGFB_TEST_NONEMPTY: return *v != '\0';
	default: return false;
	}
}

/* Whether the cgroup being visited is an owner's that translates r; the
 * place is then counted for the owner. */
static bool owned(struct walk *w, const struct cgfb_rule *r)
{
	const char *below = w->path + strlen(w->m->path);

	for (size_t i = 0; i < w->rs->n_owners; i++) {
		const struct cgfb_owner *o = &w->rs->owners[i];

		if (cgfb_owner_translates(o, r) && regexec(&w->owners[i], below, 0, NULL, 0) == 0)
			return cgfb_check_owned(w->c, o, r) == 0;
	}
	return false;
}

/* A rule's file name in this mount: a cpuset mounted with noprefix has
 * "cpus", not "cpuset.cpus". */
static const char *file_name(const struct cgfb_mount *m, const char *file)
{
	if (m->noprefix && strncmp(file, "cpuset.", 7) == 0)
		return file + 7;
	return file;
}

static int knob(struct walk *w, int dfd, size_t ri, unsigned fi, uint32_t depth)
{
	const struct cgfb_rule *r = &w->rs->r[ri];
	const char *name = file_name(w->m, r->files[fi]);
	char v[KNOB_MAX], first[80];
	ssize_t n = cgfb_read_at(dfd, name, v, sizeof(v));

	if (n == -ENOENT)
		return 0;             /* not in this kernel, or the cgroup just went */
	if (n < 0) {
		snprintf(w->path + w->len, sizeof(w->path) - w->len, "/%s", name);
		n = cgfb_check_unreadable(w->c, w->path, (int)n);
		w->path[w->len] = '\0';
		return (int)n;
	}
	trim(v);
	if (depth == 0)
		snprintf(w->root_val[ri][fi], ROOT_VAL, "%.*s", ROOT_VAL - 1, v);
	if ((r->nonroot && depth == 0) || !knob_set(r, v, w->root_val[ri][fi]))
		return 0;
	/* A cgroup of a systemd unit or a container runtime: its owner
	 * moves the setting to v2 itself. */
	if (owned(w, r))
		return 0;
	snprintf(first, sizeof(first), "%.*s%s", (int)strcspn(v, "\n"), v,
		 strchr(v, '\n') ? " ..." : "");
	return cgfb_check_found_ctl(w->c, r, w->m->controllers, "%s%s: %s = %s", w->path,
				    depth ? "" : " (root)", name, first);
}

/* Lines of cgroup.procs, read in pieces: a busy cgroup lists thousands. */
static long count_procs(int dfd)
{
	char buf[8192];
	long lines = 0;
	ssize_t n;
	int fd = openat(dfd, "cgroup.procs", O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			lines += buf[i] == '\n';
	if (n < 0)
		lines = -errno;
	close(fd);
	return lines;
}

static int procs(struct walk *w, int dfd)
{
	long n = count_procs(dfd);

	if (n == -ENOENT || n == -ENODEV)
		return 0;
	if (n < 0) {
		int rc;

		snprintf(w->path + w->len, sizeof(w->path) - w->len, "/cgroup.procs");
		rc = cgfb_check_unreadable(w->c, w->path, (int)n);
		w->path[w->len] = '\0';
		return rc;
	}
	if (!n)
		return 0;
	if (w->procs_rule && owned(w, w->procs_rule))
		return 0;
	if (!w->busy++)
		snprintf(w->first_busy, sizeof(w->first_busy), "%s", w->path);
	w->procs += (unsigned long)n;
	return 0;
}

static int visit(struct walk *w, int dfd, uint32_t depth)
{
	int rc = 0;

	w->c->cgroups++;
	for (size_t k = 0; k < w->n_knobs && !rc; k++) {
		const size_t i = w->knobs[k];

		for (unsigned f = 0; f < w->rs->r[i].n_files && !rc; f++)
			rc = knob(w, dfd, i, f, depth);
	}
	if (!rc && depth)
		rc = procs(w, dfd);
	return rc;
}

static int walk(struct walk *w, int dfd, uint32_t depth);

static int descend(struct walk *w, int dfd, const char *name, uint32_t depth)
{
	size_t len = w->len;
	int fd, rc, n;

	n = snprintf(w->path + len, sizeof(w->path) - len, "/%s", name);
	if (n < 0 || (size_t)n >= sizeof(w->path) - len) {
		w->path[len] = '\0';
		return cgfb_check_unreadable(w->c, w->path, ENAMETOOLONG);
	}
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			w->c->vanished++;
		rc = errno == ENOENT || errno == ENOTDIR ? 0 : cgfb_check_unreadable(w->c, w->path, errno);
	} else {
		w->len += (size_t)n;
		rc = walk(w, fd, depth + 1);
		w->len = len;
	}
	w->path[len] = '\0';
	return rc;
}

/* A subdirectory entry of d. Some file systems (a fixture copied anywhere)
 * say DT_UNKNOWN: then a cgroup's files are told from its children by
 * lstat, where it matters (at the limit, nothing is entered to tell). */
static bool subdir(DIR *d, const struct dirent *de, bool ask)
{
	struct stat st;

	if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
		return false;
	if (de->d_type == DT_DIR || !ask)
		return true;
	return fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

/* The cgroup being visited is at the walk's limit: if it has children,
 * they and all below them are not read, and the check says where (a knob
 * set there could be what breaks: the verdict cannot be READY). */
static int at_limit(struct walk *w, DIR *d)
{
	struct dirent *de;

	while ((de = readdir(d)))
		if (subdir(d, de, true))
			return cgfb_check_depth_cut(w->c, w->path);
	return 0;
}

/* dfd is owned: closed here (through its DIR). The limit is the
 * snapshot's (CGFB_TOPO_MAX_DEPTH): cgroups CGFB_CHECK_DEPTH levels below
 * the mount point are read, their children are not, so a report made with
 * --report says "depth_cap" for the same tree exactly when check does. The
 * descent is by name from the parent's descriptor, never by the joined
 * path, so no path length limits the depth. */
static int walk(struct walk *w, int dfd, uint32_t depth)
{
	struct dirent *de;
	DIR *d;
	int rc = visit(w, dfd, depth);

	if (rc || !(d = fdopendir(dfd))) {
		close(dfd);
		return rc;
	}
	if (depth >= CGFB_CHECK_DEPTH) {
		rc = at_limit(w, d);
		closedir(d);
		return rc;
	}
	while (!rc && (de = readdir(d))) {
		if (!subdir(d, de, false))
			continue;
		if (w->o->enter_hook)
			w->o->enter_hook(w->o->hook_arg, dirfd(d), de->d_name);
		rc = descend(w, dirfd(d), de->d_name, depth);
	}
	closedir(d);
	return rc;
}

static int report_procs(struct walk *w)
{
	int rc = 0;

	if (!w->busy)
		return 0;
	for (size_t i = 0; i < w->rs->n && !rc; i++) {
		const struct cgfb_rule *r = &w->rs->r[i];

		if (r->probe == CGFB_PROBE_PROCS && cgfb_mount_has(w->m, r->controller))
			rc = cgfb_check_found_ctl(w->c, r, w->m->controllers,
						  "%s: %lu process%s in %lu cgroup%s (first: %s)",
						  w->m->path, w->procs, w->procs == 1 ? "" : "es", w->busy,
						  w->busy == 1 ? "" : "s", w->first_busy);
	}
	return rc;
}

static int walk_mount(const struct cgfb_rules *rs, const struct cgfb_check_opts *o,
		      const struct cgfb_mount *m, const regex_t *owners, struct cgfb_check *c)
{
	struct walk w = { .rs = rs, .o = o, .m = m, .c = c, .owners = owners };
	int fd, rc = 0;

	w.root_val = calloc(rs->n, sizeof(*w.root_val));
	w.knobs = calloc(rs->n, sizeof(*w.knobs));
	if (!w.root_val || !w.knobs) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < rs->n; i++) {
		if (rs->r[i].probe == CGFB_PROBE_KNOB && cgfb_mount_has(m, rs->r[i].controller))
			w.knobs[w.n_knobs++] = i;
		if (rs->r[i].probe == CGFB_PROBE_PROCS && cgfb_mount_has(m, rs->r[i].controller))
			w.procs_rule = &rs->r[i];
	}
	w.len = (size_t)snprintf(w.path, sizeof(w.path), "%s", m->path);
	fd = open(m->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		rc = cgfb_check_unreadable(c, m->path, errno);
	else if (!(rc = walk(&w, fd, 0)))
		rc = report_procs(&w);
out:
	free(w.knobs);
	free(w.root_val);
	return rc;
}

/* The owners' patterns are compiled once for every hierarchy. */
int cgfb_probe_tree(const struct cgfb_rules *rs, const struct cgfb_mounts *ms,
		    const struct cgfb_check_opts *o, struct cgfb_check *c)
{
	regex_t *owners = calloc(rs->n_owners + 1, sizeof(*owners));
	size_t compiled = 0;
	int rc = 0;

	if (!owners)
		return -ENOMEM;
	for (; compiled < rs->n_owners; compiled++)
		if (regcomp(&owners[compiled], rs->owners[compiled].match, REG_EXTENDED | REG_NOSUB)) {
			rc = -EINVAL;           /* the loader compiled it once already */
			goto out;
		}
	for (unsigned i = 0; i < ms->n && !rc; i++)
		if (ms->m[i].version == 1)
			rc = walk_mount(rs, o, &ms->m[i], owners, c);
out:
	for (size_t k = 0; k < compiled; k++)
		regfree(&owners[k]);
	free(owners);
	return rc;
}
