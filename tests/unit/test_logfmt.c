#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "detect/scan.h"
#include "log/logfmt.h"

static int parse(enum cgfb_logfmt fmt, const char *line, struct cgfb_record *r, char *buf,
		 size_t bufsz)
{
	return cgfb_logfmt_parse_line(fmt, line, strlen(line), buf, bufsz, r);
}

static void expect_text(enum cgfb_logfmt fmt, const char *line, const char *text)
{
	struct cgfb_record r;
	char buf[256];

	if (parse(fmt, line, &r, buf, sizeof(buf)) != 1)
		fail_msg("%s: not a record: '%s'", cgfb_logfmt_name(fmt), line);
	if (r.len != strlen(text) || memcmp(r.text, text, r.len) != 0)
		fail_msg("%s: '%s' gave '%.*s', want '%s'", cgfb_logfmt_name(fmt), line,
			 (int)r.len, r.text, text);
}

static void dmesg_variants(void **state)
{
	expect_text(CGFB_FMT_DMESG, "[    3.018562] kmem is deprecated", "kmem is deprecated");
	expect_text(CGFB_FMT_DMESG, "[Tue Feb  3 13:45:33 2026] /proc/cgroups lists", "/proc/cgroups lists");
	expect_text(CGFB_FMT_DMESG, "[  +0,000000] The swapaccount=", "The swapaccount=");
	expect_text(CGFB_FMT_DMESG, "[Feb 3 13:45] x y", "x y");
	expect_text(CGFB_FMT_DMESG, "[Feb 3 13:45] [  +0.000123] x", "x");
	expect_text(CGFB_FMT_DMESG, "soft_limit_in_bytes is deprecated", "soft_limit_in_bytes is deprecated");
	expect_text(CGFB_FMT_DMESG, "[drm] Initialized", "[drm] Initialized");
	expect_text(CGFB_FMT_DMESG, "[    1.000000] [  T123] hello", "hello");
	expect_text(CGFB_FMT_DMESG, "text\r", "text");
}

static void dmesg_priorities(void **state)
{
	struct cgfb_record r;
	char buf[64];

	assert_int_equal(parse(CGFB_FMT_DMESG, "<4>[   51.943842] text", &r, buf, sizeof(buf)), 1);
	assert_int_equal(r.level, 4);
	assert_int_equal(r.facility, 0);
	assert_true(r.has_usec);
	assert_int_equal(r.usec, 51943842);
	assert_memory_equal(r.text, "text", 4);
	assert_int_equal(parse(CGFB_FMT_DMESG, "<14>[   51.943842] text", &r, buf, sizeof(buf)), 1);
	assert_int_equal(r.facility, 1);
	assert_false(cgfb_record_from_kernel(&r));
	assert_int_equal(parse(CGFB_FMT_DMESG, "kern  :warn  : [    3.018562] text", &r, buf,
			       sizeof(buf)), 1);
	assert_int_equal(r.facility, 0);
	assert_int_equal(r.level, 4);
	assert_memory_equal(r.text, "text", 4);
	assert_int_equal(parse(CGFB_FMT_DMESG, "user  :notice: hello", &r, buf, sizeof(buf)), 1);
	assert_int_equal(r.facility, 1);
	assert_int_equal(parse(CGFB_FMT_DMESG, "plain", &r, buf, sizeof(buf)), 1);
	assert_int_equal(r.facility, -1);
	assert_true(cgfb_record_from_kernel(&r));
}

