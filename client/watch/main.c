/* cgroup-feedback-watch: the long-running watcher on its own, so that the
 * process holding CAP_SYSLOG maps no network library (docs/ARCHITECTURE.md).
 * It takes the options of `cgroup-feedback watch`, plus --config and
 * --catalog, which that command passes on. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/cmdline.h"
#include "base/exec.h"
#include "cgfb/log.h"
#include "config/config.h"
#include "watch/watch.h"

static const char usage[] =
	"Usage: cgroup-feedback watch [--json] [--state-dir DIR] [--once] [--prompt]\n"
	"                             [--kmsg PATH] [--boot-id-file PATH] [--journal-dir DIR]\n"
	"                             [--cgroup-root DIR --mountinfo FILE]\n"
	"                             [--os-release FILE] [--cmdline FILE]\n"
	"Read the live kernel log from its oldest record, then follow it; report\n"
	"each catalog message once per boot, and write a report with a snapshot\n"
	"of the cgroups to DIR/reports/, and tell the administrator (log, login\n"
	"banner, terminals). --once stops after the backlog; --prompt, in a\n"
	"terminal, starts the review of each new report right away. Records the\n"
	"kernel's ring buffer lost before they were read are looked up in the\n"
	"journal (the system's, or DIR).\n"
	"The watcher is its own program, " CGFB_WATCHER_NAME ", which links no\n"
	"network code; this command runs it with the same options.\n";

struct opts {
	struct cgfb_globals g;
	struct cgfb_watch_opts w;
	struct cgfb_watch_sources src;
};

/* 1 after --help, 0, or -EINVAL (reported). */
static int parse(int argc, char **argv, struct opts *o)
{
	enum { OPT_CATALOG = 256, OPT_CONFIG, OPT_KMSG, OPT_BOOT_ID, OPT_STATE_DIR, OPT_ONCE,
	       OPT_JSON, OPT_CGROUP_ROOT, OPT_MOUNTINFO, OPT_PROMPT, OPT_OS_RELEASE, OPT_CMDLINE,
	       OPT_JOURNAL_DIR };
	static const struct option long_opts[] = {
		{ "catalog", required_argument, NULL, OPT_CATALOG },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "kmsg", required_argument, NULL, OPT_KMSG },
		{ "boot-id-file", required_argument, NULL, OPT_BOOT_ID },
		{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
		{ "once", no_argument, NULL, OPT_ONCE },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "cgroup-root", required_argument, NULL, OPT_CGROUP_ROOT },
		{ "mountinfo", required_argument, NULL, OPT_MOUNTINFO },
		{ "prompt", no_argument, NULL, OPT_PROMPT },
		{ "os-release", required_argument, NULL, OPT_OS_RELEASE },
		{ "cmdline", required_argument, NULL, OPT_CMDLINE },
		{ "journal-dir", required_argument, NULL, OPT_JOURNAL_DIR },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = cgfb_next_option(argc, argv, long_opts,
				       "catalog config kmsg boot-id-file state-dir once json "
				       "cgroup-root mountinfo prompt os-release cmdline journal-dir",
				       usage)) != -1) {
		switch (opt) {
		case CGFB_OPT_HELP: return 1;
		case CGFB_OPT_ERROR: return -EINVAL;
		case OPT_CATALOG: o->g.catalog_path = optarg; break;
		case OPT_CONFIG: o->g.config_path = optarg; break;
		case OPT_KMSG: o->w.kmsg_path = optarg; break;
		case OPT_BOOT_ID: o->w.boot_id_path = optarg; break;
		case OPT_STATE_DIR: o->w.state_dir = optarg; break;
		case OPT_ONCE: o->w.once = true; break;
		case OPT_JSON: o->w.json = true; break;
		case OPT_CGROUP_ROOT: o->src.cgroup_root = optarg; break;
		case OPT_MOUNTINFO: o->src.mountinfo = optarg; break;
		case OPT_PROMPT: o->w.prompt = true; break;
		case OPT_OS_RELEASE: o->src.os_release = optarg; break;
		case OPT_CMDLINE: o->src.cmdline = optarg; break;
		case OPT_JOURNAL_DIR: o->w.journal_dir = optarg; break;
		}
	}
	if (optind < argc) {
		cgfb_log(LOG_ERR, "watch takes no arguments");
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct cgfb_catalog *cat = NULL;
	struct cgfb_config conf;
	struct opts o;
	int rc;

	cgfb_log_init("cgroup-feedback");
	memset(&o, 0, sizeof(o));
	cgfb_globals_from_env(&o.g);
	o.w.state_dir = cgfb_state_dir(&o.g);
	rc = parse(argc, argv, &o);
	if (rc != 0)
		return rc > 0 ? CGFB_EXIT_OK : CGFB_EXIT_TROUBLE;
	/* The configuration is the report writer's to use; loaded here all
	 * the same, so that a mistake in it stops the watcher at its start. */
	if (cgfb_load_config(&o.g, &conf) < 0 || cgfb_load_catalog(&o.g, &cat) < 0)
		return CGFB_EXIT_TROUBLE;
	o.w.cat = cat;
	o.w.sources = &o.src;
	o.w.config_path = o.g.config_path;
	o.w.catalog_path = o.g.catalog_path;
	rc = cgfb_watch(&o.w);
	cgfb_catalog_free(cat);
	return rc;
}
