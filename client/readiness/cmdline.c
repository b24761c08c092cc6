/* Kernel command lines and the cgroup switches in them (cmdline.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cgfb/buf.h"
#include "cgfb/readfile.h"
#include "readiness/cmdline.h"

#define BOOTCFG_MAX (1u << 20)          /* a grub default file or a BLS entry */

const char *cgfb_cmdline_next(const char *p, size_t *len)
{
	bool quoted = false;
	size_t n = 0;

	while (isspace((unsigned char)*p))
		p++;
	while (p[n] && (quoted || !isspace((unsigned char)p[n])))
		quoted ^= p[n++] == '"';
	*len = n;
	return n && !(n == 2 && p[0] == '-' && p[1] == '-') ? p : NULL;
}

/* src/basic/parse-util.c parse_boolean() of systemd. */
int cgfb_parse_boolean(const char *v, size_t len)
{
	static const char *const yes[] = { "1", "yes", "y", "true", "t", "on" };
	static const char *const no[] = { "0", "no", "n", "false", "f", "off" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(*yes); i++) {
		if (strlen(yes[i]) == len && strncasecmp(v, yes[i], len) == 0)
			return 1;
		if (strlen(no[i]) == len && strncasecmp(v, no[i], len) == 0)
			return 0;
	}
	return -1;
}

/* Key bytes as systemd's proc_cmdline_key_streq() compares them: '-' and
 * '_' are the same. */
static bool key_eq(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i] && !((a[i] == '-' || a[i] == '_') && (b[i] == '-' || b[i] == '_')))
			return false;
	return true;
}

/* KEY or KEY=VALUE (quotes around VALUE dropped, as the kernel does) into
 * its value: NULL for a bare key, or no match. */
static bool param_is(const char *tok, size_t len, const char *key, const char **v, size_t *vl)
{
	size_t kl = strlen(key);

	if (len < kl || !key_eq(tok, key, kl) || (len > kl && tok[kl] != '='))
		return false;
	*v = len > kl ? tok + kl + 1 : NULL;
	*vl = len > kl ? len - kl - 1 : 0;
	if (*v && *vl >= 2 && (*v)[0] == '"' && (*v)[*vl - 1] == '"')
		(*v)++, *vl -= 2;
	return true;
}

/* A boolean switch: bare is true; a word parse_boolean() refuses leaves
 * what was there (systemd logs and ignores it). */
static void set_bool(int *slot, const char *v, size_t vl)
{
	int b = v ? cgfb_parse_boolean(v, vl) : 1;

	if (b >= 0)
		*slot = b;
}

void cgfb_switches_read(const char *cmdline, struct cgfb_switches *s)
{
	const char *p, *v;
	size_t len, vl;

	s->unified = s->legacy_controller = s->force = -1;
	s->no_v1_all = false;
	for (p = cmdline; (p = cgfb_cmdline_next(p, &len)); p += len) {
		if (param_is(p, len, "systemd.unified_cgroup_hierarchy", &v, &vl))
			set_bool(&s->unified, v, vl);
		else if (param_is(p, len, "systemd.legacy_systemd_cgroup_controller", &v, &vl))
			set_bool(&s->legacy_controller, v, vl);
		else if (param_is(p, len, "SYSTEMD_CGROUP_ENABLE_LEGACY_FORCE", &v, &vl))
			set_bool(&s->force, v, vl);
		else if (param_is(p, len, "cgroup_no_v1", &v, &vl))
			s->no_v1_all = v && vl == 3 && strncmp(v, "all", 3) == 0;
	}
}

bool cgfb_switches_want_v1(const struct cgfb_switches *s)
{
	return s->unified == 0;
}

/* --- a copy's boot configuration ------------------------------------------ */

static struct cgfb_bootline *add_line(struct cgfb_bootlines *out, const char *root, const char *path)
{
	struct cgfb_bootline *l;

