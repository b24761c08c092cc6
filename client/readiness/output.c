/* check's two outputs (output.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "readiness/output.h"
#include "snapshot/mountinfo.h"

bool cgfb_finding_breaks(const struct cgfb_finding *f, const struct cgfb_target *t)
{
	return cgfb_target_breaks(t, &f->rule->breaks_in, f->kernel);
}

size_t cgfb_check_breaking(const struct cgfb_check *c, const struct cgfb_target *t)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++)
		n += c->f[i].rule->severity == CGFB_SEV_BREAKS && cgfb_finding_breaks(&c->f[i], t);
	return n;
}

static void target_text(const struct cgfb_target *t, char *buf, size_t sz)
{
	size_t len = 0;
	const char *names[] = { "kernel", "systemd", "kubelet" };
	const char *vals[] = { t->kernel, t->systemd, t->kubelet };

	buf[0] = '\0';
	for (unsigned i = 0; i < 3 && len < sz; i++)
		if (vals[i][0])
			len += (size_t)snprintf(buf + len, sz - len, "%s%s=%s", len ? "," : "",
						names[i], vals[i]);
}

static void breaks_text(const struct cgfb_finding *f, char *buf, size_t sz)
{
	const struct cgfb_breaks_in *b = &f->rule->breaks_in;
	const char *kernel = f->kernel ? f->kernel : b->kernel;
	size_t len = 0;

	buf[0] = '\0';
#define ADD(...) do { if (len < sz) len += (size_t)snprintf(buf + len, sz - len, __VA_ARGS__); } while (0)
	if (kernel && b->kernel_config)
		ADD("kernel %s without %s", kernel, b->kernel_config);
	else if (kernel)
		ADD("kernel %s", kernel);
	else if (b->kernel_config)
		ADD("kernels without %s", b->kernel_config);
	if (b->systemd)
		ADD("%ssystemd %s", len ? "; " : "", b->systemd);
	if (b->kubelet)
		ADD("%skubelet %s", len ? "; " : "", b->kubelet);
	for (unsigned i = 0; i < b->n_distro; i++)
		ADD("%s%s", len ? "; " : "", b->distro[i]);
	if (!len)
		ADD("nowhere announced yet");
#undef ADD
}

static void print_finding(FILE *out, const struct cgfb_finding *f)
{
	const struct cgfb_rule *r = f->rule;
	char breaks[512];

	breaks_text(f, breaks, sizeof(breaks));
	fprintf(out, "  [%s] %s\n", r->id, r->title);
	for (unsigned i = 0; i < f->n_where; i++)
		fprintf(out, "      %-9s%s\n", i ? "" : "where:", f->where[i]);
	if (f->count > f->n_where)
		fprintf(out, "      %-9sand %lu more\n", "", f->count - f->n_where);
	fprintf(out, "      %-9s%s\n", "breaks:", breaks);
	fprintf(out, "      %-9s%s\n", "why:", r->effect);
	fprintf(out, "      %-9s%s\n", "instead:", r->replacement);
	if (r->catalog)
		fprintf(out, "      %-9sthe kernel's message %s asks for your use case "
			"(cgroup-feedback catalog)\n", "asks:", r->catalog);
	fprintf(out, "      %-9s%s\n", "source:", r->source);
}

static size_t print_severity(FILE *out, const struct cgfb_check *c, const struct cgfb_target *t,
			     enum cgfb_severity s, size_t *hidden)
{
	static const char *const heads[] = { "Breaks", "Deprecated", "Information" };
	size_t shown = 0;

	for (size_t i = 0; i < c->n; i++) {
		const struct cgfb_finding *f = &c->f[i];

		if (f->rule->severity != s)
			continue;
		if (!cgfb_finding_breaks(f, t)) {
			(*hidden)++;
			continue;
		}
		if (!shown++)
			fprintf(out, "\n%s:\n", heads[s]);
		print_finding(out, f);
	}
	return shown;
}

static void print_verdict(FILE *out, const struct cgfb_check *c, const struct cgfb_target *t)
{
	char tt[128];
	size_t n = cgfb_check_breaking(c, t);

	target_text(t, tt, sizeof(tt));
	if (!c->sources)
		fprintf(out, "Could not check: nothing this check reads could be read.\n");
	else if (n && t->any)
		fprintf(out, "NOT READY for %s: %zu finding%s break%s there.\n", tt, n,
			n == 1 ? "" : "s", n == 1 ? "s" : "");
	else if (n)
		fprintf(out, "NOT READY for the removal of cgroup v1: %zu finding%s break%s "
			"when it goes.\n", n, n == 1 ? "" : "s", n == 1 ? "s" : "");
	else
		fprintf(out, "READY for %s: nothing found that breaks%s.\n",
			t->any ? tt : "the removal of cgroup v1",
			c->unreadable ? " in what could be read" : "");
}

int cgfb_check_print(FILE *out, const struct cgfb_check *c, const struct cgfb_target *t,
		     const char *root)
{
	size_t hidden = 0, shown = 0;

	fprintf(out, "cgroup-feedback check of %s: cgroup mode %s, kernel %s, systemd %s; "
		"%lu v1 cgroup%s walked\n", root && *root ? root : "this machine",
		cgfb_cgroup_mode_name(c->mode), c->kernel[0] ? c->kernel : "unknown",
		c->systemd[0] ? c->systemd : "unknown", c->cgroups, c->cgroups == 1 ? "" : "s");
	for (int s = 0; s < CGFB_SEV_N; s++)
		shown += print_severity(out, c, t, (enum cgfb_severity)s, &hidden);
	if (!shown)
		fprintf(out, "\nNo finding%s.\n", t->any ? " that breaks on the target" : "");
	if (c->unreadable) {
		fprintf(out, "\nCould not read %lu place%s (as root more can be checked):\n",
			c->unreadable, c->unreadable == 1 ? "" : "s");
		for (unsigned i = 0; i < CGFB_UNREADABLE_MAX && c->unreadable_what[i]; i++)
			fprintf(out, "  %s\n", c->unreadable_what[i]);
	}
	if (hidden)
		fprintf(out, "\n%zu finding%s that do%s not break on the target not shown "
			"(without --target every finding is shown).\n", hidden, hidden == 1 ? "" : "s",
			hidden == 1 ? "es" : "");
	fputc('\n', out);
	print_verdict(out, c, t);
	return ferror(out) ? -EIO : 0;
}

/* --- JSON ------------------------------------------------------------------ */

