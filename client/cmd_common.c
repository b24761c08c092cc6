/* What several subcommands share. */
#include <unistd.h>

#include "cgfb/log.h"
#include "commands.h"

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
