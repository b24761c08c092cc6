#include <ctype.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgfb/utf8.h"
#include "snapshot/attrs.h"
#include "privacy/redact.h"
#include "report/report_detection.h"

#define SPANS_MAX 4

static const char *const contacts[] = {
	"linux-mm@kvack.org", "linux-mm-@kvack.org", "cgroups@vger.kernel.org",
};

struct span {
	regoff_t so, eo;
	bool pid;
};

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

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return (x->so > y->so) - (x->so < y->so);
}

/* Where the entry's regex captured comm and pid in text: how many, or -1
 * when the regex does not describe the text. */
static int capture_spans(const struct cgfb_entry *e, const char *text, struct span *sp)
{
	regmatch_t m[CGFB_CATALOG_MAX_CAPS + 4];
	int n = 0;

	if (!e->has_regex || regexec(&e->re, text, sizeof(m) / sizeof(m[0]), m, 0) != 0)
		return -1;
	for (size_t i = 0; i < e->n_caps && n < SPANS_MAX; i++) {
		const int g = e->caps[i].group;
		const bool pid = strcmp(e->caps[i].name, "pid") == 0;

		if (!pid && strcmp(e->caps[i].name, "comm") != 0)
			continue;
		if (g < 0 || g >= (int)(sizeof(m) / sizeof(m[0])) || m[g].rm_so < 0)
			continue;
		sp[n++] = (struct span){ m[g].rm_so, m[g].rm_eo, pid };
	}
	qsort(sp, (size_t)n, sizeof(*sp), cmp_span);
	return n;
}

static void put(char *out, size_t outsz, size_t *len, const char *s, size_t n)
{
	if (*len + n >= outsz)
		n = outsz - 1 - *len;
	memcpy(out + *len, s, n);
	*len += n;
	out[*len] = '\0';
}

/* comm is the detection's own copy of the process name, so that message
 * and fields give the same token; NULL uses the captured text. */
static void replace_captures(const char *text, const struct span *sp, size_t n,
			     const char *comm, struct cgfb_anon *anon, char *out, size_t outsz)
{
	size_t at = 0, len = 0;

	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		char who[CGFB_ANON_MAX];

		if ((size_t)sp[i].so < at)
			continue;
		put(out, outsz, &len, text + at, (size_t)sp[i].so - at);
		if (sp[i].pid) {
			put(out, outsz, &len, "N", 1);
		} else {
			if (comm)
				cgfb_anon_comm(anon, comm, strlen(comm), who);
			else
				cgfb_anon_comm(anon, text + sp[i].so, (size_t)(sp[i].eo - sp[i].so),
					       who);
			put(out, outsz, &len, who, strlen(who));
		}
		at = (size_t)sp[i].eo;
	}
	put(out, outsz, &len, text + at, strlen(text + at));
}

static bool is_contact(const char *w, size_t n)
{
	for (size_t i = 0; i < sizeof(contacts) / sizeof(contacts[0]); i++) {
		const size_t cl = strlen(contacts[i]);

		for (size_t k = 0; k + cl <= n; k++)
			if (memcmp(w + k, contacts[i], cl) == 0)
				return true;
	}
	return false;
}

/* "memory.force_empty", "cgroup.procs": a knob, not a host name. */
static bool knob_shaped(const char *w, size_t n)
{
	const char *dot = memchr(w, '.', n);

	if (!dot || !(cgfb_ctrl_index(w, (size_t)(dot - w)) >= 0 ||
		      ((size_t)(dot - w) == 6 && memcmp(w, "cgroup", 6) == 0)))
		return false;
	for (const char *p = dot; p < w + n; p++)
		if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '_' &&
		    *p != '.')
			return false;
	return true;
}

/* A word that may hold a path, an address, a host name or a key=value
 * setting. A dot ending a sentence is not one. */
static bool risky(const char *w, size_t n)
{
	bool dotted = false;

	while (n && strchr(".,;:)", w[n - 1]))
		n--;
	for (size_t i = 0; i < n; i++) {
		if (w[i] == '/' || w[i] == '@' || w[i] == '=' || w[i] == '\\' || w[i] == ':')
			return true;
		dotted |= w[i] == '.';
	}
	return dotted && !knob_shaped(w, n);
}

/* For messages no regex describes: every word with a path or address
 * becomes "_", every number "N"; the maintainers' addresses stay. */
static void scrub_free_text(const char *text, char *out, size_t outsz)
{
	const char *p = text;
	size_t len = 0;

	out[0] = '\0';
	while (*p) {
		const char *w = p;

		if (isspace((unsigned char)*p)) {
			put(out, outsz, &len, " ", 1);
			while (isspace((unsigned char)*p))
				p++;
			continue;
		}
		while (*p && !isspace((unsigned char)*p))
			p++;
		if (is_contact(w, (size_t)(p - w))) {
			put(out, outsz, &len, w, (size_t)(p - w));
		} else if (risky(w, (size_t)(p - w))) {
			put(out, outsz, &len, "_", 1);
		} else {
			for (const char *c = w; c < p; c++) {
				if (!isdigit((unsigned char)*c))
					put(out, outsz, &len, c, 1);
				else if (c == w || !isdigit((unsigned char)c[-1]))
					put(out, outsz, &len, "N", 1);
			}
		}
	}
}

