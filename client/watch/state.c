#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "base/statedir.h"
#include "cgfb/atomic.h"
#include "cgfb/readfile.h"
#include "watch/state.h"

#define STATE_FILE_MAX 65536

unsigned cgfb_state_count(const struct cgfb_state *st, const char *id)
{
	for (unsigned i = 0; i < st->n_ids; i++)
		if (strcmp(st->ids[i].id, id) == 0)
			return st->ids[i].count;
	return 0;
}

int cgfb_state_set_count(struct cgfb_state *st, const char *id, unsigned count)
{
	unsigned i = 0;

	if (strlen(id) >= sizeof(st->ids[0].id))
		return -EINVAL;
	while (i < st->n_ids && strcmp(st->ids[i].id, id) != 0)
		i++;
	if (i == st->n_ids) {
		if (st->n_ids >= CGFB_STATE_MAX_IDS)
			return -ENOSPC;
		snprintf(st->ids[st->n_ids++].id, sizeof(st->ids[0].id), "%s", id);
	}
	st->ids[i].count = count;
	return 0;
}

static int from_json(json_object *root, struct cgfb_state *st)
{
	json_object *v, *ids;

	if (!json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "boot_id", &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    strlen(json_object_get_string(v)) >= sizeof(st->boot_id))
		return -EBADMSG;
	snprintf(st->boot_id, sizeof(st->boot_id), "%s", json_object_get_string(v));
	if (json_object_object_get_ex(root, "next", &v)) {
		if (!json_object_is_type(v, json_type_int))
			return -EBADMSG;
		st->has_pos = true;
		st->pos = json_object_get_uint64(v);
	}
	if (json_object_object_get_ex(root, "usec", &v)) {
		if (!json_object_is_type(v, json_type_int))
			return -EBADMSG;
		st->has_usec = true;
		st->usec = json_object_get_uint64(v);
	}
	if (json_object_object_get_ex(root, "lost", &v))
		st->lost = (unsigned long)json_object_get_uint64(v);
	if (json_object_object_get_ex(root, "handoff", &ids)) {
		json_object *at, *id;

		if (!json_object_object_get_ex(ids, "at", &at) || !json_object_is_type(at, json_type_int) ||
		    !json_object_object_get_ex(ids, "report", &id) ||
		    !json_object_is_type(id, json_type_string) ||
		    strlen(json_object_get_string(id)) >= sizeof(st->handoff_id) ||
		    !json_object_object_get_ex(ids, "entry", &v) ||
		    !json_object_is_type(v, json_type_string) ||
		    strlen(json_object_get_string(v)) >= sizeof(st->handoff_entry))
			return -EBADMSG;
		snprintf(st->handoff_entry, sizeof(st->handoff_entry), "%s", json_object_get_string(v));
		st->has_handoff = true;
		st->handoff_pos = json_object_get_uint64(at);
		snprintf(st->handoff_id, sizeof(st->handoff_id), "%s", json_object_get_string(id));
	}
	if (!json_object_object_get_ex(root, "reported", &ids))
		return 0;
	if (!json_object_is_type(ids, json_type_object))
		return -EBADMSG;
	json_object_object_foreach(ids, id, count) {
		if (!json_object_is_type(count, json_type_int) ||
		    cgfb_state_set_count(st, id, (unsigned)json_object_get_int(count)) < 0)
			return -EBADMSG;
	}
	return 0;
}

int cgfb_state_load(int dfd, struct cgfb_state *st)
{
	char buf[STATE_FILE_MAX];
	json_object *root;
	ssize_t n;
	int rc;

	memset(st, 0, sizeof(*st));
	n = cgfb_read_at(dfd, CGFB_STATE_FILE, buf, sizeof(buf));
	if (n < 0)
		return n == -ENOENT ? 0 : (int)n;
	root = json_tokener_parse(buf);
	rc = root ? from_json(root, st) : -EBADMSG;
	json_object_put(root);
	if (rc < 0) {
		/* Keep the evidence, start afresh: a crash loop helps nobody. */
		memset(st, 0, sizeof(*st));
		renameat(dfd, CGFB_STATE_FILE, dfd, CGFB_STATE_FILE CGFB_CORRUPT_SUFFIX);
	}
	return rc;
}

int cgfb_state_save(int dfd, const struct cgfb_state *st)
{
	json_object *root = json_object_new_object(), *ids = json_object_new_object();
	const char *s;
	int rc;

	json_object_object_add(root, "boot_id", json_object_new_string(st->boot_id));
	if (st->has_pos)
		json_object_object_add(root, "next", json_object_new_uint64(st->pos));
	if (st->has_usec)
		json_object_object_add(root, "usec", json_object_new_uint64(st->usec));
	json_object_object_add(root, "lost", json_object_new_uint64(st->lost));
	if (st->has_handoff) {
		json_object *h = json_object_new_object();

		json_object_object_add(h, "at", json_object_new_uint64(st->handoff_pos));
		json_object_object_add(h, "report", json_object_new_string(st->handoff_id));
		json_object_object_add(h, "entry", json_object_new_string(st->handoff_entry));
		json_object_object_add(root, "handoff", h);
	}
	for (unsigned i = 0; i < st->n_ids; i++)
		json_object_object_add(ids, st->ids[i].id, json_object_new_int((int)st->ids[i].count));
	json_object_object_add(root, "reported", ids);
	s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY);
	rc = cgfb_atomic_write_at(dfd, CGFB_STATE_FILE, s, strlen(s), 0600);
	json_object_put(root);
	return rc;
}
