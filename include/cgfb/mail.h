/* The e-mail form of a report, shared by the client's offline export and the
 * collector's import and mbox export: one RFC 5322 message, text/plain UTF-8
 * 8bit, a readable summary for people on the list, then the exact canonical
 * JSON between marker lines, wrapped so that joining the lines without
 * separators gives back the bytes whose SHA-256 is in the headers. */
#ifndef CGFB_MAIL_H
#define CGFB_MAIL_H

#include <stddef.h>
#include <time.h>

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

/* Find the report in one message (LF or CRLF, 8bit or quoted-printable, as
 * written or with mboxrd ">From " quoting), unwrap it into json and check it
 * against the X-Cgroup-Feedback-SHA256 header. Returns 0; -ENOENT when the
 * message holds no report; -EBADMSG when it is damaged (reason in err). */
int cgfb_mail_extract(const char *msg, size_t len, struct cgfb_buf *json, char *err,
		      size_t errsz);

/* Iterate over the messages of an mbox (or a single .eml, which has no
 * "From " separator line): sets *msg and *msglen to the next one after *pos,
 * without its separator line. Returns 1, or 0 when there are no more. */
int cgfb_mbox_next(const char *data, size_t len, size_t *pos, const char **msg,
		   size_t *msglen);
/* Append msg to an mbox in mboxrd form: a "From " line dated when, body lines
 * matching ^>*From  quoted with one more '>', and a blank line after. */
int cgfb_mbox_append(struct cgfb_buf *out, const char *msg, size_t len, time_t when);

#endif
