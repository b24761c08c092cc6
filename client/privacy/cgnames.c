#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "privacy/cgnames.h"
#include "privacy/cgwords.h"

struct walk {
	const struct cgfb_allowlist *al;
	int (*name)(void *arg, const char *n);
	void *arg;
	size_t dirs;
	int rc;
};

/* A name that would be a token in a report: not kept, not generalised. */
static bool tokenised(const struct walk *w, const char *name, size_t len)
{
	return !cgfb_allowlist_name(w->al, name, len);
}

static void add_name(struct walk *w, const char *name, int depth)
{
	const size_t len = strlen(name);
	const size_t unit = cgfb_unit_suffix(name, len);
	char stem[256];

	if ((depth == 0 && cgfb_hierarchy_name(name, len)) || !tokenised(w, name, len))
		return;
	w->rc = w->name(w->arg, name);
	if (w->rc == 0 && unit && len - unit < sizeof(stem)) {
		memcpy(stem, name, len - unit);
		stem[len - unit] = '\0';
		if (tokenised(w, stem, len - unit) && !cgfb_hierarchy_name(stem, len - unit))
			w->rc = w->name(w->arg, stem);
	}
}

static void walk_dir(struct walk *w, int dfd, int depth)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;

	if (!d) {
		close(dfd);
		return;
	}
	while (w->rc == 0 && w->dirs < CGFB_CGNAMES_DIRS && (e = readdir(d)) != NULL) {
		/* Only directories are cgroups; a symbolic link ("cpu" ->
		 * "cpu,cpuacct") names a hierarchy already walked. */
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		w->dirs++;
		add_name(w, e->d_name, depth);
		if (depth + 1 >= CGFB_CGNAMES_DEPTH)
			continue;
		const int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);

		if (sub >= 0)
			walk_dir(w, sub, depth + 1);
	}
	closedir(d);
}

int cgfb_cgroup_names(const char *root, const struct cgfb_allowlist *al,
		      int (*name)(void *arg, const char *n), void *arg)
{
	struct walk w = { .al = al, .name = name, .arg = arg };
	const int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	walk_dir(&w, fd, 0);
	return w.rc;
}
