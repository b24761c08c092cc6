/* The kubelet's configuration as the kubelet reads it (env.h): the
 * KubeletConfiguration file (--config), its drop-in directory
 * (--config-dir, merged in file name order), then the command-line flags,
 * which win. Flags come from the places the packaged units take them
 * (kubeadm's kubeadm-flags.env, /etc/default or /etc/sysconfig, the units'
 * drop-ins) and from k3s's and RKE2's kubelet-arg. YAML (and JSON, a
 * subset of it) is read with libyaml. */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <yaml.h>

#include "cgfb/buf.h"
#include "readiness/check.h"
#include "readiness/cmdline.h"
#include "readiness/env.h"
#include "readiness/version.h"

#define KCONF_MAX   (1u << 20)
#define FLAG        "fail-cgroupv1"
#define K3S_DROPINS "/var/lib/rancher/k3s/agent/etc/kubelet.conf.d"

/* Where flags are written for the kubelet's unit: shell-style assignments
 * and unit drop-ins whose words reach its ExecStart. */
static const char *const flag_files[] = {
	"/var/lib/kubelet/kubeadm-flags.env", "/etc/default/kubelet", "/etc/sysconfig/kubelet",
	"/usr/lib/systemd/system/kubelet.service.d/*.conf", "/lib/systemd/system/kubelet.service.d/*.conf",
	"/etc/systemd/system/kubelet.service.d/*.conf",
	"/etc/systemd/system/k3s.service", "/etc/systemd/system/k3s-agent.service",
};
/* KubeletConfiguration files of kubeadm and of distributions' packages,
 * read when no --config names one. */
static const char *const config_files[] = {
	"/var/lib/kubelet/config.yaml", "/etc/kubernetes/kubelet-config.yaml",
	"/etc/kubernetes/kubelet/config.yaml",
};
/* k3s and RKE2: YAML whose kubelet-arg entries become kubelet flags. */
static const char *const dist_files[] = {
	"/etc/rancher/k3s/config.yaml", "/etc/rancher/k3s/config.yaml.d/*.y*ml",
	"/etc/rancher/rke2/config.yaml", "/etc/rancher/rke2/config.yaml.d/*.y*ml",
};
static const char *const binaries[] = {
	"/usr/bin/kubelet", "/usr/local/bin/kubelet", "/usr/local/bin/k3s", "/usr/bin/k3s",
	"/usr/local/bin/rke2", "/usr/bin/rke2",
};

struct kread {
	const struct cgfb_check_opts *o;
	struct cgfb_kubelet *k;
	struct cgfb_check *c;
	int flag;                  /* from flags: -1 none */
	char flag_where[320];
	/* k3s/RKE2's kubelet-arg: a later file's list replaces an earlier
	 * one's, "kubelet-arg+" adds to it; they count when no unit or
	 * environment file gives the flag. */
	int dist_flag;
	char dist_where[320];
	bool in_dist;
	char config[4096];         /* --config, "" none given */
	char config_dir[4096];     /* --config-dir */
};

static void present(struct cgfb_kubelet *k, const char *why)
{
	if (!k->present)
		snprintf(k->present_why, sizeof(k->present_why), "%.250s", why);
	k->present = true;
}

/* A word's flag name and value: "--name" (value NULL) or "--name=value".
 * pflag reads a single dash as shorthand letters, so only "--" counts; the
 * kubelet's flag set normalises '_' to '-' (cliflag.WordSepNormalizeFunc). */
static bool flag_word(const char *w, size_t len, const char *name, const char **v, size_t *vl)
{
	size_t nl = strlen(name);

	if (len < nl + 2 || strncmp(w, "--", 2) != 0)
		return false;
	for (size_t i = 0; i < nl; i++)
		if (w[2 + i] != name[i] && !(w[2 + i] == '_' && name[i] == '-'))
			return false;
	if (len == nl + 2) {
		*v = NULL;
		*vl = 0;
		return true;
	}
	if (w[nl + 2] != '=')
		return false;
	*v = w + nl + 3;
	*vl = len - nl - 3;
	return true;
}

/* The words of a line. The flags reach the kubelet through $VAR in the
 * unit's ExecStart, which systemd splits at white space whatever quotes
 * the assignment had; so quotes are dropped and only white space splits.
 * fn gets each word and the one after it. */
static void words(const char *line, void (*fn)(struct kread *, const char *, size_t, const char *,
					       size_t, const char *, unsigned long),
		  struct kread *r, const char *path, unsigned long lineno)
{
	char w[2][1024];
	size_t len[2] = { 0, 0 };
	int cur = 0, have = 0;