static void syslog_variants(void **state)
{
	struct cgfb_record r;
	char buf[64];

	expect_text(CGFB_FMT_SYSLOG, "Aug 10 18:00:07 host kernel: [  721.581397] cgroup: x", "cgroup: x");
	expect_text(CGFB_FMT_SYSLOG, "Aug  1 18:00:07 host kernel: msg", "msg");
	expect_text(CGFB_FMT_SYSLOG, "Dec 03 01:50:51.123456 host kernel: msg", "msg");
	expect_text(CGFB_FMT_SYSLOG, "2026-12-03T01:50:51.123456+00:00 host kernel: msg", "msg");
	expect_text(CGFB_FMT_SYSLOG, "2026-12-03T01:50:51+0000 host kernel: msg", "msg");
	expect_text(CGFB_FMT_SYSLOG, "[    3.018562] host kernel: msg", "msg");
	/* Other programs are skipped, whatever they say. */
	assert_int_equal(parse(CGFB_FMT_SYSLOG, "Aug 10 18:00:07 host myapp[12]: kernel: x", &r,
			       buf, sizeof(buf)), 0);
	assert_int_equal(parse(CGFB_FMT_SYSLOG, "Aug 10 18:00:07 host kernel[12]: x", &r, buf,
			       sizeof(buf)), 0);
	assert_true(parse(CGFB_FMT_SYSLOG, "-- Boot 1234 --", &r, buf, sizeof(buf)) < 0);
}

static void kmsg_lines(void **state)
{
	struct cgfb_record r;
	char buf[64];

	assert_int_equal(parse(CGFB_FMT_KMSG, "4,1,2,-;x", &r, buf, sizeof(buf)), 1);
	assert_int_equal(parse(CGFB_FMT_KMSG, " SUBSYSTEM=acpi", &r, buf, sizeof(buf)), 0);
	assert_true(parse(CGFB_FMT_KMSG, "garbage", &r, buf, sizeof(buf)) < 0);
}

static void detects_formats(void **state)
{
	static const char kmsg[] = "6,1,0,-;Linux version 6.1\n SUBSYSTEM=x\n4,2,5,-;y\n";
	static const char sys[] = "Aug 10 18:00:07 h kernel: a\nAug 10 18:00:08 h sshd[1]: b\n";
	static const char exp[] = "__CURSOR=s=1\n__REALTIME_TIMESTAMP=1\nMESSAGE=x\n\n";
	static const char dm[] = "[    0.000000] Linux version\n[    0.1] x\n";
	static const char plain[] = "Linux version 6.1\nfoo\n";

	assert_int_equal(cgfb_logfmt_detect(S(kmsg)), CGFB_FMT_KMSG);
	assert_int_equal(cgfb_logfmt_detect(S(sys)), CGFB_FMT_SYSLOG);
	assert_int_equal(cgfb_logfmt_detect(S(exp)), CGFB_FMT_JOURNAL_EXPORT);
	assert_int_equal(cgfb_logfmt_detect(S(dm)), CGFB_FMT_DMESG);
	assert_int_equal(cgfb_logfmt_detect(S(plain)), CGFB_FMT_DMESG);
	assert_int_equal(cgfb_logfmt_detect("", 0), CGFB_FMT_DMESG);
}

/* The colours of dmesg --color=always go; text, a lone ESC and a
 * sequence cut by the end of the buffer stay (the next chunk ends it). */
static void strips_colours(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "\x1b[32m[   12.345678] \x1b[0m\x1b[33mcgroup: \x1b[0m\x1b[1m\"memory\" requires\x1b[0m\n",
		  "[   12.345678] cgroup: \"memory\" requires\n" },
		{ "no colour at all\n", "no colour at all\n" },
		{ "grep \x1b[01;31m\x1b[Kmatch\x1b[m\x1b[K here", "grep match here" },
		{ "a lone \x1b escape", "a lone \x1b escape" },
		{ "\x1b[38;5;208mx\x1b[0m", "x" },
		{ "cut at the end \x1b[3", "cut at the end \x1b[3" },
		{ "\x1b", "\x1b" },
		{ "\x1b[1\x01m", "\x1b[1\x01m" },       /* not a CSI: kept as text */
	};
	char buf[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const size_t n = strlen(cases[i].in);

		memcpy(buf, cases[i].in, n);
		const size_t m = cgfb_logfmt_strip_csi(buf, n);

		buf[m] = '\0';
		assert_string_equal(buf, cases[i].out);
	}
}

