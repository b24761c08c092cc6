#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/urlshow.h"
#include "config/config.h"
#include "deliver/submit.h"

static char path[64];

static void write_conf(const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	int fd;

	snprintf(path, sizeof(path), "/tmp/cgfb-conf.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	unlink(path);
	return 0;
}

static void loads(void **state)
{
	struct cgfb_config c;
	char err[256];

	cgfb_config_defaults(&c);
	write_conf("# comment\n\nendpoint = https://collector.example/api/v1/reports\n"
		   "  timeout=30  \nconsent = never\nnotify = log, motd\nmail-to = x@y.example\n");
	assert_int_equal(cgfb_config_load(&c, path, true, err, sizeof(err)), 0);
	assert_string_equal(c.endpoint, "https://collector.example/api/v1/reports");
	assert_int_equal(c.timeout, 30);
	assert_int_equal(c.consent, CGFB_CONSENT_NEVER);
	assert_int_equal(c.notify, CGFB_NOTIFY_LOG | CGFB_NOTIFY_MOTD);
	assert_string_equal(c.mail_to, "x@y.example");
	assert_int_equal(c.connect_timeout, 10);
	write_conf("motd-path = /run/motd.d/x.motd\n");
	assert_int_equal(cgfb_config_load(&c, path, true, err, sizeof(err)), 0);
	assert_string_equal(c.motd_path, "/run/motd.d/x.motd");
}

static void expect_error(const char *text, const char *want)
{
	struct cgfb_config c;
	char err[256] = "";

	cgfb_config_defaults(&c);
	write_conf(text);
	assert_int_equal(cgfb_config_load(&c, path, true, err, sizeof(err)), -EINVAL);
	if (!strstr(err, want))
		fail_msg("error '%s' lacks '%s'", err, want);
}

static void errors_name_the_line(void **state)
{
	struct cgfb_config c;
	char err[256];

	expect_error("timeout = 30\nbogus = 1\n", ":2: unknown setting 'bogus'");
	expect_error("timeout = soon\n", ":1: timeout: 'soon' is not a whole number");
	expect_error("no equals sign\n", ":1: expected 'key = value'");
	expect_error("consent = maybe\n", "consent: 'maybe' is not ask, never or auto");
	expect_error("consent = auto\n", "consent = auto needs use-case-file");
	expect_error("notify = log, pigeon\n", "unknown channel 'pigeon'");
	cgfb_config_defaults(&c);
	assert_int_equal(cgfb_config_load(&c, "/nonexistent/x.conf", false, err, sizeof(err)), 0);
	assert_int_equal(cgfb_config_load(&c, "/nonexistent/x.conf", true, err, sizeof(err)), -ENOENT);
}

/* A file with three mistakes names all three, each with its line, in one
 * run; the settings between them are still read. */
static void every_error_at_once(void **state)
{
	static const char text[] = "endpoint = \"https://x.example/r\"\n"
				   "timeout = 30\n"
				   "notify = log, pigeon\n"
				   "# fine\n"
				   "max-attempts = lots\n"
				   "consent = auto\n";
	struct cgfb_config c;
	char err[1024] = "";
	unsigned lines = 1;

	cgfb_config_defaults(&c);
	assert_int_equal(cgfb_config_parse(&c, S(text), "t.conf", err, sizeof(err)), -EINVAL);
	for (const char *p = err; (p = strchr(p, '\n')) != NULL; p++)
		lines++;
	/* The endpoint refused is no endpoint: auto needs one too. */
	if (lines != 5 || !strstr(err, "t.conf:1: endpoint: ") ||
	    !strstr(err, "t.conf: consent = auto needs endpoint") ||
	    !strstr(err, "t.conf:3: notify: unknown channel 'pigeon'") ||
	    !strstr(err, "t.conf:5: max-attempts: 'lots'") ||
	    !strstr(err, "t.conf: consent = auto needs use-case-file"))
		fail_msg("errors:\n%s", err);
	assert_int_equal(c.timeout, 30);
}

/* No collector unless the file names one: no default address that nobody
 * runs and any local user could bind. "endpoint =" says none again, and
 * consent = auto, which sends unattended, needs a collector. */
static void no_collector_by_default(void **state)
{
	struct cgfb_config c;
	char err[512] = "";

	cgfb_config_defaults(&c);
	assert_string_equal(c.endpoint, "");
	write_conf("timeout = 5\n");
	assert_int_equal(cgfb_config_load(&c, path, true, err, sizeof(err)), 0);
	assert_string_equal(c.endpoint, "");
	write_conf("endpoint = https://collector.example/api/v1/reports\nendpoint =\n");
	assert_int_equal(cgfb_config_load(&c, path, true, err, sizeof(err)), 0);
	assert_string_equal(c.endpoint, "");
	expect_error("consent = auto\nuse-case-file = /etc/uc\n", "consent = auto needs endpoint");
	cgfb_config_defaults(&c);
	write_conf("consent = auto\nuse-case-file = /etc/uc\n"
		   "endpoint = https://collector.example/api/v1/reports\n");
	assert_int_equal(cgfb_config_load(&c, path, true, err, sizeof(err)), 0);
	/* A missing default file is the defaults: no collector, no error. */
	cgfb_config_defaults(&c);
	assert_int_equal(cgfb_config_load(&c, "/nonexistent/x.conf", false, err, sizeof(err)), 0);
	assert_string_equal(c.endpoint, "");
}

/* More mistakes than anyone reads: the first ones and a count. */
static void many_errors(void **state)
{
	char text[64 * 30], err[8192] = "";
	struct cgfb_config c;
	size_t n = 0;

	for (int i = 0; i < 30; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "bogus%d = 1\n", i);
	cgfb_config_defaults(&c);
	assert_int_equal(cgfb_config_parse(&c, text, n, "t.conf", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "t.conf:20: unknown setting 'bogus19'"));
	assert_null(strstr(err, "bogus20"));
	assert_non_null(strstr(err, "(10 more errors)"));
	/* A small buffer is cut, never overrun, and still terminated. */
	assert_int_equal(cgfb_config_parse(&c, text, n, "t.conf", err, 40), -EINVAL);
	assert_true(strlen(err) < 40);
}

/* The bytes of a file, parsed without the file: what the fuzz target calls. */
static void parses_bytes(void **state)
{
	static const char text[] = "timeout = 30\r\nconsent=never";
	char longline[1100], err[256] = "";
	struct cgfb_config c;

	cgfb_config_defaults(&c);
	assert_int_equal(cgfb_config_parse(&c, text, sizeof(text) - 1, "t.conf", err,
					   sizeof(err)), 0);
	assert_int_equal(c.timeout, 30);
	assert_int_equal(c.consent, CGFB_CONSENT_NEVER);
	/* A NUL byte hides the rest of its line from a C string: refused. */
	assert_int_equal(cgfb_config_parse(&c, S("timeout = 5\0junk\n"), "t.conf", err,
					   sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "t.conf:1: a NUL byte"));
	memset(longline, 'a', sizeof(longline));
	assert_int_equal(cgfb_config_parse(&c, longline, sizeof(longline), "t.conf", err,
					   sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "t.conf:1: line longer than 1024 bytes"));
	assert_int_equal(cgfb_config_parse(&c, "", 0, "t.conf", err, sizeof(err)), 0);
}

static void endpoints(void **state)
{
	char err[256];

	assert_int_equal(cgfb_submit_init(), 0);
	assert_int_equal(cgfb_endpoint_check("https://collector.example/api", err, sizeof(err)), 0);
	assert_int_equal(cgfb_endpoint_check("http://127.0.0.1:8080/api", err, sizeof(err)), 0);
	assert_int_equal(cgfb_endpoint_check("http://127.9.9.9/api", err, sizeof(err)), 0);
	assert_int_equal(cgfb_endpoint_check("http://localhost:1/", err, sizeof(err)), 0);
	assert_int_equal(cgfb_endpoint_check("http://[::1]:8080/", err, sizeof(err)), 0);
	assert_int_equal(cgfb_endpoint_check("http://collector.example/api", err, sizeof(err)), -EINVAL);
	assert_int_equal(cgfb_endpoint_check("http://10.0.0.1/api", err, sizeof(err)), -EINVAL);
	assert_int_equal(cgfb_endpoint_check("ftp://127.0.0.1/", err, sizeof(err)), -EINVAL);
	assert_int_equal(cgfb_endpoint_check("not a url", err, sizeof(err)), -EINVAL);
	assert_int_equal(cgfb_endpoint_check("https://jdoe:s3cret@collector.example/api", err,
					     sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "user information"));
	cgfb_submit_cleanup();
}

/* The same rules when the file is loaded, so that a bad endpoint is an
 * error at once and never lands in a report's consent record. */
static void endpoints_in_config(void **state)
{
	static const struct {
		const char *line, *why;
	} bad[] = {
		{ "endpoint = https://jdoe:s3cret@collector.example/api\n", "user information" },
		{ "endpoint = http://acme@127.0.0.1:8080/api\n", "user information" },
		{ "endpoint = \"https://collector.example/api\"\n", "quotes" },
		{ "endpoint = http://collector.example/api\n", "only for a collector on this machine" },
		{ "endpoint = ftp://collector.example/\n", "not an https:// URL" },
		{ "endpoint = https:///api\n", "names no host" },
	};
	struct cgfb_config c;
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_conf(bad[i].line);
		cgfb_config_defaults(&c);
		assert_int_equal(cgfb_config_load(&c, path, true, err, sizeof(err)), -EINVAL);
		if (!strstr(err, bad[i].why) || !strstr(err, ":1:"))
			fail_msg("%s: error '%s' does not say '%s' at line 1", bad[i].line, err,
				 bad[i].why);
		assert_null(strstr(c.endpoint, "s3cret"));
	}
	write_conf("endpoint = http://[::1]:8080/api/v1/reports\n");
	cgfb_config_defaults(&c);
	assert_int_equal(cgfb_config_load(&c, path, true, err, sizeof(err)), 0);
	write_conf("endpoint = https://collector.example:8443/api/v1/reports\n");
	assert_int_equal(cgfb_config_load(&c, path, true, err, sizeof(err)), 0);
	assert_string_equal(c.endpoint, "https://collector.example:8443/api/v1/reports");
}