static json_object *str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static json_object *breaks_json(const struct cgfb_finding *f)
{
	const struct cgfb_breaks_in *b = &f->rule->breaks_in;
	json_object *o = json_object_new_object(), *d = json_object_new_array();

	json_object_object_add(o, "kernel", str_or_null(f->kernel ? f->kernel : b->kernel));
	json_object_object_add(o, "kernel_config", str_or_null(b->kernel_config));
	json_object_object_add(o, "systemd", str_or_null(b->systemd));
	json_object_object_add(o, "kubelet", str_or_null(b->kubelet));
	for (unsigned i = 0; i < b->n_distro; i++)
		json_object_array_add(d, json_object_new_string(b->distro[i]));
	json_object_object_add(o, "distro", d);
	return o;
}

static json_object *finding_json(const struct cgfb_finding *f, const struct cgfb_target *t)
{
	const struct cgfb_rule *r = f->rule;
	json_object *o = json_object_new_object(), *w = json_object_new_array();

	for (unsigned i = 0; i < f->n_where; i++)
		json_object_array_add(w, json_object_new_string(f->where[i]));
	json_object_object_add(o, "rule", json_object_new_string(r->id));
	json_object_object_add(o, "severity", json_object_new_string(cgfb_severity_name(r->severity)));
	json_object_object_add(o, "title", json_object_new_string(r->title));
	json_object_object_add(o, "count", json_object_new_int64((int64_t)f->count));
	json_object_object_add(o, "where", w);
	json_object_object_add(o, "breaks_in", breaks_json(f));
	json_object_object_add(o, "breaks_on_target", json_object_new_boolean(cgfb_finding_breaks(f, t)));
	json_object_object_add(o, "effect", json_object_new_string(r->effect));
	json_object_object_add(o, "replacement", json_object_new_string(r->replacement));
	json_object_object_add(o, "catalog", str_or_null(r->catalog));
	json_object_object_add(o, "source", json_object_new_string(r->source));
	return o;
}

static json_object *target_json(const struct cgfb_target *t)
{
	json_object *o;

	if (!t->any)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "kernel", str_or_null(t->kernel[0] ? t->kernel : NULL));
	json_object_object_add(o, "systemd", str_or_null(t->systemd[0] ? t->systemd : NULL));
	json_object_object_add(o, "kubelet", str_or_null(t->kubelet[0] ? t->kubelet : NULL));
	return o;
}

static json_object *system_json(const struct cgfb_check *c, const char *root)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "root", json_object_new_string(root && *root ? root : "/"));
	json_object_object_add(o, "cgroup_mode", json_object_new_string(cgfb_cgroup_mode_name(c->mode)));
	json_object_object_add(o, "kernel", str_or_null(c->kernel[0] ? c->kernel : NULL));
	json_object_object_add(o, "systemd", str_or_null(c->systemd[0] ? c->systemd : NULL));
	json_object_object_add(o, "cgroups_walked", json_object_new_int64((int64_t)c->cgroups));
	json_object_object_add(o, "vanished", json_object_new_int64((int64_t)c->vanished));
	return o;
}

int cgfb_check_print_json(FILE *out, const struct cgfb_check *c, const struct cgfb_target *t,
			  const char *root)
{
	json_object *doc = json_object_new_object(), *fs = json_object_new_array(),
		    *un = json_object_new_object(), *first = json_object_new_array();
	int rc = 0;

	for (size_t i = 0; i < c->n; i++)
		json_object_array_add(fs, finding_json(&c->f[i], t));
	for (unsigned i = 0; i < CGFB_UNREADABLE_MAX && c->unreadable_what[i]; i++)
		json_object_array_add(first, json_object_new_string(c->unreadable_what[i]));
	json_object_object_add(un, "count", json_object_new_int64((int64_t)c->unreadable));
	json_object_object_add(un, "first", first);
	json_object_object_add(doc, "check_version", json_object_new_int(1));
	json_object_object_add(doc, "checked", json_object_new_boolean(c->sources > 0));
	json_object_object_add(doc, "ready", json_object_new_boolean(c->sources && !cgfb_check_breaking(c, t)));
	json_object_object_add(doc, "target", target_json(t));
	json_object_object_add(doc, "system", system_json(c, root));
	json_object_object_add(doc, "findings", fs);
	json_object_object_add(doc, "unreadable", un);
	if (fprintf(out, "%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
								 JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
		rc = -EIO;
	json_object_put(doc);
	return rc;
}