	for (const char *p = line;; p++) {
		bool end = !*p || *p == '\n';

		if (!end && (*p == '"' || *p == '\''))
			continue;
		if (!end && *p != ' ' && *p != '\t') {
			if (len[cur] + 1 < sizeof(w[cur]))
				w[cur][len[cur]++] = *p;
			continue;
		}
		if (len[cur]) {
			w[cur][len[cur]] = '\0';
			if (have)
				fn(r, w[!cur], len[!cur], w[cur], len[cur], path, lineno);
			have = 1;
			cur = !cur;
			len[cur] = 0;
		}
		if (end)
			break;
	}
	if (have)
		fn(r, w[!cur], len[!cur], NULL, 0, path, lineno);
}

static void copy_value(char *dst, size_t sz, const char *v, size_t vl)
{
	snprintf(dst, sz, "%.*s", (int)vl, v ? v : "");
}

/* "--fail-cgroup-v1", "--failCgroupV1": meant as the flag, unknown to the
 * kubelet, which then exits ('unknown flag'). */
static void misspelt(struct kread *r, const char *w, size_t len, const char *path, unsigned long lineno)
{
	char squeezed[32];
	size_t n = 0, name = strcspn(w, "=");

	if (len < 2 || strncmp(w, "--", 2) != 0 || r->k->bad_flag[0])
		return;
	for (size_t i = 2; i < name && n + 1 < sizeof(squeezed); i++)
		if (w[i] != '-' && w[i] != '_')
			squeezed[n++] = (char)(w[i] | 0x20);
	squeezed[n] = '\0';
	if (strcmp(squeezed, "failcgroupv1") != 0 && strcmp(squeezed, "failcgroupsv1") != 0)
		return;
	snprintf(r->k->bad_flag, sizeof(r->k->bad_flag), "%s:%lu: %.*s", path, lineno, (int)len, w);
	r->k->bad_flag_unknown = true;
	present(r->k, path);
}

/* One word of a command line (and the word after it). */
static void on_word(struct kread *r, const char *w, size_t len, const char *next, size_t nlen,
		    const char *path, unsigned long lineno)
{
	const char *v;
	size_t vl;

	const char *eq = strchr(w, '=');

	/* KUBELET_EXTRA_ARGS=--flag: the assignment's first word. */
	if (strncmp(w, "--", 2) != 0 && eq && (size_t)(eq - w) < len) {
		on_word(r, eq + 1, len - (size_t)(eq - w) - 1, next, nlen, path, lineno);
		return;
	}
	/* k3s's unit: --kubelet-arg=NAME=VALUE or --kubelet-arg NAME=VALUE. */
	if (flag_word(w, len, "kubelet-arg", &v, &vl)) {
		char k3s[1024];

		if (!v && !next)
			return;
		snprintf(k3s, sizeof(k3s), "--%.*s", (int)(v ? vl : nlen), v ? v : next);
		on_word(r, k3s, strlen(k3s), NULL, 0, path, lineno);
		return;
	}
	if (flag_word(w, len, "config", &v, &vl) && v)
		copy_value(r->config, sizeof(r->config), v, vl);
	else if (flag_word(w, len, "config-dir", &v, &vl) && v)
		copy_value(r->config_dir, sizeof(r->config_dir), v, vl);
	if (!flag_word(w, len, FLAG, &v, &vl)) {
		misspelt(r, w, len, path, lineno);
		return;
	}
	present(r->k, path);
	if (!v) {
		/* pflag: a bool flag without "=" is true and takes no next word;
		 * "false" after it is an argument, which the kubelet refuses. */
		*(r->in_dist ? &r->dist_flag : &r->flag) = 1;
		if (next && cgfb_parse_boolean(next, nlen) >= 0)
			snprintf(r->k->bad_flag, sizeof(r->k->bad_flag), "%s:%lu: --%s %.*s", path, lineno,
				 FLAG, (int)nlen, next);
	} else {
		int b = cgfb_parse_boolean(v, vl);

		if (b >= 0)
			*(r->in_dist ? &r->dist_flag : &r->flag) = b;
	}
	snprintf(r->in_dist ? r->dist_where : r->flag_where, sizeof(r->flag_where), "%s:%lu: --%s%s%.*s",
		 path, lineno, FLAG,
		 v ? "=" : "", (int)vl, v ? v : "");
}

