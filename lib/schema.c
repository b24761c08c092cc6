/* The report schema check (schema.h): the subset of JSON Schema 2020-12
 * that docs/report.schema.json uses, compiled once and then run on each
 * report, by the client before a report is written and by the collector
 * before one is stored. Over 600 lines, on purpose: the compiler and the
 * validator share the compiled node, private to this file. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "cgfb/sha256.h"
#include "cgfb/schema.h"

extern const char cgfb_report_schema_json[];
extern const size_t cgfb_report_schema_json_len;

#define PATH_MAX_LEN 256
#define REF_DEPTH_MAX 32

/* JSON types as a bit set; "number" is integer or double. */
enum {
	T_NULL = 1 << 0, T_BOOLEAN = 1 << 1, T_INTEGER = 1 << 2, T_DOUBLE = 1 << 3,
	T_STRING = 1 << 4, T_ARRAY = 1 << 5, T_OBJECT = 1 << 6,
};

enum addl { ADDL_ANY, ADDL_NONE, ADDL_SCHEMA };

struct prop {
	const char *name;
	struct node *node;
};

/* One schema object, compiled: the keywords looked up once at load, not
 * for every member of every report the collector receives. Strings point
 * into the parsed schema, which lives as long as the nodes. */
struct node {
	struct node *ref;
	struct node **any_of;
	size_t n_any_of;
	unsigned types;             /* 0: no "type" */
	const char *type_text;
	json_object *konst, *enumv;
	/* strings */
	int64_t max_length;         /* < 0: none */
	pcre2_code *pattern;
	const char *pattern_text;
	bool date_time;             /* "format": "date-time", asserted */
	/* integers */
	bool has_min, has_max;
	int64_t min, max;
	/* objects */
	struct prop *props;         /* sorted by name */
	size_t n_props;
	const char **required;
	size_t n_required;
	enum addl addl;
	struct node *addl_node;
	struct node *names;
	int64_t max_props;          /* < 0: none */
	/* arrays */
	int64_t max_items;          /* < 0: none */
	struct node *items;
	struct node *next;          /* every node, for freeing */
};

struct def_node {
	const char *name;           /* borrowed from root */
	const struct node *node;
};

struct cgfb_schema {
	json_object *root;
	json_object *defs;
	struct node *top;
	size_t n_defs;
	struct def_node *def_nodes;
	struct node *nodes;
	char sha256[65];
};

struct ctx {
	char *err;
	size_t errsz;
	bool quiet;          /* inside anyOf: failures are expected */
	int depth;
	pcre2_match_data *md;  /* scratch for every pattern match */
};

static const char *const known_keywords[] = {
	"$schema", "$id", "title", "description", "$defs", "type", "properties", "required",
	"additionalProperties", "propertyNames", "maxProperties", "items", "maxItems", "minimum",
	"maximum", "maxLength", "pattern", "const", "enum", "anyOf", "$ref", "format",
};

/* ---- loading ---------------------------------------------------------- */

struct loader {
	struct cgfb_schema *s;
	char *err;
	size_t errsz;
	int rc;
};

static int load_fail(struct loader *l, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int load_fail(struct loader *l, int rc, const char *fmt, ...)
{
	va_list ap;

	if (l->rc)
		return l->rc;
	va_start(ap, fmt);
	vsnprintf(l->err, l->errsz, fmt, ap);
	va_end(ap);
	return l->rc = rc;
}

static struct node *compile(struct loader *l, json_object *js);

static unsigned type_bits(const char *t)
{
	static const struct { const char *name; unsigned bits; } types[] = {
		{ "null", T_NULL }, { "boolean", T_BOOLEAN }, { "integer", T_INTEGER },
		{ "number", T_INTEGER | T_DOUBLE }, { "string", T_STRING }, { "array", T_ARRAY },
		{ "object", T_OBJECT },
	};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(types[i].name, t) == 0)
			return types[i].bits;
	return 0;
}

static int prop_cmp(const void *a, const void *b)
{
	return strcmp(((const struct prop *)a)->name, ((const struct prop *)b)->name);
}

/* n zeroed items of size bytes (never a NULL for n == 0), or NULL after
 * recording the failure. */
