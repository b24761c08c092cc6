#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgfb/readfile.h"
#include "snapshot/topology.h"

/* Longer than any value file worth reading (memory.oom_control is ~50). */
#define VALUE_MAX 256

struct child {
	char *raw;
	size_t len;
	char anon[CGFB_ANON_MAX];
	/* Siblings the report names alike (user-N.slice) are ordered by this
	 * keyed token of their raw names, never by the names: the order of
	 * user-1000 and user-1001 would tell which subtree is which. */
	char tie[2 + CGFB_TOKEN_HEX + 1];
};

struct walk {
	struct cgfb_topology *t;
	struct cgfb_anon *anon;
	const struct cgfb_topo_opts *o;
	const struct cgfb_mount *m;
	struct cgfb_hier *h;
	uint32_t attrs;
	unsigned max_nodes;
	unsigned listed;             /* across hierarchies */
	uint64_t counted;
	/* Raw names from the mount point down, for the first error's context. */
	const char *stack[CGFB_TOPO_MAX_DEPTH + 2];
};

uint32_t cgfb_hier_attrs(const struct cgfb_hier *h)
{
	uint32_t mask = 0;

	for (int a = 0; a < CGFB_A_N; a++) {
		const enum cgfb_attr_scope s = cgfb_attr(a)->scope;

		if ((h->version == 2 && s == CGFB_S_V2) ||
		    (h->version == 1 && s == CGFB_S_MEMORY_V1 &&
		     (h->controllers & (1u << CGFB_C_MEMORY))) ||
		    (h->version == 1 && s == CGFB_S_CPUSET &&
		     (h->controllers & (1u << CGFB_C_CPUSET))) ||
		    (h->version == 1 && s == CGFB_S_FREEZER &&
		     (h->controllers & (1u << CGFB_C_FREEZER))))
			mask |= UINT32_C(1) << a;
	}
	return mask;
}

static void unreadable(struct walk *w, uint32_t depth, const char *file, int err)
{
	struct cgfb_topo_trouble *tr = &w->t->trouble;
	size_t n;

	if (tr->unreadable++)
		return;
	tr->first_errno = -err;
	n = (size_t)snprintf(tr->first, sizeof(tr->first), "%s", w->m->path);
	for (uint32_t i = 1; i <= depth && n < sizeof(tr->first); i++)
		n += (size_t)snprintf(tr->first + n, sizeof(tr->first) - n, "/%s", w->stack[i]);
	if (file && n < sizeof(tr->first))
		snprintf(tr->first + n, sizeof(tr->first) - n, "/%s", file);
}

static void trouble(struct walk *w, uint32_t depth, const char *file, int err)
{
	if (err == -ENOENT || err == -ENODEV)
		w->t->trouble.vanished++;
	else
		unreadable(w, depth, file, err);
}

/* With the noprefix mount option v1 files lose their "controller." part. */
static const char *file_name(const struct walk *w, const char *file)
{
	if (w->m->noprefix && strncmp(file, "cgroup.", 7) != 0 && strchr(file, '.'))
		return strchr(file, '.') + 1;
	return file;
}

