#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "cgfb/canon.h"
#include "cgfb/utf8.h"

/* Writes into b; or, with expect set, only compares with the bytes that
 * are already there, which is how bytes are checked to be canonical
 * without serialising them a second time. */
struct out {
	struct cgfb_buf *b;
	size_t max;
	int rc;
	const char *expect;  /* compare mode: the input, max bytes long */
	size_t at;           /* compare mode: bytes matched so far */
};

/* Compare mode: the input differs from its canonical form. */
#define NOT_CANONICAL (-EBADMSG)

static void expect(struct out *o, const char *s, size_t n)
{
	if (n > o->max - o->at || memcmp(o->expect + o->at, s, n) != 0)
		o->rc = NOT_CANONICAL;
	else
		o->at += n;
}

static void put(struct out *o, const char *s, size_t n)
{
	if (o->rc)
		return;
	if (o->expect) {
		expect(o, s, n);
		return;
	}
	if (o->b->len + n + 1 > o->max + 1) {
		o->rc = -E2BIG;
		return;
	}
	if (o->b->len + n + 1 > o->b->cap) {
		size_t cap = o->b->cap ? o->b->cap : 4096;
		char *d;

		while (cap < o->b->len + n + 1)
			cap *= 2;
		d = realloc(o->b->data, cap);
		if (!d) {
			o->rc = -ENOMEM;
			return;
		}
		o->b->data = d;
		o->b->cap = cap;
	}
	memcpy(o->b->data + o->b->len, s, n);
	o->b->len += n;
	o->b->data[o->b->len] = '\0';
}

static void put_string(struct out *o, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t run = 0;

	/* Compare mode needs no check: cgfb_canon_parse checked the input. */
	if (!o->expect && !cgfb_utf8_valid(s, n)) {
		o->rc = o->rc ? o->rc : -EINVAL;
		return;
	}
	put(o, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		const unsigned char c = (unsigned char)s[i];
		char esc[6] = { '\\', 0 };
		size_t en = 2;

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		put(o, s + run, i - run);
		run = i + 1;
		switch (c) {
		case '"': esc[1] = '"'; break;
		case '\\': esc[1] = '\\'; break;
		case '\b': esc[1] = 'b'; break;
		case '\f': esc[1] = 'f'; break;
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
		default:
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			en = 6;
		}
		put(o, esc, en);
	}
	put(o, s + run, n - run);
	put(o, "\"", 1);
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void put_value(struct out *o, json_object *v);

/* Compare mode: the canonical order is sorted order, so the input is
 * canonical only if its keys already come sorted (json-c keeps them in
 * input order, a duplicate in its first place); then they can be
 * compared as they are, with neither a copy nor a sort. */
static void expect_object(struct out *o, json_object *v)
{
	const char *prev = NULL;

	put(o, "{", 1);
	json_object_object_foreach(v, k, val) {
		if (prev) {
			if (strcmp(prev, k) >= 0)
				o->rc = o->rc ? o->rc : NOT_CANONICAL;
			put(o, ",", 1);
		}
		if (o->rc)
			return;
		put_string(o, k, strlen(k));
		put(o, ":", 1);
		put_value(o, val);
		prev = k;
	}
	put(o, "}", 1);
}

static void put_object(struct out *o, json_object *v)
{
	const size_t n = (size_t)json_object_object_length(v);
	const char **keys = calloc(n ? n : 1, sizeof(*keys));
	size_t i = 0;

	if (!keys) {
		o->rc = -ENOMEM;
		return;
	}
	json_object_object_foreach(v, k, val) {
		(void)val;
		keys[i++] = k;
	}
	qsort(keys, n, sizeof(*keys), key_cmp);
	put(o, "{", 1);
	for (i = 0; i < n; i++) {
		if (i)
			put(o, ",", 1);
		put_string(o, keys[i], strlen(keys[i]));
		put(o, ":", 1);
		put_value(o, json_object_object_get(v, keys[i]));
	}
	put(o, "}", 1);
	free(keys);
}

/* By hand rather than snprintf: reports are full of small integers and
 * the collector serialises every report it receives. */
static void put_int(struct out *o, int64_t x)
{
	char num[24];
	size_t i = sizeof(num);
	uint64_t u = x < 0 ? -(uint64_t)x : (uint64_t)x;

	do
		num[--i] = (char)('0' + u % 10);
	while (u /= 10);
	if (x < 0)
		num[--i] = '-';
	put(o, num + i, sizeof(num) - i);
}

static void put_value(struct out *o, json_object *v)
{

	switch (json_object_get_type(v)) {
	case json_type_null:
		put(o, "null", 4);
		break;
	case json_type_boolean:
		if (json_object_get_boolean(v))
			put(o, "true", 4);
		else
			put(o, "false", 5);
		break;
	case json_type_int:
		put_int(o, json_object_get_int64(v));
		break;
	case json_type_string:
		put_string(o, json_object_get_string(v), (size_t)json_object_get_string_len(v));
		break;
	case json_type_array:
		put(o, "[", 1);
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			if (i)
				put(o, ",", 1);
			put_value(o, json_object_array_get_idx(v, i));
		}
		put(o, "]", 1);
		break;
	case json_type_object:
		if (o->expect)
			expect_object(o, v);
		else
			put_object(o, v);
		break;
	case json_type_double:
		/* Reports carry no fractions: floats would make "canonical"
		 * depend on a number formatter. */
		o->rc = o->rc ? o->rc : -EINVAL;
		break;
	}
}