/* Binary is told from text, colour and journal exports included. */
static void tells_binary(void **state)
{
	static const char colour[] = "\x1b[32m[    1.0] \x1b[0mtext\n";
	char bin[512];

	assert_false(cgfb_logfmt_binary(S("<4>[    1.000000] cgroup: plain\n")));
	assert_false(cgfb_logfmt_binary(colour, sizeof(colour) - 1));
	assert_false(cgfb_logfmt_binary(S("tab\there\r\n\fform feed\n")));
	assert_true(cgfb_logfmt_binary(S("text with a NUL \0 in it")));
	for (size_t i = 0; i < sizeof(bin); i++)
		bin[i] = (char)(i * 7 % 31 + 1);      /* control bytes, no NUL */
	assert_true(cgfb_logfmt_binary(bin, sizeof(bin)));
	assert_true(cgfb_logfmt_journal_file(S("LPKSHHRH\0\0\0\0")));
	assert_false(cgfb_logfmt_journal_file(S("LPKSHH")));
}

/* What a line's format proves (docs/SECURITY.md, "Saved logs: what proves
 * a line is the kernel's"): a syslog file's "kernel:" tag and facility kern
 * are any local program's to claim (logger -t kernel; a raw "<4>" datagram
 * to /dev/log), so every syslog kernel line is unproven, PRI or not, and
 * one whose own PRI names another facility is no kernel line at all. dmesg
 * -r / -x and kmsg carry the kernel's own facility, which userspace can
 * never set to 0 (kernel/printk/printk.c, devkmsg_write). */
static void expect_proof(enum cgfb_logfmt fmt, const char *line, int want_rc, bool unproven,
			 int facility)
{
	struct cgfb_record r;
	char buf[256];
	const int rc = parse(fmt, line, &r, buf, sizeof(buf));

	if (rc != want_rc)
		fail_msg("%s: '%s': %d, want %d", cgfb_logfmt_name(fmt), line, rc, want_rc);
	if (rc != 1)
		return;
	if (r.unproven != unproven || r.facility != facility)
		fail_msg("%s: '%s': unproven %d facility %d, want %d and %d",
			 cgfb_logfmt_name(fmt), line, r.unproven, r.facility, unproven, facility);
}

#define M8 "Non-hierarchical mode is deprecated. Please report your usecase to " \
	"linux-mm@kvack.org if you depend on this functionality."

static void forged_kernel_lines(void **state)
{
	/* logger -t kernel, as Debian's syslog (RFC 3339, rsyslog 8.2302's
	 * RSYSLOG_FileFormat) and RHEL's messages (traditional) keep it. */
	expect_proof(CGFB_FMT_SYSLOG, "2026-12-03T01:50:51.123456+00:00 host kernel: " M8, 1, true,
		     -1);
	expect_proof(CGFB_FMT_SYSLOG, "Aug 10 18:00:07 host kernel: " M8, 1, true, -1);
	expect_proof(CGFB_FMT_SYSLOG, "Aug 10 18:00:07 host kernel: [    1.000000] " M8, 1, true,
		     -1);
	/* A PRI the file carries (RSYSLOG_SyslogProtocol23Format, or %PRI%
	 * first): kern is still only claimed; another facility is no kernel
	 * line. */
	expect_proof(CGFB_FMT_SYSLOG, "<4>1 2026-12-03T01:50:51.123456+00:00 host kernel - - - " M8,
		     1, true, 0);
	expect_proof(CGFB_FMT_SYSLOG, "<12>1 2026-12-03T01:50:51.123456+00:00 host kernel - - - " M8,
		     0, false, 0);
	expect_proof(CGFB_FMT_SYSLOG, "<4>Aug 10 18:00:07 host kernel: " M8, 1, true, 0);
	expect_proof(CGFB_FMT_SYSLOG, "<13>Aug 10 18:00:07 host kernel: " M8, 0, false, 0);
	expect_proof(CGFB_FMT_SYSLOG, "<4>1 2026-12-03T01:50:51Z host myapp - - - " M8, 0, false, 0);
	/* The kernel's own facility, as dmesg -r, dmesg -x and kmsg show it. */
	expect_proof(CGFB_FMT_DMESG, "<4>[    1.000000] " M8, 1, false, 0);
	expect_proof(CGFB_FMT_DMESG, "<12>[    1.000000] " M8, 1, false, 1);
	expect_proof(CGFB_FMT_DMESG, "kern  :warn  : [    1.000000] " M8, 1, false, 0);
	expect_proof(CGFB_FMT_KMSG, "4,1,2,-;" M8, 1, false, 0);
}

