/* What several subcommands share. */
#include <unistd.h>

#include "cgfb/log.h"
#include "commands.h"
#include "config.h"

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

int cgfb_load_config(const struct cgfb_globals *g, struct cgfb_config *c)
{
	char err[600];
	int rc;

	cgfb_config_defaults(c);
	rc = cgfb_config_load(c, g->config_path ? g->config_path : CGFB_DEFAULT_CONFIG,
			      g->config_path != NULL, err, sizeof(err));
	if (rc < 0)
		cgfb_log(LOG_ERR, "%s", err);
	return rc;
}
