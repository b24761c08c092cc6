/* The catalog loader (lib/catalog.c): a catalog file as `scan --catalog`
 * or CGFB_DATADIR hands it over.
 *
 * Properties: a catalog that loads is one the matcher can use: ids are
 * unique and found again by cgfb_catalog_find, every entry has its
 * question set, the prefilter holds every needle, every capture names a
 * group of its regex; then a few texts (the input itself and the first
 * needle) go through the matcher. */
#include <errno.h>

#include "cgfb/catalog.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cgfb_catalog *cat = NULL;
	struct cgfb_fields fields = { 0 };
	char err[256] = "";
	int rc;

	rc = cgfb_catalog_load_buffer(&cat, (const char *)data, size, err, sizeof(err));
	PROPERTY(memchr(err, '\0', sizeof(err)), "error message not terminated");
	if (rc < 0) {
		PROPERTY(cat == NULL && (rc == -EINVAL || rc == -E2BIG || rc == -ENOMEM),
			 "failure %d", rc);
		return 0;
	}
	PROPERTY(cat->n_needles >= 1 && cat->n_needles <= CGFB_CATALOG_NEEDLES_MAX,
		 "%zu needles", cat->n_needles);
	for (size_t i = 0; i < cat->n; i++) {
		const struct cgfb_entry *e = &cat->entries[i];

		PROPERTY(e->id && e->id[0] && e->title, "entry %zu without id or title", i);
		PROPERTY(cgfb_catalog_find(cat, e->id) == e, "id %s not unique", e->id);
		PROPERTY(e->questions != NULL, "%s: no question set", e->id);
		for (size_t k = 0; k < e->n_needles; k++)
			PROPERTY(cgfb_catalog_candidate(cat, e->needles[k], strlen(e->needles[k])),
				 "%s: needle %zu not in the prefilter", e->id, k);
		for (size_t k = 0; k < e->n_caps; k++)
			PROPERTY(e->caps[k].group >= 1 && (size_t)e->caps[k].group <= e->re.re_nsub,
				 "%s: capture %s of group %d", e->id, e->caps[k].name,
				 e->caps[k].group);
	}
	(void)cgfb_catalog_match(cat, (const char *)data, size, &fields);
	(void)cgfb_catalog_match(cat, cat->needles[0], strlen(cat->needles[0]), &fields);
	cgfb_catalog_free(cat);
	return 0;
}
