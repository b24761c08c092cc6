#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <ctype.h>
#include <errno.h>
#include <sys/stat.h>

#include "privacy/allowlist.h"
#include "privacy/normalise.h"
#include "privacy/redact.h"

static void expect_kinds(const char *text, const struct cgfb_local_names *ln,
			 const char *want_redacted)
{
	struct cgfb_finding f[16];
	const size_t n = cgfb_find_secrets(text, ln, f, 16);
	char *r = cgfb_redact(text, f, n);

	if (strcmp(r, want_redacted) != 0)
		fail_msg("redact(%s)\n  = %s\nwant %s", text, r, want_redacted);
	free(r);
}

static void finds_secrets(void **state)
{
	struct cgfb_local_names ln = { 0 };

	assert_int_equal(cgfb_local_names_add(&ln, "db7.acme-corp.example", CGFB_SECRET_HOSTNAME), 0);
	assert_int_equal(cgfb_local_names_add(&ln, "db7", CGFB_SECRET_HOSTNAME), 0);
	assert_int_equal(cgfb_local_names_add(&ln, "jdoe", CGFB_SECRET_USER), 0);
	assert_int_equal(cgfb_local_names_add(&ln, "ab", CGFB_SECRET_USER), 0);   /* too short */
	expect_kinds("mail ops@acme.example now", &ln, "mail [redacted e-mail address] now");
	expect_kinds("from 10.1.2.3, not 1.2.3.4.5 or v1.2", &ln,
		     "from [redacted IPv4 address], not 1.2.3.4.5 or v1.2");
	expect_kinds("v6 fe80::1ff:fe23:4567:890a here", &ln, "v6 [redacted IPv6 address] here");
	expect_kinds("see https://bob:hunter2@git.example/x", &ln,
		     "see [redacted URL with credentials]");
	expect_kinds("key AKIAIOSFODNN7EXAMPLE1234 ok", &ln, "key [redacted token] ok");
	expect_kinds("a very_long_identifier_without_digits stays", &ln,
		     "a very_long_identifier_without_digits stays");
	expect_kinds("host DB7 and db7.acme-corp.example, user jdoe; jdoes stays", &ln,
		     "host [redacted host name] and [redacted host name], user [redacted user name]; jdoes stays");
	expect_kinds("the memory cgroup at 10:30 uses 4 GiB", &ln,
		     "the memory cgroup at 10:30 uses 4 GiB");
	cgfb_local_names_free(&ln);
}

/* What the privacy review found getting through, and shapes of our own. */
static void hostile_use_cases(void **state)
{
	struct cgfb_local_names ln = { 0 };

	assert_int_equal(cgfb_local_names_add(&ln, "acmedb01", CGFB_SECRET_HOSTNAME), 0);
	assert_int_equal(cgfb_local_names_add(&ln, "db1", CGFB_SECRET_HOSTNAME), 0);
	assert_int_equal(cgfb_local_names_add(&ln, "jdoe", CGFB_SECRET_USER), 0);
	/* An address ending a sentence. */
	expect_kinds("we ssh to 10.1.2.3.", &ln, "we ssh to [redacted IPv4 address].");
	expect_kinds("ssh to 10.1.2.3.\nThen", &ln, "ssh to [redacted IPv4 address].\nThen");
	/* Host names in any dotted form, not only this machine's. */
	expect_kinds("the batch host build7.lab.acme-corp.example runs it", &ln,
		     "the batch host [redacted host name] runs it");
	expect_kinds("on acme.internal, see memory.high and cgroup.procs", &ln,
		     "on [redacted host name], see memory.high and cgroup.procs");
	/* This machine's names as whole words, short ones too, digits kept. */
	expect_kinds("acmedb01 and DB1; db1x and db stay", &ln,
		     "[redacted host name] and [redacted host name]; db1x and db stay");
	/* Home directories, every URL, long random tokens. */
	expect_kinds("scripts in /home/jdoe/bin and ~ops/x", &ln,
		     "scripts in [redacted home directory]/bin and [redacted home directory]/x");
	expect_kinds("docs at https://wiki.acme.example/cgroups?id=7 say so", &ln,
		     "docs at [redacted URL] say so");
	expect_kinds("token 3f9a0c2e8b7d41e6 and Zx81kQ9pLm2Rt7Vw4Yb6", &ln,
		     "token [redacted token] and [redacted token]");
	/* Characters that NFKC folds to an address: full-width digits, dot
	 * and at sign. The redaction covers the original bytes. */
	expect_kinds("ops\xef\xbc\xa0" "acme\xef\xbc\x8e" "example here", &ln,
		     "[redacted e-mail address] here");
	expect_kinds("at \xef\xbc\x91\xef\xbc\x90.1.2.3 now", &ln,
		     "at [redacted IPv4 address] now");
	expect_kinds("on acmedb\xef\xbc\x90\xef\xbc\x91 too", &ln, "on [redacted host name] too");
	/* The maintainers' lists are public addresses, not secrets. */
	expect_kinds("as asked on linux-mm@kvack.org and cgroups@vger.kernel.org", &ln,
		     "as asked on linux-mm@kvack.org and cgroups@vger.kernel.org");
	/* Ordinary prose stays. */
	expect_kinds("We pin batch jobs with memory.limit_in_bytes, e.g. 4G, on 6.1.0.", &ln,
		     "We pin batch jobs with memory.limit_in_bytes, e.g. 4G, on 6.1.0.");
	cgfb_local_names_free(&ln);
}


