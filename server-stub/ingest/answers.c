#include <string.h>

#include "ingest/answers.h"
#include "cgfb/jsonget.h"

static const struct {
	const char *key, *label;
} labels[] = {
	{ "software", "software" },
	{ "why_flat", "why the siblings stay flat" },
	{ "reorganisation", "reorganisation would work" },
	{ "purpose", "purpose" },
	{ "v2_replacement", "v2 replacement would do" },
};

static const char *answers_label(const char *key)
{
	for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
		if (strcmp(labels[i].key, key) == 0)
			return labels[i].label;
	return key;
}

static int add(json_object *arr, const char *key, const char *question, json_object *answer)
{
	json_object *o = json_object_new_object();
	const char *text = json_object_is_type(answer, json_type_string) ?
				   json_object_get_string(answer) : NULL;

	if (!o)
		return -1;
	json_object_object_add(o, "key", json_object_new_string(key));
	json_object_object_add(o, "label", json_object_new_string(answers_label(key)));
	json_object_object_add(o, "question", question ? json_object_new_string(question) : NULL);
	json_object_object_add(o, "answer", text ? json_object_new_string(text) : NULL);
	return json_object_array_add(arr, o);
}

json_object *answers_of(const struct cgfb_catalog *cat, const char *catalog_id,
			const char *body, size_t len)
{
	json_tokener *tok = json_tokener_new();
	json_object *doc = NULL, *given, *arr = NULL;
	const struct cgfb_entry *e = cat && catalog_id ? cgfb_catalog_find(cat, catalog_id) : NULL;

	if (!tok)
		return NULL;
	doc = json_tokener_parse_ex(tok, body, (int)len);
	json_tokener_free(tok);
	if (!json_object_is_type(doc, json_type_object))
		goto out;
	given = cgfb_json_get(doc, "use_case.answers");
	if (!json_object_is_type(given, json_type_object))
		given = NULL;
	arr = json_object_new_array();
	if (!arr)
		goto out;
	if (e) {
		for (size_t i = 0; i < e->questions->n; i++)
			add(arr, e->questions->q[i].key, e->questions->q[i].text,
			    given ? json_object_object_get(given, e->questions->q[i].key) : NULL);
	} else if (given) {
		json_object_object_foreach(given, key, val)
			add(arr, key, NULL, val);
	}
out:
	json_object_put(doc);
	return arr;
}
