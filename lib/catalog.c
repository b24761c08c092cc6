/* The catalog (catalog.h): loading data/catalog.json and matching records
 * against it. Over 600 lines, on purpose: the loader's checks (needles,
 * regexes refused before glibc's regcomp can blow up on them, question
 * sets and their references, the vocabularies) and the matcher share the
 * compiled entry, which is private to this file; splitting would publish
 * it. fuzz/catalog_load and fuzz/catalog_match cover each half. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cgfb/buf.h"
#include "cgfb/catalog.h"
#include "cgfb/readfile.h"

/* Needles shorter than this make the prefilter skip too little. */
#define NEEDLE_MIN 10
/* Catalog files are a few tens of KiB; refuse anything absurd. */
#define CATALOG_FILE_MAX (4u << 20)

extern const char cgfb_catalog_json[];
extern const size_t cgfb_catalog_json_len;

static int fail(char *err, size_t errsz, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errsz, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err && errsz) {
		va_start(ap, fmt);
		vsnprintf(err, errsz, fmt, ap);
		va_end(ap);
	}
	return rc;
}

/* Optional string member: absent or null gives NULL; other types are errors. */
static int get_str(json_object *o, const char *key, char **out)
{
	json_object *v;

	*out = NULL;
	if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return -EINVAL;
	*out = strdup(json_object_get_string(v));
	return *out ? 0 : -ENOMEM;
}

static bool get_bool(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_get_boolean(v);
}

static void entry_free(struct cgfb_entry *e)
{
	free(e->id);
	free(e->title);
	free(e->message);
	free(e->contact);
	free(e->kernels);
	free(e->trigger);
	free(e->effect);
	free(e->controller);
	free(e->knob);
	free(e->second_site);
	free(e->attribution);
	free(e->explain);
	free(e->era);
	for (size_t i = 0; i < e->n_levels; i++)
		free(e->levels[i].knob);
	for (size_t i = 0; i < e->n_units; i++)
		free(e->units[i]);
	for (size_t i = 0; i < e->n_needles; i++)
		free(e->needles[i]);
	for (size_t i = 0; i < e->n_vocab; i++)
		free(e->vocab[i]);
	free(e->vocab);
	if (e->has_regex)
		regfree(&e->re);
	if (e->has_continuation)
		regfree(&e->continuation);
	free(e->regex_src);
	free(e->continuation_src);
	for (size_t i = 0; i < e->n_functions; i++)
		free(e->functions[i]);
}

static int load_strings(struct cgfb_entry *e, json_object *o)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "title", offsetof(struct cgfb_entry, title) },
		{ "message", offsetof(struct cgfb_entry, message) },
		{ "contact", offsetof(struct cgfb_entry, contact) },
		{ "kernels", offsetof(struct cgfb_entry, kernels) },
		{ "trigger", offsetof(struct cgfb_entry, trigger) },
		{ "effect", offsetof(struct cgfb_entry, effect) },
		{ "controller", offsetof(struct cgfb_entry, controller) },
		{ "knob", offsetof(struct cgfb_entry, knob) },
		{ "second_site", offsetof(struct cgfb_entry, second_site) },
		{ "attribution", offsetof(struct cgfb_entry, attribution) },
		{ "era", offsetof(struct cgfb_entry, era) },
		{ "explain", offsetof(struct cgfb_entry, explain) },
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const int rc = get_str(o, keys[i].key, (char **)((char *)e + keys[i].off));

		if (rc < 0)
			return rc;
	}
	return 0;
}

static int load_needles(struct cgfb_entry *e, json_object *o, char *err, size_t errsz)
{
	json_object *arr;

	if (!json_object_object_get_ex(o, "needles", &arr) ||
	    !json_object_is_type(arr, json_type_array))
		return fail(err, errsz, -EINVAL, "entry %s: 'needles' must be an array", e->id);
	const size_t n = json_object_array_length(arr);

	if (n > CGFB_CATALOG_MAX_NEEDLES)
		return fail(err, errsz, -E2BIG, "entry %s: more than %d needles", e->id,
			    CGFB_CATALOG_MAX_NEEDLES);
	for (size_t i = 0; i < n; i++) {
		const char *s = json_object_get_string(json_object_array_get_idx(arr, i));

		if (!s || strlen(s) < NEEDLE_MIN)
			return fail(err, errsz, -EINVAL, "entry %s: needle %zu shorter than %d bytes",
				    e->id, i, NEEDLE_MIN);
		e->needles[i] = strdup(s);
		if (!e->needles[i])
			return -ENOMEM;
		e->n_needles = i + 1;
	}
	return 0;
}