/* Issue 27's audit: whole classes the scan did not see. */
static void invisible_and_lookalike(void **state)
{
	struct cgfb_local_names ln = { 0 };

	assert_int_equal(cgfb_local_names_add(&ln, "acmedb01", CGFB_SECRET_HOSTNAME), 0);
	/* Format characters inside an address: zero-width space, word joiner,
	 * soft hyphen, BOM, a language tag (U+E0001, Cf too). */
	expect_kinds("mail alice@acme-corp\u200b.example now", &ln,
		     "mail [redacted e-mail address] now");
	expect_kinds("at 10\u2060.20.30.40 now", &ln, "at [redacted IPv4 address] now");
	expect_kinds("on acme\u00addb01 and acmedb\ufeff01 and acme\U000e0001db01", &ln,
		     "on [redacted host name] and [redacted host name] and [redacted host name]");
	/* Mathematical bold, circled, full-width, Cyrillic and Greek look-alikes. */
	expect_kinds("on \U0001d41a\U0001d41c\U0001d426\U0001d41e\U0001d41d\U0001d41b\U0001d7ce\U0001d7cf now",
		     &ln, "on [redacted host name] now");
	expect_kinds("on \u24b6\u24b8\u24c2\u24ba\u24b9\u24b7\u24ea\u2460 now", &ln,
		     "on [redacted host name] now");
	expect_kinds("on \u0430cm\u0435db01 and \u0430cmedb\u03bf1 now", &ln,
		     "on [redacted host name] and [redacted host name] now");
	expect_kinds("mail \uff41lice\uff20acme\uff0eexample now", &ln,
		     "mail [redacted e-mail address] now");
	/* Only what the reader sees: accents and other scripts stay as typed. */
	expect_kinds("Die Gruppe für Übersetzungen, \u65e5\u672c\u8a9e", &ln,
		     "Die Gruppe für Übersetzungen, \u65e5\u672c\u8a9e");
	cgfb_local_names_free(&ln);
}

static void normalises(void **state)
{
	struct cgfb_normal n;

	assert_int_equal(cgfb_normalise("x\u200by \U0001d41a \u0441 10 dot 1 alice[at]b", &n), 0);
	assert_string_equal(n.text, "xy a c 10.1 alice@b");
	/* Each byte maps to where it came from; the end to the end. */
	assert_int_equal(n.at[0], 0);
	assert_int_equal(n.at[1], 4);          /* "y" after the 3-byte ZWSP */
	assert_int_equal(n.at[3], 6);          /* the 4-byte bold a */
	assert_int_equal(n.at[n.len], strlen("x\u200by \U0001d41a \u0441 10 dot 1 alice[at]b"));
	cgfb_normal_free(&n);
}

