/* What the three programs share on their command lines (cmdline.h). */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgfb/log.h"
#include "base/cmdline.h"
#include "base/hint.h"
#include "base/suggest.h"

const char *cgfb_state_dir(const struct cgfb_globals *g)
{
	return g->state_dir ? g->state_dir : CGFB_DEFAULT_STATE_DIR;
}

void cgfb_globals_from_env(struct cgfb_globals *g)
{
	const char *d = getenv(CGFB_STATE_DIR_ENV), *c = getenv(CGFB_CONFIG_ENV);

	if (d && *d)
		g->state_dir = d;
	if (c && *c)
		g->config_path = c;
}

int cgfb_load_catalog(const struct cgfb_globals *g, struct cgfb_catalog **cat)
{
	const char *installed = CGFB_DATADIR "/catalog.json";
	char err[512];
	int rc;

	if (g->catalog_path) {
		rc = cgfb_catalog_load_file(cat, g->catalog_path, err, sizeof(err));
		if (rc < 0)
			cgfb_log(LOG_ERR, "catalog %s: %s", g->catalog_path, err);
		return rc;
	}
	if (access(installed, R_OK) == 0) {
		rc = cgfb_catalog_load_file(cat, installed, err, sizeof(err));
		if (rc == 0)
			return 0;
		cgfb_log(LOG_WARNING, "catalog %s: %s; using the built-in copy", installed, err);
	}
	rc = cgfb_catalog_load_builtin(cat, err, sizeof(err));
	if (rc < 0)
		cgfb_log(LOG_ERR, "built-in catalog: %s", err);
	return rc;
}

static bool word_in(const char *words, const char *w)
{
	const size_t n = strlen(w);

	for (const char *p = words; (p = strstr(p, w)) != NULL; p += n)
		if ((p == words || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

void cgfb_bad_option(const char *cmd, const char *arg, bool needs_value, const char *words)
{
	const char *pre = cmd ? cmd : "", *sep = cmd ? ": " : "";
	char word[64], near[64];
	const char *best = NULL;

	if (needs_value) {
		cgfb_log(LOG_ERR, "%s%soption '%s' needs a value", pre, sep, arg);
		return;
	}
	if (strncmp(arg, "--", 2) != 0) {
		cgfb_log(LOG_ERR, "%s%sunknown option '%s'", pre, sep, arg);
		return;
	}
	snprintf(word, sizeof(word), "%.*s", (int)strcspn(arg + 2, "="), arg + 2);
	best = cgfb_suggest_words(word, words, near, sizeof(near));
	if (best)
		cgfb_log(LOG_ERR, "%s%sunknown option '--%s'; did you mean '--%s'?", pre, sep, word,
			 best);
	else
		cgfb_log(LOG_ERR, "%s%sunknown option '--%s'", pre, sep, word);
}

int cgfb_next_option(int argc, char **argv, const struct option *opts, const char *allowed,
		     const char *usage)
{
	int idx = -1, opt;
	const char *name;

	/* Said here, with a suggestion, instead of by getopt. A missing
	 * argument is getopt's ':' then, said the same way. */
	opterr = 0;
	/* -o is --output, for the commands that write a file. */
	opt = getopt_long(argc, argv, ":ho:", opts, &idx);
	name = opt == 'o' ? "output" : idx >= 0 ? opts[idx].name : NULL;
	if (opt == 'h') {
		fputs(usage, stdout);
		return CGFB_OPT_HELP;
	}
	if (opt == '?' || opt == ':' || (opt != -1 && name && !word_in(allowed, name))) {
		if (opt == '?' || opt == ':')
			cgfb_bad_option(argv[0], optind > 0 && optind <= argc ? argv[optind - 1] : "?",
					opt == ':', allowed);
		else
			cgfb_log(LOG_ERR, "%s does not take --%s", argv[0], name);
		fputs(usage, stderr);
		return CGFB_OPT_ERROR;
	}
	return opt;
}