/* glibc's regcomp copies the atom of a bounded repetition {m,n} n times
 * (a group: all of it) and that of + once more, and a quantifier on a
 * quantifier (a++, undefined in POSIX) copies the copies: "t+++...+" took
 * 4 GB to compile (found by fuzz/catalog_load). A catalog's regex is
 * refused when its copies would pass REGEX_WEIGHT_MAX atoms. */
#define REGEX_WEIGHT_MAX 4096
#define REGEX_DEPTH_MAX  32

/* The ']' that ends the bracket expression opened at p. */
static const char *bracket_end(const char *p)
{
	p++;
	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	for (; *p && *p != ']'; p++) {
		if (p[0] == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			const char close[3] = { p[1], ']', '\0' };
			const char *e = strstr(p + 2, close);

			if (!e)
				return p + strlen(p) - 1;
			p = e + 1;
		}
	}
	return *p ? p : p - 1;
}

/* How many copies the quantifier at *p makes of its atom (1 for * and ?,
 * 2 for +, the upper bound of {m,n}, m + 1 for {m,}), *p left on its last
 * character; 0 when *p is no quantifier (a brace not before a digit is a
 * literal one). */
static long quantifier(const char **p)
{
	const char *s = *p;
	char *q;
	long n;

	if (*s == '*' || *s == '?')
		return 1;
	if (*s == '+')
		return 2;
	if (*s != '{' || !isdigit((unsigned char)s[1]))
		return 0;
	n = strtol(s + 1, &q, 10);
	if (*q == ',' && isdigit((unsigned char)q[1]))
		n = strtol(q + 1, &q, 10);
	else if (*q == ',')
		q++, n++;
	if (*q != '}')
		return 0;
	*p = q;
	return n < 1 ? 1 : n > 32767 ? 32767 : n;
}

/* The number of atoms regcomp would make of re, REGEX_WEIGHT_MAX + 1 once
 * past it, or -1 for a quantifier on a quantifier. */
static long regex_weight(const char *re)
{
	long group[REGEX_DEPTH_MAX + 1] = { 0 }, last = 0;
	bool quantified = false;
	int depth = 0;

	for (const char *p = re; *p; p++) {
		const long copies = quantifier(&p);

		if (copies) {
			if (quantified)
				return -1;
			quantified = true;
			group[depth] += last * (copies - 1);
			if (group[depth] > REGEX_WEIGHT_MAX)
				return REGEX_WEIGHT_MAX + 1;
			continue;
		}
		quantified = false;
		if (*p == '(') {
			if (depth == REGEX_DEPTH_MAX)
				return REGEX_WEIGHT_MAX + 1;
			group[++depth] = 0;
			last = 0;
		} else if (*p == ')' && depth > 0) {
			last = group[depth] ? group[depth] : 1;
			group[--depth] += last;
		} else if (*p == '|') {
			last = 0;
		} else {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '[')
				p = bracket_end(p);
			last = 1;
			group[depth] += 1;
		}
	}
	return group[0];
}

static int compile(regex_t *re, const char *src, int flags, const char *id, const char *what,
		   char *err, size_t errsz)
{
	const long w = regex_weight(src);
	char msg[128];
	int rc;

	if (w < 0)
		return fail(err, errsz, -EINVAL, "entry %s: bad %s: a quantifier on a quantifier "
			    "(undefined in POSIX, and each copies the last)", id, what);
	if (w > REGEX_WEIGHT_MAX)
		return fail(err, errsz, -EINVAL, "entry %s: bad %s: its repetitions would make "
			    "more than %d copies to compile", id, what, REGEX_WEIGHT_MAX);
	rc = regcomp(re, src, flags);
	if (rc != 0) {
		regerror(rc, re, msg, sizeof(msg));
		return fail(err, errsz, -EINVAL, "entry %s: bad %s: %s", id, what, msg);
	}
	return 0;
}

/* The flags of an entry's regex and of its continuation: cgfb_catalog_shrink
 * compiles them again exactly as loading did. */
#define REGEX_FLAGS        REG_EXTENDED
#define CONTINUATION_FLAGS (REG_EXTENDED | REG_NOSUB)