static void *load_array(struct loader *l, size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		load_fail(l, -ENOMEM, "out of memory");
	return p;
}

static void compile_props(struct loader *l, struct node *n, json_object *v)
{
	const size_t len = (size_t)json_object_object_length(v);
	size_t i = 0;

	n->props = load_array(l, len, sizeof(*n->props));
	if (!n->props)
		return;
	n->n_props = len;
	json_object_object_foreach(v, name, sub) {
		n->props[i].name = name;
		n->props[i++].node = compile(l, sub);
	}
	qsort(n->props, n->n_props, sizeof(*n->props), prop_cmp);
}

static void compile_required(struct loader *l, struct node *n, json_object *v)
{
	const size_t len = json_object_array_length(v);

	n->required = load_array(l, len, sizeof(*n->required));
	if (!n->required)
		return;
	n->n_required = len;
	for (size_t i = 0; i < n->n_required; i++)
		n->required[i] = json_object_get_string(json_object_array_get_idx(v, i));
}

static void compile_any_of(struct loader *l, struct node *n, json_object *v)
{
	const size_t len = json_object_array_length(v);

	n->any_of = load_array(l, len, sizeof(*n->any_of));
	if (!n->any_of)
		return;
	n->n_any_of = len;
	for (size_t i = 0; i < n->n_any_of; i++)
		n->any_of[i] = compile(l, json_object_array_get_idx(v, i));
}

/* "#" is the whole schema: the sent report is the report and more. */
static void compile_ref(struct loader *l, struct node *n, json_object *v)
{
	const char *r = json_object_get_string(v);
	json_object *target;

	if (strcmp(r, "#") == 0) {
		n->ref = compile(l, l->s->root);
		return;
	}
	if (strncmp(r, "#/$defs/", 8) != 0 || !l->s->defs ||
	    !json_object_object_get_ex(l->s->defs, r + 8, &target)) {
		load_fail(l, -EINVAL, "schema has an unresolvable $ref %s", r);
		return;
	}
	n->ref = compile(l, target);
}

/* JSON Schema patterns are ECMA-262 expressions, which PCRE2 follows far
 * more closely than POSIX regcomp(3) (and it is several times faster on
 * the bounded repetitions the schema is full of). DOLLAR_ENDONLY: "$"
 * must not accept a value with a trailing newline. UTF: a class of code
 * points, not bytes, as ECMA-262 and Python read it: free text refuses the
 * C1 controls \x80-\x9f (two bytes in UTF-8, whose second byte alone is
 * no control) and the bidi controls. ALT_BSUX: ECMA-262's \uXXXX. A value
 * that is not UTF-8 matches no pattern. No JIT: the units set
 * MemoryDenyWriteExecute, and the interpreter is fast enough. */
static void compile_pattern(struct loader *l, struct node *n, json_object *v)
{
	PCRE2_SIZE at;
	int code;

	n->pattern_text = json_object_get_string(v);
	n->pattern = pcre2_compile((PCRE2_SPTR)n->pattern_text, PCRE2_ZERO_TERMINATED,
				   PCRE2_DOLLAR_ENDONLY | PCRE2_UTF | PCRE2_ALT_BSUX, &code, &at,
				   NULL);
	if (!n->pattern)
		load_fail(l, -EINVAL, "schema pattern does not compile: %s", n->pattern_text);
}

/* A format is an annotation unless the validator asserts it (2020-12);
 * this one asserts the only format the report uses and refuses to load
 * any other, which it would otherwise silently let through. */
static void compile_format(struct loader *l, struct node *n, json_object *v)
{
	const char *f = json_object_get_string(v);

	if (strcmp(f, "date-time") != 0) {
		load_fail(l, -ENOTSUP, "schema uses unsupported format '%s'", f);
		return;
	}
	n->date_time = true;
}

