/* What the commands around a report share (report_cmd.h): their options,
 * the configuration, catalog, schema and spool they load, and finding the
 * report an ID argument names. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hint.h"
#include "cgfb/log.h"
#include "cli/report_cmd.h"

enum {
	OPT_STATE_DIR = 256, OPT_JSON, OPT_YES, OPT_USE_CASE, OPT_ANSWER, OPT_OUTPUT,
	OPT_ENDPOINT, OPT_REDACT, OPT_EMAIL, OPT_MBOX, OPT_SEND, OPT_RAW, OPT_REVEAL,
	OPT_CGROUP_ROOT, OPT_MOUNTINFO, OPT_CONFIG, OPT_FORCE,
};

static const struct option long_opts[] = {
	{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "yes", no_argument, NULL, OPT_YES },
	{ "use-case-file", required_argument, NULL, OPT_USE_CASE },
	{ "answer", required_argument, NULL, OPT_ANSWER },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "endpoint", required_argument, NULL, OPT_ENDPOINT },
	{ "redact", no_argument, NULL, OPT_REDACT },
	{ "email", no_argument, NULL, OPT_EMAIL },
	{ "mbox", required_argument, NULL, OPT_MBOX },
	{ "send", no_argument, NULL, OPT_SEND },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "raw", no_argument, NULL, OPT_RAW },
	{ "reveal", no_argument, NULL, OPT_REVEAL },
	{ "cgroup-root", required_argument, NULL, OPT_CGROUP_ROOT },
	{ "mountinfo", required_argument, NULL, OPT_MOUNTINFO },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void ctx_free(struct report_cmd *c)
{
	cgfb_catalog_free(c->cat);
	cgfb_schema_free(c->schema);
	cgfb_spool_close(&c->spool);
	cgfb_statedir_close(&c->sd);
}

static int take_option(struct report_cmd *c, int opt)
{
	switch (opt) {
	case OPT_STATE_DIR: c->state_dir = optarg; break;
	case OPT_JSON: c->json = true; break;
	case OPT_YES: c->yes = true; break;
	case OPT_USE_CASE: c->use_case_file = optarg; break;
	case 'o':
	case OPT_OUTPUT: c->output = optarg; break;
	case OPT_ENDPOINT: c->endpoint = optarg; break;
	case OPT_REDACT: c->redact = true; break;
	case OPT_EMAIL: break;          /* the e-mail form is what export writes */
	case OPT_MBOX: c->mbox = optarg; break;
	case OPT_SEND: c->send = true; break;
	case OPT_FORCE: c->force = true; break;
	case OPT_RAW: c->raw = true; break;
	case OPT_REVEAL: c->reveal = true; break;
	case OPT_CGROUP_ROOT: c->cgroup_root = optarg; break;
	case OPT_MOUNTINFO: c->mountinfo = optarg; break;
	case OPT_CONFIG: c->g.config_path = optarg; break;
	case OPT_ANSWER:
		if (c->n_answers >= ANSWERS_MAX || !strchr(optarg, '=')) {
			cgfb_log(LOG_ERR, "--answer takes KEY=VALUE (at most %d)", ANSWERS_MAX);
			return -EINVAL;
		}
		c->answers[c->n_answers++] = optarg;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

int report_cmd_setup(struct report_cmd *c, const struct cgfb_globals *g, int argc, char **argv,
		     const char *allowed, const char *usage)
{
	char err[256], words[256];
	int opt, rc;

	memset(c, 0, sizeof(*c));
	c->sd.fd = c->spool.fd = -1;
	c->g = *g;
	c->state_dir = cgfb_state_dir(g);
	/* Every command here takes --config after it, as --state-dir. */
	snprintf(words, sizeof(words), "config %s", allowed);
	while ((opt = cgfb_next_option(argc, argv, long_opts, words, usage)) != -1) {
		if (opt == CGFB_OPT_HELP)
			return 1;
		if (opt == CGFB_OPT_ERROR || take_option(c, opt) < 0)
			return -EINVAL;
	}
	cgfb_hint_use_config(c->g.config_path);
	if (cgfb_load_config(&c->g, &c->config) < 0 || cgfb_load_catalog(&c->g, &c->cat) < 0)
		return -EINVAL;
	if (c->endpoint && cgfb_config_set(&c->config, "endpoint", c->endpoint, err,
					   sizeof(err)) < 0) {
		cgfb_log(LOG_ERR, "--endpoint: %s", err);
		return -EINVAL;
	}
	rc = cgfb_schema_load_builtin(&c->schema, err, sizeof(err));
	if (rc < 0) {
		cgfb_log(LOG_ERR, "report schema: %s", err);
		return rc;
	}
	/* A typo in --state-dir must not look like "nothing to review", and
	 * a look at the reports must not create directories. */
	rc = cgfb_statedir_open(&c->sd, c->state_dir, 0, err, sizeof(err));
	if (rc == 0) {
		rc = cgfb_spool_open_existing(&c->spool, &c->sd);
		snprintf(err, sizeof(err), "%s", strerror(-rc));
	}
	if (rc == -ENOENT)
		cgfb_log(LOG_ERR, "state directory %s does not exist (the watcher creates it; "
			 "is --state-dir or $" CGFB_STATE_DIR_ENV " right?)", c->state_dir);
	else if (rc == -EACCES)
		cgfb_log(LOG_ERR, "state directory %s: %s; the reports are readable by root and "
			 "the service only (try sudo)", c->state_dir, err);
	else if (rc < 0)
		cgfb_log(LOG_ERR, "state directory %s: %s", c->state_dir, err);
	return rc;
}