/* RFC 5424's header: structured data with escaped brackets and quotes,
 * a byte order mark before the message, the NIL value. */
static void rfc5424_lines(void **state)
{
	static const char p23[] =
		"<4>1 2026-12-03T01:50:51.123456+00:00 host kernel - - - [    1.000000] a\n"
		"<30>1 2026-12-03T01:50:52.000000+00:00 host sshd 12 - - b\n";
	struct cgfb_record r;
	char buf[256];

	expect_text(CGFB_FMT_SYSLOG, "<4>1 2026-12-03T01:50:51Z host kernel - - - msg", "msg");
	expect_text(CGFB_FMT_SYSLOG,
		    "<4>1 2026-12-03T01:50:51Z host kernel 0 ID7 [x@1 a=\"]\\\"\" b=\"c\"][y@2] msg",
		    "msg");
	expect_text(CGFB_FMT_SYSLOG, "<4>1 2026-12-03T01:50:51Z host kernel - - - \xef\xbb\xbfmsg",
		    "msg");
	assert_true(parse(CGFB_FMT_SYSLOG, "<4>1 2026-12-03T01:50:51Z host kernel - - [x a=\"]",
			  &r, buf, sizeof(buf)) < 0);
	assert_true(parse(CGFB_FMT_SYSLOG, "<4>1 2026-12-03T01:50:51Z host kernel - -", &r, buf,
			  sizeof(buf)) < 0);
	/* Such a file is syslog, and read as saved, not as a paste. */
	assert_int_equal(cgfb_logfmt_detect(S(p23)), CGFB_FMT_SYSLOG);
	assert_false(cgfb_logfmt_looks_pasted(CGFB_FMT_SYSLOG, S(p23)));
	/* dmesg -r stays dmesg. */
	assert_int_equal(cgfb_logfmt_detect(S("<4>[    1.000000] a\n<6>[    2.000000] b\n")),
			 CGFB_FMT_DMESG);
}

static void take_detection(const struct cgfb_detection *d, void *arg)
{
	struct cgfb_detection *out = arg;

	*out = *d;
}

/* A detection says whether its line is proven the kernel's. */
static void detections_say_proof(void **state)
{
	static const char forged[] = "Aug 10 18:00:07 host sshd[1]: x\n"
				     "Aug 10 18:00:08 host kernel: " M8 "\n";
	static const char dmesg_r[] = "<4>[    1.000000] " M8 "\n";
	struct cgfb_catalog *cat = test_catalog();
	struct cgfb_detection *d = calloc(1, sizeof(*d));
	struct cgfb_scan_stats st;

	assert_non_null(d);
	assert_int_equal(cgfb_scan_buffer(S(forged), cat, take_detection, d, &st), 0);
	assert_int_equal(st.detections, 1);
	assert_string_equal(d->entry->id, "M8");
	assert_true(d->unproven);
	memset(d, 0, sizeof(*d));
	assert_int_equal(cgfb_scan_buffer(S(dmesg_r), cat, take_detection, d, &st), 0);
	assert_int_equal(st.detections, 1);
	assert_false(d->unproven);
	free(d);
	cgfb_catalog_free(cat);
}

/* Catalog detections of a log of len bytes, via a file descriptor (the
 * stream reader) and from memory; the last one goes to *d, its entry's id
 * to d->count_key (the catalog is freed). */
