/* The configuration file (client/config/config.c): the bytes of
 * /etc/cgroup-feedback/cgroup-feedback.conf.
 *
 * Properties: a file that parses gives a configuration that passes the
 * file's own checks (an endpoint that is https or loopback http without
 * credentials, timeouts in range, consent = auto only with a use-case
 * file); and written back as "key = value" lines, one per key, it parses
 * to the same configuration. */
#include <errno.h>

#include "config/config.h"
#include "fuzz.h"

struct out {
	char *b;
	size_t len;
};

static void line(struct out *o, const char *key, const char *value)
{
	const int n = snprintf(o->b + o->len, 65536 - o->len, "%s = %s\n", key, value);

	PROPERTY(n > 0 && o->len + (size_t)n < 65536, "rendered file too long");
	o->len += (size_t)n;
}

static void render(const struct cgfb_config *c, struct out *o)
{
	static const char *const consent[] = { "ask", "never", "auto" };
	char num[32], notify[64] = "";

	o->len = 0;
	line(o, "endpoint", c->endpoint);
	line(o, "ca-file", c->ca_file);
	line(o, "pinned-public-key", c->pinned_public_key);
	line(o, "proxy", c->proxy);
	line(o, "use-case-file", c->use_case_file);
	line(o, "notify-command", c->notify_command);
	line(o, "admin-group", c->admin_group);
	line(o, "motd-path", c->motd_path);
	line(o, "mail-to", c->mail_to);
	line(o, "mail-from", c->mail_from);
	line(o, "smtp-url", c->smtp_url);
	line(o, "sendmail", c->sendmail);
	line(o, "allowlist-file", c->allowlist_file);
	snprintf(num, sizeof(num), "%ld", c->connect_timeout);
	line(o, "connect-timeout", num);
	snprintf(num, sizeof(num), "%ld", c->timeout);
	line(o, "timeout", num);
	snprintf(num, sizeof(num), "%d", c->max_attempts);
	line(o, "max-attempts", num);
	line(o, "consent", consent[c->consent]);
	if (c->notify & CGFB_NOTIFY_LOG)
		strcat(notify, "log ");
	if (c->notify & CGFB_NOTIFY_MOTD)
		strcat(notify, "motd ");
	if (c->notify & CGFB_NOTIFY_WALL)
		strcat(notify, "wall ");
	if (c->notify & CGFB_NOTIFY_COMMAND)
		strcat(notify, "command");
	line(o, "notify", notify[0] ? notify : "none");
}

/* Field by field: set_str leaves old bytes after a shorter value's NUL. */
static bool same(const struct cgfb_config *a, const struct cgfb_config *b)
{
#define STR(f) (strcmp(a->f, b->f) == 0)
	return STR(endpoint) && STR(ca_file) && STR(pinned_public_key) && STR(proxy) &&
	       STR(use_case_file) && STR(notify_command) && STR(admin_group) && STR(motd_path) &&
	       STR(mail_to) && STR(mail_from) && STR(smtp_url) && STR(sendmail) &&
	       STR(allowlist_file) && a->connect_timeout == b->connect_timeout &&
	       a->timeout == b->timeout && a->max_attempts == b->max_attempts &&
	       a->consent == b->consent && a->notify == b->notify;
#undef STR
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char rendered[65536];
	struct cgfb_config c, c2;
	struct out o = { rendered, 0 };
	char err[512] = "", err2[512] = "";
	char *buf = malloc(size ? size : 1);
	int rc;

	memcpy(buf, data, size);
	cgfb_config_defaults(&c);
	rc = cgfb_config_parse(&c, buf, size, "fuzz.conf", err, sizeof(err));
	free(buf);
	PROPERTY(memchr(err, '\0', sizeof(err)), "error not terminated");
	if (rc < 0) {
		PROPERTY(rc == -EINVAL && err[0], "failure %d without a reason", rc);
		return 0;
	}
	PROPERTY(c.connect_timeout >= 1 && c.connect_timeout <= 600 && c.timeout >= 1 &&
		 c.timeout <= 3600 && c.max_attempts >= 1 && c.max_attempts <= 1000, "numbers");
	PROPERTY(c.consent <= CGFB_CONSENT_AUTO, "consent %d", (int)c.consent);
	PROPERTY(c.consent != CGFB_CONSENT_AUTO || c.use_case_file[0], "auto without use case");
	PROPERTY(!(c.notify & CGFB_NOTIFY_COMMAND) || c.notify_command[0], "command without one");
	cgfb_config_defaults(&c2);
	PROPERTY(cgfb_config_set(&c2, "endpoint", c.endpoint, err2, sizeof(err2)) == 0,
		 "endpoint '%s' accepted, then refused: %s", c.endpoint, err2);

	render(&c, &o);
	cgfb_config_defaults(&c2);
	rc = cgfb_config_parse(&c2, rendered, o.len, "rendered.conf", err2, sizeof(err2));
	PROPERTY(rc == 0, "written back, it does not parse: %s\n%.*s", err2, (int)o.len, rendered);
	PROPERTY(same(&c, &c2), "written back, it parses differently:\n%.*s", (int)o.len,
		 rendered);
	return 0;
}
