#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgfb/canon.h"
#include "cgfb/schema.h"

extern const char cgfb_report_schema_json[];
extern const size_t cgfb_report_schema_json_len;

#define PATH_MAX_LEN 256
#define REF_DEPTH_MAX 32

struct cgfb_schema {
	json_object *root;
	json_object *defs;
	char sha256[65];
};

struct ctx {
	const struct cgfb_schema *s;
	char *err;
	size_t errsz;
	bool quiet;          /* inside anyOf: failures are expected */
	int depth;
};

static const char *const known_keywords[] = {
	"$schema", "$id", "title", "description", "$defs", "type", "properties", "required",
	"additionalProperties", "propertyNames", "maxProperties", "items", "maxItems", "minimum",
	"maximum", "maxLength", "pattern", "const", "enum", "anyOf", "$ref",
};

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

static void free_regex(json_object *o, void *ud)
{
	(void)o;
	regfree(ud);
	free(ud);
}

/* Check keywords and compile every pattern once, kept as user data on the
 * pattern string itself. */
static int prepare(json_object *node, char *err, size_t errsz)
{
	if (json_object_is_type(node, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(node); i++) {
			const int rc = prepare(json_object_array_get_idx(node, i), err, errsz);

			if (rc < 0)
				return rc;
		}
		return 0;
	}
	if (!json_object_is_type(node, json_type_object))
		return 0;
	json_object_object_foreach(node, key, val) {
		size_t k = 0;

		while (k < sizeof(known_keywords) / sizeof(known_keywords[0]) &&
		       strcmp(known_keywords[k], key) != 0)
			k++;
		if (k == sizeof(known_keywords) / sizeof(known_keywords[0])) {
			snprintf(err, errsz, "schema uses unsupported keyword '%s'", key);
			return -ENOTSUP;
		}
		if (strcmp(key, "pattern") == 0) {
			regex_t *re = malloc(sizeof(*re));

			if (!re)
				return -ENOMEM;
			if (regcomp(re, json_object_get_string(val), REG_EXTENDED | REG_NOSUB) != 0) {
				free(re);
				snprintf(err, errsz, "schema pattern does not compile: %s",
					 json_object_get_string(val));
				return -EINVAL;
			}
			json_object_set_userdata(val, re, free_regex);
			continue;
		}
		if (strcmp(key, "properties") == 0 || strcmp(key, "$defs") == 0) {
			json_object_object_foreach(val, name, sub) {
				(void)name;
				const int rc = prepare(sub, err, errsz);

				if (rc < 0)
					return rc;
			}
			continue;
		}
		if (strcmp(key, "const") == 0 || strcmp(key, "enum") == 0)
			continue;
		const int rc = prepare(val, err, errsz);

		if (rc < 0)
			return rc;
	}
	return 0;
}

int cgfb_schema_load_buffer(struct cgfb_schema **out, const char *json, size_t len, char *err,
			    size_t errsz)
{
	struct cgfb_schema *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		return -ENOMEM;
	s->root = json_tokener_parse(json);
	if (!s->root || !json_object_is_type(s->root, json_type_object)) {
		snprintf(err, errsz, "schema is not a JSON object");
		rc = -EINVAL;
		goto fail;
	}
	json_object_object_get_ex(s->root, "$defs", &s->defs);
	rc = prepare(s->root, err, errsz);
	if (rc < 0)
		goto fail;
	cgfb_sha256_hex(json, len, s->sha256);
	*out = s;
	return 0;
fail:
	cgfb_schema_free(s);
	return rc;
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
	json_object_put(s->root);
	free(s);
}

const char *cgfb_schema_sha256(const struct cgfb_schema *s)
{
	return s->sha256;
}

static int validate(struct ctx *c, json_object *schema, json_object *doc, const char *path);

