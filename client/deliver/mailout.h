/* Getting the e-mail form of a report out of the machine by hand: a file,
 * an mbox, or delivery through SMTP (STARTTLS required) or sendmail(8). */
#ifndef CGFB_MAILOUT_H
#define CGFB_MAILOUT_H

#include <stdbool.h>

#include "cgfb/canon.h"
#include "config/config.h"

/* What the SMTP client calls itself in EHLO: a name under .invalid, the
 * same for every machine. */
#define CGFB_MAIL_EHLO_NAME "cgroup-feedback.invalid"

/* "a@b,c@d": whom the message goes to (see below). */
int cgfb_mailout_recipients(const struct cgfb_config *c, const struct cgfb_buf *report, char *out,
			    size_t outsz);

/* What is said when an e-mail is made without mail-from: its From: line
 * is a placeholder nobody reads replies at. */
#define CGFB_MAILOUT_NO_FROM "Its From: line is a placeholder (cgroup-feedback@localhost): " \
	"put your address there before sending it, or set mail-from in the configuration."

/* The message for the report's bytes: To the entry's contact (C entries also
 * cgroups@vger.kernel.org), unless mail-to is configured; From mail-from. */
int cgfb_mailout_format(const struct cgfb_config *c, const struct cgfb_buf *report,
			struct cgfb_buf *mail);

/* How cgfb_mailout_file writes. */
enum {
	CGFB_MAILOUT_NEW = 0,       /* a new file, 0600; -EEXIST when path exists */
	CGFB_MAILOUT_MBOX = 1,      /* appended to an mbox under an flock */
	CGFB_MAILOUT_REPLACE = 2,   /* a new file put in place of path by rename */
};

/* The message to path ("-": standard output). A new file is never written
 * through an existing one (someone else's, a link): created with O_EXCL,
 * or, to replace one, written to a temporary file beside it and renamed
 * over it, so the old file's owner and mode go with it. */
int cgfb_mailout_file(const struct cgfb_buf *mail, const char *path, int how);

/* Deliver: smtp-url through libcurl with STARTTLS required, else the
 * sendmail program with -f (mail-from's bare address: the envelope
 * sender, which the local MTA would otherwise make login@host) -t -oi.
 * err says what went wrong. */
int cgfb_mailout_send(const struct cgfb_config *c, const struct cgfb_buf *mail, char *err,
		      size_t errsz);

#endif