static void compile_keyword(struct loader *l, struct node *n, const char *key, json_object *v)
{
	if (strcmp(key, "$ref") == 0) {
		compile_ref(l, n, v);
	} else if (strcmp(key, "anyOf") == 0) {
		compile_any_of(l, n, v);
	} else if (strcmp(key, "type") == 0) {
		n->type_text = json_object_get_string(v);
		n->types = type_bits(n->type_text);
		if (!n->types)
			load_fail(l, -ENOTSUP, "schema uses unsupported type '%s'", n->type_text);
	} else if (strcmp(key, "const") == 0) {
		n->konst = v;
	} else if (strcmp(key, "enum") == 0) {
		n->enumv = v;
	} else if (strcmp(key, "maxLength") == 0) {
		n->max_length = json_object_get_int64(v);
	} else if (strcmp(key, "pattern") == 0) {
		compile_pattern(l, n, v);
	} else if (strcmp(key, "format") == 0) {
		compile_format(l, n, v);
	} else if (strcmp(key, "minimum") == 0) {
		n->has_min = true;
		n->min = json_object_get_int64(v);
	} else if (strcmp(key, "maximum") == 0) {
		n->has_max = true;
		n->max = json_object_get_int64(v);
	} else if (strcmp(key, "properties") == 0) {
		compile_props(l, n, v);
	} else if (strcmp(key, "required") == 0) {
		compile_required(l, n, v);
	} else if (strcmp(key, "additionalProperties") == 0) {
		if (json_object_is_type(v, json_type_boolean)) {
			n->addl = json_object_get_boolean(v) ? ADDL_ANY : ADDL_NONE;
		} else {
			n->addl = ADDL_SCHEMA;
			n->addl_node = compile(l, v);
		}
	} else if (strcmp(key, "propertyNames") == 0) {
		n->names = compile(l, v);
	} else if (strcmp(key, "maxProperties") == 0) {
		n->max_props = json_object_get_int64(v);
	} else if (strcmp(key, "maxItems") == 0) {
		n->max_items = json_object_get_int64(v);
	} else if (strcmp(key, "items") == 0) {
		n->items = compile(l, v);
	}
	/* $schema, $id, title, description: nothing to check; $defs: compiled
	 * where referenced. */
}

static bool known_keyword(const char *key)
{
	for (size_t k = 0; k < sizeof(known_keywords) / sizeof(known_keywords[0]); k++)
		if (strcmp(known_keywords[k], key) == 0)
			return true;
	return false;
}

/* Each schema object becomes one node, remembered as the object's user
 * data: a definition referenced from many places, or from itself, is
 * compiled once. */
static struct node *compile(struct loader *l, json_object *js)
{
	struct node *n;

	if (l->rc)
		return NULL;
	if (!json_object_is_type(js, json_type_object)) {
		load_fail(l, -EINVAL, "schema: a subschema is not an object");
		return NULL;
	}
	n = json_object_get_userdata(js);
	if (n)
		return n;
	n = calloc(1, sizeof(*n));
	if (!n) {
		load_fail(l, -ENOMEM, "out of memory");
		return NULL;
	}
	n->max_length = n->max_props = n->max_items = -1;
	n->next = l->s->nodes;
	l->s->nodes = n;
	json_object_set_userdata(js, n, NULL);
	json_object_object_foreach(js, key, val) {
		if (!known_keyword(key)) {
			load_fail(l, -ENOTSUP, "schema uses unsupported keyword '%s'", key);
			return NULL;
		}
		compile_keyword(l, n, key, val);
	}
	return n;
}

static void free_nodes(struct node *n)
{
	while (n) {
		struct node *next = n->next;

		pcre2_code_free(n->pattern);
		free(n->props);
		free(n->required);
		free(n->any_of);
		free(n);
		n = next;
	}
}

int cgfb_schema_load_buffer(struct cgfb_schema **out, const char *json, size_t len, char *err,
			    size_t errsz)
{
	struct cgfb_schema *s = calloc(1, sizeof(*s));
	struct loader l = { .s = s, .err = err, .errsz = errsz };

	if (!s)
		return -ENOMEM;
	s->root = json_tokener_parse(json);
	if (!s->root || !json_object_is_type(s->root, json_type_object)) {
		snprintf(err, errsz, "schema is not a JSON object");
		l.rc = -EINVAL;
		goto fail;
	}
	json_object_object_get_ex(s->root, "$defs", &s->defs);
	s->top = compile(&l, s->root);
	/* Definitions nobody refers to are still checked. */
	if (s->defs && json_object_is_type(s->defs, json_type_object)) {
		s->def_nodes = calloc((size_t)json_object_object_length(s->defs) + 1,
				      sizeof(*s->def_nodes));
		if (!s->def_nodes) {
			l.rc = -ENOMEM;
			goto fail;
		}
		json_object_object_foreach(s->defs, name, def)
			s->def_nodes[s->n_defs++] = (struct def_node){ name, compile(&l, def) };
	}
	if (l.rc)
		goto fail;
	cgfb_sha256_hex(json, len, s->sha256);
	*out = s;
	return 0;
fail:
	cgfb_schema_free(s);
	return l.rc;
}

