/* The anonymiser (client/privacy/anon.c): cgroup and process names, any
 * bytes, as a report shows them.
 *
 * Properties: what comes out is one of three things, and never any other
 * piece of the name: the name itself when the allowlist lists it (names,
 * or comms for a process name), the constant of a generalisation rule
 * ("as"), or a keyed token, exactly "h:" and 12 lower-case hex digits.
 * The same name gives the same output twice; a token is the name's token. */
#include <json-c/json.h>

#include "fuzz.h"
#include "privacy/anon.h"

extern const char cgfb_allowlist_json[];

static struct cgfb_allowlist *al;
static struct cgfb_anon *anon;
static json_object *doc, *names, *comms, *rules;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	uint8_t key[CGFB_SECRET_LEN];
	char err[256];

	for (size_t i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)(i * 7 + 1);
	if (cgfb_allowlist_load(&al, NULL, err, sizeof(err)) < 0 || cgfb_anon_new(key, al, &anon) < 0) {
		fprintf(stderr, "allowlist: %s\n", err);
		abort();
	}
	/* The lists as data/allowlist.json states them, read independently. */
	doc = json_tokener_parse(cgfb_allowlist_json);
	if (!doc || !json_object_object_get_ex(doc, "names", &names) ||
	    !json_object_object_get_ex(doc, "comms", &comms) ||
	    !json_object_object_get_ex(doc, "generalise", &rules))
		abort();
	return 0;
}

static bool in_list(json_object *arr, const char *s)
{
	for (size_t i = 0; i < json_object_array_length(arr); i++)
		if (strcmp(json_object_get_string(json_object_array_get_idx(arr, i)), s) == 0)
			return true;
	return false;
}

static bool a_constant(const char *s)
{
	for (size_t i = 0; i < json_object_array_length(rules); i++) {
		json_object *as;

		if (json_object_object_get_ex(json_object_array_get_idx(rules, i), "as", &as) &&
		    strcmp(json_object_get_string(as), s) == 0)
			return true;
	}
	return false;
}

static bool a_token(const char *s)
{
	if (strlen(s) != 2 + CGFB_TOKEN_HEX || memcmp(s, "h:", 2) != 0)
		return false;
	for (size_t i = 2; s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* out for the name (len bytes): itself only when listed. */
static void check(const char *what, const char *name, size_t len, const char *out,
		  json_object *list, json_object *list2)
{
	const bool itself = strlen(out) == len && memcmp(out, name, len) == 0;

	PROPERTY(strlen(out) < CGFB_ANON_MAX, "%s: output of %zu bytes", what, strlen(out));
	if (a_token(out) || a_constant(out))
		return;
	PROPERTY(itself && (in_list(list, out) || (list2 && in_list(list2, out))),
		 "%s: '%.*s' shown as '%s', which is neither listed, a rule's constant nor a token",
		 what, (int)len, name, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char out[CGFB_ANON_MAX], again[CGFB_ANON_MAX], tok[CGFB_ANON_MAX];
	char *name = malloc(size ? size : 1);

	memcpy(name, data, size);
	cgfb_anon_token(anon, name, size, tok);
	PROPERTY(a_token(tok), "token '%s'", tok);

	cgfb_anon_name(anon, name, size, out);
	check("cgroup name", name, size, out, names, NULL);
	cgfb_anon_name(anon, name, size, again);
	PROPERTY(strcmp(out, again) == 0, "cgroup name: '%s' then '%s'", out, again);
	PROPERTY(!a_token(out) || strcmp(out, tok) == 0, "cgroup name: token '%s', not '%s'", out,
		 tok);

	cgfb_anon_comm(anon, name, size, out);
	check("process name", name, size, out, comms, names);
	cgfb_anon_comm(anon, name, size, again);
	PROPERTY(strcmp(out, again) == 0, "process name: '%s' then '%s'", out, again);
	free(name);
	return 0;
}
