#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "base/bootid.h"
#include "base/cmdline.h"
#include "base/exec.h"
#include "base/hint.h"
#include "cgfb/buf.h"
#include "cgfb/log.h"
#include "cgfb/sha256.h"
#include "cli/scan_report.h"
#include "detect/handoff.h"

static char writer_path[PATH_MAX];

int scan_report_init(struct scan_report *r)
{
	if (cgfb_sibling_path(CGFB_REPORTER_NAME, writer_path, sizeof(writer_path)) < 0) {
		cgfb_log(LOG_ERR, "--report: %s is not installed; no report can be written",
			 CGFB_REPORTER_NAME);
		return -ENOENT;
	}
	r->writer = writer_path;
	return 0;
}

static int writer_argv(const struct scan_report *r, const char *boot, enum scan_machine machine,
		       const char *argv[20])
{
	int n = 0;

	argv[n++] = r->writer;
	argv[n++] = "--state-dir";
	argv[n++] = r->state_dir;
#define OPT(flag, value) if (value && *value) { argv[n++] = flag; argv[n++] = value; }
	OPT("--config", r->config_path);
	OPT("--catalog", r->catalog_path);
	OPT("--cgroup-root", r->cgroup_root);
	OPT("--mountinfo", r->mountinfo);
	/* The boot the message was printed in counts once on its report. */
	OPT("--boot-id", boot);
	OPT("--root", r->root);
#undef OPT
	if (machine == SCAN_MACHINE_OTHER || r->other_machine)
		argv[n++] = "--other-machine";
	else if (machine == SCAN_MACHINE_THIS)
		argv[n++] = "--this-machine";
	argv[n] = NULL;
	return n;
}

/* "<id>", "<id> repeat" or "<id> silenced": what the writer printed. */
static void say(struct scan_report *r, const struct cgfb_detection *d, char *out)
{
	char hint[CGFB_HINT_MAX];
	FILE *f = r->out ? r->out : stdout;

	out[strcspn(out, "\n")] = '\0';
	if (strstr(out, " repeat")) {
		r->repeats++;
		out[strcspn(out, " ")] = '\0';
		fprintf(f, "%s: reported before: report %s (each boot counted once)\n", d->entry->id,
			out);
		return;
	}
	r->written++;
	out[strcspn(out, " ")] = '\0';
	fprintf(f, "%s: report %s written, waiting for review: %s\n", d->entry->id, out,
		cgfb_hint(hint, sizeof(hint), r->state_dir, "review %s", out));
}

void scan_report_boot_of(const char *what, const char *path, char out[40])
{
	char real[PATH_MAX], hex[65];
	const char *name = strcmp(path, "-") == 0 ? "-" : realpath(path, real) ? real : path;
	struct cgfb_buf b = { 0 };

	cgfb_buf_printf(&b, "%s\n%s", what, name);
	cgfb_sha256_hex(b.data ? b.data : "", b.len, hex);
	cgfb_buf_free(&b);
	cgfb_boot_id_dashed(hex, out);
}

void scan_report_one(struct scan_report *r, const struct cgfb_detection *d, const char *source,
		     const char *boot, enum scan_machine machine)
{
	const char *argv[20];
	struct cgfb_buf msg = { 0 };
	char out[128];
	int status = 0, rc;

	if (d->occurrence != 1)
		return;
	writer_argv(r, boot, machine, argv);
	rc = cgfb_handoff_encode(d, source, &msg);
	if (rc == 0)
		rc = cgfb_run_filter(r->writer, argv, msg.data, msg.len, out, sizeof(out), &status,
				     NULL);
	cgfb_buf_free(&msg);
	if (rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && out[0]) {
		say(r, d, out);
		return;
	}
	r->failed++;
	if (rc < 0)
		cgfb_log(LOG_ERR, "%s: report not written: %s", d->entry->id, strerror(-rc));
	else
		cgfb_log(LOG_ERR, "%s: report not written%s (see above); scan again to try again",
			 d->entry->id, WIFEXITED(status) && WEXITSTATUS(status) == CGFB_EXIT_TEMPFAIL ?
			 " for now" : "");
}
