/* For the collector's unit tests: what a SQLite store holds, read on a
 * connection of the test's own, as another process would. */
#ifndef CGFB_TEST_SRVSQL_H
#define CGFB_TEST_SRVSQL_H

#include <sqlite3.h>

#include "testutil.h"

/* The first column of the first row of sql on db, or -1 without a row. */
static inline int64_t test_sql_int(const char *db, const char *sql)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	int64_t v = -1;

	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	sqlite3_busy_timeout(h, 10000);
	assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return v;
}

#endif
