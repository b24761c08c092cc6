/* WARN() blocks: "------------[ cut here ]------------" ... "---[ end trace ]---".
 * The deprecation text of a WARN_ONCE (S1) is one record of such a block;
 * the process and kernel that printed it are in other records of the block. */
#ifndef CGFB_WARNBLOCK_H
#define CGFB_WARNBLOCK_H

#include <stdbool.h>
#include <stddef.h>

#include "cgfb/fields.h"

/* A block never legitimately runs longer than this; a missing end marker
 * (truncated log) must not swallow the rest of the file. */
#define CGFB_WARN_MAX_RECORDS 256

struct cgfb_warn {
	bool active;
	unsigned records;
	bool banner;                /* its "WARNING: " line was seen */
	/* Past the place of the WARN's own text ("Modules linked in:", the
	 * process line): a catalog message now is a record after the block,
	 * whose end line was lost. */
	bool past_text;
	struct cgfb_fields fields;  /* kernel_file, kernel_line, function, comm, pid, cpu, release, taint */
};

bool cgfb_warn_is_start(const char *text, size_t len);
bool cgfb_warn_is_end(const char *text, size_t len);
/* The "WARNING: " line of a WARN block of any era: where a block starts
 * when its "[ cut here ]" line was lost (cut from a paste, or never printed
 * by a kernel that only has __WARN_printf). */
bool cgfb_warn_is_banner(const char *text, size_t len);

void cgfb_warn_begin(struct cgfb_warn *w);
/* Take what a record inside the block says about the warning. */
void cgfb_warn_feed(struct cgfb_warn *w, const char *text, size_t len);

#endif
