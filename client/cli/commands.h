/* Subcommands. main.c parses the global options and dispatches; each
 * command parses its own options from argv (argv[0] is the command name). */
#ifndef CGFB_COMMANDS_H
#define CGFB_COMMANDS_H

#include <stddef.h>

#include "cgfb/catalog.h"
#include "cgfb/hint.h"

#define CGFB_EXIT_OK      0
#define CGFB_EXIT_NONE    1   /* scan: nothing found */
#define CGFB_EXIT_TROUBLE 2


struct cgfb_globals {
	const char *catalog_path;  /* --catalog, or NULL */
	const char *config_path;   /* --config, or NULL for the default (may be missing) */
	const char *state_dir;     /* --state-dir before the command, or $CGFB_STATE_DIR */
};

/* The environment variable that names the state directory, as the global
 * --state-dir does (which wins over it; a command's own --state-dir wins
 * over both). */
#define CGFB_STATE_DIR_ENV "CGFB_STATE_DIR"

/* g's state directory: --state-dir, $CGFB_STATE_DIR, or the default. */
const char *cgfb_state_dir(const struct cgfb_globals *g);
/* Take $CGFB_STATE_DIR into g when it is set and not empty. */
void cgfb_globals_from_env(struct cgfb_globals *g);


struct cgfb_command {
	const char *name;
	const char *summary;       /* one line for --help */
	int (*run)(const struct cgfb_globals *g, int argc, char **argv);
};

/* The installed catalog, the compiled-in one as a fallback, or --catalog.
 * Reports the error itself. */
int cgfb_load_catalog(const struct cgfb_globals *g, struct cgfb_catalog **cat);

struct option;

#define CGFB_OPT_HELP  (-2)   /* --help: usage was printed to stdout */
#define CGFB_OPT_ERROR (-3)   /* a bad or unknown option: reported, usage on stderr */

/* getopt_long over a table several commands share, accepting only the long
 * options named in allowed (space-separated words). Returns the option,
 * -1 at the end, CGFB_OPT_HELP or CGFB_OPT_ERROR. */
int cgfb_next_option(int argc, char **argv, const struct option *opts, const char *allowed,
		     const char *usage);

struct cgfb_config;
/* The configuration file over the defaults. Reports the error itself. */
int cgfb_load_config(const struct cgfb_globals *g, struct cgfb_config *c);

int cgfb_cmd_review(const struct cgfb_globals *g, int argc, char **argv);
int cgfb_cmd_list(const struct cgfb_globals *g, int argc, char **argv);
int cgfb_cmd_show(const struct cgfb_globals *g, int argc, char **argv);
int cgfb_cmd_status(const struct cgfb_globals *g, int argc, char **argv);
int cgfb_cmd_submit(const struct cgfb_globals *g, int argc, char **argv);
int cgfb_cmd_decline(const struct cgfb_globals *g, int argc, char **argv);
int cgfb_cmd_withdraw(const struct cgfb_globals *g, int argc, char **argv);
int cgfb_cmd_flush(const struct cgfb_globals *g, int argc, char **argv);
int cgfb_cmd_export(const struct cgfb_globals *g, int argc, char **argv);
int cgfb_cmd_scan(const struct cgfb_globals *g, int argc, char **argv);
int cgfb_cmd_watch(const struct cgfb_globals *g, int argc, char **argv);
int cgfb_cmd_catalog(const struct cgfb_globals *g, int argc, char **argv);
int cgfb_cmd_snapshot(const struct cgfb_globals *g, int argc, char **argv);

#endif
