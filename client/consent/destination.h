/* Where a yes goes, said before it is given, and what it publishes there.
 * Review, status and the login banner name the destination from the
 * configuration alone, in the same words; review and export say what the
 * channel publishes just before each yes.
 *
 * A collector is only one the configuration names (endpoint): a yes sends
 * the report there. Without one (the default: nobody runs a public
 * collector) a yes makes the e-mail for the list the kernel message names,
 * written to a file for the administrator to send, or handed to the local
 * mail system when the configuration says how: a sender (mail-from), and
 * smtp-url or a sendmail program that is installed. */
#ifndef CGFB_DESTINATION_H
#define CGFB_DESTINATION_H

#include <stdbool.h>
#include <stddef.h>

#include "cgfb/canon.h"
#include "config/config.h"

#define CGFB_MM_LIST      "linux-mm@kvack.org"
#define CGFB_CGROUPS_LIST "cgroups@vger.kernel.org"

enum cgfb_dest {
	CGFB_DEST_COLLECTOR,   /* endpoint configured: the report goes there over HTTP(S) */
	CGFB_DEST_MAIL,        /* no endpoint: the e-mail */
	CGFB_DEST_NONE,        /* consent = never: nothing is sent; an e-mail only by hand */
};

enum cgfb_mail_way {
	CGFB_MAIL_FILE,        /* written to a file, for the administrator to send */
	CGFB_MAIL_SENDMAIL,    /* handed to the sendmail program: the local mail system */
	CGFB_MAIL_SMTP,        /* through smtp-url's server (STARTTLS) */
};

enum cgfb_dest cgfb_destination(const struct cgfb_config *c);

/* How the e-mail a review makes leaves: SMTP or SENDMAIL only when the
 * configuration names a sender (mail-from) and smtp-url, or a sendmail
 * program that is there to run; FILE otherwise, and always under
 * consent = never (nothing is sent). */
enum cgfb_mail_way cgfb_mail_way(const struct cgfb_config *c);
/* "file", "sendmail", "smtp" (status --json). */
const char *cgfb_mail_way_name(enum cgfb_mail_way w);
/* For people: "the local mail system (/usr/sbin/sendmail)", "the mail
 * server smtp://host:587" (no password shown), "a file". Returns buf. */
const char *cgfb_mail_way_say(const struct cgfb_config *c, enum cgfb_mail_way w, char *buf,
			      size_t size);

/* "a@b,c@d": whom a report's e-mail goes to. mail-to when configured;
 * else the contact its detection names (linux-mm@kvack.org when none),
 * and for the cgroup core's messages (catalog ids C...), which name
 * nobody, cgroups@vger.kernel.org too. */
void cgfb_mail_recipients(const struct cgfb_config *c, const char *catalog_id,
			  const char *contact, char *out, size_t size);

/* Whether the recipients to ("a@b,c@d") are public lists the kernel
 * messages name: every one of them (all), or at least one. */
bool cgfb_mail_public(const char *to, bool all);

/* Where a yes goes, as one sentence (no newline): for the report at hand
 * when to names its recipients, for any report when to is NULL. */
int cgfb_destination_say(struct cgfb_buf *b, const struct cgfb_config *c, const char *to);

/* What a yes publishes, said just before it, wrapped, ending in a newline.
 * For a collector, from the bytes that would be sent: what its digest
 * (written for the public list) quotes of them and with what, and that the
 * rest is only counted in public (server-stub/api/digest.c, pubsum.c).
 * For the e-mail, from its recipients and From: line: the whole message
 * in the list's public archive, for good (a list of someone's own: whoever
 * reads it there). from NULL: the placeholder is in the From: line. */
int cgfb_publish_say_collector(struct cgfb_buf *b, const struct cgfb_buf *bytes);
int cgfb_publish_say_mail(struct cgfb_buf *b, const char *to, const char *from);

#endif
