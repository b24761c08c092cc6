/* Loading the readiness rules (rules.h). Strict on purpose: a member the
 * loader does not know is an error, so that a misspelt "nonroot" cannot
 * turn a rule quietly into another. */
#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cgfb/buf.h"
#include "cgfb/readfile.h"
#include "readiness/decide.h"
#include "readiness/rules.h"

#define RULES_FILE_MAX (1u << 20)

extern const char cgfb_readiness_json[];
extern const size_t cgfb_readiness_json_len;

static const char *const probe_names[CGFB_PROBE_N] = {
	"mode", "hierarchy", "procs", "knob", "cmdline", "kconfig", "systemd", "config", "kubelet",
};
static const char *const severity_names[CGFB_SEV_N] = { "breaks", "deprecated", "info" };
static const char *const test_names[CGFB_TEST_N] = {
	"ne", "limit", "line", "ne_root", "lines_nonzero", "nonempty",
};

static const char *const known_members[] = {
	"id", "probe", "severity", "title", "decided_by", "effect", "replacement", "catalog",
	"source", "modes", "controller", "file", "files", "test", "value", "key", "nonroot",
	"param", "values", "option", "since", "from", "paths", "match", NULL,
};

const char *cgfb_severity_name(enum cgfb_severity s)
{
	return (unsigned)s < CGFB_SEV_N ? severity_names[s] : "?";
}

const char *cgfb_probe_name(enum cgfb_probe p)
{
	return (unsigned)p < CGFB_PROBE_N ? probe_names[p] : "?";
}

