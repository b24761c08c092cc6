/* check: what on this machine still depends on cgroup v1, before an upgrade
 * removes it. Read-only and offline; exits like a linter. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <libgen.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgfb/atomic.h"
#include "cgfb/buf.h"
#include "cgfb/log.h"
#include "cli/commands.h"
#include "cli/scan_report.h"
#include "readiness/check.h"
#include "readiness/decide.h"
#include "readiness/output.h"
#include "readiness/prom.h"
#include "readiness/rules.h"
#include "readiness/version.h"

enum {
	OPT_JSON = 256, OPT_TARGET, OPT_ROOT, OPT_MOUNTINFO, OPT_RULES, OPT_PROMETHEUS, OPT_REPORT,
	OPT_STATE_DIR,
};

/* Exit codes, as linters have them. */
enum { CHECK_READY = 0, CHECK_BREAKS = 1, CHECK_COULD_NOT = 2 };

static const char usage[] =
	"Usage: cgroup-feedback check [--json] [--target SPEC] [--root DIR] [--mountinfo FILE]\n"
	"                             [--rules FILE] [--prometheus FILE]\n"
	"                             [--report [--state-dir DIR]]\n"
	"Say what on this machine depends on cgroup v1, where each use breaks (kernel,\n"
	"systemd, kubelet, distribution) and what to do instead. Reads files only;\n"
	"nothing is stored or sent. As a user it checks what it can read and says\n"
	"what it could not.\n"
	"  --json            one JSON document (docs/check.schema.json)\n"
	"  --target SPEC     count only what breaks there: kernel=6.12,systemd=258,kubelet=1.35\n"
	"                    and a release: debian=13, ubuntu=22.04, rhel=9 (any of them);\n"
	"                    without it everything that breaks anywhere counts\n"
	"  --root DIR        check a copy of a system's files under DIR instead of /; without\n"
	"                    DIR/proc it is an image: its boot configuration is read\n"
	"  --mountinfo FILE  the mount table to read instead of DIR/proc/self/mountinfo\n"
	"  --rules FILE      readiness rules instead of the built-in data/readiness.json\n"
	"  --prometheus FILE also write the findings for node_exporter's textfile\n"
	"                    collector (replaced whole, mode 0644)\n"
	"  --report          each finding the kernel asks about (a catalog message) becomes\n"
	"                    a pending report, reviewed like one the watcher writes:\n"
	"                    nothing is sent without your yes\n"
	"Exit status: 0 nothing breaks on the target, 1 something does, 2 could not check\n"
	"or could not tell.\n";

struct opts {
	bool json;
	struct cgfb_target target;
	struct cgfb_check_opts c;
	const char *rules;
	const char *prometheus;
	bool report;
	const char *state_dir;
};

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option long_opts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "target", required_argument, NULL, OPT_TARGET },
		{ "root", required_argument, NULL, OPT_ROOT },
		{ "mountinfo", required_argument, NULL, OPT_MOUNTINFO },
		{ "rules", required_argument, NULL, OPT_RULES },
		{ "prometheus", required_argument, NULL, OPT_PROMETHEUS },
		{ "report", no_argument, NULL, OPT_REPORT },
		{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char err[256];
	int opt;

	memset(o, 0, sizeof(*o));
	while ((opt = cgfb_next_option(argc, argv, long_opts, "json target root mountinfo rules prometheus report "
				       "state-dir",
				       usage)) != -1) {
		switch (opt) {
		case CGFB_OPT_HELP: return 1;
		case CGFB_OPT_ERROR: return -EINVAL;
		case OPT_JSON: o->json = true; break;
		case OPT_ROOT: o->c.root = optarg; break;
		case OPT_MOUNTINFO: o->c.mountinfo = optarg; break;
		case OPT_RULES: o->rules = optarg; break;
		case OPT_PROMETHEUS: o->prometheus = optarg; break;
		case OPT_REPORT: o->report = true; break;
		case OPT_STATE_DIR: o->state_dir = optarg; break;
		case OPT_TARGET:
			if (cgfb_target_parse(optarg, &o->target, err, sizeof(err))) {
				cgfb_log(LOG_ERR, "%s", err);
				return -EINVAL;
			}
			break;
		default: fputs(usage, stderr); return -EINVAL;
		}
	}
	if (optind < argc) {
		cgfb_log(LOG_ERR, "check takes no arguments ('%s'); --root DIR checks another tree",
			 argv[optind]);
		return -EINVAL;
	}
	if (o->state_dir && !o->report) {
		cgfb_log(LOG_ERR, "check: --state-dir goes with --report");
		return -EINVAL;
	}
	/* A root of "/" is this machine: the paths are the same without it. */
	if (o->c.root && strcmp(o->c.root, "/") == 0)
		o->c.root = NULL;
	return 0;
}