static int load_regex(struct cgfb_entry *e, json_object *o, char *err, size_t errsz)
{
	json_object *v, *fields;
	int rc;

	if (!json_object_object_get_ex(o, "regex", &v) || json_object_is_type(v, json_type_null))
		return 0;
	if (e->n_needles == 0)
		return fail(err, errsz, -EINVAL, "entry %s: a regex needs at least one needle", e->id);
	e->regex_src = strdup(json_object_get_string(v));
	if (!e->regex_src)
		return -ENOMEM;
	rc = compile(&e->re, e->regex_src, REGEX_FLAGS, e->id, "regex", err, errsz);
	if (rc < 0)
		return rc;
	e->has_regex = true;
	if (json_object_object_get_ex(o, "continuation", &v) &&
	    !json_object_is_type(v, json_type_null)) {
		e->continuation_src = strdup(json_object_get_string(v));
		if (!e->continuation_src)
			return -ENOMEM;
		rc = compile(&e->continuation, e->continuation_src, CONTINUATION_FLAGS, e->id,
			     "continuation", err, errsz);
		if (rc < 0)
			return rc;
		e->has_continuation = true;
	}
	if (!json_object_object_get_ex(o, "fields", &fields) ||
	    json_object_is_type(fields, json_type_null))
		return 0;
	/* json-c walks a non-object's (absent) table through NULL. */
	if (!json_object_is_type(fields, json_type_object))
		return fail(err, errsz, -EINVAL, "entry %s: 'fields' is not an object", e->id);
	json_object_object_foreach(fields, name, group) {
		const int g = json_object_get_int(group);

		if (e->n_caps >= CGFB_CATALOG_MAX_CAPS || strlen(name) >= CGFB_FIELD_NAME_MAX ||
		    g < 1 || (size_t)g > e->re.re_nsub)
			return fail(err, errsz, -EINVAL, "entry %s: bad field '%s'", e->id, name);
		snprintf(e->caps[e->n_caps].name, CGFB_FIELD_NAME_MAX, "%s", name);
		e->caps[e->n_caps++].group = g;
	}
	return 0;
}

/* A function name as the schema's $defs/function has it: a bare C symbol. */
static bool symbol_shape(const char *s)
{
	const size_t n = strlen(s);

	return n >= 1 && n <= 64 && strchr("abcdefghijklmnopqrstuvwxyz_", s[0]) &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == n;
}

static int load_functions(struct cgfb_entry *e, json_object *o, char *err, size_t errsz)
{
	json_object *arr;

	if (!json_object_object_get_ex(o, "functions", &arr))
		return 0;
	if (!json_object_is_type(arr, json_type_array) ||
	    json_object_array_length(arr) > CGFB_CATALOG_MAX_FUNCTIONS)
		return fail(err, errsz, -EINVAL, "entry %s: 'functions' must be an array of at "
			    "most %d", e->id, CGFB_CATALOG_MAX_FUNCTIONS);
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *f = json_object_array_get_idx(arr, i);
		const char *s = json_object_is_type(f, json_type_string) ?
				json_object_get_string(f) : NULL;

		if (!s || !symbol_shape(s))
			return fail(err, errsz, -EINVAL, "entry %s: function %zu is not a C "
				    "symbol", e->id, i);
		e->functions[e->n_functions] = strdup(s);
		if (!e->functions[e->n_functions++])
			return -ENOMEM;
	}
	return 0;
}

static bool valid_level(int level)
{
	return level >= 0 && level <= 7;
}

/* "levels": {"<knob>": <level>, ...}, at most CGFB_CATALOG_MAX_LEVELS. */
static int load_levels(struct cgfb_entry *e, json_object *o, char *err, size_t errsz)
{
	json_object *obj;

	if (!json_object_object_get_ex(o, "levels", &obj))
		return 0;
	if (!json_object_is_type(obj, json_type_object) ||
	    json_object_object_length(obj) > CGFB_CATALOG_MAX_LEVELS)
		return fail(err, errsz, -EINVAL, "entry %s: 'levels' must be an object of at most "
			    "%d", e->id, CGFB_CATALOG_MAX_LEVELS);
	json_object_object_foreach(obj, knob, v) {
		const int level = json_object_is_type(v, json_type_int) ? json_object_get_int(v) : -1;

		if (!valid_level(level))
			return fail(err, errsz, -EINVAL, "entry %s: level of %s is not 0-7", e->id,
				    knob);
		e->levels[e->n_levels].knob = strdup(knob);
		if (!e->levels[e->n_levels].knob)
			return -ENOMEM;
		e->levels[e->n_levels++].level = level;
	}
	return 0;
}

/* "userspace": "pid1" | "unit" with "units": [...] (record.h user_trusted). */
static int load_from(struct cgfb_entry *e, json_object *o, char *err, size_t errsz)
{
	json_object *v, *arr;
	const char *from;

	if (!json_object_object_get_ex(o, "userspace", &v))
		return 0;
	from = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
	if (strcmp(from, "pid1") == 0) {
		e->from = CGFB_FROM_PID1;
		return 0;
	}
	if (strcmp(from, "unit") != 0)
		return fail(err, errsz, -EINVAL, "entry %s: 'userspace' is not pid1 or unit", e->id);
	e->from = CGFB_FROM_UNIT;
	if (!json_object_object_get_ex(o, "units", &arr) ||
	    !json_object_is_type(arr, json_type_array) || json_object_array_length(arr) == 0 ||
	    json_object_array_length(arr) > CGFB_CATALOG_MAX_UNITS)
		return fail(err, errsz, -EINVAL, "entry %s: 'units' must be an array of 1 to %d",
			    e->id, CGFB_CATALOG_MAX_UNITS);
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *u = json_object_array_get_idx(arr, i);

		if (!json_object_is_type(u, json_type_string))
			return fail(err, errsz, -EINVAL, "entry %s: unit %zu is not a string", e->id, i);
		e->units[e->n_units] = strdup(json_object_get_string(u));
		if (!e->units[e->n_units++])
			return -ENOMEM;
	}
	return 0;
}

