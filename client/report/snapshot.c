#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/statedir.h"
#include "cgfb/log.h"
#include "cgfb/utf8.h"
#include "report/snapshot.h"
#include "report/spool.h"

#define MOUNTINFO_PATH "/proc/self/mountinfo"

struct cgfb_snapshot {
	struct cgfb_snapshot_opts o;
	struct cgfb_allowlist *al;
	struct cgfb_anon *anon;
	struct cgfb_schema *schema;
	/* The raw secret, that new report ids are bound with. */
	uint8_t id_secret[CGFB_SECRET_LEN];
};

int cgfb_snapshot_new(const struct cgfb_snapshot_opts *o, struct cgfb_snapshot **out)
{
	struct cgfb_snapshot *s = calloc(1, sizeof(*s));
	uint8_t key[CGFB_SECRET_LEN];
	char err[512] = "";
	int rc = -ENOMEM;

	*out = NULL;
	if (!s) {
		cgfb_log(LOG_ERR, "snapshot: out of memory");
		return rc;
	}
	s->o = *o;
	rc = cgfb_secret_load(o->state, key, err, sizeof(err));
	if (rc < 0) {
		cgfb_log(LOG_ERR, "secret %s/%s: %s", o->state->path, CGFB_SECRET_FILE, err);
		goto fail;
	}
	/* Report ids and deletion tokens under the machine-bound key too
	 * (privacy/deltoken.h says why). */
	memcpy(s->id_secret, key, sizeof(s->id_secret));
	rc = cgfb_allowlist_load(&s->al, o->allowlist, err, sizeof(err));
	if (rc < 0) {
		cgfb_log(LOG_ERR, "allowlist: %s", err);
		goto fail;
	}
	rc = cgfb_anon_new(key, s->al, &s->anon);
	if (rc == 0)
		rc = cgfb_schema_load_builtin(&s->schema, err, sizeof(err));
	if (rc < 0) {
		cgfb_log(LOG_ERR, "snapshot: %s", *err ? err : strerror(-rc));
		goto fail;
	}
	explicit_bzero(key, sizeof(key));
	*out = s;
	return 0;
fail:
	explicit_bzero(key, sizeof(key));
	cgfb_snapshot_free(s);
	return rc;
}

void cgfb_snapshot_free(struct cgfb_snapshot *s)
{
	if (!s)
		return;
	cgfb_schema_free(s->schema);
	cgfb_anon_free(s->anon);
	cgfb_allowlist_free(s->al);
	explicit_bzero(s->id_secret, sizeof(s->id_secret));
	free(s);
}

/* One line for what the walk could not see; the report says the rest. */
static void log_trouble(const struct cgfb_topology *t)
{
	const struct cgfb_topo_trouble *tr = &t->trouble;

	/* cgfb_log escapes the cgroup's name (a container's root chose it). */
	if (tr->unreadable) {
		cgfb_log(LOG_WARNING, "snapshot: %lu cgroup files or directories could not be read "
			 "(first: %s: %s); the report leaves them out", tr->unreadable, tr->first,
			 strerror(tr->first_errno));
	}
	if (tr->vanished)
		cgfb_log(LOG_INFO, "snapshot: %lu cgroups vanished while they were read",
			 tr->vanished);
	for (unsigned i = 0; i < t->n; i++)
		if (t->h[i].count_capped || t->h[i].depth_capped)
			cgfb_log(LOG_WARNING, "snapshot: hierarchy %u is %s; only part of it was "
				 "counted", i, t->h[i].count_capped ? "over a million cgroups" :
				 "deeper than 256 levels");
}

