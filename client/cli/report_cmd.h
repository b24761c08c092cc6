/* What the commands around a report share (cmd_report.c): their options,
 * the configuration, catalog, schema and spool they load, and finding the
 * report an ID argument names. The commands are split by what they do:
 * cmd_inspect.c (list, show, status), cmd_consent.c (review, decline, and
 * the consent submit, flush and export give without a terminal) and
 * cmd_send.c (submit, withdraw, flush, export). */
#ifndef CGFB_REPORT_CMD_H
#define CGFB_REPORT_CMD_H

#include <stdbool.h>
#include <stddef.h>

#include "base/cmdline.h"
#include "cgfb/buf.h"
#include "cgfb/schema.h"
#include "config/config.h"
#include "report/spool.h"

#define ANSWERS_MAX 32

struct report_cmd {
	struct cgfb_globals g;
	struct cgfb_config config;
	struct cgfb_catalog *cat;
	struct cgfb_schema *schema;
	struct cgfb_statedir sd;         /* opened once by setup */
	struct cgfb_spool spool;
	const char *state_dir;
	const char *output;
	const char *use_case_file;
	const char *endpoint;
	const char *mbox;
	const char *cgroup_root;         /* show --reveal in a fixture tree */
	const char *mountinfo;
	char id[CGFB_REPORT_ID_LEN + 1];   /* the report named, prefix resolved */
	bool send;
	bool force;                 /* export: replace an existing -o FILE */
	bool json;
	bool yes;
	bool redact;
	bool raw;
	bool reveal;
	size_t n_answers;
	const char *answers[ANSWERS_MAX];
	/* Asked between making a consent's bytes and recording them (export
	 * asks for its yes there): 0 records, 1 (not confirmed, said) or a
	 * negative errno records nothing. NULL: recorded at once. */
	int (*confirm)(struct report_cmd *c, const struct cgfb_spool_entry *e,
		       const struct cgfb_buf *bytes);
	void *confirm_arg;
};

/* Parse the options a command allows (space-separated long names), then
 * load what every command needs. 1 after --help, 0, or -errno (reported). */
int report_cmd_setup(struct report_cmd *c, const struct cgfb_globals *g, int argc, char **argv,
		     const char *allowed, const char *usage);
/* Free what setup loaded; returns rc. */
int report_cmd_finish(struct report_cmd *c, int rc);

#define SETUP(allowed, usage) \
	do { \
		const int _r = report_cmd_setup(&c, g, argc, argv, allowed, usage); \
		if (_r != 0) \
			return report_cmd_finish(&c, _r > 0 ? CGFB_EXIT_OK : CGFB_EXIT_TROUBLE); \
	} while (0)

/* The one ID argument of show, submit, decline, withdraw, export, review:
 * a whole id or a unique prefix of at least four characters; NULL when
 * there is none (reported). */
const char *report_cmd_one_id(struct report_cmd *c, int argc, char **argv, const char *usage);
/* list, status, flush: options only (an argument is reported). */
bool report_cmd_no_args(int argc, char **argv, const char *usage);
/* The report id names, with its bytes; errors reported. */
int report_cmd_load_entry(struct report_cmd *c, const char *id, struct cgfb_spool_entry *e,
			  struct cgfb_buf *bytes);

/* Consent given without a terminal (submit --yes, export): from the
 * report's draft with what --use-case-file and --answer add, each text
 * checked for secrets and control characters; recorded for endpoint once
 * c->confirm, if set, says so. 0, 1 (not confirmed) or -errno (reported).
 * cmd_consent.c. */
int report_cmd_unattended_consent(struct report_cmd *c, struct cgfb_spool_entry *e,
				  const char *endpoint);
/* flush with consent = auto: the configured use-case-file alone, every
 * secret-looking string in it replaced; the report's draft is not read. */
int report_cmd_auto_consent(struct report_cmd *c, struct cgfb_spool_entry *e,
			    const char *endpoint);

#endif
