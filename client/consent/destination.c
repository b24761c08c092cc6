#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "base/urlshow.h"
#include "cgfb/jsonget.h"
#include "cgfb/wrap.h"
#include "consent/destination.h"

#define WIDTH 76

/* The lists the kernel messages name: what a report may name as where it
 * was mailed, and what the mail's consent calls public. */
static const char *const public_lists[] = { CGFB_MM_LIST, CGFB_CGROUPS_LIST };

enum cgfb_dest cgfb_destination(const struct cgfb_config *c)
{
	if (c->consent == CGFB_CONSENT_NEVER)
		return CGFB_DEST_NONE;
	return c->endpoint[0] ? CGFB_DEST_COLLECTOR : CGFB_DEST_MAIL;
}

enum cgfb_mail_way cgfb_mail_way(const struct cgfb_config *c)
{
	if (c->consent == CGFB_CONSENT_NEVER || !c->mail_from[0])
		return CGFB_MAIL_FILE;
	if (c->smtp_url[0])
		return CGFB_MAIL_SMTP;
	return c->sendmail[0] && access(c->sendmail, X_OK) == 0 ? CGFB_MAIL_SENDMAIL :
								  CGFB_MAIL_FILE;
}

const char *cgfb_mail_way_name(enum cgfb_mail_way w)
{
	return w == CGFB_MAIL_SMTP ? "smtp" : w == CGFB_MAIL_SENDMAIL ? "sendmail" : "file";
}

const char *cgfb_mail_way_say(const struct cgfb_config *c, enum cgfb_mail_way w, char *buf,
			      size_t size)
{
	char shown[CGFB_CONFIG_STR_MAX];

	if (w == CGFB_MAIL_SMTP)
		snprintf(buf, size, "the mail server %s",
			 cgfb_url_shown(shown, sizeof(shown), c->smtp_url));
	else if (w == CGFB_MAIL_SENDMAIL)
		snprintf(buf, size, "the local mail system (%s)", c->sendmail);
	else
		snprintf(buf, size, "a file");
	return buf;
}

void cgfb_mail_recipients(const struct cgfb_config *c, const char *catalog_id,
			  const char *contact, char *out, size_t size)
{
	const char *to = contact && contact[0] ? contact : CGFB_MM_LIST;

	if (c->mail_to[0]) {
		snprintf(out, size, "%s", c->mail_to);
		return;
	}
	snprintf(out, size, "%s%s", to,
		 catalog_id && catalog_id[0] == 'C' && strcmp(to, CGFB_CGROUPS_LIST) != 0 ?
		 "," CGFB_CGROUPS_LIST : "");
}

static bool is_public(const char *a, size_t n)
{
	for (size_t i = 0; i < sizeof(public_lists) / sizeof(public_lists[0]); i++)
		if (strlen(public_lists[i]) == n && strncmp(a, public_lists[i], n) == 0)
			return true;
	return false;
}

bool cgfb_mail_public(const char *to, bool all)
{
	bool any = false, every = true;

	while (*to) {
		const size_t n = strcspn(to, ",");
		const bool p = is_public(to, n);

		any |= p;
		every &= p;
		to += n + (to[n] == ',');
	}
	return all ? every && any : any;
}

/* "a@b, c@d" from "a@b,c@d"; with public, only the public lists. */
static void listed(char *out, size_t size, const char *to, bool public, size_t *count)
{
	size_t len = 0;

	*count = 0;
	out[0] = '\0';
	while (*to) {
		const size_t n = strcspn(to, ",");

		if ((!public || is_public(to, n)) && len < size) {
			len += (size_t)snprintf(out + len, size - len, "%s%.*s", len ? ", " : "",
						(int)n, to);
			(*count)++;
		}
		to += n + (to[n] == ',');
	}
}