static int fail(char *err, size_t errsz, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errsz, const char *fmt, ...)
{
	va_list ap;

	if (err && errsz) {
		va_start(ap, fmt);
		vsnprintf(err, errsz, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static int lookup(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

/* A string member: 0 with *out NULL when absent or null, -EINVAL for
 * another type or an empty string, -ENOMEM. */
static int get_str(json_object *o, const char *key, char **out)
{
	json_object *v;

	*out = NULL;
	if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
		return 0;
	if (!json_object_is_type(v, json_type_string) || !json_object_get_string_len(v))
		return -EINVAL;
	*out = strdup(json_object_get_string(v));
	return *out ? 0 : -ENOMEM;
}

/* An array of strings, or (as "file") one string, into out[max]. */
static int get_strs(json_object *o, const char *key, char **out, unsigned max, unsigned *n)
{
	json_object *v;
	size_t len;

	if (!json_object_object_get_ex(o, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_array))
		return -EINVAL;
	len = json_object_array_length(v);
	if (len > max || *n)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		json_object *s = json_object_array_get_idx(v, i);

		if (!json_object_is_type(s, json_type_string) || !json_object_get_string_len(s))
			return -EINVAL;
		if (!(out[(*n)++] = strdup(json_object_get_string(s))))
			return -ENOMEM;
	}
	return 0;
}

/* A dotted version: digits and dots, starting and ending with a digit,
 * no two dots together. */
static bool version_ok(const char *s)
{
	if (!s)
		return true;
	if (!isdigit((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s) && !(*s == '.' && isdigit((unsigned char)s[1])))
			return false;
	return true;
}

static bool regex_ok(const char *s)
{
	regex_t re;

	if (regcomp(&re, s, REG_EXTENDED | REG_NOSUB))
		return false;
	regfree(&re);
	return true;
}

/* "decided_by": each decider named with its questions; a kernel question
 * may be a version. */
static int load_asks(json_object *o, struct cgfb_rule *r)
{
	json_object *v;

	if (!json_object_object_get_ex(o, "decided_by", &v) || !json_object_is_type(v, json_type_object))
		return -EINVAL;
	json_object_object_foreach(v, key, qs) {
		int who = cgfb_decider_index(key);

		if (who < 0 || who == CGFB_DEC_DISTRO || !json_object_is_type(qs, json_type_array) ||
		    !json_object_array_length(qs))
			return -EINVAL;
		for (size_t i = 0; i < json_object_array_length(qs); i++) {
			json_object *q = json_object_array_get_idx(qs, i);
			const char *name = json_object_get_string(q);
			struct cgfb_ask *a;
			int qi;

			if (!json_object_is_type(q, json_type_string) || r->n_asks == CGFB_RULE_ASKS_MAX)
				return -EINVAL;
			a = &r->asks[r->n_asks];
			qi = cgfb_question_index(who, name);
			if (qi < 0 && who == CGFB_DEC_KERNEL && version_ok(name) && *name) {
				qi = CGFB_Q_VERSION;
				if (!(a->version = strdup(name)))
					return -ENOMEM;
			}
			if (qi < 0)
				return -EINVAL;
			a->who = who;
			a->q = qi;
			r->n_asks++;
		}
	}
	return 0;
}

static int load_enum(json_object *o, const char *key, const char *const *names, int n, int *out)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return -EINVAL;
	*out = lookup(names, n, json_object_get_string(v));
	return *out < 0 ? -EINVAL : 0;
}

/* The members each probe needs, and none it would ignore. */
static const char *probe_args_error(const struct cgfb_rule *r)
{
	switch (r->probe) {
	case CGFB_PROBE_MODE:
		return r->n_values ? NULL : "mode wants modes";
	case CGFB_PROBE_HIERARCHY:
	case CGFB_PROBE_PROCS:
		return r->controller ? NULL : "wants controller";
	case CGFB_PROBE_KNOB:
		if (!r->controller || !r->n_files)
			return "knob wants controller and file or files";
		if ((r->test == CGFB_TEST_NE || r->test == CGFB_TEST_LINE) && !r->value)
			return "this test wants value";
		if (r->test == CGFB_TEST_LINE && !r->key)
			return "test line wants key";
		return NULL;
	case CGFB_PROBE_CMDLINE:
		return r->param ? NULL : "cmdline wants param";
	case CGFB_PROBE_KCONFIG:
		return r->option && r->since && r->controller && version_ok(r->since) ? NULL
			: "kconfig wants option, since (a version) and controller";
	case CGFB_PROBE_SYSTEMD:
		return r->from && version_ok(r->from) && r->n_values ? NULL
			: "systemd wants from (a version) and modes";
	case CGFB_PROBE_CONFIG:
		if (!r->n_paths || !r->match)
			return "config wants paths and match";
		for (unsigned i = 0; i < r->n_paths; i++)
			if (r->paths[i][0] != '/')
				return "config: a path is absolute (it is looked up under the root)";
		return regex_ok(r->match) ? NULL : "config: match is not a POSIX extended regex";
	case CGFB_PROBE_KUBELET:
		return r->n_values == 1 && (strcmp(r->values[0], "opt_out") == 0 ||
					    strcmp(r->values[0], "bad_flag") == 0) ? NULL
			: "kubelet wants values: [\"opt_out\"] or [\"bad_flag\"]";
	default:
		return "unknown probe";
	}
}

static int load_knob(json_object *o, struct cgfb_rule *r)
{
	json_object *v;
	char *one = NULL;
	int t, rc;

	if ((rc = get_str(o, "file", &one)))
		return rc;
	if (one)
		r->files[r->n_files++] = one;
	if ((rc = get_strs(o, "files", r->files, CGFB_RULE_FILES_MAX, &r->n_files)))
		return rc;
	if (json_object_object_get_ex(o, "test", &v)) {
		if ((rc = load_enum(o, "test", test_names, CGFB_TEST_N, &t)))
			return rc;
		r->test = (enum cgfb_knob_test)t;
	}
	if (json_object_object_get_ex(o, "nonroot", &v)) {
		if (!json_object_is_type(v, json_type_boolean))
			return -EINVAL;
		r->nonroot = json_object_get_boolean(v);
	}
	return 0;
}

static int load_rule(json_object *o, struct cgfb_rule *r, char *err, size_t errsz, size_t i)
{
	const char *why;
	int p, s, rc;

	if (!json_object_is_type(o, json_type_object))
		return fail(err, errsz, "rule %zu: not an object", i);
	json_object_object_foreach(o, key, val) {
		(void)val;
		if (lookup(known_members, (int)(sizeof(known_members) / sizeof(*known_members)) - 1,
			   key) < 0)
			return fail(err, errsz, "rule %zu: unknown member '%s'", i, key);
	}
	if ((rc = get_str(o, "id", &r->id)) || !r->id)
		return rc == -ENOMEM ? rc : fail(err, errsz, "rule %zu: no id", i);
	/* A word: it is a metric's label value and a JSON key for tools. */
	if (strspn(r->id, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(r->id) || r->id[0] == '-')
		return fail(err, errsz, "rule %zu: the id '%s' is not lower-case letters, digits "
			    "and '-'", i, r->id);
	if (load_enum(o, "probe", probe_names, CGFB_PROBE_N, &p))
		return fail(err, errsz, "rule %s: probe is none of mode, hierarchy, procs, knob, "
			    "cmdline, kconfig, systemd, config, kubelet", r->id);
	if (load_enum(o, "severity", severity_names, CGFB_SEV_N, &s))
		return fail(err, errsz, "rule %s: severity is none of breaks, deprecated, info", r->id);
	r->probe = (enum cgfb_probe)p;
	r->severity = (enum cgfb_severity)s;
	if ((rc = get_str(o, "title", &r->title)) || (rc = get_str(o, "effect", &r->effect)) ||
	    (rc = get_str(o, "replacement", &r->replacement)) || (rc = get_str(o, "catalog", &r->catalog)) ||
	    (rc = get_str(o, "source", &r->source)) || (rc = get_str(o, "controller", &r->controller)) ||
	    (rc = get_str(o, "value", &r->value)) || (rc = get_str(o, "key", &r->key)) ||
	    (rc = get_str(o, "param", &r->param)) || (rc = get_str(o, "option", &r->option)) ||
	    (rc = get_str(o, "since", &r->since)) || (rc = get_str(o, "from", &r->from)) ||
	    (rc = get_str(o, "match", &r->match)) ||
	    (rc = get_strs(o, "paths", r->paths, CGFB_RULE_FILES_MAX, &r->n_paths)) ||
	    (rc = get_strs(o, "values", r->values, CGFB_RULE_VALUES_MAX, &r->n_values)) ||
	    (rc = get_strs(o, "modes", r->values, CGFB_RULE_VALUES_MAX, &r->n_values)) ||
	    (rc = load_knob(o, r)))
		return rc == -ENOMEM ? rc : fail(err, errsz, "rule %s: a member has the wrong type", r->id);
	if (!r->title || !r->effect || !r->replacement || !r->source)
		return fail(err, errsz, "rule %s: wants title, effect, replacement and source", r->id);
	if ((rc = load_asks(o, r)))
		return rc == -ENOMEM ? rc : fail(err, errsz, "rule %s: decided_by is not an object of "
						 "deciders (kernel, systemd, kubelet, lxc) each with a list of "
						 "its questions", r->id);
	if (r->severity == CGFB_SEV_BREAKS && !r->n_asks)
		return fail(err, errsz, "rule %s: a rule that breaks names who decides (decided_by)", r->id);
	if ((why = probe_args_error(r)))
		return fail(err, errsz, "rule %s: %s", r->id, why);
	return 0;
}

static void rule_free(struct cgfb_rule *r)
{
	char **strs[] = { &r->id, &r->title, &r->effect, &r->replacement, &r->catalog, &r->source,
			  &r->controller, &r->value, &r->key, &r->param, &r->option, &r->since,
			  &r->from, &r->match };

	for (size_t i = 0; i < sizeof(strs) / sizeof(*strs); i++)
		free(*strs[i]);
	for (unsigned i = 0; i < r->n_files; i++)
		free(r->files[i]);
	for (unsigned i = 0; i < r->n_values; i++)
		free(r->values[i]);
	for (unsigned i = 0; i < r->n_paths; i++)
		free(r->paths[i]);
	for (unsigned i = 0; i < r->n_asks; i++)
		free(r->asks[i].version);
}

static void owner_free(struct cgfb_owner *o)
{
	free(o->id);
	free(o->title);
	free(o->match);
	free(o->source);
	for (unsigned i = 0; i < o->n_translates; i++)
		free(o->translates[i]);
}

void cgfb_rules_free(struct cgfb_rules *rs)
{
	for (size_t i = 0; rs->r && i < rs->n; i++)
		rule_free(&rs->r[i]);
	for (size_t i = 0; rs->owners && i < rs->n_owners; i++)
		owner_free(&rs->owners[i]);
	free(rs->r);
	free(rs->owners);
	memset(rs, 0, sizeof(*rs));
}

bool cgfb_owner_translates(const struct cgfb_owner *o, const struct cgfb_rule *r)
{
	for (unsigned i = 0; i < o->n_translates; i++)
		if (strcmp(o->translates[i], r->id) == 0)
			return true;
	return false;
}

static const struct cgfb_rule *rule_by_id(const struct cgfb_rules *rs, const char *id)
{
	for (size_t i = 0; i < rs->n; i++)
		if (strcmp(rs->r[i].id, id) == 0)
			return &rs->r[i];
	return NULL;
}

/* An owner: id, title, match (an ERE on a cgroup's path below its
 * mount), the rules it translates (ids of rules loaded) and its source. */
static int load_owner(const struct cgfb_rules *rs, json_object *o, struct cgfb_owner *w,
		      char *err, size_t errsz, size_t i)
{
	int rc;

	if (!json_object_is_type(o, json_type_object))
		return fail(err, errsz, "owner %zu: not an object", i);
	json_object_object_foreach(o, key, val) {
		(void)val;
		if (lookup((const char *const[]){ "id", "title", "match", "translates", "source" }, 5, key) < 0)
			return fail(err, errsz, "owner %zu: unknown member '%s'", i, key);
	}
	if ((rc = get_str(o, "id", &w->id)) || (rc = get_str(o, "title", &w->title)) ||
	    (rc = get_str(o, "match", &w->match)) || (rc = get_str(o, "source", &w->source)) ||
	    (rc = get_strs(o, "translates", w->translates, CGFB_OWNER_RULES_MAX, &w->n_translates)))
		return rc == -ENOMEM ? rc : fail(err, errsz, "owner %zu: a member has the wrong type", i);
	if (!w->id || !w->title || !w->match || !w->source || !w->n_translates)
		return fail(err, errsz, "owner %zu: wants id, title, match, translates and source", i);
	if (!regex_ok(w->match))
		return fail(err, errsz, "owner %s: match is not a POSIX extended regex", w->id);
	for (unsigned k = 0; k < w->n_translates; k++)
		if (!rule_by_id(rs, w->translates[k]))
			return fail(err, errsz, "owner %s: translates '%s', which is no rule", w->id,
				    w->translates[k]);
	return 0;
}

static int load_owners(struct cgfb_rules *rs, json_object *doc, char *err, size_t errsz)
{
	json_object *arr;
	int rc = 0;

	if (!json_object_object_get_ex(doc, "owners", &arr))
		return 0;
	if (!json_object_is_type(arr, json_type_array))
		return fail(err, errsz, "owners is not an array");
	rs->owners = calloc(json_object_array_length(arr) + 1, sizeof(*rs->owners));
	if (!rs->owners)
		return -ENOMEM;
	for (size_t i = 0; i < json_object_array_length(arr) && !rc; i++) {
		rs->n_owners = i + 1;
		rc = load_owner(rs, json_object_array_get_idx(arr, i), &rs->owners[i], err, errsz, i);
	}
	return rc;
}

static int check_unique(const struct cgfb_rules *rs, char *err, size_t errsz)
{
	for (size_t i = 0; i < rs->n; i++)
		for (size_t k = 0; k < i; k++)
			if (strcmp(rs->r[i].id, rs->r[k].id) == 0)
				return fail(err, errsz, "rule %s: the id is used twice", rs->r[i].id);
	return 0;
}

int cgfb_rules_load_buffer(struct cgfb_rules *out, const char *json, size_t len,
			   char *err, size_t errsz)
{
	json_tokener *tok = json_tokener_new();
	json_object *doc = NULL, *arr;
	int rc = -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (!tok)
		return -ENOMEM;
	doc = json_tokener_parse_ex(tok, json, (int)len);
	if (!doc || json_tokener_get_error(tok) != json_tokener_success) {
		rc = fail(err, errsz, "not JSON: %s", json_tokener_error_desc(json_tokener_get_error(tok)));
		goto out;
	}
	if (!json_object_object_get_ex(doc, "rules", &arr) || !json_object_is_type(arr, json_type_array) ||
	    !json_object_array_length(arr)) {
		rc = fail(err, errsz, "no array of rules");
		goto out;
	}
	out->r = calloc(json_object_array_length(arr), sizeof(*out->r));
	if (!out->r)
		goto out;
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		out->n = i + 1;
		if ((rc = load_rule(json_object_array_get_idx(arr, i), &out->r[i], err, errsz, i)))
			goto out;
	}
	if (!(rc = check_unique(out, err, errsz)))
		rc = load_owners(out, doc, err, errsz);
out:
	if (rc)
		cgfb_rules_free(out);
	json_object_put(doc);
	json_tokener_free(tok);
	return rc;
}

int cgfb_rules_load_file(struct cgfb_rules *out, const char *path, char *err, size_t errsz)
{
	struct cgfb_buf b = { 0 };
	int rc = cgfb_read_file(path, RULES_FILE_MAX, 0, &b);

	memset(out, 0, sizeof(*out));
	if (rc == -EFBIG)
		fail(err, errsz, "%s: not a rules file of at most %u bytes", path, RULES_FILE_MAX);
	else if (rc < 0)
		snprintf(err, errsz, "%s: %s", path, strerror(-rc));
	else if ((rc = cgfb_rules_load_buffer(out, b.data, b.len, err, errsz)) == -EINVAL) {
		char inner[256];

		snprintf(inner, sizeof(inner), "%s", err);
		snprintf(err, errsz, "%s: %s", path, inner);
	}
	cgfb_buf_free(&b);
	return rc;
}

int cgfb_rules_load_builtin(struct cgfb_rules *out, char *err, size_t errsz)
{
	return cgfb_rules_load_buffer(out, cgfb_readiness_json, cgfb_readiness_json_len, err, errsz);
}