/* The machine's own host and user names, should a free-form message name
 * them without a digit or a slash. Only those kinds: the maintainers'
 * address is an e-mail address and must stay. */
static void redact_local_names(char *text, size_t textsz)
{
	struct cgfb_finding f[CGFB_REDACT_MAX_FINDINGS], keep[CGFB_REDACT_MAX_FINDINGS];
	struct cgfb_local_names ln = { 0 };
	size_t n, k = 0;
	char *red;

	if (cgfb_local_names_load(&ln, NULL, NULL) < 0)
		goto out;
	n = cgfb_find_secrets(text, &ln, f, CGFB_REDACT_MAX_FINDINGS);
	for (size_t i = 0; i < n; i++)
		if (f[i].kind == CGFB_SECRET_HOSTNAME || f[i].kind == CGFB_SECRET_USER)
			keep[k++] = f[i];
	red = k ? cgfb_redact(text, keep, k) : NULL;
	if (red)
		snprintf(text, textsz, "%s", red);
	free(red);
out:
	cgfb_local_names_free(&ln);
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

void cgfb_report_message(const struct cgfb_entry *e, const struct cgfb_detection *d,
			 struct cgfb_anon *anon, char *out, size_t outsz)
{
	char text[CGFB_DETECTION_TEXT_MAX * 3], tmp[CGFB_DETECTION_TEXT_MAX * 3];
	struct span sp[SPANS_MAX];
	int n;

	out[0] = '\0';
	if (!d)
		return;
	/* Bytes to UTF-8 first: control characters go, so a message is one line. */
	cgfb_utf8_sanitize(text, sizeof(text), d->text, d->text_len);
	/* Catalog text is fixed but for its captures; anything else is free form. */
	n = e->generic ? -1 : capture_spans(e, text, sp);
	if (n >= 0) {
		replace_captures(text, sp, (size_t)n, cgfb_fields_get(&d->fields, "comm"), anon,
				 tmp, sizeof(tmp));
	} else {
		scrub_free_text(text, tmp, sizeof(tmp));
		redact_local_names(tmp, sizeof(tmp));
	}
	snprintf(out, outsz, "%s", tmp);
	cut_chars(out, CGFB_MESSAGE_MAX);
}

static void add_checked(json_object *f, const char *key, const char *v, const char *first,
			const char *rest, size_t max)
{
	if (v && shape(v, first, rest, max))
		json_object_object_add(f, key, json_object_new_string(v));
}

static json_object *fields_json(const struct cgfb_entry *e, const struct cgfb_detection *d,
				struct cgfb_anon *anon)
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
	v = fs ? cgfb_fields_get(fs, "controller") : e->controller;
	add_checked(f, "controller", v, "a-z", "a-z0-9_", 32);
	v = fs ? cgfb_fields_get(fs, "knob") : e->knob;
	add_checked(f, "knob", v, "a-z", "a-z0-9_.=/", 64);
	if (!fs)
		return f;
	add_checked(f, "replacement", cgfb_fields_get(fs, "replacement"), "A-Za-z0-9_. ",
		    "A-Za-z0-9_. ", 64);
	add_checked(f, "kernel_file", cgfb_fields_get(fs, "kernel_file"), "A-Za-z0-9_",
		    "A-Za-z0-9_./-", 128);
	add_checked(f, "function", cgfb_fields_get(fs, "function"), "A-Za-z_", "A-Za-z0-9_.",
		    128);
	v = cgfb_fields_get(fs, "kernel_line");
	if (v && shape(v, "0-9", "0-9", 7) && atol(v) <= 1000000)
		json_object_object_add(f, "kernel_line", json_object_new_int(atoi(v)));
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

json_object *cgfb_report_detection(const struct cgfb_entry *e, const struct cgfb_detection *d,
				   const char *source, struct cgfb_anon *anon)
{
	json_object *o = json_object_new_object();
	char msg[CGFB_MESSAGE_MAX * 4 + 1], title[201];
	int level = d && d->level >= 0 ? d->level : e->level;
	unsigned count = d ? d->occurrence : 1;

	if (level < -1 || level > 7)
		level = -1;
	if (count < 1)
		count = 1;
	if (count > 1000000)
		count = 1000000;
	cgfb_report_message(e, d, anon, msg, sizeof(msg));
	cgfb_utf8_sanitize(title, sizeof(title), e->title, strlen(e->title));
	json_object_object_add(o, "catalog_id", json_object_new_string(e->id));
	json_object_object_add(o, "title", json_object_new_string(title));
	json_object_object_add(o, "contact", contact_json(e->contact));
	json_object_object_add(o, "message", json_object_new_string(msg));
	json_object_object_add(o, "level", json_object_new_int(level));
	json_object_object_add(o, "count", json_object_new_int((int)count));
	json_object_object_add(o, "source", json_object_new_string(source));
	json_object_object_add(o, "warn_block", json_object_new_boolean(d ? d->in_warn_block :
									 e->warn_block));
	json_object_object_add(o, "fields", fields_json(e, d, anon));
	return o;
}