/* A detection of catalog entry e as check found it: no kernel record, so
 * no text and no fields; what the findings name (real paths) never enters
 * it. The report writer takes the snapshot and writes the report. */
static void report_entry(struct scan_report *r, const struct cgfb_entry *e, const char *boot)
{
	struct cgfb_detection d;

	memset(&d, 0, sizeof(d));
	d.entry = e;
	d.occurrence = 1;
	d.level = -1;
	snprintf(d.count_key, sizeof(d.count_key), "%s", e->id);
	scan_report_one(r, &d, "check", boot, SCAN_MACHINE_UNSAID);
}

/* Each catalog entry a finding names, once (several cpuset rules are V1). */
static int report_findings(const struct cgfb_globals *g, const struct opts *o,
			   const struct cgfb_check *c)
{
	/* A copy of another machine's files (--root): the reports carry what
	 * the copy shows of that machine (its tree, mounts, os-release) and
	 * count a boot of the copy's own, never this machine's. */
	struct scan_report r = {
		.config_path = g->config_path, .catalog_path = g->catalog_path,
		.state_dir = o->state_dir ? o->state_dir : cgfb_state_dir(g),
		.root = o->c.root, .mountinfo = o->c.mountinfo, .out = o->json ? stderr : stdout,
	};
	struct cgfb_catalog *cat = NULL;
	char boot[40] = "";
	int rc = scan_report_init(&r);

	if (o->c.root)
		scan_report_boot_of("check", o->c.root, boot);
	if (rc < 0 || (rc = cgfb_load_catalog(g, &cat)) < 0)
		return rc;
	for (size_t i = 0; i < c->n; i++) {
		const char *id = c->f[i].rule->catalog;
		const struct cgfb_entry *e = id ? cgfb_catalog_find(cat, id) : NULL;
		bool seen = false;

		for (size_t k = 0; e && k < i; k++)
			seen |= c->f[k].rule->catalog && strcmp(c->f[k].rule->catalog, id) == 0;
		if (e && !seen)
			report_entry(&r, e, boot);
	}
	cgfb_catalog_free(cat);
	fprintf(r.out, "--report: %u new report%s, %u counted on earlier ones%s\n", r.written,
		r.written == 1 ? "" : "s", r.repeats, r.failed ? "; some could not be written (above)" : "");
	return r.failed ? -EIO : 0;
}

/* The directory of --prometheus, reached from "/" without following a
 * link another user could change, and refused when another user could
 * change what is in it. Debian 12's prometheus-node-exporter reads
 * /var/lib/prometheus/node-exporter (its binary's default
 * --collector.textfile.directory): the package ships that directory
 * root:root 0755 (dpkg -c prometheus-node-exporter_1.5.0-1+b6), but its
 * postinst (line 30) gives the parent /var/lib/prometheus to the
 * prometheus account, which could rename node-exporter away and put a link
 * or a directory of its own there: the walk refuses the link, and the rule
 * below a directory of theirs. A root-owned directory, or a sticky one
 * (where root's file cannot be renamed or removed by another), is fine:
 * the file is made new by root under a name no one can predict (O_EXCL)
 * and renamed into place, so it is root's. docs/SECURITY.md. */