int cgfb_schema_load_builtin(struct cgfb_schema **out, char *err, size_t errsz)
{
	return cgfb_schema_load_buffer(out, cgfb_report_schema_json, cgfb_report_schema_json_len,
				       err, errsz);
}

void cgfb_schema_free(struct cgfb_schema *s)
{
	if (!s)
		return;
	free_nodes(s->nodes);
	free(s->def_nodes);
	json_object_put(s->root);
	free(s);
}

const char *cgfb_schema_sha256(const struct cgfb_schema *s)
{
	return s->sha256;
}

/* ---- validating ------------------------------------------------------- */

static int fail(struct ctx *c, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct ctx *c, const char *path, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (c->quiet)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errsz, "%s: %s", *path ? path : "/", msg);
	return -EINVAL;
}

static int validate(struct ctx *c, const struct node *n, json_object *doc, const char *path);

static size_t codepoints(const char *s, size_t n)
{
	size_t cps = 0;

	for (size_t i = 0; i < n; i++)
		cps += ((unsigned char)s[i] & 0xc0) != 0x80;
	return cps;
}

static unsigned doc_type(json_object *doc)
{
	switch (json_object_get_type(doc)) {
	case json_type_null: return T_NULL;
	case json_type_boolean: return T_BOOLEAN;
	case json_type_int: return T_INTEGER;
	case json_type_double: return T_DOUBLE;
	case json_type_string: return T_STRING;
	case json_type_array: return T_ARRAY;
	case json_type_object: return T_OBJECT;
	}
	return 0;
}

static const char *type_name(json_object *doc)
{
	switch (json_object_get_type(doc)) {
	case json_type_null: return "null";
	case json_type_boolean: return "boolean";
	case json_type_int: return "integer";
	case json_type_double: return "number";
	case json_type_string: return "string";
	case json_type_array: return "array";
	case json_type_object: return "object";
	}
	return "?";
}

static int check_ref(struct ctx *c, const struct node *n, json_object *doc, const char *path)
{
	int rc;

	if (++c->depth > REF_DEPTH_MAX)
		return fail(c, path, "schema error: $ref nesting too deep");
	rc = validate(c, n->ref, doc, path);
	c->depth--;
	return rc;
}

static int check_any_of(struct ctx *c, const struct node *n, json_object *doc, const char *path)
{
	const bool was_quiet = c->quiet;

	c->quiet = true;
	for (size_t i = 0; i < n->n_any_of; i++)
		if (validate(c, n->any_of[i], doc, path) == 0) {
			c->quiet = was_quiet;
			return 0;
		}
	c->quiet = was_quiet;
	/* Say which alternative came closest: re-run the last non-null one. */
	for (size_t i = n->n_any_of; i-- > 0;) {
		if (n->any_of[i]->types == T_NULL)
			continue;
		if (json_object_is_type(doc, json_type_null))
			break;
		return validate(c, n->any_of[i], doc, path);
	}
	return fail(c, path, "has none of the allowed forms");
}

