#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/statedir.h"
#include "cgfb/sha256.h"
#include "consent/draft.h"

/* What a draft can hold: answers and use case are bounded where they are
 * typed or read; this only keeps a planted file from being read whole. */
#define DRAFT_MAX (64u << 10)

void cgfb_draft_free(struct cgfb_draft *d)
{
	free(d->text);
	free(d->message);
	for (size_t i = 0; i < d->n; i++) {
		free(d->keys[i]);
		free(d->values[i]);
	}
	for (size_t i = 0; i < d->n_kept; i++) {
		free(d->kept[i].field);
		free(d->kept[i].s);
	}
	memset(d, 0, sizeof(*d));
}

const char *cgfb_draft_answer(const struct cgfb_draft *d, const char *key)
{
	for (size_t i = 0; i < d->n; i++)
		if (strcmp(d->keys[i], key) == 0)
			return d->values[i];
	return NULL;
}

static void drop_answer(struct cgfb_draft *d, size_t i)
{
	free(d->keys[i]);
	free(d->values[i]);
	d->n--;
	memmove(d->keys + i, d->keys + i + 1, (d->n - i) * sizeof(d->keys[0]));
	memmove(d->values + i, d->values + i + 1, (d->n - i) * sizeof(d->values[0]));
}

int cgfb_draft_set_answer(struct cgfb_draft *d, const char *key, const char *value)
{
	char *v;
	size_t i;

	for (i = 0; i < d->n && strcmp(d->keys[i], key) != 0; i++)
		;
	if (!value) {
		if (i < d->n)
			drop_answer(d, i);
		return 0;
	}
	if (i == CGFB_DRAFT_ANSWERS_MAX)
		return -E2BIG;
	v = strdup(value);
	if (!v)
		return -ENOMEM;
	if (i < d->n) {
		free(d->values[i]);
		d->values[i] = v;
		return 0;
	}
	d->keys[i] = strdup(key);
	if (!d->keys[i]) {
		free(v);
		return -ENOMEM;
	}
	d->values[i] = v;
	d->n++;
	return 0;
}

int cgfb_draft_set_text(char **slot, const char *s)
{
	char *copy = NULL;

	if (s && !(copy = strdup(s)))
		return -ENOMEM;
	free(*slot);
	*slot = copy;
	return 0;
}

static bool kept_matches(const struct cgfb_kept *k, const char *field, const char *sha,
			 const char *s, size_t len)
{
	return strcmp(k->field, field) == 0 && strcmp(k->text_sha256, sha) == 0 &&
	       strlen(k->s) == len && memcmp(k->s, s, len) == 0;
}

static bool is_kept_sha(const struct cgfb_draft *d, const char *field, const char *sha,
			const char *s, size_t len)
{
	for (size_t i = 0; i < d->n_kept; i++)
		if (kept_matches(&d->kept[i], field, sha, s, len))
			return true;
	return false;
}

bool cgfb_draft_is_kept(const struct cgfb_draft *d, const char *field, const char *text,
			const char *s, size_t len)
{
	char sha[65];

	cgfb_sha256_hex(text, strlen(text), sha);
	return is_kept_sha(d, field, sha, s, len);
}

size_t cgfb_draft_unkept(const struct cgfb_draft *d, const char *field, const char *text,
			 struct cgfb_finding *f, size_t n)
{
	char sha[65];
	size_t m = 0;

	cgfb_sha256_hex(text, strlen(text), sha);
	for (size_t i = 0; i < n; i++)
		if (!is_kept_sha(d, field, sha, text + f[i].start, f[i].len))
			f[m++] = f[i];
	return m;
}

static int keep_sha(struct cgfb_draft *d, const char *field, const char *sha, const char *s,
		    size_t len)
{
	struct cgfb_kept *k;

	if (is_kept_sha(d, field, sha, s, len))
		return 0;
	if (d->n_kept == CGFB_DRAFT_KEPT_MAX)
		return -E2BIG;
	k = &d->kept[d->n_kept];
	k->field = strdup(field);
	k->s = strndup(s, len);
	if (!k->field || !k->s) {
		free(k->field);
		free(k->s);
		return -ENOMEM;
	}
	snprintf(k->text_sha256, sizeof(k->text_sha256), "%s", sha);
	d->n_kept++;
	return 0;
}

int cgfb_draft_keep(struct cgfb_draft *d, const char *field, const char *text, const char *s,
		    size_t len)
{
	char sha[65];

	cgfb_sha256_hex(text, strlen(text), sha);
	return keep_sha(d, field, sha, s, len);
}

void cgfb_draft_rebind(struct cgfb_draft *d, const char *field, const char *old,
		       const char *new)
{
	char was[65], now[65];
	size_t m = 0;

	cgfb_sha256_hex(old, strlen(old), was);
	cgfb_sha256_hex(new, strlen(new), now);
	for (size_t i = 0; i < d->n_kept; i++) {
		struct cgfb_kept *k = &d->kept[i];

		if (strcmp(k->field, field) == 0 && strcmp(k->text_sha256, was) != 0) {
			free(k->field);
			free(k->s);
			continue;
		}
		if (strcmp(k->field, field) == 0)
			memcpy(k->text_sha256, now, sizeof(now));
		d->kept[m++] = *k;
	}
	d->n_kept = m;
}

