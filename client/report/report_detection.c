#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgfb/utf8.h"
#include "privacy/vocab.h"
#include "report/report_detection.h"

#define SPANS_MAX 4

/* c in a class like "a-z0-9_." */
static bool in_class(char c, const char *cls)
{
	for (const char *p = cls; *p; p++) {
		if (p[1] == '-' && p[2]) {
			if (c >= p[0] && c <= p[2])
				return true;
			p += 2;
		} else if (c == *p) {
			return true;
		}
	}
	return false;
}

/* s matches ^[first][rest]{0,max-1}$ */
static bool shape(const char *s, const char *first, const char *rest, size_t max)
{
	const size_t n = strlen(s);

	if (n == 0 || n > max || !in_class(s[0], first))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!in_class(s[i], rest))
			return false;
	return true;
}

static bool taint_ok(const char *s)
{
	return strcmp(s, "none") == 0 || shape(s, "A-Z", "A-Z", 26);
}

/* The anonymised value of each field a message template may name. */
struct rendered {
	const char *names[5];
	const char *values[5];
	char comm[CGFB_ANON_MAX];
	char ctrl[CGFB_ANON_MAX];
};

/* A controller the kernel has, or else what was captured is a name (C1
 * prints whatever the cgroup core passed it), and becomes a token. */
static const char *controller_value(const struct cgfb_schema *schema, struct cgfb_anon *anon,
				    const char *v, char tok[CGFB_ANON_MAX])
{
	if (!v)
		return NULL;
	if (cgfb_vocab_or(schema, "controller", v, NULL))
		return v;
	cgfb_anon_token(anon, v, strlen(v), tok);
	return tok;
}

static void render_fields(const struct cgfb_schema *schema, const struct cgfb_detection *d,
			  struct cgfb_anon *anon, struct rendered *r)
{
	const char *comm = cgfb_fields_get(&d->fields, "comm");

	if (comm && *comm)
		cgfb_anon_comm(anon, comm, strlen(comm), r->comm);
	r->names[0] = "comm";
	r->values[0] = comm && *comm ? r->comm : NULL;
	r->names[1] = "pid";
	r->values[1] = cgfb_fields_get(&d->fields, "pid") ? "N" : NULL;
	r->names[2] = "controller";
	r->values[2] = controller_value(schema, anon, cgfb_fields_get(&d->fields, "controller"),
					r->ctrl);
	r->names[3] = "knob";
	r->values[3] = cgfb_fields_get(&d->fields, "knob") ?
		cgfb_vocab_or(schema, "knob", cgfb_fields_get(&d->fields, "knob"), "other") : NULL;
	r->names[4] = "replacement";
	r->values[4] = cgfb_fields_get(&d->fields, "replacement") ?
		cgfb_vocab_or(schema, "replacement", cgfb_fields_get(&d->fields, "replacement"),
			      "other") : NULL;
}

/* Cut to at most max code points without splitting one. */
static void cut_chars(char *s, size_t max)
{
	size_t chars = 0;

	for (char *p = s; *p; p++) {
		if (((unsigned char)*p & 0xc0) == 0x80)
			continue;
		if (chars++ == max) {
			*p = '\0';
			return;
		}
	}
}

void cgfb_report_message(const struct cgfb_schema *schema, const struct cgfb_entry *e,
			 const struct cgfb_detection *d, struct cgfb_anon *anon, char *out,
			 size_t outsz)
{
	struct rendered r = { 0 };

	out[0] = '\0';
	if (!d)
		return;
	/* Nothing of the record's text is copied: a catalog entry's message is
	 * its own wording with the anonymised fields put in; a message no
	 * entry describes keeps only words of the catalog's vocabulary. */
	if (e->generic) {
		cgfb_vocab_shape(e, schema, d->text, d->text_len, out, outsz);
	} else {
		render_fields(schema, d, anon, &r);
		cgfb_catalog_render(e, r.names, r.values, 5, out, outsz);
	}
	cut_chars(out, CGFB_MESSAGE_MAX);
}

static void add_word(json_object *f, const char *key, const char *v)
{
	if (v)
		json_object_object_add(f, key, json_object_new_string(v));
}

/* The WARN block's place in the kernel: a known file from the top of the
 * tree and, only then, the function's symbol if the catalog says the
 * message is printed there ("other" otherwise: a symbol of someone's own
 * patch or debugging hook says whose kernel it is); a file the schema does
 * not list may be an out-of-tree module whose names say whose it is. */