/* A URL in a message: scheme, host, port and path; never the user
 * information (a raw '@' in the password included), query or fragment. */
static void url_shown_without_userinfo(void **state)
{
	static const struct {
		const char *url, *shown;
	} cases[] = {
		{ "smtp://jdoe:s3cret@mail.example:587/", "smtp://mail.example:587/" },
		{ "https://jdoe:p@ss@collector.example/api?token=s3cret#frag",
		  "https://collector.example/api" },
		{ "https://[::1]:8443/api/v1/reports", "https://[::1]:8443/api/v1/reports" },
		{ "jdoe:s3cret@mail.example/path", "mail.example/path" },
		{ "ftp://a:s3cret@x/\x1b[2J", "ftp://x/?[2J" },
		{ "not a url", "not a url" },
		{ "", "" },
	};
	char buf[128], tiny[8];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(cgfb_url_shown(buf, sizeof(buf), cases[i].url), cases[i].shown);
	assert_string_equal(cgfb_url_shown(tiny, sizeof(tiny), "smtp://u:s3cret@mail.example/"),
			    "smtp://");
}

/* A bad endpoint whose error names it names it without its password:
 * the error goes to standard error and the journal. */
static void endpoint_errors_hide_userinfo(void **state)
{
	static const char *const bad[] = {
		"endpoint = ftp://jdoe:s3cret@collector.example/\n",
		"endpoint = https://jdoe:s3cret@/api\n",
	};
	struct cgfb_config c;
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_conf(bad[i]);
		cgfb_config_defaults(&c);
		assert_int_equal(cgfb_config_load(&c, path, true, err, sizeof(err)), -EINVAL);
		if (strstr(err, "s3cret") || strstr(err, "jdoe"))
			fail_msg("%s: error '%s' shows the user information", bad[i], err);
	}
	assert_int_equal(cgfb_submit_init(), 0);
	assert_int_equal(cgfb_endpoint_check("https://jdoe:s3cret@bad host/", err, sizeof(err)),
			 -EINVAL);
	assert_null(strstr(err, "s3cret"));
	assert_non_null(strstr(err, "'https://bad host/' is not a URL"));
	cgfb_submit_cleanup();
}

