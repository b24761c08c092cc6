/* Admission of one report, the same for HTTP and e-mail import: the bytes
 * must be UTF-8, canonical JSON and valid against the report schema; what
 * the summary groups by is taken out once, here, into plain columns. */
#ifndef CGFB_SERVER_INGEST_H
#define CGFB_SERVER_INGEST_H

#include <stdbool.h>
#include <stddef.h>

#include "cgfb/schema.h"
#include "store/store.h"

/* 0, or -EINVAL with "<json pointer>: <reason>" in err (a pointer of "/"
 * when the body as a whole is at fault), -E2BIG (more than
 * CGFB_REPORT_MAX_BYTES) or -EMSGSIZE (more than CGFB_REPORT_VALUES_MAX
 * values), each with its reason in err. */
int ingest_report(const struct cgfb_schema *schema, const char *body, size_t len,
		  struct report_meta *m, char *err, size_t errsz);
void ingest_meta_free(struct report_meta *m);

/* What report m may claim of its id (store.h's enum report_claim), from
 * the deletion token its sender showed (token of len bytes; NULL: none,
 * as in a mail). An id not bound to the report's own hash claims nothing
 * and the token is not looked at. A bound id with the token whose SHA-256
 * is the report's hash: CLAIM_PROVEN. A bound id without a token:
 * CLAIM_BOUND when proof may not be asked (a mail, proof_required false),
 * else -EACCES; with a wrong token, -EACCES. */
int ingest_claim(struct report_meta *m, const char *token, size_t len, bool proof_required);

#endif
