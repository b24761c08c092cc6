#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cgfb/canon.h"
#include "cgfb/fnv.h"
#include "cgfb/wire.h"
#include "privacy/rekey.h"
#include "report/repeat.h"

static void copy_string(json_object *o, const char *key, char *dst, size_t sz)
{
	json_object *v;

	dst[0] = '\0';
	if (o && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string))
		snprintf(dst, sz, "%s", json_object_get_string(v));
}

/* One key per process: the report writer's install. */
static uint8_t install_key[CGFB_SECRET_LEN];
static bool have_key;

void cgfb_repeat_use_key(const uint8_t key[CGFB_SECRET_LEN])
{
	memcpy(install_key, key, CGFB_SECRET_LEN);
	have_key = true;
}

static void unkey_strings(json_object *o, struct cgfb_rekey *rk)
{
	if (json_object_is_type(o, json_type_string)) {
		const size_t len = (size_t)json_object_get_string_len(o);
		/* A copy of all len bytes: strndup would stop at a \u0000. */
		char *s = malloc(len + 1);

		if (s)
			memcpy(s, json_object_get_string(o), len + 1);
		if (s && cgfb_rekey_text(rk, s, len, false))
			json_object_set_string_len(o, s, (int)len);
		free(s);
	} else if (json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, name, v) {
			(void)name;
			unkey_strings(v, rk);
		}
	}
}

/* A consented report's detection with the snapshot's tokens again. */
static void unkey_detection(json_object *r, json_object *det)
{
	json_object *c, *e;
	struct cgfb_rekey *rk = NULL;

	if (!have_key || !json_object_object_get_ex(r, "consent", &c) ||
	    !json_object_object_get_ex(c, "endpoint", &e) || !json_object_get_string(e) ||
	    cgfb_rekey_new(install_key, json_object_get_string(e), &rk) < 0)
		return;
	unkey_strings(json_object_object_get(det, "fields"), rk);
	unkey_strings(json_object_object_get(det, "message"), rk);
	cgfb_rekey_free(rk);
}

int cgfb_report_key(const char *bytes, size_t len, struct cgfb_report_key *k)
{
	json_object *r = NULL, *det = NULL, *sys = NULL, *kern = NULL, *fields = NULL;
	struct cgfb_buf b = { 0 };
	char err[160];
	int rc;

	memset(k, 0, sizeof(*k));
	rc = cgfb_canon_parse(bytes, len, CGFB_REPORT_DEPTH_MAX, &r, err, sizeof(err));
	if (rc < 0)
		return -EBADMSG;
	if (!json_object_object_get_ex(r, "detection", &det)) {
		rc = -EBADMSG;
		goto out;
	}
	unkey_detection(r, det);
	copy_string(det, "catalog_id", k->catalog_id, sizeof(k->catalog_id));
	if (json_object_object_get_ex(r, "system", &sys) &&
	    json_object_object_get_ex(sys, "kernel", &kern))
		copy_string(kern, "series", k->series, sizeof(k->series));
	if (sys && json_object_object_get_ex(sys, "facts", NULL)) {
		rc = cgfb_canon_serialize(sys, CGFB_REPORT_MAX_BYTES, &b);
		if (rc < 0)
			goto out;
		k->origin = b.data;
		b = (struct cgfb_buf){ 0 };
	} else {
		k->origin = strdup("");
	}
	if (!k->origin) {
		rc = -ENOMEM;
		goto out;
	}
	/* No fields is a value of its own ("null"), equal only to itself. */
	if (json_object_object_get_ex(det, "fields", &fields) && fields) {
		rc = cgfb_canon_serialize(fields, CGFB_REPORT_MAX_BYTES, &b);
		if (rc < 0)
			goto out;
		k->fields = b.data;
		b.data = NULL;
	} else {
		k->fields = strdup("null");
	}
	if (!k->fields) {
		rc = -ENOMEM;
		goto out;
	}
	k->message = strdup(json_object_get_string(json_object_object_get(det, "message")) ?: "");
	if (!k->message) {
		rc = -ENOMEM;
		goto out;
	}
	rc = k->catalog_id[0] ? 0 : -EBADMSG;
out:
	cgfb_buf_free(&b);
	json_object_put(r);
	if (rc < 0)
		cgfb_report_key_free(k);
	return rc;
}

void cgfb_report_key_free(struct cgfb_report_key *k)
{
	free(k->fields);
	free(k->message);
	free(k->origin);
	k->fields = NULL;
	k->message = NULL;
	k->origin = NULL;
}

/* Does the occurrence with key k belong to report e (whose key is ek)? */
static bool belongs(const struct cgfb_spool_entry *e, const struct cgfb_report_key *ek,
		    const struct cgfb_report_key *k)
{
	if (!cgfb_report_key_same(ek, k))
		return false;
	/* Waiting for review: one question, whatever kernel asked it again. */
	if (e->state == CGFB_R_PENDING)
		return true;
	/* Answered: only a new kernel series is news to the maintainers. */
	return strcmp(ek->series, k->series) == 0;
}

bool cgfb_report_key_same(const struct cgfb_report_key *a, const struct cgfb_report_key *b)
{
	return strcmp(a->catalog_id, b->catalog_id) == 0 && strcmp(a->fields, b->fields) == 0 &&
	       strcmp(a->message, b->message) == 0 &&
	       strcmp(a->origin ? a->origin : "", b->origin ? b->origin : "") == 0;
}

