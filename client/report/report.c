#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "report/report.h"
#include "report/report_detection.h"
#include "report/report_system.h"
#include "report/topojson.h"

#define SCHEMA_ID       "cgroup-feedback/report"
#define SCHEMA_VERSION  1
/* Room for what a cut summary and the counts add to a hierarchy. */
#define CUT_SLACK       96
#define SHRINK_TRIES    8

int cgfb_uuid4(char out[CGFB_UUID_LEN + 1])
{
	uint8_t u[16];
	size_t got = 0;

	while (got < sizeof(u)) {
		const ssize_t r = getrandom(u + got, sizeof(u) - got, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		got += (size_t)r;
	}
	u[6] = (u[6] & 0x0f) | 0x40;    /* version 4 */
	u[8] = (u[8] & 0x3f) | 0x80;    /* RFC 4122 variant */
	snprintf(out, CGFB_UUID_LEN + 1,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
		 u[13], u[14], u[15]);
	return 0;
}

static json_object *client_json(void)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string("cgroup-feedback"));
	json_object_object_add(o, "version", json_object_new_string(CGFB_VERSION));
	return o;
}

/* Everything but the topology's nodes. */
static json_object *document(const struct cgfb_report_in *in, const struct cgfb_schema *schema,
			     const char *id)
{
	json_object *o = json_object_new_object();
	char created[32];
	struct tm tm;

	gmtime_r(&in->now, &tm);
	/* To the hour: the minute a warning was printed, beside a log of the
	 * machine, would say which one it was. */
	strftime(created, sizeof(created), "%Y-%m-%dT%H:00:00Z", &tm);
	json_object_object_add(o, "schema", json_object_new_string(SCHEMA_ID));
	json_object_object_add(o, "schema_version", json_object_new_int(SCHEMA_VERSION));
	json_object_object_add(o, "report_id", json_object_new_string(id));
	json_object_object_add(o, "created", json_object_new_string(created));
	json_object_object_add(o, "client", client_json());
	json_object_object_add(o, "detection", cgfb_report_detection(schema, in->entry,
								       in->det, in->source,
								       in->anon));
	json_object_object_add(o, "system", cgfb_report_system(schema, in->profile,
									  in->topo->mode));
	json_object_object_add(o, "analysis", cgfb_analysis_json(in->an));
	/* Filled by the review step, with the administrator. */
	json_object_object_add(o, "use_case", NULL);
	json_object_object_add(o, "consent", NULL);
	json_object_object_add(o, "deletion", NULL);
	return o;
}

static int set_topology(json_object *doc, const struct cgfb_report_in *in, size_t max_bytes,
			size_t budget)
{
	json_object *t = cgfb_topology_json(in->topo, in->an, max_bytes, budget);

	if (!t)
		return -ENOMEM;
	json_object_object_add(doc, "topology", t);
	return 0;
}

/* Bytes the report takes without any node. */
static int base_size(json_object *doc, const struct cgfb_report_in *in, size_t max_bytes,
		     size_t *len)
{
	struct cgfb_buf b = { 0 };
	int rc;

	rc = set_topology(doc, in, max_bytes, 0);
	if (rc == 0)
		rc = cgfb_canon_serialize(doc, SIZE_MAX / 2, &b);
	*len = b.len;
	cgfb_buf_free(&b);
	return rc;
}

/* Bytes the nodes may take. A pathological tree (hundreds of flat subtrees
 * of a thousand children each) could fill the report with its analysis
 * alone: whole flat-subtree entries are dropped from the end (the
 * outermost come first) until the rest leaves half the cap to the nodes. */
static int node_budget(json_object *doc, struct cgfb_report_in *in, struct cgfb_analysis *an,
		       size_t max_bytes, size_t *budget)
{
	const size_t slack = CUT_SLACK * (in->topo->n + 1);
	size_t len;
	int rc;

	for (;;) {
		rc = base_size(doc, in, max_bytes, &len);
		if (rc < 0 || len <= max_bytes / 2 || an->n_flat <= 1)
			break;
		an->n_flat -= (an->n_flat + 3) / 4;
		an->flat_truncated = true;
		json_object_object_add(doc, "analysis", cgfb_analysis_json(an));
	}
	if (rc == 0 && len + slack > max_bytes)
		rc = -E2BIG;
	if (rc == 0)
		*budget = max_bytes - len - slack;
	return rc;
}

int cgfb_report_make(const struct cgfb_report_in *in, const struct cgfb_schema *schema,
		     size_t max_bytes, struct cgfb_buf *out, char id[CGFB_UUID_LEN + 1], char *err,
		     size_t errsz)
{
	struct cgfb_analysis an = *in->an;       /* may lose flat subtrees to the cap */
	struct cgfb_report_in my = *in;
	json_object *doc = NULL;
	size_t budget = 0;
	int rc;

	*err = '\0';
	my.an = &an;
	if (in->id && !cgfb_report_id_valid(in->id)) {
		snprintf(err, errsz, "'%.40s' is not a report id", in->id);
		return -EINVAL;
	}
	if (in->id_secret) {
		rc = cgfb_deltoken_new_id(in->id_secret, in->id, id);
	} else if (in->id) {
		memcpy(id, in->id, CGFB_UUID_LEN + 1);
		rc = 0;
	} else {
		rc = cgfb_uuid4(id);
	}
	if (rc < 0) {
		snprintf(err, errsz, "no report id: %s", strerror(-rc));
		return rc;
	}
	doc = document(&my, schema, id);
	rc = node_budget(doc, &my, &an, max_bytes, &budget);
	if (rc == -E2BIG)
		snprintf(err, errsz, "the report is over %zu bytes without any cgroup", max_bytes);
	/* The budget is exact but for the cut summaries; shrink if they tip it. */
	for (int i = 0; rc == 0; i++) {
		rc = set_topology(doc, &my, max_bytes, budget);
		if (rc == 0)
			rc = cgfb_canon_serialize(doc, max_bytes, out);
		if (rc != -E2BIG || i == SHRINK_TRIES)
			break;
		budget -= budget / 8;
		rc = 0;
	}
	if (rc == 0 && cgfb_schema_validate(schema, doc, err, errsz) < 0)
		rc = -EINVAL;
	else if (rc < 0 && !*err)
		snprintf(err, errsz, "%s", strerror(-rc));
	json_object_put(doc);
	return rc;
}