int cgfb_catalog_level(const struct cgfb_entry *e, const char *knob)
{
	for (size_t i = 0; knob && i < e->n_levels; i++)
		if (strcmp(e->levels[i].knob, knob) == 0)
			return e->levels[i].level;
	return e->level;
}

/* The words "era" may say; anything else is a typo in the data. */
static bool valid_era(const char *era)
{
	return !era || strcmp(era, "unmerged") == 0 || strcmp(era, "old") == 0 ||
	       strcmp(era, "current") == 0;
}

bool cgfb_catalog_function(const struct cgfb_entry *e, const char *sym)
{
	for (size_t i = 0; sym && i < e->n_functions; i++)
		if (strcmp(e->functions[i], sym) == 0)
			return true;
	return false;
}

static bool has_capture(const struct cgfb_entry *e, const char *name, size_t len)
{
	for (size_t i = 0; i < e->n_caps; i++)
		if (strlen(e->caps[i].name) == len && memcmp(e->caps[i].name, name, len) == 0)
			return true;
	return false;
}

/* A message names only the entry's own captures, and brackets neither nest
 * nor stay open: what the renderer can fill is all a template may ask. */
static int check_message(const struct cgfb_entry *e, char *err, size_t errsz)
{
	bool in_opt = false;

	if (e->generic)
		return e->message ? fail(err, errsz, -EINVAL, "entry %s: a generic entry has "
					 "no message", e->id) : 0;
	if (!e->message)
		return fail(err, errsz, -EINVAL, "entry %s: missing 'message'", e->id);
	for (const char *p = e->message; *p; p++) {
		if (*p == '[' || *p == ']') {
			if (in_opt == (*p == '['))
				return fail(err, errsz, -EINVAL, "entry %s: message has unbalanced "
					    "brackets", e->id);
			in_opt = *p == '[';
		} else if (*p == '{') {
			const char *end = strchr(p, '}');

			if (!end || !has_capture(e, p + 1, (size_t)(end - p - 1)))
				return fail(err, errsz, -EINVAL, "entry %s: message names a field "
					    "the regex does not capture", e->id);
			p = end;
		} else if (*p == '}') {
			return fail(err, errsz, -EINVAL, "entry %s: stray '}' in message", e->id);
		}
	}
	if (in_opt)
		return fail(err, errsz, -EINVAL, "entry %s: message has unbalanced brackets", e->id);
	return 0;
}

static int load_entry(struct cgfb_entry *e, json_object *o, size_t idx, char *err, size_t errsz)
{
	json_object *lvl;
	int rc;

	if (!json_object_is_type(o, json_type_object))
		return fail(err, errsz, -EINVAL, "entry #%zu is not an object", idx);
	rc = get_str(o, "id", &e->id);
	if (rc < 0 || !e->id || !*e->id)
		return fail(err, errsz, rc < 0 ? rc : -EINVAL, "entry #%zu: missing 'id'", idx);
	rc = load_strings(e, o);
	if (rc < 0)
		return fail(err, errsz, rc, "entry %s: a text member is not a string", e->id);
	if (!e->title)
		return fail(err, errsz, -EINVAL, "entry %s: missing 'title'", e->id);
	e->level = json_object_object_get_ex(o, "level", &lvl) ? json_object_get_int(lvl) : -1;
	e->warn_block = get_bool(o, "warn_block");
	e->generic = get_bool(o, "generic");
	/* Absent means once: what every entry meant before the key. */
	e->every_trigger = json_object_object_get_ex(o, "once", &lvl) &&
			   !json_object_get_boolean(lvl);
	if (!valid_era(e->era))
		return fail(err, errsz, -EINVAL, "entry %s: 'era' is not unmerged, old or current",
			    e->id);
	if (e->attribution && strcmp(e->attribution, "ambiguous") != 0)
		return fail(err, errsz, -EINVAL, "entry %s: 'attribution' is not ambiguous", e->id);
	rc = load_needles(e, o, err, errsz);
	if (rc == 0)
		rc = load_functions(e, o, err, errsz);
	if (rc == 0)
		rc = load_levels(e, o, err, errsz);
	if (rc == 0)
		rc = load_from(e, o, err, errsz);
	if (rc < 0)
		return rc;
	rc = load_regex(e, o, err, errsz);
	if (rc < 0)
		return rc;
	return check_message(e, err, errsz);
}