const char *cgfb_draft_answer_field(char *buf, size_t size, const char *key)
{
	snprintf(buf, size, "answer:%s", key);
	return buf;
}

void cgfb_draft_use_case(const struct cgfb_draft *d, struct cgfb_use_case *uc)
{
	memset(uc, 0, sizeof(*uc));
	uc->text = d->text;
	uc->message = d->message;
	uc->n_answers = d->n;
	for (size_t i = 0; i < d->n; i++) {
		uc->keys[i] = d->keys[i];
		uc->values[i] = d->values[i];
	}
}

static int take_string(json_object *v, char **slot)
{
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return -EBADMSG;
	return cgfb_draft_set_text(slot, json_object_get_string(v));
}

static const char *string_member(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static bool sha256_hex_shape(const char *s)
{
	return s && strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64;
}

/* One kept entry: {"in": field, "string": s, "text_sha256": hex}. A bare
 * string is what drafts held before entries were bound to their text: it
 * says nothing of where it was shown, so it is dropped (asked again). */
static int kept_from_json(json_object *k, struct cgfb_draft *d)
{
	const char *field, *s, *sha;
	json_object *sv;

	if (json_object_is_type(k, json_type_string))
		return 0;
	if (!json_object_is_type(k, json_type_object))
		return -EBADMSG;
	field = string_member(k, "in");
	s = string_member(k, "string");
	sha = string_member(k, "text_sha256");
	if (!field || !s || !sha256_hex_shape(sha))
		return -EBADMSG;
	json_object_object_get_ex(k, "string", &sv);
	return keep_sha(d, field, sha, s, (size_t)json_object_get_string_len(sv));
}

static int from_json(json_object *o, struct cgfb_draft *d)
{
	json_object *answers = NULL, *kept = NULL;
	int rc;

	if (!json_object_is_type(o, json_type_object))
		return -EBADMSG;
	rc = take_string(json_object_object_get(o, "use_case"), &d->text);
	if (rc == 0)
		rc = take_string(json_object_object_get(o, "message"), &d->message);
	if (rc < 0)
		return rc;
	if (json_object_object_get_ex(o, "answers", &answers) &&
	    !json_object_is_type(answers, json_type_object))
		return -EBADMSG;
	if (answers) {
		json_object_object_foreach(answers, key, val) {
			if (!json_object_is_type(val, json_type_string))
				return -EBADMSG;
			rc = cgfb_draft_set_answer(d, key, json_object_get_string(val));
			if (rc < 0)
				return rc == -E2BIG ? -EBADMSG : rc;
		}
	}
	if (json_object_object_get_ex(o, "kept", &kept) &&
	    !json_object_is_type(kept, json_type_array))
		return -EBADMSG;
	for (size_t i = 0; kept && i < json_object_array_length(kept); i++) {
		rc = kept_from_json(json_object_array_get_idx(kept, i), d);
		if (rc < 0)
			return rc == -E2BIG ? -EBADMSG : rc;
	}
	return 0;
}

int cgfb_draft_load(struct cgfb_spool *sp, const char *id, struct cgfb_draft *d)
{
	struct cgfb_buf b = { 0 };
	json_object *o = NULL;
	char name[64];
	int rc;

	memset(d, 0, sizeof(*d));
	rc = cgfb_spool_load_draft(sp, id, DRAFT_MAX, &b);
	if (rc == -ENOENT)
		return 0;
	if (rc < 0)
		goto out;
	o = json_tokener_parse(b.data);
	rc = o ? from_json(o, d) : -EBADMSG;
	if (rc == -EBADMSG || rc == -EFBIG) {
		/* What was typed is not thrown away: it is moved aside where
		 * the administrator can read it, and the review starts afresh. */
		cgfb_draft_free(d);
		snprintf(name, sizeof(name), "%s" CGFB_DRAFT_SUFFIX, id);
		cgfb_spool_quarantine(sp, name, "damaged draft");
		rc = 0;
	}
out:
	json_object_put(o);
	cgfb_buf_free(&b);
	return rc;
}

static json_object *to_json(const struct cgfb_draft *d)
{
	json_object *o = json_object_new_object(), *a = json_object_new_object();
	json_object *k = json_object_new_array();

	if (d->text)
		json_object_object_add(o, "use_case", json_object_new_string(d->text));
	if (d->message)
		json_object_object_add(o, "message", json_object_new_string(d->message));
	for (size_t i = 0; i < d->n; i++)
		json_object_object_add(a, d->keys[i], json_object_new_string(d->values[i]));
	json_object_object_add(o, "answers", a);
	for (size_t i = 0; i < d->n_kept; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "in", json_object_new_string(d->kept[i].field));
		json_object_object_add(e, "string", json_object_new_string(d->kept[i].s));
		json_object_object_add(e, "text_sha256",
				       json_object_new_string(d->kept[i].text_sha256));
		json_object_array_add(k, e);
	}
	json_object_object_add(o, "kept", k);
	return o;
}

int cgfb_draft_save(struct cgfb_spool *sp, const char *id, const struct cgfb_draft *d)
{
	json_object *o = to_json(d);
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							 JSON_C_TO_STRING_NOSLASHESCAPE);
	const int rc = s ? cgfb_spool_save_draft(sp, id, s, strlen(s)) : -ENOMEM;

	json_object_put(o);
	return rc;
}