	if (out->n == CGFB_CMDLINES_MAX) {
		out->dropped++;
		return NULL;
	}
	l = &out->l[out->n++];
	snprintf(l->from, sizeof(l->from), "%s%s", root, path);
	l->text[0] = '\0';
	return l;
}

static int read_text(const char *path, struct cgfb_buf *b)
{
	int rc = cgfb_read_file(path, BOOTCFG_MAX, CGFB_RF_REGULAR, b);

	if (rc == 0 && (!b->data || memchr(b->data, '\0', b->len)))
		rc = -EINVAL;           /* not text: nothing taken from it */
	return rc;
}

/* grubenv: "kernelopts=..." lines of grub's environment block. */
static void grubenv_kernelopts(const char *root, char *out, size_t sz)
{
	static const char *const envs[] = { "/boot/grub2/grubenv", "/boot/grub/grubenv" };
	struct cgfb_buf b = { 0 };
	char path[4096];

	out[0] = '\0';
	for (size_t i = 0; i < sizeof(envs) / sizeof(*envs) && !out[0]; i++) {
		snprintf(path, sizeof(path), "%s%s", root, envs[i]);
		if (read_text(path, &b) == 0) {
			const char *k = strstr(b.data, "\nkernelopts=");

			k = strncmp(b.data, "kernelopts=", 11) == 0 ? b.data : k ? k + 1 : NULL;
			if (k)
				snprintf(out, sz, "%.*s", (int)strcspn(k + 11, "\n"), k + 11);
		}
		cgfb_buf_free(&b);
	}
}

/* A BLS entry's options lines (there may be several: they add up), with
 * $kernelopts replaced as grub's blscfg module does on RHEL 8. */
void cgfb_bls_options(const char *text, const char *kernelopts, char *out, size_t sz)
{
	size_t len = 0;

	out[0] = '\0';
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *v = l + strspn(l, " \t");
		size_t vl;

		if (strncmp(v, "options", 7) != 0 || !isspace((unsigned char)v[7]))
			continue;
		v += 7 + strspn(v + 7, " \t");
		vl = strcspn(v, "\n");
		for (size_t i = 0; i < vl && len + 1 < sz; i++) {
			if (strncmp(v + i, "$kernelopts", 11) == 0 && i + 11 <= vl) {
				len += (size_t)snprintf(out + len, sz - len, "%s", kernelopts);
				i += 10;
			} else {
				out[len++] = v[i];
			}
			if (len >= sz)
				len = sz - 1;
		}
		if (len + 1 < sz)
			out[len++] = ' ';
		out[len] = '\0';
	}
}

/* The value of NAME= in a shell file of assignments, quotes taken off and
 * $NAME / ${NAME} replaced by what it was before (the usual
 * GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX x" of a grub.d drop-in). Other
 * shell is not evaluated. */
/* "NAME" or "{NAME}" at p, not the start of a longer name. */
static bool self_ref(const char *p, const char *name, size_t nl)
{
	if (p[0] == '{')
		return strncmp(p + 1, name, nl) == 0 && p[1 + nl] == '}';
	return strncmp(p, name, nl) == 0 && !isalnum((unsigned char)p[nl]) && p[nl] != '_';
}

void cgfb_shell_var(const char *text, const char *name, char *val, size_t sz)
{
	size_t nl = strlen(name);
	char prev[CGFB_CMDLINE_MAX];

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *v = l + strspn(l, " \t");
		size_t len = 0;
		char q = 0;

		if (strncmp(v, "export ", 7) == 0)
			v += 7 + strspn(v + 7, " \t");
		if (strncmp(v, name, nl) != 0 || v[nl] != '=')
			continue;
		snprintf(prev, sizeof(prev), "%s", val);
		for (v += nl + 1; *v && *v != '\n' && len + 1 < sz; v++) {
			if (!q && (*v == '"' || *v == '\'')) {
				q = *v;
			} else if (q && *v == q) {
				q = 0;
			} else if (!q && (*v == ' ' || *v == '\t' || *v == '#' || *v == ';')) {
				break;
			} else if (q != '\'' && *v == '$' && self_ref(v + 1, name, nl)) {
				len += (size_t)snprintf(val + len, sz - len, "%s", prev);
				v += v[1] == '{' ? nl + 2 : nl;
				if (len >= sz)
					len = sz - 1;
			} else {
				val[len++] = *v;
			}
		}
		val[len] = '\0';
	}
}

