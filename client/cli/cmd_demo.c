/* demo: the demonstration an installed system carries, as `make demo` runs
 * it from a checkout: the script $(DATADIR)/demo/demo.sh (tools/demo.sh),
 * which replays the recorded kernel log beside it into a scratch
 * directory, with a collector of its own, and touches nothing of the
 * system. A script an administrator can read before running it; this
 * command only finds it and the programs it needs. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgfb/log.h"
#include "cli/commands.h"

#define DEMO_DIR CGFB_DATADIR "/demo"

static const char usage[] =
	"Usage: cgroup-feedback demo\n"
	"Replay a kernel log recorded on a Fedora 42 machine booted into cgroup v1\n"
	"into a scratch directory, with a collector of its own on a free loopback\n"
	"port (when cgroup-feedback-server is installed), and say the next commands:\n"
	"review, the dashboard, withdraw. Nothing of this system is touched (its\n"
	"spool, its login banner, its administrators' terminals) and no root is\n"
	"needed; Ctrl-C stops it and removes the scratch directory. It runs\n"
	DEMO_DIR "/demo.sh; from a checkout, make demo.\n";

int cgfb_cmd_demo(const struct cgfb_globals *g, int argc, char **argv)
{
	char self[PATH_MAX];
	const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	(void)g;
	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		fputs(usage, stdout);
		return CGFB_EXIT_OK;
	}
	if (argc > 1) {
		cgfb_log(LOG_ERR, "demo takes no arguments ('%s')", argv[1]);
		fputs(usage, stderr);
		return CGFB_EXIT_TROUBLE;
	}
	if (n <= 0 || access(DEMO_DIR "/demo.sh", R_OK) < 0) {
		cgfb_log(LOG_ERR, "demo: %s/demo.sh: %s; from a checkout, run make demo", DEMO_DIR,
			 n <= 0 ? "cannot tell where this program is" : strerror(errno));
		return CGFB_EXIT_TROUBLE;
	}
	self[n] = '\0';
	/* The demo's own configuration and state directory, not the global
	 * options' nor the environment's. */
	unsetenv("CGFB_STATE_DIR");
	unsetenv("CGFB_CONFIG");
	if (setenv("CGFB_DEMO_CLI", self, 1) < 0 ||
	    setenv("CGFB_DEMO_LOG", DEMO_DIR "/fedora-6.15.kmsg", 1) < 0) {
		cgfb_log(LOG_ERR, "demo: %s", strerror(errno));
		return CGFB_EXIT_TROUBLE;
	}
	execl("/bin/sh", "sh", DEMO_DIR "/demo.sh", (char *)NULL);
	cgfb_log(LOG_ERR, "demo: /bin/sh: %s", strerror(errno));
	return CGFB_EXIT_TROUBLE;
}
