/* The public summary's counts kept as the store changes (issue 30: the
 * summary was a scan of every report, linear in the store), as SQL text
 * both backends share. Three tables, made by schema migration 4:
 *
 *   tally_delta   one row per report stored (+1) or deleted (-1), written
 *                 by a trigger on reports, so that every path that writes
 *                 reports (a POST, an import, a migration, a withdrawal, a
 *                 claim's replacement) is counted, and appended only, so
 *                 that writers of several collectors never wait for each
 *                 other on a hot row;
 *   tally         per dimension, key and install, how many reports;
 *   tally_groups  per dimension and key: reports, installs, and reports
 *                 counted at most STORE_CAP_PER_INSTALL per install, what
 *                 struct store_group carries.
 *
 * store_fold moves the deltas into the other two, a bounded chunk per
 * transaction; a summary of all reports then reads tally_groups only, a
 * row per key, however many reports there are. The dimension numbers are
 * stored: they are enum store_dim's, which must never be renumbered. */
#ifndef CGFB_SERVER_STORE_TALLY_SQL_H
#define CGFB_SERVER_STORE_TALLY_SQL_H

#include "store/store.h"

_Static_assert(DIM_CATALOG_ID == 0 && DIM_KERNEL_SERIES == 1 && DIM_DISTRIBUTION == 2 &&
	       DIM_CGROUP_MODE == 3 && DIM_SOFTWARE == 4 && DIM_VERDICT == 5 &&
	       DIM_REORGANISATION == 6 && DIM_MONTH == 7 && DIM_CHECK_CATALOG_ID == 8 &&
	       DIM_ALL == 9 && DIM_CHECK_ALL == 10 && DIM_COUNT == 11,
	       "tally rows store these numbers");

/* Deltas folded per transaction: each one short, whatever is pending (the
 * first fold after migration 4 holds the whole store). */
#define TALLY_CHUNK 20000
#define TALLY_CHUNK_TEXT "20000"

#define TALLY_COLS "install, catalog_id, kernel_series, distribution, cgroup_mode, software," \
	" verdict, reorganisation, month, origin"
#define TALLY_ROW(r) r ".install, " r ".catalog_id, " r ".kernel_series, " r ".distribution, " \
	r ".cgroup_mode, " r ".software, " r ".verdict, " r ".reorganisation, " r ".month, " \
	r ".origin"

/* Each delta of table src as (dim, key, install, d) rows, one per
 * dimension that counts it: the same selections as the scan's group-bys
 * (store_sqlite.c's dim_sql). */
#define TALLY_EXPAND(src) \
	"SELECT 0 AS dim, catalog_id AS key, install, d FROM " src " WHERE origin = 'kernel'" \
	" UNION ALL SELECT 1, kernel_series, install, d FROM " src \
	" UNION ALL SELECT 2, distribution, install, d FROM " src \
	" UNION ALL SELECT 3, cgroup_mode, install, d FROM " src \
	" UNION ALL SELECT 4, software, install, d FROM " src " WHERE software != ''" \
	" UNION ALL SELECT 5, verdict, install, d FROM " src \
	" UNION ALL SELECT 6, reorganisation, install, d FROM " src \
	" UNION ALL SELECT 7, month, install, d FROM " src \
	" UNION ALL SELECT 8, catalog_id, install, d FROM " src " WHERE origin = 'check'" \
	" UNION ALL SELECT 9, 'all', install, d FROM " src \
	" UNION ALL SELECT 10, 'check', install, d FROM " src " WHERE origin = 'check'"

#endif
