#include <string.h>

#include "cgfb/jsonget.h"

json_object *cgfb_json_get(json_object *o, const char *path)
{
	char key[64];

	while (o && *path) {
		const char *dot = strchr(path, '.');
		const size_t n = dot ? (size_t)(dot - path) : strlen(path);

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		if (!json_object_object_get_ex(o, key, &o))
			return NULL;
		path += n + (dot ? 1 : 0);
	}
	return o;
}

const char *cgfb_json_str(json_object *o, const char *path)
{
	json_object *v = cgfb_json_get(o, path);

	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}