static void new_shapes(void **state)
{
	expect_kinds("macs 00-1A-2B-3C-4D-5E, 001a.2b3c.4d5e and 001A2B3C4D5E; 52:54:00:ab:cd:ef", NULL,
		     "macs [redacted MAC address], [redacted MAC address] and [redacted MAC address]; [redacted MAC address]");
	/* Twelve digits are a number, twelve letters a word. */
	expect_kinds("limit 123456789012 bytes, cafebabecafe", NULL,
		     "limit 123456789012 bytes, cafebabecafe");
	expect_kinds("db_01.corp.acme.example and _ldap._tcp.acme.example", NULL,
		     "[redacted host name] and [redacted host name]");
	expect_kinds("mail alice@shorthost now", NULL, "mail [redacted e-mail address] now");
	expect_kinds("share \\\\fs01\\payroll and //fs01/payroll now", NULL,
		     "share [redacted network share] and [redacted network share] now");
	expect_kinds("10[.]1[.]2[.]3, 10(.)1(.)2(.)3, 10 dot 1 dot 2 dot 3, 010.001.002.003", NULL,
		     "[redacted IPv4 address], [redacted IPv4 address], [redacted IPv4 address], [redacted IPv4 address]");
	expect_kinds("hxxp://evil.example/x acme[.]example alice[at]acme.example", NULL,
		     "[redacted URL] [redacted host name] [redacted e-mail address]");
	expect_kinds("write alice at acme dot example or alice [at] acme [dot] example", NULL,
		     "write [redacted e-mail address] or [redacted e-mail address]");
	expect_kinds("password is hunter2; password=abc; passwd: xyz; pw s3cr3tX", NULL,
		     "password is [redacted credentials]; password=[redacted credentials]; "
		     "passwd: [redacted credentials]; pw [redacted credentials]");
	expect_kinds("token Abc123xyz, secret Qw3rty, api key AK12345678", NULL,
		     "token [redacted credentials], secret [redacted credentials], api key [redacted credentials]");
	expect_kinds("Server=db01;User Id=app;Password=s3cr3t; done", NULL, "[redacted credentials] done");
	expect_kinds("as user app pass s3cr3t now", NULL, "as [redacted credentials] now");
	expect_kinds("ssh jdoe:pw0rd@db01.acme.example now", NULL, "ssh [redacted credentials] now");
	/* Labels in prose are not secrets. */
	expect_kinds("we pass 4G to the token bucket; the password is not set; secret sauce", NULL,
		     "we pass 4G to the token bucket; the password is not set; secret sauce");
	expect_kinds("we run it at night, at 10:30 and at acme", NULL,
		     "we run it at night, at 10:30 and at acme");
}

static void cgroup_vocabulary(void **state)
{
	struct cgfb_local_names ln = { 0 };

	assert_int_equal(cgfb_local_names_add(&ln, "acmedb01", CGFB_SECRET_HOSTNAME), 0);
	expect_kinds("system.slice, user.slice, init.scope, docker.service, kubepods.slice", &ln,
		     "system.slice, user.slice, init.scope, docker.service, kubepods.slice");
	expect_kinds("session-3.scope user@1000.service getty@tty1.service dev-sda1.device", &ln,
		     "session-3.scope user@1000.service getty@tty1.service dev-sda1.device");
	expect_kinds("memory.limit_in_bytes cpu.cfs_quota_us cgroup.subtree_control", &ln,
		     "memory.limit_in_bytes cpu.cfs_quota_us cgroup.subtree_control");
	/* A unit named after a secret still gives the secret away. */
	expect_kinds("acmedb01.service and db1.acme.service", &ln,
		     "[redacted host name].service and [redacted host name]");
	cgfb_local_names_free(&ln);
}

static void names_in_compounds(void **state)
{
	struct cgfb_local_names ln = { 0 };

	assert_int_equal(cgfb_local_names_add(&ln, "acmedb01", CGFB_SECRET_HOSTNAME), 0);
	assert_int_equal(cgfb_local_names_add(&ln, "jdoe", CGFB_SECRET_USER), 0);
	assert_int_equal(cgfb_local_names_add(&ln, "payroll-batch", CGFB_SECRET_CGROUP), 0);
	expect_kinds("acmedb01-replica acmedb01_data ACMEDB01 jdoe-admin backup_jdoe jdoe2", &ln,
		     "[redacted host name]-replica [redacted host name]_data [redacted host name] "
		     "[redacted user name]-admin backup_[redacted user name] [redacted user name]2");
	expect_kinds("the PAYROLL-BATCH group, payroll-batch.slice", &ln,
		     "the [redacted cgroup name] group, [redacted cgroup name].slice");
	/* Other words that contain a name are not the name. */
	expect_kinds("jdoes and acmedb012x stay", &ln, "jdoes and acmedb012x stay");
	cgfb_local_names_free(&ln);
}

static void mkdirs(const char *root, const char *const *paths)
{
	char p[512];

	for (; *paths; paths++) {
		snprintf(p, sizeof(p), "%s/%s", root, *paths);
		assert_int_equal(mkdir(p, 0755), 0);
	}
}

static int has_word(const struct cgfb_local_names *ln, const char *w)
{
	for (size_t i = 0; i < ln->n; i++)
		if (strcmp(ln->word[i], w) == 0)
			return 1;
	return 0;
}

/* A v1 layout: hierarchies side by side, a unit and a container of a
 * customer's, systemd's own names, a symbolic link to a hierarchy. */
