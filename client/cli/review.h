/* The interactive review of one report in a terminal: what was detected and
 * what it means, where a yes goes, the entry's questions, the use case, a
 * check for secrets, then for the collector of the configuration the exact
 * bytes through a pager and "Send this report to ...? [y/N]", or, without
 * one, the e-mail for the list: its bytes, the whole e-mail, and what each
 * channel publishes said before its yes (consent/destination.h). */
#ifndef CGFB_REVIEW_H
#define CGFB_REVIEW_H

#include <stdbool.h>
#include <stdio.h>

#include "cgfb/catalog.h"
#include "cgfb/schema.h"
#include "config/config.h"
#include "report/spool.h"

enum cgfb_review_outcome {
	CGFB_REVIEW_SENT,
	CGFB_REVIEW_SEND_FAILED,   /* consented, will be retried by flush */
	CGFB_REVIEW_EXPORTED,
	CGFB_REVIEW_KEPT,
	CGFB_REVIEW_DECLINED,
	CGFB_REVIEW_SILENCED,
};

struct cgfb_review_ctx {
	const struct cgfb_config *config;
	const struct cgfb_catalog *cat;
	const struct cgfb_schema *schema;
	struct cgfb_spool *spool;
	const struct cgfb_statedir *sd;
	FILE *in;
	FILE *out;
	const char *export_path;   /* where "export" writes; NULL: ./cgroup-feedback-<id>.eml */
};

/* Returns an outcome, or a negative errno after reporting the error. */
int cgfb_review(const struct cgfb_review_ctx *rc, struct cgfb_spool_entry *e);

/* The e-mail's preview and its [y/N] as review asks them, for export on a
 * terminal: the bytes, the e-mail around them, what the mail channel
 * publishes (consent/destination.h), then question. True for a yes. */
bool cgfb_review_confirm_mail(FILE *in, FILE *out, const struct cgfb_config *conf,
			      const struct cgfb_buf *bytes, const struct cgfb_buf *mail,
			      const char *to, const char *question);

#endif
