/* check's two outputs (output.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cgfb/utf8.h"
#include "readiness/advice.h"
#include "readiness/decide.h"
#include "readiness/output.h"
#include "snapshot/mountinfo.h"

/* What the check read and shows (PID 1's name, an image's os-release,
 * boot configuration, kernel file names, a decider's reason that quotes
 * them) is escaped as everything another party chose is (cgfb/utf8.h);
 * the places of findings and what could not be read are kept escaped
 * already (findings.c). Copies live until the list is freed. */
struct shown {
	char *s[24];
	unsigned n;
};

static const char *shown(struct shown *l, const char *s)
{
	char *e;

	if (!s)
		return "";
	if (l->n == sizeof(l->s) / sizeof(l->s[0]) || !(e = cgfb_utf8_escape_dup(s, CGFB_ESC_LINE)))
		return "(not shown: out of memory)";
	l->s[l->n++] = e;
	return e;
}

static void shown_free(struct shown *l)
{
	for (unsigned i = 0; i < l->n; i++)
		free(l->s[i]);
	l->n = 0;
}

bool cgfb_finding_breaks(const struct cgfb_finding *f, const struct cgfb_target *t)
{
	return t && t->any ? f->on_target : f->breaks;
}

size_t cgfb_check_breaking(const struct cgfb_check *c, const struct cgfb_target *t)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++)
		n += c->f[i].rule->severity == CGFB_SEV_BREAKS && cgfb_finding_breaks(&c->f[i], t);
	return n;
}

/* A breaking rule whose decider could not tell, and nothing breaks it. */
static size_t undecided(const struct cgfb_check *c, const struct cgfb_target *t)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++)
		n += c->f[i].rule->severity == CGFB_SEV_BREAKS && c->f[i].unknown &&
		     !cgfb_finding_breaks(&c->f[i], t);
	return n;
}

enum cgfb_verdict cgfb_check_verdict(const struct cgfb_check *c, const struct cgfb_target *t)
{
	if (!c->sources)
		return CGFB_NOT_CHECKED;
	if (cgfb_check_breaking(c, t))
		return CGFB_NOT_READY;
	/* A walk that stopped at its depth limit did not read the cgroups
	 * below: a knob set there would be a finding that may break, so
	 * nothing can be said READY. It is not a place that refused to be read
	 * (as a user, much does: those count apart and READY says "in what
	 * could be read"): root reads no more of it, and a tree that deep is
	 * made, not met (docs/READINESS.md). */
	if (!c->decided || undecided(c, t) || c->depth_cut)
		return CGFB_CANNOT_TELL;
	return CGFB_READY;
}

/* The severity a finding is shown under: a breaking rule that no decider
 * here breaks (systemd keeps it, the host is already on v2, no kubelet)
 * is information. */
static enum cgfb_severity shown_severity(const struct cgfb_finding *f)
{
	if (f->rule->severity == CGFB_SEV_BREAKS && !f->breaks && !f->unknown)
		return CGFB_SEV_INFO;
	return f->rule->severity;
}

static const char *decision_head(const struct cgfb_decision *d, char *buf, size_t sz)
{
	const char *who = cgfb_decider_name(d->who);

	switch (d->out) {
	case CGFB_OUT_BREAKS:
		if (d->who == CGFB_DEC_DISTRO)
			snprintf(buf, sz, "%s: breaks", d->at);
		else
			snprintf(buf, sz, "%s %s: breaks", d->who == CGFB_DEC_LXC ? "LXC" : who, d->at);
		break;
	case CGFB_OUT_BROKEN:
		snprintf(buf, sz, "%s%s%s: broken now", d->who == CGFB_DEC_LXC ? "LXC" : who,
			 d->at[0] ? " " : "", d->at);
		break;
	case CGFB_OUT_KEEPS: snprintf(buf, sz, "%s: keeps it", who); break;
	case CGFB_OUT_UNKNOWN: snprintf(buf, sz, "%s: cannot tell", who); break;
	default: snprintf(buf, sz, "%s: not concerned", who); break;
	}
	return buf;
}