static bool leap_year(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* The number in the n digits at s, or -1 when one is not a digit. */
static int digits(const char *s, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* RFC 3339's date-time as the schema's utc_time writes it
 * (YYYY-MM-DDTHH:MM:SSZ), its date a real calendar day: no 02-30, and
 * 02-29 in leap years only, which no pattern can say. */
static bool real_date_time(const char *s, size_t len)
{
	static const int mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int y, m, d;

	if (len != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
	    s[16] != ':' || s[19] != 'Z')
		return false;
	y = digits(s, 4);
	m = digits(s + 5, 2);
	d = digits(s + 8, 2);
	if (y < 0 || m < 1 || m > 12 || d < 1 || digits(s + 11, 2) > 23 ||
	    digits(s + 14, 2) > 59 || digits(s + 17, 2) > 60)
		return false;
	if (digits(s + 11, 2) < 0 || digits(s + 14, 2) < 0 || digits(s + 17, 2) < 0)
		return false;
	return d <= mdays[m - 1] + (m == 2 && leap_year(y));
}

static int check_str(struct ctx *c, const struct node *n, const char *s, size_t len,
		     const char *path)
{
	if (n->max_length >= 0 && codepoints(s, len) > (size_t)n->max_length)
		return fail(c, path, "longer than %" PRId64 " characters", n->max_length);
	/* A NUL would end the value early wherever it is copied as a C string
	 * (the collector's columns): no pattern accepts one. */
	if (n->pattern && strlen(s) != len)
		return fail(c, path, "holds a NUL character");
	if (n->pattern && pcre2_match(n->pattern, (PCRE2_SPTR)s, len, 0, 0, c->md, NULL) < 0)
		return fail(c, path, "does not match %s", n->pattern_text);
	if (n->date_time && !real_date_time(s, len))
		return fail(c, path, "is not a real date and time");
	return 0;
}

static int check_integer(struct ctx *c, const struct node *n, json_object *doc, const char *path)
{
	const int64_t x = json_object_get_int64(doc);

	if (n->has_min && x < n->min)
		return fail(c, path, "below the minimum %" PRId64, n->min);
	if (n->has_max && x > n->max)
		return fail(c, path, "above the maximum %" PRId64, n->max);
	return 0;
}

/* path + "/" + key (at most 64 bytes of it), cut to PATH_MAX_LEN. Runs for
 * every member of every report, so no printf: the collector's throughput
 * depends on it. */
static void join(char *out, const char *path, const char *key)
{
	size_t p = strnlen(path, PATH_MAX_LEN - 1);
	size_t k = strnlen(key, 64);

	memcpy(out, path, p);
	if (p + 1 < PATH_MAX_LEN)
		out[p++] = '/';
	if (k > PATH_MAX_LEN - 1 - p)
		k = PATH_MAX_LEN - 1 - p;
	memcpy(out + p, key, k);
	out[p + k] = '\0';
}

static const struct node *find_prop(const struct node *n, const char *key)
{
	const struct prop want = { .name = key };
	const struct prop *p = bsearch(&want, n->props, n->n_props, sizeof(*n->props), prop_cmp);

	return p ? p->node : NULL;
}

/* A member name checked against propertyNames. Names are strings: a plain
 * string schema is checked on the C string, anything else on a JSON copy. */
static int check_name(struct ctx *c, const struct node *names, const char *key, const char *path)
{
	json_object *name;
	int rc;

	if (!names->ref && !names->any_of && !names->konst && !names->enumv &&
	    (!names->types || (names->types & T_STRING)))
		return check_str(c, names, key, strlen(key), path);
	name = json_object_new_string(key);
	if (!name)
		return fail(c, path, "out of memory");
	rc = validate(c, names, name, path);
	json_object_put(name);
	return rc;
}

static int check_member(struct ctx *c, const struct node *n, const char *key, json_object *val,
			const char *path)
{
	const struct node *ps;
	int rc;

	if (n->names && (rc = check_name(c, n->names, key, path)) < 0)
		return rc;
	ps = n->n_props ? find_prop(n, key) : NULL;
	if (ps)
		return validate(c, ps, val, path);
	switch (n->addl) {
	case ADDL_NONE:
		return fail(c, path, "is not allowed here");
	case ADDL_SCHEMA:
		return validate(c, n->addl_node, val, path);
	case ADDL_ANY:
		break;
	}
	return 0;
}

static int check_object(struct ctx *c, const struct node *n, json_object *doc, const char *path)
{
	char sub[PATH_MAX_LEN];
	int rc;

	if (n->max_props >= 0 && json_object_object_length(doc) > n->max_props)
		return fail(c, path, "more than %" PRId64 " members", n->max_props);
	for (size_t i = 0; i < n->n_required; i++)
		if (!json_object_object_get_ex(doc, n->required[i], NULL)) {
			join(sub, path, n->required[i]);
			return fail(c, sub, "is required");
		}
	json_object_object_foreach(doc, key, val) {
		join(sub, path, key);
		rc = check_member(c, n, key, val, sub);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int check_array(struct ctx *c, const struct node *n, json_object *doc, const char *path)
{
	const size_t len = json_object_array_length(doc);
	char sub[PATH_MAX_LEN], idx[24];

	if (n->max_items >= 0 && len > (size_t)n->max_items)
		return fail(c, path, "more than %" PRId64 " items", n->max_items);
	if (!n->items)
		return 0;
	for (size_t i = 0; i < len; i++) {
		snprintf(idx, sizeof(idx), "%zu", i);
		join(sub, path, idx);
		const int rc = validate(c, n->items, json_object_array_get_idx(doc, i), sub);

		if (rc < 0)
			return rc;
	}
	return 0;
}

static int check_enum(struct ctx *c, const struct node *n, json_object *doc, const char *path)
{
	if (n->konst && !json_object_equal(n->konst, doc))
		return fail(c, path, "must be %s", json_object_to_json_string(n->konst));
	if (n->enumv) {
		for (size_t i = 0; i < json_object_array_length(n->enumv); i++)
			if (json_object_equal(json_object_array_get_idx(n->enumv, i), doc))
				return 0;
		return fail(c, path, "must be one of %s",
			    json_object_to_json_string_ext(n->enumv, JSON_C_TO_STRING_PLAIN));
	}
	return 0;
}

static int validate(struct ctx *c, const struct node *n, json_object *doc, const char *path)
{
	int rc;

	if (n->ref && (rc = check_ref(c, n, doc, path)) < 0)
		return rc;
	if (n->any_of && (rc = check_any_of(c, n, doc, path)) < 0)
		return rc;
	if (n->types && !(n->types & doc_type(doc)))
		return fail(c, path, "must be of type %s, not %s", n->type_text, type_name(doc));
	if ((n->konst || n->enumv) && (rc = check_enum(c, n, doc, path)) < 0)
		return rc;
	switch (json_object_get_type(doc)) {
	case json_type_string:
		return check_str(c, n, json_object_get_string(doc),
				 (size_t)json_object_get_string_len(doc), path);
	case json_type_int:
		return check_integer(c, n, doc, path);
	case json_type_object:
		return check_object(c, n, doc, path);
	case json_type_array:
		return check_array(c, n, doc, path);
	default:
		return 0;
	}
}

static const struct node *find_def(const struct cgfb_schema *s, const char *def)
{
	for (size_t i = 0; i < s->n_defs; i++)
		if (strcmp(s->def_nodes[i].name, def) == 0)
			return s->def_nodes[i].node;
	return NULL;
}

/* One run of the validator from node n; quiet when err is NULL. */
static int run(const struct node *n, json_object *doc, char *err, size_t errsz)
{
	struct ctx c = { .err = err, .errsz = errsz, .quiet = !err };
	int rc;

	if (err && errsz)
		err[0] = '\0';
	c.md = pcre2_match_data_create(1, NULL);
	if (!c.md) {
		if (err)
			snprintf(err, errsz, "/: out of memory");
		return -ENOMEM;
	}
	rc = validate(&c, n, doc, "");
	pcre2_match_data_free(c.md);
	return rc;
}

int cgfb_schema_validate(const struct cgfb_schema *s, json_object *doc, char *err, size_t errsz)
{
	return run(s->top, doc, err, errsz);
}

int cgfb_schema_validate_sent(const struct cgfb_schema *s, json_object *doc, char *err,
			      size_t errsz)
{
	const struct node *n = find_def(s, "sent_report");

	if (!n) {
		snprintf(err, errsz, "/: the schema has no $defs/sent_report");
		return -ENOENT;
	}
	return run(n, doc, err, errsz);
}

int cgfb_schema_check_def(const struct cgfb_schema *s, const char *def, json_object *value)
{
	const struct node *n = find_def(s, def);

	return n ? run(n, value, NULL, 0) : -ENOENT;
}

int cgfb_schema_check_word(const struct cgfb_schema *s, const char *def, const char *word)
{
	json_object *v = json_object_new_string(word);
	int rc;

	if (!v)
		return -ENOMEM;
	rc = cgfb_schema_check_def(s, def, v);
	json_object_put(v);
	return rc;
}