static void backoff(void **state)
{
	/* 1 min doubling, half of it jittered, capped at 6 h. */
	assert_int_equal(cgfb_backoff_delay(1, -1, 0), 30);
	assert_int_equal(cgfb_backoff_delay(1, -1, 30), 60);
	assert_int_equal(cgfb_backoff_delay(2, -1, 0), 60);
	assert_int_equal(cgfb_backoff_delay(3, -1, 0), 120);
	assert_int_equal(cgfb_backoff_delay(50, -1, 0), 3 * 3600);
	assert_true(cgfb_backoff_delay(50, -1, 123456789) <= 6 * 3600);
	/* Retry-After wins when it asks for longer. */
	assert_int_equal(cgfb_backoff_delay(1, 7200, 0), 7200);
	assert_int_equal(cgfb_backoff_delay(5, 1, 0), 480);
}

/* The configuration names commands root runs: owned by another user, or
 * writable by its group or others (the file or its directory), it is
 * refused with what to do; root's 0644 in root's 0755 is read; a FIFO is
 * refused at once, not waited on. Needs root for the owners. */
static void owner_and_mode(void **state)
{
	char d[] = "/tmp/cgfb-confdir.XXXXXX", f[64], fifo[64], cmd[96], err[1024];
	struct cgfb_config c;

	if (geteuid() != 0)
		skip();
	assert_non_null(mkdtemp(d));
	assert_int_equal(chmod(d, 0755), 0);
	snprintf(f, sizeof(f), "%s/client.conf", d);
	snprintf(fifo, sizeof(fifo), "%s/fifo.conf", d);
	FILE *fp = fopen(f, "w");

	assert_non_null(fp);
	fputs("notify-command = /bin/true\n", fp);
	fclose(fp);
	assert_int_equal(chmod(f, 0644), 0);
	cgfb_config_defaults(&c);
	assert_int_equal(cgfb_config_load(&c, f, true, err, sizeof(err)), 0);

	assert_int_equal(chown(f, 65534, 65534), 0);
	assert_int_equal(cgfb_config_load(&c, f, true, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "client.conf: refused: the file belongs to nobody (uid 65534), "
				    "mode 0644"));
	assert_non_null(strstr(err, "chown root: "));
	assert_int_equal(chown(f, 0, 0), 0);
	assert_int_equal(chmod(f, 0664), 0);
	assert_int_equal(cgfb_config_load(&c, f, true, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "mode 0664"));
	assert_non_null(strstr(err, "chmod go-w "));
	assert_int_equal(chmod(f, 0644), 0);
	assert_int_equal(chmod(d, 0775), 0);
	assert_int_equal(cgfb_config_load(&c, f, true, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "refused: its directory "));
	assert_int_equal(chmod(d, 01777), 0);        /* sticky, as /tmp: fine */
	assert_int_equal(cgfb_config_load(&c, f, true, err, sizeof(err)), 0);
	assert_int_equal(chmod(d, 0755), 0);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	alarm(10);
	assert_int_equal(cgfb_config_load(&c, fifo, true, err, sizeof(err)), -EINVAL);
	alarm(0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", d);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(owner_and_mode),
		cmocka_unit_test(loads),
		cmocka_unit_test(errors_name_the_line),
		cmocka_unit_test(parses_bytes),
		cmocka_unit_test(every_error_at_once),
		cmocka_unit_test(many_errors),
		cmocka_unit_test(no_collector_by_default),
		cmocka_unit_test(endpoints),
		cmocka_unit_test(endpoints_in_config),
		cmocka_unit_test(url_shown_without_userinfo),
		cmocka_unit_test(endpoint_errors_hide_userinfo),
		cmocka_unit_test(backoff),
	};

	return cmocka_run_group_tests_name("config", tests, setup, teardown);
}