static void print_finding(FILE *out, const struct cgfb_finding *f, const struct cgfb_check *c)
{
	const struct cgfb_rule *r = f->rule;
	char head[128], advice[1024];

	fprintf(out, "  [%s] %s\n", r->id, r->title);
	for (unsigned i = 0; i < f->n_where; i++)
		fprintf(out, "      %-9s%s\n", i ? "" : "where:", f->where[i]);
	if (f->count > f->n_where)
		fprintf(out, "      %-9sand %lu more\n", "", f->count - f->n_where);
	for (unsigned i = 0; i < f->n_dec; i++) {
		const struct cgfb_decision *d = &f->dec[i];
		struct shown l = { 0 };

		fprintf(out, "      %-9s%s%s%s\n", i ? "" : "decides:",
			shown(&l, decision_head(d, head, sizeof(head))), d->why[0] ? ": " : "",
			shown(&l, d->why));
		shown_free(&l);
	}
	fprintf(out, "      %-9s%s\n", "why:", r->effect);
	cgfb_advice(c->env, f, advice, sizeof(advice));
	fprintf(out, "      %-9s%s\n", "instead:", advice);
	if (r->catalog)
		fprintf(out, "      %-9sthe kernel's message %s asks for your use case "
			"(cgroup-feedback catalog)\n", "asks:", r->catalog);
	fprintf(out, "      %-9s%s\n", "source:", r->source);
	/* Each decider's source once, in the order of the decisions. */
	for (unsigned i = 0; i < f->n_dec; i++) {
		bool seen = !f->dec[i].source;

		for (unsigned k = 0; k < i && !seen; k++)
			seen = f->dec[k].source && strcmp(f->dec[k].source, f->dec[i].source) == 0;
		if (!seen)
			fprintf(out, "      %-9s%s\n", "", f->dec[i].source);
	}
}

static size_t print_severity(FILE *out, const struct cgfb_check *c, const struct cgfb_target *t,
			     enum cgfb_severity s, size_t *hidden)
{
	static const char *const heads[] = { "Breaks", "Deprecated", "Information" };
	size_t shown = 0;

	for (size_t i = 0; i < c->n; i++) {
		const struct cgfb_finding *f = &c->f[i];

		if (shown_severity(f) != s)
			continue;
		if (t->any && !cgfb_finding_breaks(f, t) && !(s == CGFB_SEV_BREAKS && f->unknown)) {
			(*hidden)++;
			continue;
		}
		if (!shown++)
			fprintf(out, "\n%s:\n", heads[s]);
		print_finding(out, f, c);
	}
	return shown;
}

static void print_environment(FILE *out, const struct cgfb_env *e)
{
	const struct cgfb_kubelet *k = &e->kubelet;
	struct shown l = { 0 };

	fprintf(out, "  %-14s%s\n", "cgroups:", e->copy ? "a copy of a machine: nothing mounted, its boot "
		"configuration read" : shown(&l, e->mode_why));
	fprintf(out, "  %-14s%s%s\n", "PID 1:", e->pid1[0] ? shown(&l, e->pid1) : "unknown",
		e->copy ? " (the copy's init)" : "");
	if (e->container[0])
		fprintf(out, "  %-14s%s (%s)%s\n", e->wsl ? "WSL:" : "container:", shown(&l, e->container),
			shown(&l, e->container_why), e->wsl ? "" : "; the cgroup hierarchy is the host's");
	fprintf(out, "  %-14s%s%s%s\n", "distribution:", e->distro_name[0] ? shown(&l, e->distro_name) :
		e->distro_id[0] ? shown(&l, e->distro_id) : "unknown (no os-release)",
		e->distro_version[0] ? ", version " : "", shown(&l, e->distro_version));
	shown_free(&l);
	for (unsigned i = 0; i < e->cmdlines.n; i++) {
		fprintf(out, "  %-14s%s: %s\n", i ? "" : "command line:", shown(&l, e->cmdlines.l[i].from),
			e->cmdlines.l[i].text[0] ? shown(&l, e->cmdlines.l[i].text) : "(empty)");
		shown_free(&l);
	}
	if (!e->cmdlines.n && e->copy)
		fprintf(out, "  %-14snone found (no /etc/kernel/cmdline, boot entries or /etc/default/grub)\n",
			"command line:");
	if (k->present)
		fprintf(out, "  %-14s%s%s, failCgroupV1 %s%s%s%s\n", "kubelet:", k->version[0] ?
			shown(&l, k->version) : "version unknown", k->version[0] ? "" : "", k->fail_v1 < 0 ?
			"not set (the default of its version)" : k->fail_v1 ? "true" : "false",
			k->fail_v1_where[0] ? " (" : "", shown(&l, k->fail_v1_where),
			k->fail_v1_where[0] ? ")" : "");
	else
		fprintf(out, "  %-14snone found\n", "kubelet:");
	shown_free(&l);
}