static int flags_file(struct kread *r, const char *path)
{
	struct cgfb_buf b = { 0 };
	unsigned long n = 0;
	int rc = cgfb_check_read_text(r->c, path, KCONF_MAX, &b);

	if (rc) {
		cgfb_buf_free(&b);
		return rc < 0 ? rc : 0;
	}
	present(r->k, path);
	for (const char *l = b.data; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *s = l + strspn(l, " \t");

		n++;
		if (*s != '#' && *s != ';')
			words(s, on_word, r, path, n);
	}
	cgfb_buf_free(&b);
	return 0;
}

/* --- YAML ------------------------------------------------------------------- */

static yaml_node_t *map_get(yaml_document_t *d, yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(d, p->key);

		if (k && k->type == YAML_SCALAR_NODE && strcmp((char *)k->data.scalar.value, key) == 0)
			return yaml_document_get_node(d, p->value);
	}
	return NULL;
}

/* One YAML document of a file; -EINVAL when it is no YAML (said). */
static int yaml_load(const char *path, const struct cgfb_buf *b, yaml_document_t *d, struct kread *r)
{
	yaml_parser_t p;
	int ok;

	if (!yaml_parser_initialize(&p))
		return -ENOMEM;
	yaml_parser_set_input_string(&p, (const unsigned char *)b->data, b->len);
	ok = yaml_parser_load(&p, d);
	yaml_parser_delete(&p);
	if (!ok)
		return cgfb_check_unreadable_why(r->c, path, "not YAML") ? -ENOMEM : -EINVAL;
	return 0;
}

typedef void (*yaml_fn)(struct kread *r, const char *path, yaml_document_t *d, void *arg);

/* A YAML file read, said present, parsed and given to fn; what cannot be
 * read or parsed is said and skipped. 0 or -ENOMEM. */
static int yaml_file(struct kread *r, const char *path, yaml_fn fn, void *arg)
{
	struct cgfb_buf b = { 0 };
	yaml_document_t d;
	int rc = cgfb_check_read_text(r->c, path, KCONF_MAX, &b);

	if (rc)
		goto out;
	present(r->k, path);
	if ((rc = yaml_load(path, &b, &d, r)))
		goto out;
	fn(r, path, &d, arg);
	yaml_document_delete(&d);
out:
	cgfb_buf_free(&b);
	return rc < 0 && rc != -EINVAL ? rc : 0;
}

struct setting {
	int *val;
	char *where;
	size_t wsz;
};

/* failCgroupV1 of a KubeletConfiguration (file or drop-in). */
static void on_config(struct kread *r, const char *path, yaml_document_t *d, void *arg)
{
	const struct setting *st = arg;
	yaml_node_t *v = map_get(d, yaml_document_get_root_node(d), "failCgroupV1");
	int bv;

	(void)r;
	if (!v || v->type != YAML_SCALAR_NODE ||
	    (bv = cgfb_parse_boolean((char *)v->data.scalar.value, v->data.scalar.length)) < 0)
		return;
	*st->val = bv;
	snprintf(st->where, st->wsz, "%s:%lu: failCgroupV1: %s", path,
		 (unsigned long)v->start_mark.line + 1, (char *)v->data.scalar.value);
}

static int config_file(struct kread *r, const char *path, int *val, char *where, size_t wsz)
{
	struct setting st = { .val = val, .where = where, .wsz = wsz };

	return yaml_file(r, path, on_config, &st);
}

/* One kubelet-arg entry: k3s puts "--" before it. */
static void dist_arg(struct kread *r, const char *path, const yaml_node_t *n)
{
	char w[1024];

	if (!n || n->type != YAML_SCALAR_NODE)
		return;
	snprintf(w, sizeof(w), "--%s", (const char *)n->data.scalar.value);
	on_word(r, w, strlen(w), NULL, 0, path, (unsigned long)n->start_mark.line + 1);
}

/* k3s/RKE2: kubelet-arg is a list (or one string) of "name=value"; a
 * later file's list replaces the earlier, "kubelet-arg+" adds to it. */
static void on_dist(struct kread *r, const char *path, yaml_document_t *d, void *arg)
{
	yaml_node_t *v = map_get(d, yaml_document_get_root_node(d), "kubelet-arg");

	(void)arg;
	if (v) {
		r->dist_flag = -1;
		r->dist_where[0] = '\0';
	} else if (!(v = map_get(d, yaml_document_get_root_node(d), "kubelet-arg+"))) {
		return;
	}
	if (v->type != YAML_SEQUENCE_NODE) {
		dist_arg(r, path, v);
		return;
	}
	for (yaml_node_item_t *i = v->data.sequence.items.start; i < v->data.sequence.items.top; i++)
		dist_arg(r, path, yaml_document_get_node(d, *i));
}

