/* The administrator's commands. main.c parses the global options and
 * dispatches; each command parses its own options from argv (argv[0] is the
 * command name). */
#ifndef CGFB_COMMANDS_H
#define CGFB_COMMANDS_H

#include <stddef.h>

#include "base/cmdline.h"

struct cgfb_command {
	const char *name;
	const char *summary;       /* one line for --help */
	int (*run)(const struct cgfb_globals *g, int argc, char **argv);
};

int cgfb_cmd_review(const struct cgfb_globals *g, int argc, char **argv);
int cgfb_cmd_list(const struct cgfb_globals *g, int argc, char **argv);
int cgfb_cmd_show(const struct cgfb_globals *g, int argc, char **argv);
int cgfb_cmd_status(const struct cgfb_globals *g, int argc, char **argv);
int cgfb_cmd_submit(const struct cgfb_globals *g, int argc, char **argv);
int cgfb_cmd_decline(const struct cgfb_globals *g, int argc, char **argv);
int cgfb_cmd_reopen(const struct cgfb_globals *g, int argc, char **argv);
int cgfb_cmd_withdraw(const struct cgfb_globals *g, int argc, char **argv);
int cgfb_cmd_flush(const struct cgfb_globals *g, int argc, char **argv);
int cgfb_cmd_export(const struct cgfb_globals *g, int argc, char **argv);
int cgfb_cmd_scan(const struct cgfb_globals *g, int argc, char **argv);
int cgfb_cmd_catalog(const struct cgfb_globals *g, int argc, char **argv);
int cgfb_cmd_check(const struct cgfb_globals *g, int argc, char **argv);
int cgfb_cmd_snapshot(const struct cgfb_globals *g, int argc, char **argv);
int cgfb_cmd_demo(const struct cgfb_globals *g, int argc, char **argv);

#endif