static int load_question_set(struct cgfb_question_set *qs, const char *name, json_object *arr,
			     char *err, size_t errsz)
{
	qs->name = strdup(name);
	if (!qs->name)
		return -ENOMEM;
	if (!json_object_is_type(arr, json_type_array) ||
	    json_object_array_length(arr) > CGFB_QUESTIONS_MAX)
		return fail(err, errsz, -EINVAL, "question set %s: not an array of at most %d",
			    name, CGFB_QUESTIONS_MAX);
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *q = json_object_array_get_idx(arr, i);
		char *key = NULL, *text = NULL;

		if (get_str(q, "key", &key) < 0 || get_str(q, "text", &text) < 0 || !key || !text) {
			free(key);
			free(text);
			return fail(err, errsz, -EINVAL, "question set %s: question %zu needs key and text",
				    name, i);
		}
		qs->q[qs->n].key = key;
		qs->q[qs->n++].text = text;
	}
	return 0;
}

static int load_question_sets(struct cgfb_catalog *cat, json_object *root, char *err, size_t errsz)
{
	json_object *sets;
	int rc;

	if (!json_object_object_get_ex(root, "question_sets", &sets) ||
	    !json_object_is_type(sets, json_type_object))
		return fail(err, errsz, -EINVAL, "no 'question_sets' object");
	cat->sets = calloc((size_t)json_object_object_length(sets) + 1, sizeof(*cat->sets));
	if (!cat->sets)
		return -ENOMEM;
	json_object_object_foreach(sets, name, arr) {
		rc = load_question_set(&cat->sets[cat->n_sets++], name, arr, err, errsz);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Each entry names its question set; "generic" is the fallback. */
static int link_questions(struct cgfb_catalog *cat, json_object *entries, char *err, size_t errsz)
{
	for (size_t i = 0; i < cat->n; i++) {
		json_object *v;
		const char *want = "generic";

		if (json_object_object_get_ex(json_object_array_get_idx(entries, i), "questions", &v))
			want = json_object_get_string(v);
		for (size_t k = 0; k < cat->n_sets; k++)
			if (strcmp(cat->sets[k].name, want) == 0)
				cat->entries[i].questions = &cat->sets[k];
		if (!cat->entries[i].questions)
			return fail(err, errsz, -EINVAL, "entry %s: no question set '%s'",
				    cat->entries[i].id, want);
	}
	return 0;
}

static int collect_needles(struct cgfb_catalog *cat, char *err, size_t errsz)
{
	for (size_t i = 0; i < cat->n; i++) {
		const struct cgfb_entry *e = &cat->entries[i];

		for (size_t j = 0; j < e->n_needles; j++) {
			size_t k = 0;

			while (k < cat->n_needles && strcmp(cat->needles[k], e->needles[j]) != 0)
				k++;
			if (k < cat->n_needles)
				continue;
			if (cat->n_needles >= CGFB_CATALOG_NEEDLES_MAX)
				return fail(err, errsz, -E2BIG, "more than %d distinct needles",
					    CGFB_CATALOG_NEEDLES_MAX);
			cat->needles[cat->n_needles++] = e->needles[j];
		}
	}
	if (cat->n_needles == 0)
		return fail(err, errsz, -EINVAL, "no entry has a needle");
	return cgfb_mscan_init(&cat->scan, cat->needles, cat->n_needles);
}

static int check_references(const struct cgfb_catalog *cat, char *err, size_t errsz)
{
	for (size_t i = 0; i < cat->n; i++) {
		const struct cgfb_entry *e = &cat->entries[i];

		for (size_t j = 0; j < i; j++)
			if (strcmp(cat->entries[j].id, e->id) == 0)
				return fail(err, errsz, -EINVAL, "duplicate id %s", e->id);
		if (e->second_site && !cgfb_catalog_find(cat, e->second_site))
			return fail(err, errsz, -EINVAL, "entry %s: second_site %s is not in the catalog",
				    e->id, e->second_site);
	}
	return 0;
}

struct words {
	size_t n, cap;
	char **w;
};

static int words_add(struct words *ws, const char *w, size_t n)
{
	char *copy;

	if (n == 0 || n > 64)
		return 0;
	if (ws->n == ws->cap) {
		const size_t cap = ws->cap ? ws->cap * 2 : 256;
		char **nw = realloc(ws->w, cap * sizeof(*nw));

		if (!nw)
			return -ENOMEM;
		ws->w = nw;
		ws->cap = cap;
	}
	copy = strndup(w, n);
	if (!copy)
		return -ENOMEM;
	for (char *p = copy; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	ws->w[ws->n++] = copy;
	return 0;
}

/* Every word of text: runs of word bytes, a sentence's final dot dropped. */
static int words_of(struct words *ws, const char *text)
{
	const char *p = text;

	while (p && *p) {
		size_t n = strspn(p, CGFB_CATALOG_WORD_CHARS);

		if (n == 0) {
			p++;
			continue;
		}
		const size_t keep = (n > 1 && p[n - 1] == '.') ? n - 1 : n;
		const int rc = words_add(ws, p, keep);

		if (rc < 0)
			return rc;
		p += n;
	}
	return 0;
}

static int cmp_word(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int build_vocabularies(struct cgfb_catalog *cat, json_object *root, char *err,
			      size_t errsz)
{
	struct words ws = { 0 };
	json_object *voc;
	size_t n = 0;
	int rc = 0;

	if (json_object_object_get_ex(root, "vocabulary", &voc)) {
		if (!json_object_is_type(voc, json_type_array))
			return fail(err, errsz, -EINVAL, "'vocabulary' is not an array of words");
		for (size_t i = 0; i < json_object_array_length(voc) && rc == 0; i++)
			rc = words_of(&ws, json_object_get_string(json_object_array_get_idx(voc, i)));
	}
	for (size_t i = 0; i < cat->n && rc == 0; i++) {
		rc = words_of(&ws, cat->entries[i].message);
		if (rc == 0)
			rc = words_of(&ws, cat->entries[i].title);
	}
	if (rc < 0)
		goto out;
	if (ws.n)
		qsort(ws.w, ws.n, sizeof(*ws.w), cmp_word);
	for (size_t i = 0; i < ws.n; i++) {
		if (n && strcmp(ws.w[n - 1], ws.w[i]) == 0)
			free(ws.w[i]);
		else
			ws.w[n++] = ws.w[i];
	}
	ws.n = n;
	/* One generic entry in practice; each gets its own copy to own. */
	for (size_t i = 0; i < cat->n && rc == 0; i++) {
		struct cgfb_entry *e = &cat->entries[i];

		if (!e->generic)
			continue;
		e->vocab = calloc(ws.n ? ws.n : 1, sizeof(*e->vocab));
		if (!e->vocab) {
			rc = -ENOMEM;
			break;
		}
		for (size_t k = 0; k < ws.n && rc == 0; k++) {
			e->vocab[k] = strdup(ws.w[k]);
			if (!e->vocab[k])
				rc = -ENOMEM;
			else
				e->n_vocab++;
		}
	}
out:
	for (size_t i = 0; i < ws.n; i++)
		free(ws.w[i]);
	free(ws.w);
	return rc;
}

bool cgfb_catalog_word(const struct cgfb_entry *e, const char *w, size_t n)
{
	char key[65];
	const char *k = key;

	if (n == 0 || n >= sizeof(key) || !e->n_vocab)
		return false;
	for (size_t i = 0; i < n; i++)
		key[i] = (char)tolower((unsigned char)w[i]);
	key[n] = '\0';
	return bsearch(&k, e->vocab, e->n_vocab, sizeof(*e->vocab), cmp_word) != NULL;
}

int cgfb_catalog_load_buffer(struct cgfb_catalog **out, const char *json, size_t len,
			     char *err, size_t errsz)
{
	struct json_tokener *tok = json_tokener_new();
	struct cgfb_catalog *cat = calloc(1, sizeof(*cat));
	json_object *root = NULL, *entries;
	int rc = -ENOMEM;

	if (!tok || !cat)
		goto out;
	root = json_tokener_parse_ex(tok, json, (int)len);
	if (!root || json_tokener_get_error(tok) != json_tokener_success) {
		rc = fail(err, errsz, -EINVAL, "not valid JSON: %s",
			  json_tokener_error_desc(json_tokener_get_error(tok)));
		goto out;
	}
	if (!json_object_object_get_ex(root, "entries", &entries) ||
	    !json_object_is_type(entries, json_type_array)) {
		rc = fail(err, errsz, -EINVAL, "no 'entries' array");
		goto out;
	}
	cat->n = json_object_array_length(entries);
	cat->entries = calloc(cat->n ? cat->n : 1, sizeof(*cat->entries));
	if (!cat->entries)
		goto out;
	for (size_t i = 0; i < cat->n; i++) {
		rc = load_entry(&cat->entries[i], json_object_array_get_idx(entries, i), i, err, errsz);
		if (rc < 0)
			goto out;
	}
	rc = load_question_sets(cat, root, err, errsz);
	if (rc == 0)
		rc = link_questions(cat, entries, err, errsz);
	if (rc == 0)
		rc = check_references(cat, err, errsz);
	if (rc == 0)
		rc = collect_needles(cat, err, errsz);
	if (rc == 0)
		rc = build_vocabularies(cat, root, err, errsz);
out:
	json_object_put(root);
	if (tok)
		json_tokener_free(tok);
	if (rc < 0) {
		cgfb_catalog_free(cat);
		return rc;
	}
	*out = cat;
	return 0;
}

int cgfb_catalog_load_file(struct cgfb_catalog **out, const char *path, char *err, size_t errsz)
{
	struct cgfb_buf b = { 0 };
	int rc = cgfb_read_file(path, CATALOG_FILE_MAX, 0, &b);

	if (rc == -EFBIG)
		rc = fail(err, errsz, rc, "%s: not a catalog file of at most %u bytes", path,
			  CATALOG_FILE_MAX);
	else if (rc < 0)
		rc = fail(err, errsz, rc, "%s: %s", path, strerror(-rc));
	else
		rc = cgfb_catalog_load_buffer(out, b.data, b.len, err, errsz);
	cgfb_buf_free(&b);
	return rc;
}

int cgfb_catalog_load_builtin(struct cgfb_catalog **out, char *err, size_t errsz)
{
	return cgfb_catalog_load_buffer(out, cgfb_catalog_json, cgfb_catalog_json_len, err, errsz);
}

void cgfb_catalog_free(struct cgfb_catalog *cat)
{
	if (!cat)
		return;
	for (size_t i = 0; cat->entries && i < cat->n; i++)
		entry_free(&cat->entries[i]);
	free(cat->entries);
	for (size_t i = 0; cat->sets && i < cat->n_sets; i++) {
		free(cat->sets[i].name);
		for (size_t k = 0; k < cat->sets[i].n; k++) {
			free(cat->sets[i].q[k].key);
			free(cat->sets[i].q[k].text);
		}
	}
	free(cat->sets);
	free(cat);
}

const struct cgfb_entry *cgfb_catalog_find(const struct cgfb_catalog *cat, const char *id)
{
	for (size_t i = 0; i < cat->n; i++)
		if (strcmp(cat->entries[i].id, id) == 0)
			return &cat->entries[i];
	return NULL;
}

bool cgfb_catalog_candidate(const struct cgfb_catalog *cat, const char *text, size_t len)
{
	return cgfb_mscan_find(&cat->scan, text, text + len, NULL) != NULL;
}

static bool has_needle(const struct cgfb_entry *e, const char *text, size_t len)
{
	for (size_t i = 0; i < e->n_needles; i++)
		if (memmem(text, len, e->needles[i], strlen(e->needles[i])))
			return true;
	return false;
}

static bool try_entry(struct cgfb_entry *e, const char *cstr, size_t len,
		      struct cgfb_fields *fields)
{
	regmatch_t m[10];

	if (!e->has_regex || !has_needle(e, cstr, len))
		return false;
	/* Matched or not, regexec may have added states to its cache. */
	e->ran = true;
	if (regexec(&e->re, cstr, 10, m, 0) != 0)
		return false;
	for (size_t i = 0; fields && i < e->n_caps; i++) {
		const regmatch_t *g = &m[e->caps[i].group];

		if (e->caps[i].group < 10 && g->rm_so >= 0 && g->rm_eo > g->rm_so)
			cgfb_fields_set(fields, e->caps[i].name, cstr + g->rm_so,
					(size_t)(g->rm_eo - g->rm_so));
	}
	return true;
}

/* regexec wants a C string. A NUL inside a record would end it early;
 * kmsg escapes NULs, so a text file with one is junk either way. */
static bool to_cstr(char buf[CGFB_MATCH_TEXT_MAX + 1], const char *text, size_t *len)
{
	if (*len > CGFB_MATCH_TEXT_MAX)
		*len = CGFB_MATCH_TEXT_MAX;
	memcpy(buf, text, *len);
	buf[*len] = '\0';
	return strlen(buf) == *len;
}

bool cgfb_catalog_continues(const struct cgfb_entry *e, const char *text, size_t len)
{
	char buf[CGFB_MATCH_TEXT_MAX + 1];

	return e->has_continuation && to_cstr(buf, text, &len) &&
	       regexec(&e->continuation, buf, 0, NULL, 0) == 0;
}

const struct cgfb_entry *cgfb_catalog_match(const struct cgfb_catalog *cat, const char *text,
					    size_t len, struct cgfb_fields *fields)
{
	char buf[CGFB_MATCH_TEXT_MAX + 1];

	if (!to_cstr(buf, text, &len))
		return NULL;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < cat->n; i++) {
			/* Not const: try_entry marks what regexec ran on. */
			struct cgfb_entry *e = &cat->entries[i];

			if (e->from == CGFB_FROM_KERNEL && e->generic == (pass == 1) &&
			    try_entry(e, buf, len, fields))
				return e;
		}
	return NULL;
}

static bool may_print(const struct cgfb_entry *e, int pid, const char *unit)
{
	if (e->from == CGFB_FROM_PID1)
		return pid == 1;
	for (size_t i = 0; e->from == CGFB_FROM_UNIT && unit && i < e->n_units; i++)
		if (strcmp(e->units[i], unit) == 0)
			return true;
	return false;
}

const struct cgfb_entry *cgfb_catalog_match_user(const struct cgfb_catalog *cat,
						 const char *text, size_t len, int pid,
						 const char *unit, struct cgfb_fields *fields)
{
	char buf[CGFB_MATCH_TEXT_MAX + 1];

	if (!to_cstr(buf, text, &len))
		return NULL;
	for (size_t i = 0; i < cat->n; i++) {
		struct cgfb_entry *e = &cat->entries[i];

		if (e->from != CGFB_FROM_KERNEL && may_print(e, pid, unit) &&
		    try_entry(e, buf, len, fields))
			return e;
	}
	return NULL;
}

/* *re compiled afresh from src: the new one replaces it only once it is
 * there, so a failure leaves a working regex. */
static int recompile(regex_t *re, const char *src, int flags)
{
	regex_t fresh;

	if (regcomp(&fresh, src, flags) != 0)
		return -ENOMEM;         /* it compiled before: only memory can be short */
	regfree(re);
	*re = fresh;
	return 0;
}

/* glibc's regexec builds the DFA of a regex lazily, state by state, in
 * tables kept inside the regex_t (a 256-entry transition table per state)
 * and frees none of it before regfree: after every catalog message had
 * matched once, the watcher held 7 MB of such tables (issue 29), for
 * messages the kernel prints once a boot. Compiling again costs some
 * microseconds a regex; the cache grows back only if the message comes
 * again. */
int cgfb_catalog_shrink(struct cgfb_catalog *cat)
{
	int n = 0, rc = 0;

	for (size_t i = 0; i < cat->n; i++) {
		struct cgfb_entry *e = &cat->entries[i];

		if (!e->ran)
			continue;
		if (recompile(&e->re, e->regex_src, REGEX_FLAGS) < 0 ||
		    (e->has_continuation &&
		     recompile(&e->continuation, e->continuation_src, CONTINUATION_FLAGS) < 0)) {
			rc = -ENOMEM;
			continue;
		}
		e->ran = false;
		n++;
	}
	return rc < 0 ? rc : n;
}

static const char *value_of(const char *name, size_t len, const char *const *names,
			    const char *const *values, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(names[i]) == len && memcmp(names[i], name, len) == 0)
			return values[i];
	return NULL;
}

/* The text of a template from p up to stop (']' or the end) into out at
 * *len; returns where it stopped and whether every field had a value. */
static const char *render_part(const char *p, char stop, const char *const *names,
			       const char *const *values, size_t n, struct cgfb_buf *out,
			       bool *complete)
{
	*complete = true;
	while (*p && *p != stop) {
		const char *end, *v;

		if (*p != '{') {
			end = p + strcspn(p, stop == ']' ? "{]" : "{[");
			cgfb_buf_add(out, p, (size_t)(end - p));
			p = end;
			continue;
		}
		end = strchr(p, '}');
		v = value_of(p + 1, (size_t)(end - p - 1), names, values, n);
		*complete &= v != NULL;
		cgfb_buf_adds(out, v ? v : "_");
		p = end + 1;
	}
	return p;
}

int cgfb_catalog_render(const struct cgfb_entry *e, const char *const *names,
			const char *const *values, size_t n, char *out, size_t outsz)
{
	struct cgfb_buf b = { 0 }, opt = { 0 };
	const char *p;
	bool complete;
	int rc = 0;

	if (outsz)
		out[0] = '\0';
	if (!e->message)
		return -ENOENT;
	p = e->message;
	while (*p) {
		if (*p != '[') {
			p = render_part(p, '[', names, values, n, &b, &complete);
			continue;
		}
		opt.len = 0;
		p = render_part(p + 1, ']', names, values, n, &opt, &complete);
		if (complete && opt.len)
			cgfb_buf_add(&b, opt.data, opt.len);
		if (*p == ']')
			p++;
	}
	if (b.len >= outsz)
		rc = -ENOSPC;
	if (outsz)
		snprintf(out, outsz, "%s", b.data ? b.data : "");
	cgfb_buf_free(&b);
	cgfb_buf_free(&opt);
	return rc;
}
