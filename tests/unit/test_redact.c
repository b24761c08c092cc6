#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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

static void loads_local_names(void **state)
{
	struct cgfb_local_names ln;
	char dir[] = "/tmp/cgfb-redact.XXXXXX", hp[64], pp[64];
	FILE *f;
	int found_user = 0, found_sys = 0, found_host = 0;

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
		found_sys += strcmp(ln.word[i], "svc") == 0 || strcmp(ln.word[i], "daemon") == 0;
		found_host += strcmp(ln.word[i], "web-42") == 0;
	}
	assert_int_equal(found_user, 1);
	assert_int_equal(found_sys, 0);
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
	};

	return cmocka_run_group_tests_name("redact", tests, NULL, NULL);
}