static void print_owned(FILE *out, const struct cgfb_check *c)
{
	if (!c->n_owned)
		return;
	fprintf(out, "\nNot counted: places in cgroups whose owner moves them to cgroup v2 itself:\n");
	for (unsigned i = 0; i < c->n_owned; i++)
		fprintf(out, "  %lu x [%s] in cgroups of %s (%s)\n", c->owned[i].count, c->owned[i].rule->id,
			c->owned[i].owner->title, c->owned[i].owner->source);
}

static void print_verdict(FILE *out, const struct cgfb_check *c, const struct cgfb_target *t)
{
	char tt[128];
	size_t n = cgfb_check_breaking(c, t);

	cgfb_target_text(t, tt, sizeof(tt));
	switch (cgfb_check_verdict(c, t)) {
	case CGFB_NOT_CHECKED:
		fprintf(out, "Could not check: nothing this check reads could be read.\n");
		break;
	case CGFB_NOT_READY:
		if (t->any)
			fprintf(out, "NOT READY for %s: %zu finding%s break%s there.\n", tt, n,
				n == 1 ? "" : "s", n == 1 ? "s" : "");
		else
			fprintf(out, "NOT READY for the removal of cgroup v1: %zu finding%s break%s "
				"when it goes.\n", n, n == 1 ? "" : "s", n == 1 ? "s" : "");
		break;
	case CGFB_CANNOT_TELL:
		fprintf(out, "CANNOT TELL for %s: %s.\n", t->any ? tt : "the removal of cgroup v1",
			!c->decided ? "the cgroup mode could not be told (see cgroups: above)"
			: undecided(c, t) ? "a decider's input could not be read (see 'cannot tell' above)"
					  : "cgroups below the depth limit were not read (see above)");
		break;
	case CGFB_READY:
		fprintf(out, "READY for %s: nothing found that breaks%s.\n",
			t->any ? tt : "the removal of cgroup v1",
			c->unreadable ? " in what could be read" : "");
		break;
	}
}

int cgfb_check_print(FILE *out, const struct cgfb_check *c, const struct cgfb_target *t,
		     const char *root)
{
	const struct cgfb_env *e = c->env;
	size_t hidden = 0, n_shown = 0;
	struct shown l = { 0 };

	fprintf(out, "cgroup-feedback check of %s: cgroup mode %s%s, kernel %s, systemd %s; "
		"%lu v1 cgroup%s walked\n", root && *root ? shown(&l, root) : "this machine",
		cgfb_cgroup_mode_name(e->effective), e->copy ? " (as it would boot)" : "",
		e->running[0] ? shown(&l, e->running) : "unknown",
		e->systemd[0] ? shown(&l, e->systemd) : "unknown", c->cgroups, c->cgroups == 1 ? "" : "s");
	shown_free(&l);
	print_environment(out, e);
	for (int s = 0; s < CGFB_SEV_N; s++)
		n_shown += print_severity(out, c, t, (enum cgfb_severity)s, &hidden);
	if (!n_shown)
		fprintf(out, "\nNo finding%s.\n", t->any ? " that breaks on the target" : "");
	print_owned(out, c);
	if (c->unreadable) {
		fprintf(out, "\nCould not read %lu place%s%s:\n", c->unreadable, c->unreadable == 1 ? "" : "s",
			e->copy ? "" : " (as root more can be checked)");
		for (unsigned i = 0; i < CGFB_UNREADABLE_MAX && c->unreadable_what[i]; i++)
			fprintf(out, "  %s\n", c->unreadable_what[i]);
	}
	if (c->depth_cut)
		fprintf(out, "\nStopped %u levels deep: the cgroups below %lu cgroup%s at that depth were "
			"not read; a knob set there is not known:\n  first: %s\n", CGFB_CHECK_DEPTH,
			c->depth_cut, c->depth_cut == 1 ? "" : "s", c->depth_cut_first);
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
	return s && *s ? json_object_new_string(s) : NULL;
}

/* A string the check read, escaped as in the text; null when empty. */
static json_object *read_or_null(const char *s)
{
	char *e = s && *s ? cgfb_utf8_escape_dup(s, CGFB_ESC_LINE) : NULL;
	json_object *o = e ? json_object_new_string(e) : NULL;

	free(e);
	return o;
}

static json_object *read_str(const char *s)
{
	return read_or_null(s) ?: json_object_new_string("");
}

