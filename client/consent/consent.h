/* Turning a pending report into the exact bytes an administrator agrees to
 * send. Delivering them is deliver/deliver.h's work. */
#ifndef CGFB_CONSENT_H
#define CGFB_CONSENT_H

#include <stddef.h>

#include <json-c/json.h>

#include "cgfb/canon.h"
#include "cgfb/schema.h"
#include "config/config.h"
#include "report/spool.h"

/* What the administrator said about their use case. */
struct cgfb_use_case {
	const char *text;              /* may be NULL */
	/* For a message no catalog entry describes (G1): the administrator's
	 * own wording of it, replacing the shaped text; NULL keeps that. */
	const char *message;
	size_t n_answers;
	const char *keys[32];
	const char *values[32];
};

/* The one place a report's final bytes are made — what review previews and
 * then records, what submit, export and flush send: report + use case +
 * consent record (the hour, the endpoint as cgfb_consent_endpoint names it,
 * schema hash, this install's pseudonym for that endpoint from the secret
 * in the state directory) + the SHA-256 of the deletion
 * token (returned in token, 65 bytes). keep_token, when not NULL or "", is
 * the token of an earlier consent to the same report, kept so that every
 * copy of it (an e-mail, then a submission) is withdrawn with one token;
 * otherwise a fresh one is made. Every keyed token of the report is
 * re-keyed for the endpoint (privacy/rekey.h), so reports to two endpoints
 * share none. Validated against the schema. err says why not. */
int cgfb_consent_build(const struct cgfb_schema *schema, const struct cgfb_statedir *sd,
		       const struct cgfb_buf *report, const struct cgfb_use_case *uc,
		       const char *endpoint, const char *keep_token, struct cgfb_buf *out,
		       char token[65], char *err, size_t errsz);

/* What a report names as the place it was agreed to go (consent.endpoint),
 * a closed form: for a collector its scheme://host[:port]/path, without
 * query or fragment; for e-mail "mailto:" and the recipients when each is
 * a public list the kernel messages name, else just "mail". Tokens and the
 * install pseudonym are keyed by it. -EINVAL for a URL with user
 * information or no host. */
int cgfb_consent_endpoint(const char *endpoint, char *out, size_t outsz);

/* Each report goes one way (docs/PRIVACY.md, "What links two reports"):
 * every copy of a report carries its id and deletion hash, so a report
 * mailed to a public list (under its sender's name) and stored at a
 * collector would link that person to every report of the machine there
 * (the row's install pseudonym), and two collectors' copies each other.
 * A report that went, or may have gone (an e-mail written or handed on, a
 * POST tried, sent, withdrawn), is for that way alone: another collector,
 * or mail after a collector, or a collector after mail, is refused; mail
 * to other recipients is the same way. A pending report, or one consented
 * for a way not tried yet, may be given to another. 0, or -EPERM with the
 * reason and what to do instead in err. */
int cgfb_consent_one_way(const struct cgfb_spool_entry *e, const char *endpoint, char *err,
			 size_t errsz);

/* Record the yes: save the bytes and the state (consented, due now).
 * -EPERM (logged) for another way than the one the report went
 * (cgfb_consent_one_way). */
int cgfb_consent_record(struct cgfb_spool *sp, struct cgfb_spool_entry *e,
			const struct cgfb_buf *bytes, const char *endpoint, const char *token);

/* The schema hash a consented report was made under; "" if none. */
int cgfb_consent_schema(const struct cgfb_buf *report, char out[65]);



#endif