int report_cmd_finish(struct report_cmd *c, int rc)
{
	ctx_free(c);
	return rc;
}

/* The shortest prefix that names a report, as git's abbreviated ids. */
#define ID_PREFIX_MIN 4

static bool id_prefix_shape(const char *s)
{
	const size_t n = strlen(s);

	return n >= ID_PREFIX_MIN && n < CGFB_REPORT_ID_LEN &&
	       strspn(s, "0123456789abcdef-") == n;
}

/* The report a unique prefix names, into c->id. */
static const char *resolve_prefix(struct report_cmd *c, const char *prefix)
{
	struct cgfb_spool_entry *v = NULL;
	size_t n = 0, found = 0;
	char hint[CGFB_HINT_MAX];

	if (cgfb_spool_list(&c->spool, &v, &n) < 0)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (strncmp(v[i].id, prefix, strlen(prefix)) != 0)
			continue;
		if (found++ == 0)
			snprintf(c->id, sizeof(c->id), "%s", v[i].id);
		else if (found == 2)
			cgfb_log(LOG_ERR, "'%s' names more than one report: %s, %s%s", prefix, c->id,
				 v[i].id, n > i + 1 ? " (and maybe more); give more of the id" :
				 "; give more of the id");
	}
	free(v);
	if (found == 0)
		cgfb_log(LOG_ERR, "no report id starts with '%s' in %s (see %s)", prefix,
			 c->spool.dir, cgfb_hint(hint, sizeof(hint), c->state_dir, "list"));
	return found == 1 ? c->id : NULL;
}

const char *report_cmd_one_id(struct report_cmd *c, int argc, char **argv, const char *usage)
{
	char hint[CGFB_HINT_MAX];

	if (optind >= argc) {
		cgfb_log(LOG_ERR, "%s: which report? give its id (see %s)", argv[0],
			 cgfb_hint(hint, sizeof(hint), c->state_dir, "list"));
		fputs(usage, stderr);
		return NULL;
	}
	if (optind + 1 < argc) {
		cgfb_log(LOG_ERR, "%s takes one report id; '%s' is one argument too many", argv[0],
			 argv[optind + 1]);
		fputs(usage, stderr);
		return NULL;
	}
	if (cgfb_report_id_valid(argv[optind])) {
		snprintf(c->id, sizeof(c->id), "%s", argv[optind]);
		return c->id;
	}
	if (id_prefix_shape(argv[optind]))
		return resolve_prefix(c, argv[optind]);
	cgfb_log(LOG_ERR, "'%s' is not a report id (see %s)", argv[optind],
		 cgfb_hint(hint, sizeof(hint), c->state_dir, "list"));
	return NULL;
}

bool report_cmd_no_args(int argc, char **argv, const char *usage)
{
	if (optind >= argc)
		return true;
	cgfb_log(LOG_ERR, "%s takes no arguments; '%s' is one too many", argv[0], argv[optind]);
	fputs(usage, stderr);
	return false;
}

int report_cmd_load_entry(struct report_cmd *c, const char *id, struct cgfb_spool_entry *e,
			  struct cgfb_buf *bytes)
{
	const int rc = cgfb_spool_load(&c->spool, id, e, bytes);

	if (rc == -ENOENT)
		cgfb_log(LOG_ERR, "no report %s in %s", id, c->spool.dir);
	else if (rc < 0)
		cgfb_log(LOG_ERR, "report %s: %s", id, strerror(-rc));
	return rc;
}
