/* snapshot: the anonymised topology, profile and analysis of this machine
 * (or of a fixture tree), as a summary or as the report a detection would
 * carry. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgfb/log.h"
#include "cli/commands.h"
#include "config/config.h"
#include "report/snapshot.h"
#include "report/summary.h"

enum {
	OPT_JSON = 256, OPT_STATE_DIR, OPT_CGROUP_ROOT, OPT_MOUNTINFO, OPT_FOR, OPT_OS_RELEASE,
	OPT_CMDLINE, OPT_ALLOWLIST, OPT_MAX_NODES, OPT_CONFIG,
};

static const char usage[] =
	"Usage: cgroup-feedback snapshot [--json] [--for ID] [--state-dir DIR] [--config FILE]\n"
	"                                [--cgroup-root DIR --mountinfo FILE]\n"
	"                                [--os-release FILE] [--cmdline FILE]\n"
	"                                [--allowlist FILE] [--max-nodes N]\n"
	"Show the anonymised cgroup topology, system profile and analysis that a\n"
	"report of this machine would carry. Nothing is sent or stored but the\n"
	"per-install secret of the anonymiser (DIR/secret). --json prints the whole\n"
	"report a detection of catalog entry ID would produce (default M8, with an\n"
	"empty message); without --for the analysis covers every entry.\n"
	"--cgroup-root and --mountinfo read a fixture tree: mount points from FILE\n"
	"are looked up under DIR.\n";

struct opts {
	struct cgfb_globals g;     /* with the command's own --config */
	const char *state_dir;
	struct cgfb_snapshot_opts s;
	const char *for_id;
	bool json;
};

static int parse(int argc, char **argv, const struct cgfb_globals *g, struct opts *o)
{
	static const struct option long_opts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
		{ "cgroup-root", required_argument, NULL, OPT_CGROUP_ROOT },
		{ "mountinfo", required_argument, NULL, OPT_MOUNTINFO },
		{ "for", required_argument, NULL, OPT_FOR },
		{ "os-release", required_argument, NULL, OPT_OS_RELEASE },
		{ "cmdline", required_argument, NULL, OPT_CMDLINE },
		{ "allowlist", required_argument, NULL, OPT_ALLOWLIST },
		{ "max-nodes", required_argument, NULL, OPT_MAX_NODES },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int opt;

	memset(o, 0, sizeof(*o));
	o->g = *g;
	o->state_dir = cgfb_state_dir(g);
	while ((opt = cgfb_next_option(argc, argv, long_opts, "json state-dir cgroup-root mountinfo "
				       "for os-release cmdline allowlist max-nodes", usage)) != -1) {
		switch (opt) {
		case CGFB_OPT_HELP: return 1;
		case CGFB_OPT_ERROR: return -EINVAL;
		case OPT_JSON: o->json = true; break;
		case OPT_STATE_DIR: o->state_dir = optarg; break;
		case OPT_CGROUP_ROOT: o->s.cgroup_root = optarg; break;
		case OPT_MOUNTINFO: o->s.mountinfo = optarg; break;
		case OPT_FOR: o->for_id = optarg; break;
		case OPT_OS_RELEASE: o->s.os_release = optarg; break;
		case OPT_CMDLINE: o->s.cmdline = optarg; break;
		case OPT_ALLOWLIST: o->s.allowlist = optarg; break;
		case OPT_CONFIG: o->g.config_path = optarg; break;
		case OPT_MAX_NODES:
			o->s.max_nodes = (unsigned)strtoul(optarg, &end, 10);
			if (*end || !*optarg || o->s.max_nodes == 0) {
				cgfb_log(LOG_ERR, "--max-nodes wants a positive number, not '%s'",
					 optarg);
				return -EINVAL;
			}
			break;
		default: fputs(usage, stderr); return -EINVAL;
		}
	}
	if (optind < argc) {
		cgfb_log(LOG_ERR, "snapshot takes no arguments");
		return -EINVAL;
	}
	return 0;
}

static int print(const struct cgfb_buf *b, bool json)
{
	json_object *doc;
	int rc;

	if (json) {
		fwrite(b->data, 1, b->len, stdout);
		fputc('\n', stdout);
		return 0;
	}
	doc = json_tokener_parse(b->data);
	if (!doc)
		return -ENOMEM;
	rc = cgfb_summary_print(stdout, doc);
	json_object_put(doc);
	return rc;
}

int cgfb_cmd_snapshot(const struct cgfb_globals *g, int argc, char **argv)
{
	struct cgfb_catalog *cat = NULL;
	struct cgfb_snapshot *s = NULL;
	struct cgfb_statedir sd = { .fd = -1 };
	struct cgfb_config conf;
	const struct cgfb_entry *e;
	struct cgfb_buf b = { 0 };
	char id[CGFB_UUID_LEN + 1], err[512];
	int rc, status = CGFB_EXIT_TROUBLE;
	struct opts o;

	rc = parse(argc, argv, g, &o);
	if (rc != 0)
		return rc > 0 ? CGFB_EXIT_OK : CGFB_EXIT_TROUBLE;
	if (cgfb_load_config(&o.g, &conf) < 0 || cgfb_load_catalog(&o.g, &cat) < 0)
		return CGFB_EXIT_TROUBLE;
	if (!o.s.allowlist && conf.allowlist_file[0])
		o.s.allowlist = conf.allowlist_file;
	e = cgfb_catalog_find(cat, o.for_id ? o.for_id : "M8");
	if (!e) {
		cgfb_log(LOG_ERR, "--for %s: no such catalog entry (see cgroup-feedback catalog)",
			 o.for_id);
		goto out;
	}
	/* The anonymiser's secret is kept there (made on first use). */
	if (cgfb_statedir_open(&sd, o.state_dir, CGFB_SD_CREATE, err, sizeof(err)) < 0) {
		cgfb_log(LOG_ERR, "state directory %s: %s", o.state_dir, err);
		goto out;
	}
	o.s.state = &sd;
	if (cgfb_snapshot_new(&o.s, &s) < 0)
		goto out;
	rc = cgfb_snapshot_report(s, e, NULL, "file", !o.for_id, &b, id, err, sizeof(err));
	if (rc < 0) {
		cgfb_log(LOG_ERR, "snapshot: %s", err);
		goto out;
	}
	rc = print(&b, o.json);
	if (rc < 0 || fflush(stdout) != 0) {
		cgfb_log(LOG_ERR, "writing the output: %s", strerror(rc < 0 ? -rc : errno));
		goto out;
	}
	status = CGFB_EXIT_OK;
out:
	cgfb_buf_free(&b);
	cgfb_snapshot_free(s);
	cgfb_statedir_close(&sd);
	cgfb_catalog_free(cat);
	return status;
}
