/* The Prometheus text of a check (prom.h). Rule ids and severities are
 * checked words ([a-z0-9-], rules.c), so label values need no escaping. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include "readiness/output.h"
#include "readiness/prom.h"

#define METRIC "cgroup_feedback_check"

static unsigned long places(const struct cgfb_check *c, const struct cgfb_rule *r)
{
	unsigned long n = 0;

	for (size_t i = 0; i < c->n; i++)
		if (c->f[i].rule == r)
			n += c->f[i].count;
	return n;
}

static int gauge(struct cgfb_buf *b, const char *name, const char *help, const char *value)
{
	return cgfb_buf_printf(b, "# HELP %s_%s %s\n# TYPE %s_%s gauge\n%s_%s %s\n", METRIC, name,
			       help, METRIC, name, METRIC, name, value);
}

int cgfb_check_prometheus(struct cgfb_buf *b, const struct cgfb_rules *rs,
			  const struct cgfb_check *c, const struct cgfb_target *t, time_t now)
{
	char v[32];
	int rc = cgfb_buf_printf(b, "# HELP %s_findings Places where this machine depends on "
				 "cgroup v1, by readiness rule (cgroup-feedback check).\n"
				 "# TYPE %s_findings gauge\n", METRIC, METRIC);

	for (size_t i = 0; i < rs->n && !rc; i++)
		rc = cgfb_buf_printf(b, "%s_findings{rule=\"%s\",severity=\"%s\"} %lu\n", METRIC,
				     rs->r[i].id, cgfb_severity_name(rs->r[i].severity),
				     places(c, &rs->r[i]));
	snprintf(v, sizeof(v), "%zu", cgfb_check_breaking(c, t));
	if (!rc)
		rc = gauge(b, "breaking", "Findings of severity breaks that break on the target "
			   "(every finding without one).", v);
	if (!rc)
		rc = gauge(b, "ready", "1 when the check could look, could tell, and nothing found breaks on "
			   "the target.", c->sources && !cgfb_check_breaking(c, t) ? "1" : "0");
	if (!rc)
		rc = gauge(b, "checked", "1 when the check could read anything at all.",
			   c->sources ? "1" : "0");
	if (!rc)
		rc = gauge(b, "decided", "1 when the check could tell the cgroup mode and every input "
			   "of a decider it needed (0: cannot tell).",
			   cgfb_check_verdict(c, t) == CGFB_CANNOT_TELL ? "0" : "1");
	snprintf(v, sizeof(v), "%lu", c->unreadable);
	if (!rc)
		rc = gauge(b, "unreadable", "Places the check could not read.", v);
	snprintf(v, sizeof(v), "%jd", (intmax_t)now);
	if (!rc)
		rc = gauge(b, "last_run_timestamp_seconds", "When the check ran.", v);
	return rc;
}
