/* A report's draft: what the administrator said about it — the answers, the
 * use case, a G1 message in their own words, and which secret-looking
 * strings they chose to keep, each for the one text it was shown in —
 * saved next to the report as <id>.draft
 * (0600, atomic) the moment it is given. Every step that makes a report's
 * final bytes (review, submit, export, flush) starts from it, so nothing
 * typed is lost between them and every copy of a report tells one story. */
#ifndef CGFB_DRAFT_H
#define CGFB_DRAFT_H

#include <stdbool.h>
#include <stddef.h>

#include "consent/consent.h"
#include "privacy/redact.h"
#include "report/spool.h"

#define CGFB_DRAFT_ANSWERS_MAX 32
#define CGFB_DRAFT_KEPT_MAX    64

struct cgfb_draft {
	char *text;        /* the use case; NULL: none given yet, "" given empty */
	char *message;     /* G1: the administrator's wording; NULL keeps the shaped text */
	size_t n;
	char *keys[CGFB_DRAFT_ANSWERS_MAX];
	char *values[CGFB_DRAFT_ANSWERS_MAX];
	/* Strings the secret check found and the administrator, shown them,
	 * chose to send as written: not asked about (nor refused) again, but
	 * only in the text they were shown in — the same field ("use_case",
	 * "message", "answer:<key>") holding the same bytes (its SHA-256).
	 * An edited text, another answer or another report asks again. */
	size_t n_kept;
	struct cgfb_kept {
		char *field;
		char *s;
		char text_sha256[65];
	} kept[CGFB_DRAFT_KEPT_MAX];
};

/* The report's draft, or an empty one when it has none. A damaged draft is
 * moved to the quarantine (logged) and an empty one returned. */
int cgfb_draft_load(struct cgfb_spool *sp, const char *id, struct cgfb_draft *d);
int cgfb_draft_save(struct cgfb_spool *sp, const char *id, const struct cgfb_draft *d);
void cgfb_draft_free(struct cgfb_draft *d);

/* The answer to key, NULL if none. */
const char *cgfb_draft_answer(const struct cgfb_draft *d, const char *key);
/* Set (or, with value NULL, remove) the answer to key. -E2BIG when full. */
int cgfb_draft_set_answer(struct cgfb_draft *d, const char *key, const char *value);
/* Replace *slot (d->text or d->message) with a copy of s (NULL clears). */
int cgfb_draft_set_text(char **slot, const char *s);
/* Remember that s (len bytes) was shown as a possible secret in text, the
 * whole value of field, and kept. -E2BIG when the list is full. */
int cgfb_draft_keep(struct cgfb_draft *d, const char *field, const char *text, const char *s,
		    size_t len);
bool cgfb_draft_is_kept(const struct cgfb_draft *d, const char *field, const char *text,
			const char *s, size_t len);
/* Drop from f (n findings in text, the value of field) those kept for this
 * very text; returns how many remain. */
size_t cgfb_draft_unkept(const struct cgfb_draft *d, const char *field, const char *text,
			 struct cgfb_finding *f, size_t n);
/* field's text old became new by redacting other findings: what was kept
 * in old stays kept in new; what was kept in any other text of field is
 * forgotten. */
void cgfb_draft_rebind(struct cgfb_draft *d, const char *field, const char *old,
		       const char *new);
/* The field name of answer key ("answer:<key>") in buf. */
const char *cgfb_draft_answer_field(char *buf, size_t size, const char *key);

/* The use case the final bytes are built from (pointers into d). */
void cgfb_draft_use_case(const struct cgfb_draft *d, struct cgfb_use_case *uc);

#endif
