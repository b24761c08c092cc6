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

/* Write (0600) or, with append, add to an mbox under an flock. path "-" is
 * standard output. */
int cgfb_mailout_file(const struct cgfb_buf *mail, const char *path, bool mbox);

/* Deliver: smtp-url through libcurl with STARTTLS required, else the
 * sendmail program with -t -oi. err says what went wrong. */
int cgfb_mailout_send(const struct cgfb_config *c, const struct cgfb_buf *mail, char *err,
		      size_t errsz);

#endif
