/* What the three programs (cgroup-feedback, its watcher and its report
 * writer) share on their command lines: exit codes, the global options,
 * where the state directory is, the catalog, and option parsing. */
#ifndef CGFB_CMDLINE_H
#define CGFB_CMDLINE_H

#include <stdbool.h>

#include "cgfb/catalog.h"

#define CGFB_EXIT_OK      0
#define CGFB_EXIT_NONE    1   /* scan: nothing found */
#define CGFB_EXIT_FAILING 1   /* status: a consented report's last send failed */
#define CGFB_EXIT_TROUBLE 2
/* cgroup-feedback-report: no report written for now, try again (EX_TEMPFAIL). */
#define CGFB_EXIT_TEMPFAIL 75

struct cgfb_globals {
	const char *catalog_path;  /* --catalog, or NULL */
	/* --config or $CGFB_CONFIG, or NULL for the default (may be missing) */
	const char *config_path;
	const char *state_dir;     /* --state-dir before the command, or $CGFB_STATE_DIR */
};

/* The environment variable that names the state directory, as the global
 * --state-dir does (which wins over it; a command's own --state-dir wins
 * over both). */
#define CGFB_STATE_DIR_ENV "CGFB_STATE_DIR"
/* The same for the configuration file and --config. */
#define CGFB_CONFIG_ENV "CGFB_CONFIG"

/* g's state directory: --state-dir, $CGFB_STATE_DIR, or the default. */
const char *cgfb_state_dir(const struct cgfb_globals *g);
/* Take $CGFB_STATE_DIR and $CGFB_CONFIG into g when set and not empty. */
void cgfb_globals_from_env(struct cgfb_globals *g);

/* The installed catalog, the compiled-in one as a fallback, or --catalog.
 * Reports the error itself. */
int cgfb_load_catalog(const struct cgfb_globals *g, struct cgfb_catalog **cat);

struct option;

#define CGFB_OPT_HELP  (-2)   /* --help: usage was printed to stdout */
#define CGFB_OPT_ERROR (-3)   /* a bad or unknown option: reported, usage on stderr */

/* An option getopt refused (arg, as typed), said once: unknown, with the
 * nearest of words (space-separated long names) when one is near, or
 * without its value. cmd prefixes the message when not NULL. */
void cgfb_bad_option(const char *cmd, const char *arg, bool needs_value, const char *words);

/* getopt_long over a table several commands share, accepting only the long
 * options named in allowed (space-separated words). Returns the option,
 * -1 at the end, CGFB_OPT_HELP or CGFB_OPT_ERROR. */
int cgfb_next_option(int argc, char **argv, const struct option *opts, const char *allowed,
		     const char *usage);

#endif
