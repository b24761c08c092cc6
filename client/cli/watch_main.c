/* cgroup-feedback-watch: the long-running watcher on its own, so that the
 * process holding CAP_SYSLOG maps no network library (docs/ARCHITECTURE.md).
 * It takes the options of `cgroup-feedback watch`, plus --config and
 * --catalog, which that command passes on. */
#include "cgfb/log.h"
#include "cli/commands.h"

int main(int argc, char **argv)
{
	struct cgfb_globals g = { 0 };

	cgfb_log_init("cgroup-feedback");
	cgfb_globals_from_env(&g);
	return cgfb_cmd_watch(&g, argc, argv);
}