static void loads_cgroup_names(void **state)
{
	static const char *const dirs[] = {
		"memory", "cpu,cpuacct", "systemd", "memory/system.slice",
		"memory/system.slice/acmedb.service", "memory/user.slice",
		"memory/user.slice/user-1000.slice", "memory/payroll-batch",
		"cpu,cpuacct/payroll-batch", "cpu,cpuacct/payroll-batch/tenant7", "systemd/init.scope",
		NULL,
	};
	struct cgfb_local_names ln = { 0 };
	struct cgfb_allowlist *al;
	char dir[] = "/tmp/cgfb-cgnames.XXXXXX", link[512], err[256];

	assert_int_equal(cgfb_allowlist_load(&al, NULL, err, sizeof(err)), 0);
	assert_non_null(mkdtemp(dir));
	mkdirs(dir, dirs);
	snprintf(link, sizeof(link), "%s/cpu", dir);
	assert_int_equal(symlink("cpu,cpuacct", link), 0);
	assert_int_equal(cgfb_local_names_add_cgroups(&ln, dir, al), 0);
	assert_true(has_word(&ln, "acmedb.service"));
	assert_true(has_word(&ln, "acmedb"));
	assert_true(has_word(&ln, "payroll-batch"));
	assert_true(has_word(&ln, "tenant7"));
	assert_false(has_word(&ln, "memory") || has_word(&ln, "cpu,cpuacct") || has_word(&ln, "cpu"));
	assert_false(has_word(&ln, "system.slice") || has_word(&ln, "user.slice") ||
		     has_word(&ln, "user-1000.slice") || has_word(&ln, "init.scope"));
	assert_int_equal(ln.n, 4);
	expect_kinds("tenant7 of payroll-batch runs acmedb", &ln,
		     "[redacted cgroup name] of [redacted cgroup name] runs [redacted cgroup name]");
	assert_int_equal(cgfb_local_names_add_cgroups(&ln, "/nonexistent/cgroup", al), -ENOENT);
	cgfb_local_names_free(&ln);
	cgfb_allowlist_free(al);
	snprintf(link, sizeof(link), "rm -rf '%s'", dir);
	assert_int_equal(system(link), 0);
}

static void loads_local_names(void **state)
{
	struct cgfb_local_names ln;
	char dir[] = "/tmp/cgfb-redact.XXXXXX", hp[64], pp[64];
	FILE *f;
	int found_user = 0, found_sys = 0, found_common = 0, found_host = 0;

	assert_non_null(mkdtemp(dir));
	snprintf(hp, sizeof(hp), "%s/hostname", dir);
	snprintf(pp, sizeof(pp), "%s/passwd", dir);
	f = fopen(hp, "w");
	fputs("web-42\n", f);
	fclose(f);
	f = fopen(pp, "w");
	fputs("root:x:0:0:root:/root:/bin/bash\n"
	      "daemon:x:1:1::/usr/sbin:/usr/sbin/nologin\n"
	      "alice:x:1000:1000:Alice:/home/alice:/bin/bash\n"
	      "svc:x:1001:1001::/srv:/usr/sbin/nologin\n", f);
	fclose(f);
	assert_int_equal(cgfb_local_names_load(&ln, hp, pp), 0);
	for (size_t i = 0; i < ln.n; i++) {
		found_user += strcmp(ln.word[i], "alice") == 0;
		/* A system account is named after what the machine runs; the
		 * ones every Debian has say nothing. */
		found_sys += strcmp(ln.word[i], "svc") == 0;
		found_common += strcmp(ln.word[i], "daemon") == 0 || strcmp(ln.word[i], "root") == 0;
		found_host += strcmp(ln.word[i], "web-42") == 0;
	}
	assert_int_equal(found_user, 1);
	assert_int_equal(found_sys, 1);
	assert_int_equal(found_common, 0);
	assert_int_equal(found_host, 1);
	cgfb_local_names_free(&ln);
	unlink(hp);
	unlink(pp);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(finds_secrets),
		cmocka_unit_test(hostile_use_cases),
		cmocka_unit_test(loads_local_names),
		cmocka_unit_test(invisible_and_lookalike),
		cmocka_unit_test(normalises),
		cmocka_unit_test(new_shapes),
		cmocka_unit_test(cgroup_vocabulary),
		cmocka_unit_test(names_in_compounds),
		cmocka_unit_test(loads_cgroup_names),
	};

	return cmocka_run_group_tests_name("redact", tests, NULL, NULL);
}