/* Where it breaks first, per decider, from the decisions. */
static json_object *breaks_json(const struct cgfb_finding *f)
{
	json_object *o = json_object_new_object(), *d = json_object_new_array();
	const char *kernel = NULL, *config = NULL, *systemd = NULL, *kubelet = NULL;

	for (unsigned i = 0; i < f->n_dec; i++) {
		const struct cgfb_decision *x = &f->dec[i];

		if (x->out != CGFB_OUT_BREAKS && x->out != CGFB_OUT_BROKEN)
			continue;
		if (x->who == CGFB_DEC_KERNEL && !kernel) {
			kernel = x->at;
			config = cgfb_decision_config(x);
		} else if (x->who == CGFB_DEC_SYSTEMD && !systemd) {
			systemd = x->at;
		} else if (x->who == CGFB_DEC_KUBELET && !kubelet) {
			kubelet = x->at;
		} else if (x->who == CGFB_DEC_DISTRO) {
			json_object_array_add(d, read_str(x->at));
		}
	}
	json_object_object_add(o, "kernel", read_or_null(kernel));
	json_object_object_add(o, "kernel_config", str_or_null(config));
	json_object_object_add(o, "systemd", read_or_null(systemd));
	json_object_object_add(o, "kubelet", read_or_null(kubelet));
	json_object_object_add(o, "distro", d);
	return o;
}

static json_object *decisions_json(const struct cgfb_finding *f)
{
	json_object *a = json_object_new_array();

	for (unsigned i = 0; i < f->n_dec; i++) {
		const struct cgfb_decision *d = &f->dec[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "decider", json_object_new_string(cgfb_decider_name(d->who)));
		json_object_object_add(o, "outcome", json_object_new_string(cgfb_outcome_name(d->out)));
		json_object_object_add(o, "at", read_or_null(d->at));
		json_object_object_add(o, "on_target", json_object_new_boolean(d->on_target));
		json_object_object_add(o, "why", read_str(d->why));
		json_object_object_add(o, "source", str_or_null(d->source));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *finding_json(const struct cgfb_finding *f, const struct cgfb_check *c,
				 const struct cgfb_target *t)
{
	const struct cgfb_rule *r = f->rule;
	json_object *o = json_object_new_object(), *w = json_object_new_array();
	char advice[1024];

	for (unsigned i = 0; i < f->n_where; i++)
		json_object_array_add(w, json_object_new_string(f->where[i]));
	cgfb_advice(c->env, f, advice, sizeof(advice));
	json_object_object_add(o, "rule", json_object_new_string(r->id));
	json_object_object_add(o, "severity", json_object_new_string(cgfb_severity_name(r->severity)));
	json_object_object_add(o, "shown_as", json_object_new_string(cgfb_severity_name(shown_severity(f))));
	json_object_object_add(o, "title", json_object_new_string(r->title));
	json_object_object_add(o, "count", json_object_new_int64((int64_t)f->count));
	json_object_object_add(o, "where", w);
	json_object_object_add(o, "breaks_in", breaks_json(f));
	json_object_object_add(o, "breaks", json_object_new_boolean(f->breaks));
	json_object_object_add(o, "breaks_on_target", json_object_new_boolean(cgfb_finding_breaks(f, t)));
	json_object_object_add(o, "undecided", json_object_new_boolean(f->unknown));
	json_object_object_add(o, "decisions", decisions_json(f));
	json_object_object_add(o, "effect", json_object_new_string(r->effect));
	json_object_object_add(o, "replacement", json_object_new_string(r->replacement));
	json_object_object_add(o, "advice", json_object_new_string(advice));
	json_object_object_add(o, "catalog", str_or_null(r->catalog));
	json_object_object_add(o, "source", json_object_new_string(r->source));
	return o;
}

static json_object *target_json(const struct cgfb_target *t)
{
	json_object *o;
	char rel[64];

	if (!t->any)
		return NULL;
	o = json_object_new_object();
	if (t->release)
		snprintf(rel, sizeof(rel), "%s=%s", t->release->family, t->release->version);
	json_object_object_add(o, "kernel", str_or_null(t->kernel));
	json_object_object_add(o, "systemd", str_or_null(t->systemd));
	json_object_object_add(o, "kubelet", str_or_null(t->kubelet));
	json_object_object_add(o, "distro", t->release ? json_object_new_string(rel) : NULL);
	return o;
}

static json_object *environment_json(const struct cgfb_env *e)
{
	json_object *o = json_object_new_object(), *cl = json_object_new_array(), *k = json_object_new_object();

	json_object_object_add(o, "copy", json_object_new_boolean(e->copy));
	json_object_object_add(o, "mode_why", read_str(e->mode_why));
	json_object_object_add(o, "pid1", read_or_null(e->pid1));
	json_object_object_add(o, "systemd_init", json_object_new_boolean(e->systemd_init));
	json_object_object_add(o, "container", read_or_null(e->container));
	json_object_object_add(o, "container_why", read_or_null(e->container_why));
	json_object_object_add(o, "wsl", json_object_new_boolean(e->wsl));
	json_object_object_add(o, "distro_id", read_or_null(e->distro_id));
	json_object_object_add(o, "distro_version", read_or_null(e->distro_version));
	for (unsigned i = 0; i < e->cmdlines.n; i++) {
		json_object *l = json_object_new_object();

		json_object_object_add(l, "from", read_str(e->cmdlines.l[i].from));
		json_object_object_add(l, "text", read_str(e->cmdlines.l[i].text));
		json_object_array_add(cl, l);
	}
	json_object_object_add(o, "command_lines", cl);
	json_object_object_add(k, "present", json_object_new_boolean(e->kubelet.present));
	json_object_object_add(k, "version", read_or_null(e->kubelet.version));
	json_object_object_add(k, "fail_cgroupv1", e->kubelet.fail_v1 < 0 ? NULL
				: json_object_new_boolean(e->kubelet.fail_v1));
	json_object_object_add(k, "set_at", read_or_null(e->kubelet.fail_v1_where));
	json_object_object_add(o, "kubelet", k);
	return o;
}

/* Where the walk stopped at its depth limit; null when it never did. */
static json_object *depth_cut_json(const struct cgfb_check *c)
{
	json_object *o;

	if (!c->depth_cut)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "levels", json_object_new_int(CGFB_CHECK_DEPTH));
	json_object_object_add(o, "count", json_object_new_int64((int64_t)c->depth_cut));
	json_object_object_add(o, "first", json_object_new_string(c->depth_cut_first));
	return o;
}

static json_object *system_json(const struct cgfb_check *c, const char *root)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "root", read_or_null(root && *root ? root : "/"));
	json_object_object_add(o, "cgroup_mode", json_object_new_string(cgfb_cgroup_mode_name(c->env->mode)));
	json_object_object_add(o, "kernel", read_or_null(c->env->running));
	json_object_object_add(o, "systemd", read_or_null(c->env->systemd));
	json_object_object_add(o, "cgroups_walked", json_object_new_int64((int64_t)c->cgroups));
	json_object_object_add(o, "vanished", json_object_new_int64((int64_t)c->vanished));
	json_object_object_add(o, "depth_cut", depth_cut_json(c));
	json_object_object_add(o, "environment", environment_json(c->env));
	return o;
}