static size_t codepoints(const char *s, size_t n)
{
	size_t cps = 0;

	for (size_t i = 0; i < n; i++)
		cps += ((unsigned char)s[i] & 0xc0) != 0x80;
	return cps;
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

static bool type_ok(const char *want, json_object *doc)
{
	const char *have = type_name(doc);

	if (strcmp(want, "number") == 0)
		return strcmp(have, "integer") == 0 || strcmp(have, "number") == 0;
	return strcmp(want, have) == 0;
}

static int check_ref(struct ctx *c, json_object *ref, json_object *doc, const char *path)
{
	const char *r = json_object_get_string(ref);
	json_object *target;

	if (strncmp(r, "#/$defs/", 8) != 0 || !c->s->defs ||
	    !json_object_object_get_ex(c->s->defs, r + 8, &target))
		return fail(c, path, "schema error: unresolvable $ref %s", r);
	if (++c->depth > REF_DEPTH_MAX)
		return fail(c, path, "schema error: $ref nesting too deep");
	const int rc = validate(c, target, doc, path);

	c->depth--;
	return rc;
}

static int check_any_of(struct ctx *c, json_object *alts, json_object *doc, const char *path)
{
	const bool was_quiet = c->quiet;

	c->quiet = true;
	for (size_t i = 0; i < json_object_array_length(alts); i++)
		if (validate(c, json_object_array_get_idx(alts, i), doc, path) == 0) {
			c->quiet = was_quiet;
			return 0;
		}
	c->quiet = was_quiet;
	/* Say which alternative came closest: re-run the last non-null one. */
	for (size_t i = json_object_array_length(alts); i-- > 0;) {
		json_object *alt = json_object_array_get_idx(alts, i), *t;

		if (json_object_object_get_ex(alt, "type", &t) &&
		    strcmp(json_object_get_string(t), "null") == 0)
			continue;
		if (json_object_is_type(doc, json_type_null))
			break;
		return validate(c, alt, doc, path);
	}
	return fail(c, path, "has none of the allowed forms");
}

static int check_string(struct ctx *c, json_object *schema, json_object *doc, const char *path)
{
	const char *s = json_object_get_string(doc);
	const size_t n = (size_t)json_object_get_string_len(doc);
	json_object *v;

	if (json_object_object_get_ex(schema, "maxLength", &v) &&
	    codepoints(s, n) > (size_t)json_object_get_int64(v))
		return fail(c, path, "longer than %" PRId64 " characters", json_object_get_int64(v));
	if (json_object_object_get_ex(schema, "pattern", &v)) {
		regex_t *re = json_object_get_userdata(v);

		if (strlen(s) != n || regexec(re, s, 0, NULL, 0) != 0)
			return fail(c, path, "does not match %s", json_object_get_string(v));
	}
	return 0;
}

static int check_integer(struct ctx *c, json_object *schema, json_object *doc, const char *path)
{
	const int64_t x = json_object_get_int64(doc);
	json_object *v;

	if (json_object_object_get_ex(schema, "minimum", &v) && x < json_object_get_int64(v))
		return fail(c, path, "below the minimum %" PRId64, json_object_get_int64(v));
	if (json_object_object_get_ex(schema, "maximum", &v) && x > json_object_get_int64(v))
		return fail(c, path, "above the maximum %" PRId64, json_object_get_int64(v));
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

static int check_object(struct ctx *c, json_object *schema, json_object *doc, const char *path)
{
	json_object *props = NULL, *req, *addl = NULL, *names, *v;
	char sub[PATH_MAX_LEN];
	int rc;

	json_object_object_get_ex(schema, "properties", &props);
	json_object_object_get_ex(schema, "additionalProperties", &addl);
	if (json_object_object_get_ex(schema, "maxProperties", &v) &&
	    json_object_object_length(doc) > json_object_get_int(v))
		return fail(c, path, "more than %d members", json_object_get_int(v));
	if (json_object_object_get_ex(schema, "required", &req))
		for (size_t i = 0; i < json_object_array_length(req); i++) {
			const char *k = json_object_get_string(json_object_array_get_idx(req, i));

			if (!json_object_object_get_ex(doc, k, NULL)) {
				join(sub, path, k);
				return fail(c, sub, "is required");
			}
		}
	json_object_object_foreach(doc, key, val) {
		json_object *ps = NULL;

		join(sub, path, key);
		if (json_object_object_get_ex(schema, "propertyNames", &names)) {
			struct json_object *name = json_object_new_string(key);

			rc = validate(c, names, name, sub);
			json_object_put(name);
			if (rc < 0)
				return rc;
		}
		if (props && json_object_object_get_ex(props, key, &ps)) {
			rc = validate(c, ps, val, sub);
		} else if (addl && json_object_is_type(addl, json_type_boolean)) {
			rc = json_object_get_boolean(addl) ? 0 : fail(c, sub, "is not allowed here");
		} else if (addl) {
			rc = validate(c, addl, val, sub);
		} else {
			rc = 0;
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int check_array(struct ctx *c, json_object *schema, json_object *doc, const char *path)
{
	const size_t n = json_object_array_length(doc);
	json_object *v, *items;
	char sub[PATH_MAX_LEN], idx[24];

	if (json_object_object_get_ex(schema, "maxItems", &v) && n > (size_t)json_object_get_int64(v))
		return fail(c, path, "more than %" PRId64 " items", json_object_get_int64(v));
	if (!json_object_object_get_ex(schema, "items", &items))
		return 0;
	for (size_t i = 0; i < n; i++) {
		snprintf(idx, sizeof(idx), "%zu", i);
		join(sub, path, idx);
		const int rc = validate(c, items, json_object_array_get_idx(doc, i), sub);

		if (rc < 0)
			return rc;
	}
	return 0;
}

static int check_enum(struct ctx *c, json_object *schema, json_object *doc, const char *path)
{
	json_object *v;

	if (json_object_object_get_ex(schema, "const", &v) && !json_object_equal(v, doc))
		return fail(c, path, "must be %s", json_object_to_json_string(v));
	if (json_object_object_get_ex(schema, "enum", &v)) {
		for (size_t i = 0; i < json_object_array_length(v); i++)
			if (json_object_equal(json_object_array_get_idx(v, i), doc))
				return 0;
		return fail(c, path, "must be one of %s",
			    json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
	}
	return 0;
}

static int validate(struct ctx *c, json_object *schema, json_object *doc, const char *path)
{
	json_object *v;
	int rc;

	if (json_object_object_get_ex(schema, "$ref", &v) && (rc = check_ref(c, v, doc, path)) < 0)
		return rc;
	if (json_object_object_get_ex(schema, "anyOf", &v) &&
	    (rc = check_any_of(c, v, doc, path)) < 0)
		return rc;
	if (json_object_object_get_ex(schema, "type", &v) &&
	    !type_ok(json_object_get_string(v), doc))
		return fail(c, path, "must be of type %s, not %s", json_object_get_string(v),
			    type_name(doc));
	if ((rc = check_enum(c, schema, doc, path)) < 0)
		return rc;
	switch (json_object_get_type(doc)) {
	case json_type_string:
		return check_string(c, schema, doc, path);
	case json_type_int:
		return check_integer(c, schema, doc, path);
	case json_type_object:
		return check_object(c, schema, doc, path);
	case json_type_array:
		return check_array(c, schema, doc, path);
	default:
		return 0;
	}
}

int cgfb_schema_validate(const struct cgfb_schema *s, json_object *doc, char *err, size_t errsz)
{
	struct ctx c = { .s = s, .err = err, .errsz = errsz };

	if (errsz)
		err[0] = '\0';
	return validate(&c, s->root, doc, "");
}
