#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "privacy/allowlist.h"
#include "cgfb/readfile.h"

#define ALLOWLIST_FILE_MAX (1u << 20)
#define LITERAL_PREFIX_MAX 32

extern const char cgfb_allowlist_json[];

struct rule {
	regex_t re;
	char *as;
	/* The fixed start of the pattern: most names fail this strncmp and
	 * never reach regexec, which keeps 50,000-node walks quick. */
	char prefix[LITERAL_PREFIX_MAX];
	size_t prefix_len;
};

struct words {
	size_t n, cap;
	char **w;
};

struct cgfb_allowlist {
	struct words names, comms;
	size_t n_rules, cap_rules;
	struct rule *rules;
};

static int fail(char *err, size_t errsz, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errsz, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errsz, fmt, ap);
	va_end(ap);
	return rc;
}

bool cgfb_name_shape_ok(const char *s, size_t len)
{
	if (len == 0 || len > CGFB_NAME_MAX)
		return false;
	if (!((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')))
		return false;
	for (size_t i = 1; i < len; i++) {
		const char c = s[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      strchr("_.@:-", c)))
			return false;
	}
	return true;
}

static int words_add(struct words *w, const char *s)
{
	if (w->n == w->cap) {
		const size_t cap = w->cap ? w->cap * 2 : 64;
		char **nw = realloc(w->w, cap * sizeof(*nw));

		if (!nw)
			return -ENOMEM;
		w->w = nw;
		w->cap = cap;
	}
	w->w[w->n] = strdup(s);
	return w->w[w->n++] ? 0 : -ENOMEM;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The stored copy of s (len bytes), or NULL. */
static const char *words_find(const struct words *w, const char *s, size_t len)
{
	size_t lo = 0, hi = w->n;

	while (lo < hi) {
		const size_t mid = (lo + hi) / 2;
		int c = strncmp(w->w[mid], s, len);

		if (c == 0 && w->w[mid][len] != '\0')
			c = 1;
		if (c == 0)
			return w->w[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void words_free(struct words *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->w[i]);
	free(w->w);
}

/* "^docker-[0-9a-f]{64}..." starts with the literal "docker-". */
static void literal_prefix(struct rule *r, const char *pattern)
{
	const char *p = pattern + 1;

	r->prefix_len = 0;
	while (*p && !strchr(".[]()*+?{}|\\^$", *p) && r->prefix_len + 1 < LITERAL_PREFIX_MAX)
		r->prefix[r->prefix_len++] = *p++;
	/* A quantifier applies to the character before it. */
	if (*p && strchr("*+?{", *p) && r->prefix_len)
		r->prefix_len--;
	r->prefix[r->prefix_len] = '\0';
}

static int add_rule(struct cgfb_allowlist *al, const char *match, const char *as, char *err,
		    size_t errsz)
{
	const size_t ml = strlen(match);
	struct rule *r;

	if (ml < 2 || match[0] != '^' || match[ml - 1] != '$')
		return fail(err, errsz, -EINVAL, "generalise \"%s\": must start with ^ and end with $",
			    match);
	if (!cgfb_name_shape_ok(as, strlen(as)))
		return fail(err, errsz, -EINVAL, "generalise \"%s\": \"as\" is not a report name",
			    match);
	if (al->n_rules == al->cap_rules) {
		const size_t cap = al->cap_rules ? al->cap_rules * 2 : 32;
		struct rule *nr = realloc(al->rules, cap * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		al->rules = nr;
		al->cap_rules = cap;
	}
	r = &al->rules[al->n_rules];
	if (regcomp(&r->re, match, REG_EXTENDED | REG_NOSUB) != 0)
		return fail(err, errsz, -EINVAL, "generalise \"%s\": does not compile", match);
	r->as = strdup(as);
	if (!r->as) {
		regfree(&r->re);
		return -ENOMEM;
	}
	literal_prefix(r, match);
	al->n_rules++;
	return 0;
}

static int add_words(json_object *doc, const char *key, struct words *w, char *err, size_t errsz)
{
	json_object *arr;

	if (!json_object_object_get_ex(doc, key, &arr))
		return 0;
	if (!json_object_is_type(arr, json_type_array))
		return fail(err, errsz, -EINVAL, "\"%s\" is not an array", key);
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *v = json_object_array_get_idx(arr, i);
		const char *s = json_object_get_string(v);
		int rc;

		if (!json_object_is_type(v, json_type_string) || !cgfb_name_shape_ok(s, strlen(s)))
			return fail(err, errsz, -EINVAL, "%s[%zu] is not a report name", key, i);
		rc = words_add(w, s);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int add_rules(json_object *doc, struct cgfb_allowlist *al, char *err, size_t errsz)
{
	json_object *arr;

	if (!json_object_object_get_ex(doc, "generalise", &arr))
		return 0;
	if (!json_object_is_type(arr, json_type_array))
		return fail(err, errsz, -EINVAL, "\"generalise\" is not an array");
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *r = json_object_array_get_idx(arr, i), *m, *as;
		int rc;

		if (!json_object_object_get_ex(r, "match", &m) ||
		    !json_object_object_get_ex(r, "as", &as) ||
		    !json_object_is_type(m, json_type_string) ||
		    !json_object_is_type(as, json_type_string))
			return fail(err, errsz, -EINVAL, "generalise[%zu] needs \"match\" and \"as\"",
				    i);
		rc = add_rule(al, json_object_get_string(m), json_object_get_string(as), err,
			      errsz);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int add_document(struct cgfb_allowlist *al, const char *json, char *err, size_t errsz)
{
	json_object *doc = json_tokener_parse(json);
	int rc;

	if (!doc || !json_object_is_type(doc, json_type_object)) {
		json_object_put(doc);
		return fail(err, errsz, -EINVAL, "not a JSON object");
	}
	rc = add_words(doc, "names", &al->names, err, errsz);
	if (rc == 0)
		rc = add_words(doc, "comms", &al->comms, err, errsz);
	if (rc == 0)
		rc = add_rules(doc, al, err, errsz);
	json_object_put(doc);
	return rc;
}

/* The plain form of cgroup-feedback.conf(5): one name per line, '#' comments. */
static int add_lines(struct cgfb_allowlist *al, char *text, char *err, size_t errsz)
{
	unsigned line = 0;
	char *save = NULL;

	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		size_t n;
		int rc;

		line++;
		while (*l == ' ' || *l == '\t')
			l++;
		n = strlen(l);
		while (n && (l[n - 1] == ' ' || l[n - 1] == '\t' || l[n - 1] == '\r'))
			l[--n] = '\0';
		if (n == 0 || l[0] == '#')
			continue;
		if (!cgfb_name_shape_ok(l, n))
			return fail(err, errsz, -EINVAL, "line %u: \"%s\" is not a report name", line,
				    l);
		rc = words_add(&al->names, l);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int add_file(struct cgfb_allowlist *al, const char *path, char *err, size_t errsz)
{
	struct cgfb_buf b = { 0 };
	char why[256] = "";
	int rc;

	rc = cgfb_read_file(path, ALLOWLIST_FILE_MAX, 0, &b);
	if (rc < 0) {
		fail(err, errsz, rc, "%s: %s", path, strerror(-rc));
		goto out;
	}
	if (b.data[strspn(b.data, " \t\r\n")] == '{')
		rc = add_document(al, b.data, why, sizeof(why));
	else
		rc = add_lines(al, b.data, why, sizeof(why));
	if (rc < 0)
		fail(err, errsz, rc, "%s: %s", path, why);
out:
	cgfb_buf_free(&b);
	return rc;
}

int cgfb_allowlist_load(struct cgfb_allowlist **out, const char *extra, char *err,
			size_t errsz)
{
	struct cgfb_allowlist *al = calloc(1, sizeof(*al));
	char why[256] = "";
	int rc;

	*out = NULL;
	if (!al)
		return fail(err, errsz, -ENOMEM, "out of memory");
	rc = add_document(al, cgfb_allowlist_json, why, sizeof(why));
	if (rc < 0) {
		fail(err, errsz, rc, "built-in allowlist: %s", why);
		goto out;
	}
	if (extra)
		rc = add_file(al, extra, err, errsz);
	if (rc < 0)
		goto out;
	if (al->names.n > 1)
		qsort(al->names.w, al->names.n, sizeof(char *), cmp_str);
	if (al->comms.n > 1)
		qsort(al->comms.w, al->comms.n, sizeof(char *), cmp_str);
	*out = al;
	al = NULL;
out:
	cgfb_allowlist_free(al);
	return rc;
}

void cgfb_allowlist_free(struct cgfb_allowlist *al)
{
	if (!al)
		return;
	words_free(&al->names);
	words_free(&al->comms);
	for (size_t i = 0; i < al->n_rules; i++) {
		regfree(&al->rules[i].re);
		free(al->rules[i].as);
	}
	free(al->rules);
	free(al);
}

const char *cgfb_allowlist_name(const struct cgfb_allowlist *al, const char *name, size_t len)
{
	const char *kept;
	char buf[256];

	/* Embedded NULs or overlong names can match nothing safely. */
	if (len == 0 || len >= sizeof(buf) || memchr(name, '\0', len))
		return NULL;
	kept = words_find(&al->names, name, len);
	if (kept)
		return kept;
	memcpy(buf, name, len);
	buf[len] = '\0';
	for (size_t i = 0; i < al->n_rules; i++) {
		const struct rule *r = &al->rules[i];

		if (r->prefix_len && (len < r->prefix_len || memcmp(buf, r->prefix, r->prefix_len)))
			continue;
		if (regexec(&r->re, buf, 0, NULL, 0) == 0)
			return r->as;
	}
	return NULL;
}

bool cgfb_allowlist_comm(const struct cgfb_allowlist *al, const char *comm, size_t len)
{
	return len && !memchr(comm, '\0', len) && words_find(&al->comms, comm, len);
}
