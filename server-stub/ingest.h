/* Admission of one report, the same for HTTP and e-mail import: the bytes
 * must be UTF-8, canonical JSON and valid against the report schema; what
 * the summary groups by is taken out once, here, into plain columns. */
#ifndef CGFB_SERVER_INGEST_H
#define CGFB_SERVER_INGEST_H

#include <stddef.h>

#include "cgfb/schema.h"
#include "cgfb/wire.h"


/* Installs are counted by the pseudonym a client derives for this collector
 * from its per-install secret (consent.install): the same machine across
 * boots and kernels is one install, two collectors cannot link it. */
struct report_meta {
	char id[CGFB_REPORT_ID_LEN + 1];
	char sha256[65];
	char token_sha256[65];       /* "" when the report has no deletion token */
	char install[65];            /* consent.install, the client's pseudonym */
	char catalog_id[16];
	char kernel_series[16];
	char distribution[72];       /* "<id> <version_id>" */
	char cgroup_mode[16];
	char software[72];           /* detection.fields.comm, "" if none */
	char verdict[16];            /* affected | unaffected | none */
	char reorganisation[32];     /* use_case.answers.reorganisation, normalised */
	char month[8];               /* YYYY-MM of "created" */
	char *use_case;              /* use_case.text or NULL; owned */
};

/* 0, or -EINVAL with "<json pointer>: <reason>" in err (a pointer of "/"
 * when the body as a whole is at fault), or -E2BIG. */
int ingest_report(const struct cgfb_schema *schema, const char *body, size_t len,
		  struct report_meta *m, char *err, size_t errsz);
void ingest_meta_free(struct report_meta *m);

#endif