/* Pending reports first (they are the ones still to be answered), then
 * the newest of the answered ones. */
static bool better(const struct cgfb_spool_entry *e, const struct cgfb_repeat_best *b)
{
	const bool pending = e->state == CGFB_R_PENDING;

	if (!b->id[0])
		return true;
	if (pending != b->pending)
		return pending;
	/* Ties as the listing (oldest first, then by id) had them: the last. */
	if (e->created != b->created)
		return e->created > b->created;
	return strcmp(e->id, b->id) > 0;
}

int cgfb_repeat_weigh(struct cgfb_spool *sp, const char *id, const struct cgfb_report_key *k,
		      struct cgfb_repeat_best *best)
{
	struct cgfb_spool_entry e;
	struct cgfb_report_key ek;
	struct cgfb_buf bytes = { 0 };
	int rc;

	rc = cgfb_spool_load(sp, id, &e, &bytes);
	if (rc == 0 && cgfb_report_key(bytes.data, bytes.len, &ek) == 0) {
		if (belongs(&e, &ek, k) && better(&e, best)) {
			snprintf(best->id, sizeof(best->id), "%s", e.id);
			best->pending = e.state == CGFB_R_PENDING;
			best->created = e.created;
		}
		cgfb_report_key_free(&ek);
	}
	cgfb_buf_free(&bytes);
	/* A report that is not ours to judge (damaged, foreign) is no owner;
	 * one gone meanwhile is told, for the index to forget it. */
	return rc == -ENOENT ? rc : 0;
}

struct scan {
	struct cgfb_spool *sp;
	const struct cgfb_report_key *k;
	struct cgfb_repeat_best best;
};

static int scan_one(const char *id, void *ctx)
{
	struct scan *s = ctx;

	cgfb_repeat_weigh(s->sp, id, s->k, &s->best);
	return 0;
}

int cgfb_repeat_find(struct cgfb_spool *sp, const struct cgfb_report_key *k,
		     char id[CGFB_REPORT_ID_LEN + 1])
{
	struct scan s = { .sp = sp, .k = k };
	int rc;

	/* One report in memory at a time, whatever the spool holds. */
	rc = cgfb_spool_each_id(sp, scan_one, &s);
	if (rc < 0)
		return rc;
	if (s.best.id[0])
		snprintf(id, CGFB_REPORT_ID_LEN + 1, "%s", s.best.id);
	return s.best.id[0] ? 1 : 0;
}

static void add_kernel(struct cgfb_seen *s, const char *series)
{
	if (!series[0])
		return;
	for (unsigned i = 0; i < s->n_kernels; i++)
		if (strcmp(s->kernels[i], series) == 0)
			return;
	/* Full: the oldest series gives way, the newest matter most. */
	if (s->n_kernels == CGFB_SEEN_KERNELS) {
		memmove(s->kernels[0], s->kernels[1], sizeof(s->kernels[0]) * (CGFB_SEEN_KERNELS - 1));
		s->n_kernels--;
	}
	snprintf(s->kernels[s->n_kernels++], sizeof(s->kernels[0]), "%s", series);
}

/* Whether boot_id was counted already (the last boot, or one of the
 * recent), and if not, remembered as the newest of the recent. */
static bool counted_before(struct cgfb_seen *s, const char *boot_id)
{
	const uint32_t h = cgfb_fnv32_str(boot_id);   /* the recent boots kept small */

	if (strcmp(s->last_boot, boot_id) == 0)
		return true;
	for (unsigned i = 0; i < s->n_recent; i++)
		if (s->recent[i] == h)
			return true;
	if (s->n_recent == CGFB_SEEN_BOOTS) {
		memmove(s->recent, s->recent + 1, sizeof(s->recent[0]) * (CGFB_SEEN_BOOTS - 1));
		s->n_recent--;
	}
	s->recent[s->n_recent++] = h;
	return false;
}

int cgfb_repeat_count(struct cgfb_spool *sp, const char *id, const char *boot_id,
		      const char *series, long long now, bool *counted)
{
	struct cgfb_spool_entry e;
	struct cgfb_seen *s = &e.seen;
	int rc;

	*counted = false;
	/* The entry brings the defaults of a report never seen again. */
	rc = cgfb_spool_load(sp, id, &e, NULL);
	if (rc < 0)
		return rc;
	if (boot_id[0] && counted_before(s, boot_id))
		return 0;
	s->boots++;
	if (now > s->last)
		s->last = now;
	snprintf(s->last_boot, sizeof(s->last_boot), "%s", boot_id);
	add_kernel(s, series);
	rc = cgfb_spool_save_seen(sp, id, s);
	*counted = rc == 0;
	return rc;
}

int cgfb_repeat_first(struct cgfb_spool *sp, const char *id, const char *boot_id,
		      const char *series, long long now)
{
	struct cgfb_seen s;

	memset(&s, 0, sizeof(s));
	s.boots = 1;
	s.first = s.last = now;
	if (boot_id[0])
		counted_before(&s, boot_id);
	snprintf(s.last_boot, sizeof(s.last_boot), "%s", boot_id);
	add_kernel(&s, series);
	return cgfb_spool_save_seen(sp, id, &s);
}