/* Lines of cgroup.procs, read in chunks: the root's can be long. */
static int count_tasks(int dirfd, uint64_t *n)
{
	char buf[8192];
	int fd = openat(dirfd, "cgroup.procs", O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	char last = '\n';
	ssize_t r;

	/* Kernels before 2.6.35 (SLES 11 SP1) have only "tasks". */
	if (fd < 0 && errno == ENOENT)
		fd = openat(dirfd, "tasks", O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	*n = 0;
	while ((r = read(fd, buf, sizeof(buf))) > 0 || (r < 0 && errno == EINTR)) {
		for (ssize_t i = 0; i < r; i++)
			*n += buf[i] == '\n';
		if (r > 0)
			last = buf[r - 1];
	}
	if (r < 0) {
		r = -errno;
		close(fd);
		return (int)r;
	}
	close(fd);
	*n += last != '\n';
	return 0;
}

/* A cgroup that vanishes answers ENODEV from files still open: -ENODEV
 * then means "drop this node". Other errors only lose the value. */
static int read_attrs(struct walk *w, int dirfd, struct cgfb_node *node)
{
	char buf[VALUE_MAX];
	int rc;

	for (int a = 0; a < CGFB_A_N; a++) {
		const char *file;
		ssize_t len;

		if (!(w->attrs & (UINT32_C(1) << a)))
			continue;
		file = file_name(w, cgfb_attr(a)->file);
		len = cgfb_read_at(dirfd, file, buf, sizeof(buf));
		if (len == -ENODEV)
			return -ENODEV;
		if (len == -EACCES || len == -EPERM || len == -EIO)
			unreadable(w, node->depth, file, (int)len);
		if (len < 0 || cgfb_attr_parse(a, buf, (size_t)len, &node->v[a]) < 0)
			continue;
		node->have |= UINT32_C(1) << a;
	}
	rc = count_tasks(dirfd, &node->tasks);
	if (rc == -ENODEV)
		return rc;
	if (rc < 0 && rc != -ENOENT)
		unreadable(w, node->depth, "cgroup.procs", rc);
	return 0;
}

static int cmp_child(const void *a, const void *b)
{
	const struct child *x = a, *y = b;
	const int c = strcmp(x->anon, y->anon);

	return c ? c : strcmp(x->tie, y->tie);
}

static bool is_dir(int dirfd, const struct dirent *de)
{
	struct stat st;

	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	return fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

static void free_children(struct child *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(c[i].raw);
	free(c);
}

static void name_child(struct walk *w, struct child *c)
{
	char tok[CGFB_ANON_MAX];

	cgfb_anon_name(w->anon, c->raw, c->len, c->anon);
	/* A token or a name kept as it is cannot tie with a sibling's. */
	if (strncmp(c->anon, "h:", 2) == 0 || strcmp(c->anon, c->raw) == 0)
		return;
	cgfb_anon_token(w->anon, c->raw, c->len, tok);
	memcpy(c->tie, tok, sizeof(c->tie) - 1);
	c->tie[sizeof(c->tie) - 1] = '\0';
}

/* Subdirectories of dirfd, anonymised and sorted by what a report shows. */
static int list_children(struct walk *w, int dirfd, struct child **out, size_t *n_out)
{
	const int fd = dup(dirfd);
	struct child *c = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int rc = 0;

	*out = NULL;
	*n_out = 0;
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		rc = -errno;
		close(fd);
		return rc;
	}
	while ((errno = 0, de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || !is_dir(dirfd, de))
			continue;
		if (n == cap) {
			struct child *nc = realloc(c, (cap ? cap * 2 : 16) * sizeof(*nc));

			if (!nc) {
				rc = -ENOMEM;
				break;
			}
			c = nc;
			cap = cap ? cap * 2 : 16;
		}
		c[n].len = strlen(de->d_name);
		c[n].raw = strdup(de->d_name);
		if (!c[n].raw) {
			rc = -ENOMEM;
			break;
		}
		/* Past the node cap cgroups are only counted: no name needed. */
		c[n].anon[0] = c[n].tie[0] = '\0';
		if (w->listed < w->max_nodes)
			name_child(w, &c[n]);
		n++;
	}
	/* A directory removed while listed ends the listing early (ENOENT). */
	if (rc == 0 && errno && errno != ENOENT && errno != ENODEV)
		rc = -errno;
	closedir(d);
	if (rc < 0) {
		free_children(c, n);
		return rc;
	}
	if (n > 1)
		qsort(c, n, sizeof(*c), cmp_child);
	*out = c;
	*n_out = n;
	return 0;
}

static int add_node(struct cgfb_hier *h, uint32_t parent, uint32_t depth, const char *name,
		    uint32_t *idx)
{
	struct cgfb_node *node;

	if (h->n == h->cap) {
		const size_t cap = h->cap ? h->cap * 2 : 64;
		struct cgfb_node *nn = realloc(h->nodes, cap * sizeof(*nn));

		if (!nn)
			return -ENOMEM;
		h->nodes = nn;
		h->cap = cap;
	}
	node = &h->nodes[h->n];
	memset(node, 0, sizeof(*node));
	node->parent = parent;
	node->depth = depth;
	snprintf(node->name, sizeof(node->name), "%s", name);
	*idx = (uint32_t)h->n++;
	return 0;
}

static int visit(struct walk *w, int dirfd, uint32_t parent, uint32_t depth, const char *anon);

static int visit_children(struct walk *w, int dirfd, uint32_t self, uint32_t depth,
			  uint32_t *seen)
{
	struct child *c;
	size_t n, todo;
	int rc;

	rc = list_children(w, dirfd, &c, &n);
	if (rc == -ENOENT || rc == -ENODEV) {
		w->t->trouble.vanished++;
		return 0;
	}
	if (rc < 0)
		return rc;
	todo = n;
	if (n && depth + 1 > CGFB_TOPO_MAX_DEPTH) {
		w->h->depth_capped = true;
		w->h->depth_omitted += n;
		*seen = (uint32_t)n;
		todo = 0;
	}
	if (w->o->listed_hook && todo)
		w->o->listed_hook(w->o->hook_arg, dirfd, depth);
	for (size_t i = 0; i < todo && rc == 0; i++) {
		int fd;

		if (w->counted >= CGFB_TOPO_COUNT_MAX) {
			w->h->count_capped = true;
			break;
		}
		w->stack[depth + 1] = c[i].raw;
		fd = openat(dirfd, c[i].raw, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			trouble(w, depth + 1, NULL, -errno);
			continue;
		}
		rc = visit(w, fd, self, depth + 1, c[i].anon);
		close(fd);
		if (rc > 0) {            /* it vanished while we read it */
			rc = 0;
			continue;
		}
		(*seen)++;
	}
	free_children(c, n);
	return rc;
}

/* One cgroup and everything below it. Returns 0, 1 when the cgroup
 * vanished under us, or -ENOMEM. */
static int visit(struct walk *w, int dirfd, uint32_t parent, uint32_t depth, const char *anon)
{
	struct cgfb_hier *h = w->h;
	const bool listing = w->listed < w->max_nodes;
	uint32_t self = CGFB_NO_PARENT, seen = 0;
	int rc;

	if (listing) {
		rc = add_node(h, parent, depth, anon, &self);
		if (rc < 0)
			return rc;
		if (read_attrs(w, dirfd, &h->nodes[self]) == -ENODEV) {
			h->n--;
			w->t->trouble.vanished++;
			return 1;
		}
		w->listed++;
	}
	w->counted++;
	h->total++;
	if (depth > h->max_depth)
		h->max_depth = depth;
	rc = visit_children(w, dirfd, self, depth, &seen);
	if (listing)
		h->nodes[self].children = seen;
	return rc;
}

static void v2_controllers(struct cgfb_hier *h, int dirfd)
{
	char buf[VALUE_MAX];
	const ssize_t len = cgfb_read_at(dirfd, "cgroup.controllers", buf, sizeof(buf));

	if (len >= 0)
		h->controllers = cgfb_ctrl_parse_list(buf, (size_t)len);
}

static int walk_hier(struct walk *w, const struct cgfb_mount *m, struct cgfb_hier *h)
{
	int fd, rc;

	w->m = m;
	w->h = h;
	h->version = m->version;
	h->controllers = m->controllers;
	if (m->name[0])
		cgfb_anon_name(w->anon, m->name, strlen(m->name), h->name);
	w->stack[0] = m->path;
	fd = open(m->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		h->error = -errno;
		unreadable(w, 0, NULL, h->error);
		return 0;
	}
	if (h->version == 2)
		v2_controllers(h, fd);
	w->attrs = cgfb_hier_attrs(h);
	rc = visit(w, fd, CGFB_NO_PARENT, 0, "/");
	close(fd);
	return rc < 0 ? rc : 0;
}

int cgfb_topology_walk(const struct cgfb_mounts *ms, struct cgfb_anon *anon,
		       const struct cgfb_topo_opts *o, struct cgfb_topology *t)
{
	static const struct cgfb_topo_opts none;
	struct walk w = { .t = t, .anon = anon, .o = o ? o : &none };
	int rc = 0;

	memset(t, 0, sizeof(*t));
	w.max_nodes = w.o->max_nodes ? w.o->max_nodes : CGFB_TOPO_MAX_NODES;
	t->max_nodes = w.max_nodes;
	t->mode = cgfb_mounts_mode(ms);
	for (unsigned i = 0; i < ms->n && rc == 0; i++) {
		rc = walk_hier(&w, &ms->m[i], &t->h[i]);
		t->n = i + 1;
	}
	if (rc < 0)
		cgfb_topology_free(t);
	return rc;
}

void cgfb_topology_free(struct cgfb_topology *t)
{
	for (unsigned i = 0; i < t->n; i++)
		free(t->h[i].nodes);
	memset(t, 0, sizeof(*t));
}
