/* known.h: the allowlist's "comms" and the constant names its
 * "generalise" rules put in place of a matched name, read once. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cgfb/log.h"
#include "store/known.h"

extern const char cgfb_allowlist_json[];

static pthread_once_t once = PTHREAD_ONCE_INIT;
static json_object *allow;

static void load(void)
{
	allow = json_tokener_parse(cgfb_allowlist_json);
	if (!allow)
		cgfb_log(LOG_ERR, "built-in allowlist: not JSON; no software is shown");
}

static bool in_array(json_object *arr, const char *member, const char *name)
{
	const size_t n = json_object_is_type(arr, json_type_array) ?
		json_object_array_length(arr) : 0;

	for (size_t i = 0; i < n; i++) {
		json_object *v = json_object_array_get_idx(arr, i);

		const char *s;

		if (member && !json_object_object_get_ex(v, member, &v))
			continue;
		s = json_object_get_string(v);
		if (s && strcmp(s, name) == 0)
			return true;
	}
	return false;
}

bool known_software(const char *name)
{
	pthread_once(&once, load);
	return allow && (in_array(json_object_object_get(allow, "comms"), NULL, name) ||
			 in_array(json_object_object_get(allow, "generalise"), "as", name));
}
