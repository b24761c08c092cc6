#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "cgfb/buf.h"
#include "consent/names.h"
#include "privacy/reported.h"
#include "privacy/secret.h"

/* The endpoint a consented report's tokens were keyed for, as the report
 * names it (consent.endpoint); "" for a pending one. */
static void keyed_for(const struct cgfb_buf *b, char *out, size_t sz)
{
	json_object *r = json_tokener_parse(b->data), *c, *ep;

	out[0] = '\0';
	if (r && json_object_object_get_ex(r, "consent", &c) && c &&
	    json_object_object_get_ex(c, "endpoint", &ep))
		snprintf(out, sz, "%s", json_object_get_string(ep));
	json_object_put(r);
}

void cgfb_consent_names(struct cgfb_local_names *ln, const struct cgfb_statedir *sd,
			struct cgfb_spool *sp, const char *id, const char *const *texts, size_t n)
{
	struct cgfb_spool_entry e;
	struct cgfb_buf bytes = { 0 };
	uint8_t key[CGFB_SECRET_LEN];
	char err[256], endpoint[600];

	cgfb_local_names_load(ln, NULL, NULL);
	if (!id || cgfb_spool_load(sp, id, &e, &bytes) < 0 || !bytes.data)
		goto out;
	if (cgfb_secret_load(sd, key, err, sizeof(err)) < 0)
		goto out;
	keyed_for(&bytes, endpoint, sizeof(endpoint));
	for (size_t i = 0; i < n; i++)
		if (texts[i])
			cgfb_local_names_add_reported(ln, texts[i], bytes.data, bytes.len, key,
						      endpoint[0] ? endpoint : NULL);
	explicit_bzero(key, sizeof(key));
out:
	cgfb_buf_free(&bytes);
}
