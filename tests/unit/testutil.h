/* Common includes and helpers for the cmocka unit tests. */
#ifndef CGFB_TESTUTIL_H
#define CGFB_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cgfb/catalog.h"

static inline struct cgfb_catalog *test_catalog(void)
{
	struct cgfb_catalog *cat = NULL;
	char err[256] = "";

	if (cgfb_catalog_load_builtin(&cat, err, sizeof(err)) < 0)
		fail_msg("built-in catalog: %s", err);
	return cat;
}

#define S(lit) (lit), (sizeof(lit) - 1)

#endif