/* One file of grub's defaults: the two lines' values, as the shell would
 * leave them after sourcing it. Whether it was read. */
static bool grub_file(const char *path, char *linux_, char *dflt, size_t sz)
{
	struct cgfb_buf b = { 0 };
	const bool ok = read_text(path, &b) == 0;

	if (ok) {
		cgfb_shell_var(b.data, "GRUB_CMDLINE_LINUX", linux_, sz);
		cgfb_shell_var(b.data, "GRUB_CMDLINE_LINUX_DEFAULT", dflt, sz);
	}
	cgfb_buf_free(&b);
	return ok;
}

/* /etc/default/grub and then /etc/default/grub.d/ *.cfg, sourced in that
 * order by grub-mkconfig (Debian and Ubuntu; cloud images set the default
 * line in a drop-in). */
static int grub_defaults(const char *root, struct cgfb_bootlines *out)
{
	char path[4096], linux_[CGFB_CMDLINE_MAX] = "", dflt[CGFB_CMDLINE_MAX] = "";
	struct cgfb_bootline *l;
	bool any;
	glob_t g;
	int gr;

	snprintf(path, sizeof(path), "%s/etc/default/grub", root);
	any = grub_file(path, linux_, dflt, sizeof(linux_));
	snprintf(path, sizeof(path), "%s/etc/default/grub.d/*.cfg", root);
	if ((gr = glob(path, 0, NULL, &g)) == GLOB_NOSPACE)
		return -ENOMEM;
	for (size_t i = 0; gr == 0 && i < g.gl_pathc; i++)
		any |= grub_file(g.gl_pathv[i], linux_, dflt, sizeof(linux_));
	if (gr == 0)
		globfree(&g);
	if (any && (l = add_line(out, root, "/etc/default/grub")))
		snprintf(l->text, sizeof(l->text), "%.2040s %.2040s", linux_, dflt);
	return 0;
}

int cgfb_boot_cmdlines(const char *root, struct cgfb_bootlines *out)
{
	char path[4096], kernelopts[CGFB_CMDLINE_MAX];
	struct cgfb_buf b = { 0 };
	struct cgfb_bootline *l;
	glob_t g;
	int rc, gr;

	memset(out, 0, sizeof(*out));
	root = root ? root : "";
	snprintf(path, sizeof(path), "%s/etc/kernel/cmdline", root);
	if (read_text(path, &b) == 0 && (l = add_line(out, root, "/etc/kernel/cmdline")))
		snprintf(l->text, sizeof(l->text), "%.*s", (int)strcspn(b.data, "\n"), b.data);
	cgfb_buf_free(&b);

	grubenv_kernelopts(root, kernelopts, sizeof(kernelopts));
	snprintf(path, sizeof(path), "%s/boot/loader/entries/*.conf", root);
	gr = glob(path, 0, NULL, &g);
	if (gr == GLOB_NOSPACE)
		return -ENOMEM;
	for (size_t i = 0; gr == 0 && i < g.gl_pathc; i++) {
		if (read_text(g.gl_pathv[i], &b) == 0 && (l = add_line(out, "", g.gl_pathv[i])))
			cgfb_bls_options(b.data, kernelopts, l->text, sizeof(l->text));
		cgfb_buf_free(&b);
	}
	if (gr == 0)
		globfree(&g);
	rc = grub_defaults(root, out);
	return rc;
}
