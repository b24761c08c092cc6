/* The e-mail form of a report, shared by the client's offline export and the
 * collector's import and mbox export: one RFC 5322 message, text/plain UTF-8
 * 8bit, a readable summary for people on the list, then the exact canonical
 * JSON between marker lines, wrapped so that joining the lines without
 * separators gives back the bytes whose SHA-256 is in the headers. */
#ifndef CGFB_MAIL_H
#define CGFB_MAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "cgfb/buf.h"
#include "cgfb/canon.h"

#define CGFB_MAIL_BEGIN "-----BEGIN CGROUP-FEEDBACK REPORT-----"
#define CGFB_MAIL_END   "-----END CGROUP-FEEDBACK REPORT-----"
/* Width of the wrapped JSON and of the summary text; lines stay well under
 * the 78 columns of RFC 5322 and far under its hard 998-byte limit. The one
 * exception is the X-Cgroup-Feedback-SHA256 header, 90 columns on one line:
 * a 64-digit hash can only be folded right after the colon, and parsers
 * then read the fold's white space as part of the value. */
#define CGFB_MAIL_WIDTH 76
#define CGFB_MAIL_HDR_ID     "X-Cgroup-Feedback-Report-Id"
#define CGFB_MAIL_HDR_SHA256 "X-Cgroup-Feedback-SHA256"
/* A withdrawal: the report id and its deletion token (64 hex digits). */
#define CGFB_MAIL_HDR_WITHDRAW "X-Cgroup-Feedback-Withdraw"
#define CGFB_MAIL_HDR_TOKEN    "X-Cgroup-Feedback-Deletion-Token"

struct cgfb_mail_opts {
	const char *from;   /* NULL: "cgroup-feedback <cgroup-feedback@localhost>" */
	const char *to;     /* NULL: the detection's contact, else linux-mm@kvack.org */
};

/* Write the message for report (canonical JSON of a schema-valid report) to
 * out, replacing its content. Lines end in LF. Date is the report's creation
 * time and Message-ID derives from the report id, so the same report always
 * gives the same message. Returns 0, -EINVAL (not a report) or -ENOMEM. */
int cgfb_mail_format(const char *report, size_t len, const struct cgfb_mail_opts *o,
		     struct cgfb_buf *out);

/* The withdrawal of report id, for a report that went out by e-mail and
 * a sender with no collector to reach: a message whose headers carry the
 * id and the deletion token, which the collector's import presents like a
 * DELETE. Once sent, the token is as public as the list; it deletes
 * nothing but this report, which is what its sender asked. When is now. */
int cgfb_mail_format_withdrawal(const char *id, const char *token,
				const struct cgfb_mail_opts *o, time_t when, struct cgfb_buf *out);

/* Find the first report in one message (LF, CRLF or CR; 8bit,
 * quoted-printable or base64; as written or with mboxrd ">From " quoting),
 * unwrap it into json and check it against the X-Cgroup-Feedback-SHA256
 * header. Returns 0; -ENOENT when the message has neither a report's header
 * nor its marker; -EBADMSG when it has one but no report can be read from
 * it (reason in err). */
int cgfb_mail_extract(const char *msg, size_t len, struct cgfb_buf *json, char *err,
		      size_t errsz);

/* Every report in one message, in order: cgfb_mail_open() undoes the
 * transfer encoding (quoted-printable, base64) and collects the SHA-256
 * headers, the message's own and any at the start of a body line (mails
 * concatenated, a forward inline). Returns 0; -ENOENT when the message
 * holds no report (no header, no BEGIN line); -EBADMSG when it has one's
 * header or marker but nothing can be read (reason in err); -ENOMEM.
 * Call cgfb_mail_close() whatever it returned. */
#define CGFB_MAIL_SHA_MAX 64
struct cgfb_mail_reader {
	struct cgfb_buf decoded;
	const char *body;
	size_t body_len, pos;
	unsigned n_sha, index;   /* index: reports returned or refused so far */
	char sha[CGFB_MAIL_SHA_MAX][65];
};
int cgfb_mail_open(struct cgfb_mail_reader *r, const char *msg, size_t len, char *err,
		   size_t errsz);
/* The next report into json: 1; 0 when there are no more; -EBADMSG when
 * this one is damaged (reason in err; the next call goes on after it). */
int cgfb_mail_next(struct cgfb_mail_reader *r, struct cgfb_buf *json, char *err, size_t errsz);
void cgfb_mail_close(struct cgfb_mail_reader *r);
/* A header's value (unfolded, white space removed) into out; false when
 * the message has no such header. */
bool cgfb_mail_header(const char *msg, size_t len, const char *name, char *out, size_t outsz);

/* Iterate over the messages of an mbox (or a single .eml, which has no
 * "From " separator line): sets *msg and *msglen to the next one after *pos,
 * without its separator line. Returns 1, or 0 when there are no more. */
int cgfb_mbox_next(const char *data, size_t len, size_t *pos, const char **msg,
		   size_t *msglen);
/* Append msg to an mbox in mboxrd form: a "From " line dated when, body lines
 * matching ^>*From  quoted with one more '>', and a blank line after. */
int cgfb_mbox_append(struct cgfb_buf *out, const char *msg, size_t len, time_t when);

#endif
