/* The config probe: container runtimes and their kin keep their cgroup
 * choices in text files (Docker's daemon.json, containerd's config.toml,
 * the kubelet's config.yaml and flags, LXC's container configs). A rule
 * names the files by glob and a line by POSIX extended regex; commented
 * lines (# first) never match. A line-level look is enough for these
 * settings and needs no parser per format; a rule that needs more is a
 * probe of its own. */
#include <errno.h>
#include <glob.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "cgfb/buf.h"
#include "readiness/check.h"

#define CONF_MAX (4u << 20)        /* a runtime's configuration; more is no config */
#define SHOWN    120               /* of a matching line, in where */

static bool commented(const char *l)
{
	l += strspn(l, " \t");
	return *l == '#';
}

static int scan_file(const struct cgfb_rule *r, const regex_t *re, const char *path,
		     struct cgfb_check *c)
{
	struct cgfb_buf b = { 0 };
	unsigned long n = 0;
	int rc = cgfb_check_read_text(c, path, CONF_MAX, &b);

	if (rc) {
		rc = rc < 0 ? rc : 0;
		goto out;
	}
	for (char *l = b.data, *end; !rc && l && *l; l = end ? end + 1 : NULL) {
		end = strchr(l, '\n');
		if (end)
			*end = '\0';
		n++;
		if (!commented(l) && regexec(re, l, 0, NULL, 0) == 0)
			rc = cgfb_check_found(c, r, "%s:%lu: %.*s%s", path, n, SHOWN,
					      l + strspn(l, " \t"), strlen(l) > SHOWN ? " ..." : "");
	}
out:
	cgfb_buf_free(&b);
	return rc;
}

static int probe_rule(const struct cgfb_rule *r, const struct cgfb_check_opts *o,
		      struct cgfb_check *c)
{
	char pat[4096];
	regex_t re;
	int rc = 0;

	if (regcomp(&re, r->match, REG_EXTENDED | REG_NOSUB))
		return -EINVAL;             /* the loader compiled it once already */
	for (unsigned i = 0; i < r->n_paths && !rc; i++) {
		glob_t g;
		int gr;

		if ((rc = cgfb_check_path(o, r->paths[i], pat, sizeof(pat))))
			break;
		gr = glob(pat, 0, NULL, &g);          /* sorted: the output is stable */
		if (gr == GLOB_NOSPACE)
			rc = -ENOMEM;
		if (gr != 0)
			continue;                     /* no such file: nothing to say */
		for (size_t k = 0; k < g.gl_pathc && !rc; k++)
			rc = scan_file(r, &re, g.gl_pathv[k], c);
		globfree(&g);
	}
	regfree(&re);
	return rc;
}

int cgfb_probe_config(const struct cgfb_rules *rs, const struct cgfb_check_opts *o,
		      struct cgfb_check *c)
{
	int rc = 0;

	for (size_t i = 0; i < rs->n && !rc; i++)
		if (rs->r[i].probe == CGFB_PROBE_CONFIG)
			rc = probe_rule(&rs->r[i], o, c);
	return rc;
}