static json_object *owned_json(const struct cgfb_check *c)
{
	json_object *a = json_object_new_array();

	for (unsigned i = 0; i < c->n_owned; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "owner", json_object_new_string(c->owned[i].owner->id));
		json_object_object_add(o, "rule", json_object_new_string(c->owned[i].rule->id));
		json_object_object_add(o, "count", json_object_new_int64((int64_t)c->owned[i].count));
		json_object_array_add(a, o);
	}
	return a;
}

int cgfb_check_print_json(FILE *out, const struct cgfb_check *c, const struct cgfb_target *t,
			  const char *root)
{
	static const char *const verdicts[] = { "ready", "not_ready", "cannot_tell", "not_checked" };
	json_object *doc = json_object_new_object(), *fs = json_object_new_array(),
		    *un = json_object_new_object(), *first = json_object_new_array();
	const enum cgfb_verdict v = cgfb_check_verdict(c, t);
	int rc = 0;

	for (size_t i = 0; i < c->n; i++)
		json_object_array_add(fs, finding_json(&c->f[i], c, t));
	for (unsigned i = 0; i < CGFB_UNREADABLE_MAX && c->unreadable_what[i]; i++)
		json_object_array_add(first, json_object_new_string(c->unreadable_what[i]));
	json_object_object_add(un, "count", json_object_new_int64((int64_t)c->unreadable));
	json_object_object_add(un, "first", first);
	json_object_object_add(doc, "check_version", json_object_new_int(3));
	json_object_object_add(doc, "checked", json_object_new_boolean(c->sources > 0));
	json_object_object_add(doc, "ready", json_object_new_boolean(v == CGFB_READY));
	json_object_object_add(doc, "verdict", json_object_new_string(verdicts[v]));
	json_object_object_add(doc, "target", target_json(t));
	json_object_object_add(doc, "system", system_json(c, root));
	json_object_object_add(doc, "findings", fs);
	json_object_object_add(doc, "owned", owned_json(c));
	json_object_object_add(doc, "unreadable", un);
	if (fprintf(out, "%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
								 JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
		rc = -EIO;
	json_object_put(doc);
	return rc;
}
