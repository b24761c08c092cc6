/* Admission of one report, the same for HTTP and e-mail import: the bytes
 * must be UTF-8, canonical JSON and valid against the report schema; what
 * the summary groups by is taken out once, here, into plain columns. */
#ifndef CGFB_SERVER_INGEST_H
#define CGFB_SERVER_INGEST_H

#include <stddef.h>

#include "cgfb/schema.h"
#include "store/store.h"

/* 0, or -EINVAL with "<json pointer>: <reason>" in err (a pointer of "/"
 * when the body as a whole is at fault), or -E2BIG. */
int ingest_report(const struct cgfb_schema *schema, const char *body, size_t len,
		  struct report_meta *m, char *err, size_t errsz);
void ingest_meta_free(struct report_meta *m);

#endif
