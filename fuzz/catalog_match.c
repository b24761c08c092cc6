/* The catalog matcher (lib/catalog.c) with the built-in catalog: one
 * record's text, as every log source hands it to the detector.
 *
 * Properties: the prefilter (cgfb_catalog_candidate, a multi-literal
 * search) says yes exactly when the text holds one of the catalog's
 * needles, and it never turns away a text that an entry matches; a
 * matching entry's needle is in the text; every captured field is a
 * piece of the text and one the entry declares; the entry's message
 * renders from the captures within its buffer; after cgfb_catalog_shrink
 * (the regexes that ran compiled afresh, as the watcher does at rest) the
 * text matches the same entry with the same fields. */
#include <errno.h>

#include "cgfb/catalog.h"
#include "fuzz.h"

static struct cgfb_catalog *cat;

FUZZ_INIT_BUILTIN(cgfb_catalog_load_builtin, cat, "built-in catalog")

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1);
	struct cgfb_fields fields = { 0 };
	const struct cgfb_entry *e;
	bool needle = false;
	bool cand;

	memcpy(text, data, size);
	for (size_t i = 0; i < cat->n_needles; i++)
		needle |= memmem(text, size, cat->needles[i], strlen(cat->needles[i])) != NULL;
	cand = cgfb_catalog_candidate(cat, text, size);
	PROPERTY(cand == needle, "prefilter says %d, the needles say %d", cand, needle);
	e = cgfb_catalog_match(cat, text, size, &fields);
	for (size_t i = 0; i < cat->n; i++)
		(void)cgfb_catalog_continues(&cat->entries[i], text, size);
	if (!e)
		goto out;
	PROPERTY(cand, "entry %s matches a text the prefilter turns away", e->id);
	bool has = false;

	for (size_t i = 0; i < e->n_needles; i++)
		has |= memmem(text, size, e->needles[i], strlen(e->needles[i])) != NULL;
	PROPERTY(has, "entry %s matched without its needle", e->id);

	struct cgfb_fields again = { 0 };
	const int shrunk = cgfb_catalog_shrink(cat);

	PROPERTY(shrunk > 0, "%s matched, yet shrink compiled %d regexes again", e->id, shrunk);
	PROPERTY(cgfb_catalog_match(cat, text, size, &again) == e &&
		 memcmp(&again, &fields, sizeof(again)) == 0,
		 "%s: another match after the regexes were compiled again", e->id);

	const char *names[CGFB_FIELDS_MAX], *values[CGFB_FIELDS_MAX];
	char out[1024];

	PROPERTY(fields.n <= e->n_caps, "%u fields for %zu captures", fields.n, e->n_caps);
	for (unsigned i = 0; i < fields.n; i++) {
		const struct cgfb_field *f = &fields.f[i];
		bool declared = false;

		for (size_t k = 0; k < e->n_caps; k++)
			declared |= strcmp(e->caps[k].name, f->name) == 0;
		PROPERTY(declared, "%s: field %s is no capture of the entry", e->id, f->name);
		PROPERTY(memchr(f->value, '\0', sizeof(f->value)) &&
			 memmem(text, size, f->value, strlen(f->value)), "%s: %s '%s' not in the text",
			 e->id, f->name, f->value);
		names[i] = f->name;
		values[i] = f->value;
	}
	if (e->message) {
		const int rc = cgfb_catalog_render(e, names, values, fields.n, out, sizeof(out));

		PROPERTY(rc == 0 || rc == -ENOSPC, "%s: render returned %d", e->id, rc);
		PROPERTY(strlen(out) < sizeof(out), "render overran");
	}
out:
	free(text);
	return 0;
}
