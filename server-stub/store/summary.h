/* Public aggregates over the stored reports. A group is shown only when
 * at least SUMMARY_MIN_INSTALLS distinct installs (see ingest.h) are in it;
 * smaller groups are counted as suppressed, never shown, so no single
 * machine's combination of answers can be read off the summary.
 *
 * Under a policy (what is published) three more rules hold:
 * - a catalog id is shown only when the collector's catalog knows it, and
 *   a software name only when the client's allowlist does (known.h): a
 *   forged report cannot put its own words on the public page;
 * - with epsilon > 0 every published number gets two-sided geometric
 *   noise (noise.h) before anything is decided on it: a group's installs
 *   (one install changes it by at most 1) with epsilon, its reports
 *   counted at most STORE_CAP_PER_INSTALL per install (so one install
 *   changes them by at most that) with epsilon, a dimension's number of
 *   suppressed groups with epsilon; the threshold is applied to the noisy
 *   installs; counts are clamped at 0, reports at the installs. One
 *   install's reports thus change the probability of any one published
 *   number by at most a factor e^epsilon (docs/PRIVACY.md adds up a
 *   whole summary). */
#ifndef CGFB_SERVER_SUMMARY_H
#define CGFB_SERVER_SUMMARY_H

#include <json-c/json.h>

#include "cgfb/catalog.h"
#include "store/noise.h"
#include "store/store.h"

#define SUMMARY_MIN_INSTALLS 5
/* The collector's default: noise of a few units on each count. */
#define SUMMARY_EPSILON_DEFAULT 1.0

struct summary_policy {
	const struct cgfb_catalog *catalog;   /* NULL: catalog ids unchecked */
	double epsilon;                       /* 0: exact counts */
	unsigned char key[NOISE_KEY_LEN];     /* getrandom(2) in the collector */
};

/* {"min_installs", "since", "total", "dimensions": {name: {"groups":
 * [{"key", "reports", "installs"}], "suppressed_groups"}}}, counting
 * reports received at or after since (NULL: all). total is {"reports",
 * "installs", "suppressed", "check": {"reports", "installs",
 * "suppressed"}}: every report, and those of origin "check". With a
 * policy, also "epsilon" and its rules above; NULL: exact counts of
 * every key (the admin's view). */
int summary_build(struct store *s, const char *since, const struct summary_policy *p,
		  json_object **out);

#endif