static int walk(struct cgfb_snapshot *s, struct cgfb_topology *t, char *err, size_t errsz)
{
	const struct cgfb_topo_opts to = { .max_nodes = s->o.max_nodes };
	const char *path = s->o.mountinfo ? s->o.mountinfo : MOUNTINFO_PATH;
	const char *root = s->o.cgroup_root;
	char copy[4096];
	struct cgfb_mounts ms;
	int rc;

	/* Another machine's log: nothing of this machine's tree. */
	if (s->o.facts == CGFB_FACTS_LOG) {
		memset(t, 0, sizeof(*t));
		t->mode = CGFB_MODE_NONE;
		t->max_nodes = s->o.max_nodes ? s->o.max_nodes : CGFB_TOPO_MAX_NODES;
		return 0;
	}
	/* A copy: its tree, by its own mount table unless one is given. */
	if (s->o.facts == CGFB_FACTS_COPY) {
		root = s->o.copy_root;
		if (!s->o.mountinfo) {
			snprintf(copy, sizeof(copy), "%s/proc/self/mountinfo", root);
			path = copy;
		}
	}
	rc = cgfb_mountinfo_read(path, root, &ms);
	if (rc < 0) {
		snprintf(err, errsz, "reading %s: %s", path, strerror(-rc));
		return rc;
	}
	if (ms.dropped)
		cgfb_log(LOG_WARNING, "snapshot: %u cgroup hierarchies beyond the first %d are left "
			 "out", ms.dropped, CGFB_HIER_MAX);
	rc = cgfb_topology_walk(&ms, s->anon, &to, t);
	cgfb_mounts_free(&ms);
	if (rc < 0)
		snprintf(err, errsz, "walking the cgroup hierarchies: %s", strerror(-rc));
	else
		log_trouble(t);
	return rc;
}

int cgfb_snapshot_report(struct cgfb_snapshot *s, const struct cgfb_entry *e,
			 const struct cgfb_detection *d, const char *source, bool all,
			 struct cgfb_buf *out, char id[CGFB_UUID_LEN + 1], char *err, size_t errsz)
{
	const struct cgfb_profile_opts po = { s->o.os_release, s->o.cmdline };
	const char *knob = d ? cgfb_fields_get(&d->fields, "knob") : NULL;
	const char *ctrl = d ? cgfb_fields_get(&d->fields, "controller") : NULL;
	struct cgfb_topology t;
	struct cgfb_analysis an = { 0 };
	struct cgfb_profile p = { 0 };
	int rc;

	*err = '\0';
	rc = walk(s, &t, err, errsz);
	if (rc < 0)
		return rc;
	if (s->o.facts == CGFB_FACTS_LOG)
		rc = cgfb_profile_from_log(d ? d->boot.release : NULL, d ? d->boot.cmdline : NULL, &p);
	else if (s->o.facts == CGFB_FACTS_COPY)
		rc = cgfb_profile_from_copy(s->o.copy_root, &po, &p);
	else
		rc = cgfb_profile_collect(&po, &p);
	/* Another machine's log shows no tree to analyse. */
	if (rc == 0 && s->o.facts != CGFB_FACTS_LOG)
		rc = cgfb_analyse(&t, all ? NULL : e, knob, ctrl, &an);
	if (rc < 0) {
		snprintf(err, errsz, "%s", strerror(-rc));
		goto out;
	}
	const struct cgfb_report_in in = {
		.entry = e, .det = d, .source = source, .profile = &p, .topo = &t, .an = &an,
		.anon = s->anon, .now = time(NULL), .id = s->o.report_id,
		.id_secret = s->id_secret,
	};

	rc = cgfb_report_make(&in, s->schema, s->o.max_bytes ? s->o.max_bytes :
			      CGFB_REPORT_MAX_BYTES, out, id, err, errsz);
out:
	cgfb_analysis_free(&an);
	cgfb_profile_free(&p);
	cgfb_topology_free(&t);
	return rc;
}

int cgfb_snapshot_save(struct cgfb_snapshot *s, const char *id, const struct cgfb_buf *b)
{
	struct cgfb_spool sp;
	int rc;

	rc = cgfb_spool_open(&sp, s->o.state);
	if (rc == 0)
		rc = cgfb_spool_save_report(&sp, id, b->data, b->len);
	cgfb_spool_close(&sp);
	return rc;
}