static unsigned long scan_both(const char *log, size_t len, struct cgfb_detection *d,
			       struct cgfb_scan_stats *st)
{
	struct cgfb_catalog *cat = test_catalog();
	struct cgfb_scan_stats mem;
	const int fd = memfd_create("log", MFD_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, log, len), (ssize_t)len);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(cgfb_scan_fd(fd, cat, take_detection, d, st), 0);
	close(fd);
	assert_int_equal(cgfb_scan_buffer(log, len, cat, take_detection, d, &mem), 0);
	assert_int_equal(mem.detections, st->detections);
	assert_int_equal(mem.mostly_nul, st->mostly_nul);
	assert_int_equal(mem.lines, st->lines);
	/* The entry is the catalog's, freed here. */
	snprintf(d->count_key, sizeof(d->count_key), "%s", d->entry ? d->entry->id : "");
	d->entry = NULL;
	cgfb_catalog_free(cat);
	return st->detections;
}

/* A power cut leaves a block of NULs where a log's last blocks were; the
 * logger goes on after it. The record after the block is read (on the
 * line it shares with the zeros), the one the block cut short is not, the
 * lines are counted as grep -n counts them, and a few KiB of zeros in a
 * log do not make it binary. */
static void nul_block_ends_at_next_record(void **state)
{
	static const char *const head[] = {
		"Aug 10 18:00:07 host kernel: first\nAug 10 18:00:08 host kernel: Non-hier",
		"[    0.500000] first\n[    0.600000] Non-hier",
		"[    0.500000] first\n",
	};
	static const char *const rec[] = {
		"Aug 10 18:00:09 host kernel: " M8 "\n",
		"[    1.000000] " M8 "\n",
		"[    1.000000] " M8 "\n",
	};
	struct cgfb_detection *d = calloc(1, sizeof(*d));
	struct cgfb_scan_stats st;
	char *log = malloc(64 << 10);

	assert_non_null(d);
	assert_non_null(log);
	for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++) {
		size_t n = 0;

		memcpy(log + n, head[i], strlen(head[i]));
		n += strlen(head[i]);
		memset(log + n, 0, 4096);
		n += 4096;
		memcpy(log + n, rec[i], strlen(rec[i]));
		n += strlen(rec[i]);
		for (int k = 0; k < 200; k++)
			n += (size_t)sprintf(log + n, i == 0 ? "Aug 10 18:01:%02d host cron[1]: filler\n" :
					     "[   %2d.000000] filler line of a log\n", k % 60);
		memset(d, 0, sizeof(*d));
		assert_int_equal(scan_both(log, n, d, &st), 1);
		assert_string_equal(d->count_key, "M8");
		assert_int_equal(d->line, 2);
		assert_false(st.mostly_nul);
		assert_false(st.binary);
		assert_int_equal(st.lines, 202);
	}
	free(log);
	free(d);
}

/* A file of nothing but NULs, or mostly NULs, is no text log: binary,
 * whatever its few bytes say (scan exits 2, not 1: "no catalog message"
 * would be a verdict it cannot give). */
static void nul_file_is_binary(void **state)
{
	struct cgfb_detection *d = calloc(1, sizeof(*d));
	struct cgfb_scan_stats st;
	char *log = calloc(1, 200000);

	assert_non_null(d);
	assert_non_null(log);
	assert_int_equal(scan_both(log, 200000, d, &st), 0);
	assert_true(st.binary);
	assert_true(st.mostly_nul);
	assert_int_equal(st.nul_bytes, 200000);
	/* A line of text in the zeros is still read, and the file still
	 * said to be mostly NULs. */
	memcpy(log + 150000, "\n[    1.000000] " M8 "\n", strlen(M8) + 17);
	assert_int_equal(scan_both(log, 200000, d, &st), 1);
	assert_true(st.mostly_nul);
	free(log);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dmesg_variants),
		cmocka_unit_test(dmesg_priorities),
		cmocka_unit_test(syslog_variants),
		cmocka_unit_test(forged_kernel_lines),
		cmocka_unit_test(rfc5424_lines),
		cmocka_unit_test(detections_say_proof),
		cmocka_unit_test(nul_block_ends_at_next_record),
		cmocka_unit_test(nul_file_is_binary),
		cmocka_unit_test(kmsg_lines),
		cmocka_unit_test(detects_formats),
		cmocka_unit_test(strips_colours),
		cmocka_unit_test(tells_binary),
	};

	return cmocka_run_group_tests_name("logfmt", tests, NULL, NULL);
}