int cgfb_destination_say(struct cgfb_buf *b, const struct cgfb_config *c, const char *to)
{
	char shown[CGFB_CONFIG_STR_MAX], way[CGFB_CONFIG_STR_MAX + 40], whom[700];
	const enum cgfb_mail_way w = cgfb_mail_way(c);
	size_t n;

	if (to)
		listed(whom, sizeof(whom), to, false, &n);
	else if (c->mail_to[0])
		listed(whom, sizeof(whom), c->mail_to, false, &n);
	else
		snprintf(whom, sizeof(whom), "the list the kernel message names (%s, and %s for "
			 "the cgroup core's messages)", CGFB_MM_LIST, CGFB_CGROUPS_LIST);
	switch (cgfb_destination(c)) {
	case CGFB_DEST_COLLECTOR:
		return cgfb_buf_printf(b, "A yes sends the report over the network to the collector "
				       "at %s (endpoint in the configuration).",
				       cgfb_url_shown(shown, sizeof(shown), c->endpoint));
	case CGFB_DEST_NONE:
		return cgfb_buf_printf(b, "Nothing is sent (consent = never in the configuration); "
				       "a yes to the e-mail for %s only writes it to a file, for you "
				       "to send.", whom);
	default:
		break;
	}
	if (w == CGFB_MAIL_FILE)
		return cgfb_buf_printf(b, "No collector is configured (endpoint), so a yes writes the "
				       "report as an e-mail for %s to a file, for you to send; "
				       "nothing goes over the network.", whom);
	return cgfb_buf_printf(b, "No collector is configured (endpoint), so a yes makes the report "
			       "an e-mail for %s from %s and hands it to %s, or writes it to a "
			       "file for you to send.", whom, c->mail_from,
			       cgfb_mail_way_say(c, w, way, sizeof(way)));
}

int cgfb_publish_say_collector(struct cgfb_buf *b, const struct cgfb_buf *bytes)
{
	json_object *r = json_tokener_parse(bytes->data ? bytes->data : "");
	const char *text = cgfb_json_str(r, "use_case.text");
	const char *id = cgfb_json_str(r, "report_id");
	const char *cid = cgfb_json_str(r, "detection.catalog_id");
	const char *ep = cgfb_json_str(r, "consent.endpoint");
	struct cgfb_buf t = { 0 };
	char shown[CGFB_CONFIG_STR_MAX];
	int rc;

	cgfb_url_shown(shown, sizeof(shown), ep ? ep : "");
	/* What server-stub/api/digest.c prints of a report: the catalog id
	 * and 8 characters of its id, the answers and the use case, and only
	 * for a report with a use case (store_filter.with_use_case); the
	 * public summary (pubsum.c) and the digest's tables are counts. */
	if (text && text[0])
		rc = cgfb_buf_printf(&t, "The use case and the answers will be PUBLISHED: the "
				     "collector's digest, written for the public linux-mm mailing "
				     "list, quotes them word for word under the message's id (%s) "
				     "and the start of the report id (%.8s). The rest of the report "
				     "is read by those who run the collector at %s, and otherwise "
				     "only counted, in its public summary and its digest.",
				     cid ? cid : "?", id ? id : "?", shown);
	else
		rc = cgfb_buf_printf(&t, "This report has no use case, and the collector's digest, "
				     "written for the public linux-mm mailing list, quotes only "
				     "reports that have one: nothing of it is quoted there. The "
				     "report, its answers included, is read by those who run the "
				     "collector at %s, and otherwise only counted, in its public "
				     "summary and its digest.", shown);
	if (rc == 0)
		rc = cgfb_wrap(b, "", t.data, WIDTH);
	cgfb_buf_free(&t);
	json_object_put(r);
	return rc;
}

int cgfb_publish_say_mail(struct cgfb_buf *b, const char *to, const char *from)
{
	char lists[700], all[700], sender[CGFB_CONFIG_STR_MAX + 80];
	struct cgfb_buf t = { 0 };
	size_t n, m;
	int rc;

	listed(lists, sizeof(lists), to, true, &n);
	listed(all, sizeof(all), to, false, &m);
	if (from && from[0])
		snprintf(sender, sizeof(sender), "%s", from);
	else
		snprintf(sender, sizeof(sender), "for now the placeholder cgroup-feedback "
			 "<cgroup-feedback@localhost>");
	if (n)
		rc = cgfb_buf_printf(&t, "Once sent, the whole e-mail is PUBLIC: it goes to the "
				     "public mailing list%s %s, whose archives (lore.kernel.org "
				     "among them) anyone can read, search and copy. Everything in "
				     "the message is published there: the snapshot of this machine "
				     "above, the use case, the answers, this install's pseudonym for "
				     "mail (the same in every report it mails there) and the From: "
				     "line it is sent with (%s). It cannot be withdrawn from the "
				     "archives; withdraw deletes only a copy the maintainers "
				     "imported into a collector.", n == 1 ? "" : "s", lists, sender);
	else
		rc = cgfb_buf_printf(&t, "The whole e-mail goes to %s, which is not one of the "
				     "public lists the kernel messages name: whoever reads mail "
				     "there reads everything in it, the snapshot of this machine "
				     "above, the use case, the answers and the From: line it is "
				     "sent with (%s), and what they do with it is theirs to decide. "
				     "Once sent, it cannot be taken back.", all, sender);
	if (rc == 0)
		rc = cgfb_wrap(b, "", t.data, WIDTH);
	cgfb_buf_free(&t);
	return rc;
}