static void add_warn_site(const struct cgfb_schema *schema, const struct cgfb_entry *e,
			  json_object *f, const struct cgfb_fields *fs)
{
	const char *file = cgfb_fields_get(fs, "kernel_file"), *v;
	char sym[CGFB_VOCAB_WORD_MAX + 1];

	if (!file)
		return;
	file = cgfb_vocab_kernel_file(schema, file);
	add_word(f, "kernel_file", file);
	if (strcmp(file, "other") == 0)
		return;
	v = cgfb_fields_get(fs, "kernel_line");
	if (v && shape(v, "0-9", "0-9", 7) && atol(v) <= 1000000)
		json_object_object_add(f, "kernel_line", json_object_new_int(atoi(v)));
	if (!cgfb_fields_get(fs, "function"))
		return;
	cgfb_vocab_symbol(cgfb_fields_get(fs, "function"), sym);
	add_word(f, "function", cgfb_catalog_function(e, sym) ?
		 cgfb_vocab_or(schema, "function", sym, "other") : "other");
}

static json_object *fields_json(const struct cgfb_schema *schema, const struct cgfb_entry *e,
				const struct cgfb_detection *d, struct cgfb_anon *anon)
{
	const struct cgfb_fields *fs = d ? &d->fields : NULL;
	json_object *f = json_object_new_object();
	const char *v;
	char who[CGFB_ANON_MAX];

	v = fs ? cgfb_fields_get(fs, "comm") : NULL;
	if (v && *v) {
		cgfb_anon_comm(anon, v, strlen(v), who);
		json_object_object_add(f, "comm", json_object_new_string(who));
	}
	/* A controller that is not one is a name: in the message as a token,
	 * not in the fields. */
	v = fs ? cgfb_fields_get(fs, "controller") : e->controller;
	add_word(f, "controller", cgfb_vocab_or(schema, "controller", v, NULL));
	v = fs ? cgfb_fields_get(fs, "knob") : e->knob;
	if (v)
		add_word(f, "knob", cgfb_vocab_or(schema, "knob", v, "other"));
	if (!fs)
		return f;
	v = cgfb_fields_get(fs, "replacement");
	if (v)
		add_word(f, "replacement", cgfb_vocab_or(schema, "replacement", v, "other"));
	add_warn_site(schema, e, f, fs);
	v = cgfb_fields_get(fs, "taint");
	if (v && taint_ok(v))
		json_object_object_add(f, "taint", json_object_new_string(v));
	return f;
}

static json_object *contact_json(const char *c)
{
	if (c && (strcmp(c, "linux-mm@kvack.org") == 0 || strcmp(c, "cgroups@vger.kernel.org") == 0))
		return json_object_new_string(c);
	return NULL;
}

json_object *cgfb_report_detection(const struct cgfb_schema *schema, const struct cgfb_entry *e,
				   const struct cgfb_detection *d, const char *source,
				   struct cgfb_anon *anon)
{
	json_object *o = json_object_new_object();
	char msg[CGFB_MESSAGE_MAX * 4 + 1], title[201];
	int level = d ? cgfb_detection_level(d) : e->level;
	unsigned count = d ? d->occurrence : 1;

	if (level < -1 || level > 7)
		level = -1;
	if (count < 1)
		count = 1;
	if (count > 1000000)
		count = 1000000;
	/* check found it in the tree: the kernel printed nothing to quote. */
	if (strcmp(source, "check") == 0)
		msg[0] = '\0';
	else
		cgfb_report_message(schema, e, d, anon, msg, sizeof(msg));
	cgfb_utf8_escape(title, sizeof(title), e->title, strlen(e->title));
	json_object_object_add(o, "catalog_id", json_object_new_string(e->id));
	json_object_object_add(o, "title", json_object_new_string(title));
	json_object_object_add(o, "contact", contact_json(d ? cgfb_detection_contact(d) :
								    e->contact));
	json_object_object_add(o, "message", json_object_new_string(msg));
	json_object_object_add(o, "level", json_object_new_int(level));
	json_object_object_add(o, "count", json_object_new_int((int)count));
	json_object_object_add(o, "source", json_object_new_string(source));
	json_object_object_add(o, "warn_block", json_object_new_boolean(d ? d->in_warn_block :
									 e->warn_block));
	json_object_object_add(o, "fields", fields_json(schema, e, d, anon));
	return o;
}