static int open_prometheus_dir(const char *dir)
{
	const int fd = cgfb_open_dir_path(dir, 0, 0);
	int rc;

	if (fd < 0)
		return fd;
	rc = cgfb_dir_shared(fd);
	if (rc == 0)
		return fd;
	close(fd);
	return rc < 0 ? rc : -EPERM;
}

/* Replaced whole, as the textfile collector wants: it may read at any time. */
static int write_prometheus(const char *path, const struct cgfb_rules *rs,
			    const struct cgfb_check *c, const struct cgfb_target *t)
{
	struct cgfb_buf b = { 0 };
	char d[4096], f[4096];
	int dfd = -1, rc;

	if (snprintf(d, sizeof(d), "%s", path) >= (int)sizeof(d))
		return -ENAMETOOLONG;
	snprintf(f, sizeof(f), "%s", path);
	rc = cgfb_check_prometheus(&b, rs, c, t, time(NULL));
	if (!rc)
		rc = dfd = open_prometheus_dir(dirname(d));
	if (rc >= 0)
		rc = cgfb_atomic_write_at(dfd, basename(f), b.data, b.len, 0644);
	if (rc == -EPERM)
		cgfb_log(LOG_ERR, "check --prometheus %s: its directory %s belongs to another user "
			 "or others may write it and it is not sticky, so another user could "
			 "choose what root writes there; make it root's and writable by root "
			 "alone (chown root: DIR; chmod go-w DIR)", path, d);
	else if (rc == -ELOOP)
		cgfb_log(LOG_ERR, "check --prometheus %s: the way to it goes through a symbolic "
			 "link another user could change; name the directory itself", path);
	else if (rc)
		cgfb_log(LOG_ERR, "check --prometheus %s: %s", path, strerror(-rc));
	if (dfd >= 0)
		close(dfd);
	cgfb_buf_free(&b);
	return rc;
}

int cgfb_cmd_check(const struct cgfb_globals *g, int argc, char **argv)
{
	struct cgfb_rules rs = { 0 };
	struct cgfb_check c = { 0 };
	struct opts o;
	char err[512];
	int rc = parse(argc, argv, &o);

	if (rc)
		return rc > 0 ? 0 : CHECK_COULD_NOT;
	rc = o.rules ? cgfb_rules_load_file(&rs, o.rules, err, sizeof(err))
		     : cgfb_rules_load_builtin(&rs, err, sizeof(err));
	if (rc) {
		cgfb_log(LOG_ERR, "readiness rules: %s", rc == -ENOMEM ? strerror(ENOMEM) : err);
		return CHECK_COULD_NOT;
	}
	if ((rc = cgfb_check_run(&rs, &o.c, &c)) || (rc = cgfb_decide(&c, &o.target))) {
		cgfb_log(LOG_ERR, "check: %s", strerror(-rc));
		rc = CHECK_COULD_NOT;
		goto out;
	}
	rc = o.json ? cgfb_check_print_json(stdout, &c, &o.target, o.c.root)
		    : cgfb_check_print(stdout, &c, &o.target, o.c.root);
	if (rc || fflush(stdout)) {
		cgfb_log(LOG_ERR, "check: writing the result: %s", strerror(rc ? -rc : errno));
		rc = CHECK_COULD_NOT;
	} else if (!c.sources || (o.prometheus && write_prometheus(o.prometheus, &rs, &c, &o.target)) ||
		   (o.report && report_findings(g, &o, &c) < 0))
		rc = CHECK_COULD_NOT;
	else
		rc = cgfb_check_verdict(&c, &o.target) == CGFB_NOT_READY ? CHECK_BREAKS
		     : cgfb_check_verdict(&c, &o.target) == CGFB_READY ? CHECK_READY : CHECK_COULD_NOT;
out:
	cgfb_check_free(&c);
	cgfb_rules_free(&rs);
	return rc;
}