int cgfb_canon_serialize(json_object *obj, size_t max_bytes, struct cgfb_buf *b)
{
	struct out o = { .b = b, .max = max_bytes };

	b->len = 0;
	put_value(&o, obj);
	return o.rc;
}

/* 0 when data is exactly obj's canonical serialisation. Compare mode
 * writes nothing, so it needs no buffer. */
static int expect_canonical(json_object *obj, const char *data, size_t len)
{
	struct out o = { .max = len, .expect = data };

	put_value(&o, obj);
	if (o.rc == 0 && o.at != len)
		o.rc = NOT_CANONICAL;
	return o.rc;
}

int cgfb_canon_parse(const char *data, size_t len, int max_depth, json_object **out,
		     char *err, size_t errsz)
{
	struct json_tokener *tok = json_tokener_new_ex(max_depth);
	json_object *obj = NULL;
	enum json_tokener_error jerr;
	bool ended = false;
	int rc = -EINVAL;

	*out = NULL;
	if (!tok)
		return -ENOMEM;
	if (len > INT32_MAX) {
		snprintf(err, errsz, "too large");
		rc = -E2BIG;
		goto out;
	}
	/* json-c's own check lets UTF-8-encoded surrogates (ED A0 80) through,
	 * which RFC 3629 and the serialiser refuse. */
	if (!cgfb_utf8_valid(data, len)) {
		snprintf(err, errsz, "not valid UTF-8");
		goto out;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	obj = json_tokener_parse_ex(tok, data, (int)len);
	jerr = json_tokener_get_error(tok);
	/* A number at the very end ("1", "-12") is complete only when the
	 * tokener is told that no digit follows: a NUL byte tells it. */
	if (!obj && jerr == json_tokener_continue && json_tokener_get_parse_end(tok) == len) {
		obj = json_tokener_parse_ex(tok, "", 1);
		jerr = json_tokener_get_error(tok);
		ended = true;
	}
	if (!obj || jerr != json_tokener_success ||
	    (!ended && json_tokener_get_parse_end(tok) != len)) {
		snprintf(err, errsz, "not valid JSON: %s",
			 jerr == json_tokener_success ? "trailing bytes" : json_tokener_error_desc(jerr));
		goto out;
	}
	rc = expect_canonical(obj, data, len);
	if (rc == -EINVAL) {
		snprintf(err, errsz, "not canonical: numbers must be integers");
		goto out;
	}
	if (rc < 0) {
		/* Duplicate keys, unsorted keys, white space, escapes. */
		snprintf(err, errsz, "not canonical JSON (sorted keys, no white space, no duplicate keys)");
		rc = -EINVAL;
		goto out;
	}
	*out = obj;
	obj = NULL;
	rc = 0;
out:
	json_object_put(obj);
	json_tokener_free(tok);
	return rc;
}

size_t cgfb_json_values(const char *data, size_t len)
{
	size_t n = len ? 1 : 0;
	bool in_string = false;

	for (size_t i = 0; i < len; i++) {
		const char c = data[i];

		if (in_string) {
			if (c == '\\')
				i++;             /* the escaped byte is no quote */
			else if (c == '"')
				in_string = false;
		} else if (c == '"') {
			in_string = true;
		} else if (c == '{' || c == '[' || c == ',') {
			n++;
		}
	}
	return n;
}
