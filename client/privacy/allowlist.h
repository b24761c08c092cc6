/* The allowlist: cgroup names kept or generalised in reports, and process
 * names kept. Data (data/allowlist.json), compiled in, extendable. */
#ifndef CGFB_ALLOWLIST_H
#define CGFB_ALLOWLIST_H

#include <stdbool.h>
#include <stddef.h>

#define CGFB_NAME_MAX 64   /* the report schema's name length */

struct cgfb_allowlist;

/* The built-in list, plus the entries of extra (NULL for none): a file of
 * the form of data/allowlist.json, or names one per line ('#' comments).
 * Every name and every generalisation must fit the report schema's name
 * pattern, every rule must compile and be anchored; err names the file and
 * the entry at fault. */
int cgfb_allowlist_load(struct cgfb_allowlist **out, const char *extra, char *err,
			size_t errsz);
void cgfb_allowlist_free(struct cgfb_allowlist *al);

/* What name (len bytes, any bytes) may be shown as: the name itself, a
 * generalisation, or NULL when it must be tokenised. */
const char *cgfb_allowlist_name(const struct cgfb_allowlist *al, const char *name, size_t len);
/* True when a process name may be shown as it is. */
bool cgfb_allowlist_comm(const struct cgfb_allowlist *al, const char *comm, size_t len);

/* The report schema's name pattern: ^[A-Za-z][A-Za-z0-9_.@:-]{0,63}$ */
bool cgfb_name_shape_ok(const char *s, size_t len);

#endif