static int dist_file(struct kread *r, const char *path)
{
	return yaml_file(r, path, on_dist, NULL);
}

/* --- the rest --------------------------------------------------------------- */

typedef int (*file_fn)(struct kread *, const char *);

static int each(struct kread *r, const char *const *pats, size_t n, file_fn fn)
{
	char pat[4096];
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		glob_t g;
		int gr;

		if ((rc = cgfb_check_path(r->o, pats[i], pat, sizeof(pat))))
			break;
		gr = glob(pat, 0, NULL, &g);
		if (gr == GLOB_NOSPACE)
			return -ENOMEM;
		for (size_t k = 0; gr == 0 && k < g.gl_pathc && !rc; k++)
			rc = fn(r, g.gl_pathv[k]);
		if (gr == 0)
			globfree(&g);
	}
	return rc;
}

int cgfb_kubelet_read(const struct cgfb_check_opts *o, const char *status, struct cgfb_kubelet *k,
		      struct cgfb_check *c)
{
	struct kread r = { .o = o, .k = k, .c = c, .flag = -1, .dist_flag = -1 };
	char p[4096];
	int cfg = -1, drop = -1, rc;
	char cfg_where[320] = "", drop_where[320] = "";

	memset(k, 0, sizeof(*k));
	k->fail_v1 = -1;
	if (cgfb_dpkg_version(status, "kubelet", k->version, sizeof(k->version)))
		present(k, "the package kubelet is installed");
	for (size_t i = 0; i < sizeof(binaries) / sizeof(*binaries); i++)
		if (!cgfb_check_path(o, binaries[i], p, sizeof(p)) && access(p, F_OK) == 0)
			present(k, p);
	if ((rc = each(&r, flag_files, sizeof(flag_files) / sizeof(*flag_files), flags_file)))
		return rc;
	r.in_dist = true;
	rc = each(&r, dist_files, sizeof(dist_files) / sizeof(*dist_files), dist_file);
	r.in_dist = false;
	if (rc)
		return rc;
	if (r.flag < 0 && r.dist_flag >= 0) {
		r.flag = r.dist_flag;
		snprintf(r.flag_where, sizeof(r.flag_where), "%s", r.dist_where);
	}
	/* k3s gives its kubelet --config-dir=<data-dir>/agent/etc/kubelet.conf.d. */
	if (!r.config_dir[0] && !cgfb_check_path(o, K3S_DROPINS, p, sizeof(p)) && access(p, F_OK) == 0)
		snprintf(r.config_dir, sizeof(r.config_dir), "%s", K3S_DROPINS);
	/* The file --config names, else the usual ones. */
	if (r.config[0] && r.config[0] == '/') {
		if (!cgfb_check_path(o, r.config, p, sizeof(p)) && access(p, F_OK) == 0 &&
		    (rc = config_file(&r, p, &cfg, cfg_where, sizeof(cfg_where))))
			return rc;
	} else {
		for (size_t i = 0; i < sizeof(config_files) / sizeof(*config_files); i++)
			if (!cgfb_check_path(o, config_files[i], p, sizeof(p)) && access(p, F_OK) == 0 &&
			    (rc = config_file(&r, p, &cfg, cfg_where, sizeof(cfg_where))))
				return rc;
	}
	if (r.config_dir[0] == '/') {
		char pat[4096];
		glob_t g;
		int gr;

		if (snprintf(pat, sizeof(pat), "%s/*.conf", r.config_dir) < (int)sizeof(pat) &&
		    cgfb_check_path(o, pat, p, sizeof(p)) == 0 && (gr = glob(p, 0, NULL, &g)) == 0) {
			/* glob sorts: the drop-ins in the kubelet's order, the last wins. */
			for (size_t i = 0; i < g.gl_pathc && !rc; i++)
				rc = config_file(&r, g.gl_pathv[i], &drop, drop_where, sizeof(drop_where));
			globfree(&g);
			if (rc)
				return rc;
		}
	}
	if (r.flag >= 0) {
		k->fail_v1 = r.flag;
		snprintf(k->fail_v1_where, sizeof(k->fail_v1_where), "%s", r.flag_where);
	} else if (drop >= 0) {
		k->fail_v1 = drop;
		snprintf(k->fail_v1_where, sizeof(k->fail_v1_where), "%s", drop_where);
	} else if (cfg >= 0) {
		k->fail_v1 = cfg;
		snprintf(k->fail_v1_where, sizeof(k->fail_v1_where), "%s", cfg_where);
	}
	return 0;
}
