#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log/journal.h"

/* ---- cgfb_journal_fields: one entry's blobs ---- */

struct blobs {
	const void *p[24];
	size_t l[24];
	size_t n;
};

static void add(struct blobs *b, const void *p, size_t l)
{
	assert_true(b->n < 24);
	b->p[b->n] = p;
	b->l[b->n++] = l;
}

static void adds(struct blobs *b, const char *s)
{
	add(b, s, strlen(s));
}

static int run(const struct blobs *b, struct cgfb_journal_entry *e, char *text, size_t textsz)
{
	return cgfb_journal_fields(b->p, b->l, b->n, e, text, textsz);
}

#define BOOT_A "0123456789abcdef0123456789abcdef"
#define BOOT_B "fedcba9876543210fedcba9876543210"
#define SYSTEMD_V1 "Detected cgroup v1 hierarchy at /sys/fs/cgroup/, which is no longer supported by current version of systemd."
#define KUBELET_V1 "kubelet is configured to not run on a host using cgroup v1"
#define DEPRECATED "cgroup: memory.use_hierarchy is deprecated and will be removed. Please report your usecase to linux-mm@kvack.org if you depend on this functionality."

static void kernel_record(void **state)
{
	struct blobs b = { 0 };
	struct cgfb_journal_entry e;
	char text[CGFB_RECORD_TEXT_MAX];

	adds(&b, "__REALTIME_TIMESTAMP=1700000000123456");
	adds(&b, "__MONOTONIC_TIMESTAMP=5000000");
	adds(&b, "_BOOT_ID=" BOOT_A);
	adds(&b, "_TRANSPORT=kernel");
	adds(&b, "SYSLOG_FACILITY=0");
	adds(&b, "SYSLOG_IDENTIFIER=kernel");
	adds(&b, "PRIORITY=4");
	adds(&b, "MESSAGE=" DEPRECATED);
	assert_int_equal(run(&b, &e, text, sizeof(text)), 1);
	assert_ptr_equal(e.rec.text, text);
	assert_int_equal(e.rec.len, strlen(DEPRECATED));
	assert_memory_equal(e.rec.text, DEPRECATED, e.rec.len);
	assert_int_equal(e.rec.level, 4);
	assert_int_equal(e.rec.facility, 0);
	assert_true(cgfb_record_from_kernel(&e.rec));
	assert_true(e.rec.has_usec);
	assert_int_equal(e.rec.usec, 5000000);
	assert_false(e.rec.has_seq);
	assert_int_equal(e.rec.line, 0);
	assert_string_equal(e.boot_id, BOOT_A);
	assert_int_equal(e.realtime, 1700000000123456ull);
	assert_null(e.reader);
	{
		uint64_t seqnum = 7;

		assert_int_equal(cgfb_journal_seqnum(&e, &seqnum), -ENODATA);
		assert_int_equal(seqnum, 7);
	}
}

static void userspace_refused(void **state)
{
	static const char *const transports[] = {
		"_TRANSPORT=syslog", "_TRANSPORT=journal", "_TRANSPORT=stdout", "_TRANSPORT=audit",
		"_TRANSPORT=kernel ", "_TRANSPORT=Kernel", "_TRANSPORT=kernelx", "_TRANSPORT=",
		"TRANSPORT=kernel", "__TRANSPORT=kernel", NULL,
	};
	struct cgfb_journal_entry e;
	char text[256];

	/* What a program can write through syslog(3), sd_journal_send(3) or
	 * its stdout: the kernel's name, facility and words, with
	 * everything but the kernel's transport. */
	for (const char *const *t = transports; ; t++) {
		struct blobs b = { 0 };

		adds(&b, "SYSLOG_IDENTIFIER=kernel");
		adds(&b, "SYSLOG_FACILITY=0");
		adds(&b, "PRIORITY=4");
		adds(&b, "MESSAGE=" DEPRECATED);
		if (*t)
			adds(&b, *t);
		assert_int_equal(run(&b, &e, text, sizeof(text)), 0);
		if (!*t)
			break;
	}

	/* Two transports is no entry journald wrote: not the kernel's. */
	for (int order = 0; order < 2; order++) {
		struct blobs b = { 0 };

		adds(&b, order ? "_TRANSPORT=syslog" : "_TRANSPORT=kernel");
		adds(&b, "MESSAGE=" DEPRECATED);
		adds(&b, order ? "_TRANSPORT=kernel" : "_TRANSPORT=syslog");
		assert_int_equal(run(&b, &e, text, sizeof(text)), 0);
	}
}


/* The sound of the break (issue 42): a program's record is handed out
 * only when journald took its writer's credentials and they are root's
 * PID 1 or root in a unit; never with the kernel's facility, whatever
 * SYSLOG_FACILITY the writer chose. */

static void trusted_userspace(void **state)
{
	static const struct {
		const char *transport, *pid, *uid, *unit;
		int want, want_pid;
		const char *want_unit;
	} cases[] = {
		{ "_TRANSPORT=journal", "_PID=1", "_UID=0", "_SYSTEMD_UNIT=init.scope", 1, 1, "init.scope" },
		{ "_TRANSPORT=stdout", "_PID=812", "_UID=0", "_SYSTEMD_UNIT=kubelet.service", 1, 812,
		  "kubelet.service" },
		{ "_TRANSPORT=syslog", "_PID=1", "_UID=0", NULL, 1, 1, "" },
		{ "_TRANSPORT=journal", "_PID=1", "_UID=1000", NULL, 0, 0, "" },
		{ "_TRANSPORT=journal", "_PID=4242", "_UID=0", NULL, 0, 0, "" },
		{ "_TRANSPORT=journal", NULL, "_UID=0", "_SYSTEMD_UNIT=kubelet.service", 0, 0, "" },
		{ "_TRANSPORT=audit", "_PID=1", "_UID=0", NULL, 0, 0, "" },
		{ "_TRANSPORT=driver", "_PID=1", "_UID=0", NULL, 0, 0, "" },
		{ NULL, "_PID=1", "_UID=0", NULL, 0, 0, "" },
	};
	struct cgfb_journal_entry e;
	char text[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct blobs b = { 0 };

		adds(&b, "SYSLOG_FACILITY=0");
		adds(&b, "MESSAGE=" SYSTEMD_V1);
		if (cases[i].transport)
			adds(&b, cases[i].transport);
		if (cases[i].pid)
			adds(&b, cases[i].pid);
		if (cases[i].uid)
			adds(&b, cases[i].uid);
		if (cases[i].unit)
			adds(&b, cases[i].unit);
		if (run(&b, &e, text, sizeof(text)) != cases[i].want)
			fail_msg("case %zu: want %d", i, cases[i].want);
		if (!cases[i].want)
			continue;
		assert_true(e.rec.user_trusted);
		assert_int_equal(e.rec.pid, cases[i].want_pid);
		assert_string_equal(e.rec.unit, cases[i].want_unit);
		assert_false(cgfb_record_from_kernel(&e.rec));
		assert_memory_equal(e.rec.text, SYSTEMD_V1, e.rec.len);
	}
}

static void missing_priority_and_facility(void **state)
{
	struct blobs b = { 0 };
	struct cgfb_journal_entry e;
	char text[64];

	adds(&b, "_TRANSPORT=kernel");
	adds(&b, "MESSAGE=hello");
	assert_int_equal(run(&b, &e, text, sizeof(text)), 1);
	assert_int_equal(e.rec.level, -1);
	assert_int_equal(e.rec.facility, 0);     /* the kernel transport's own */
	assert_false(e.rec.has_usec);
	assert_string_equal(e.boot_id, "");
	assert_int_equal(e.realtime, 0);

	/* Userspace writing /dev/kmsg arrives by the kernel transport with
	 * its own facility: handed on, for the detector to refuse. */
	adds(&b, "SYSLOG_FACILITY=1");
	assert_int_equal(run(&b, &e, text, sizeof(text)), 1);
	assert_int_equal(e.rec.facility, 1);
	assert_false(cgfb_record_from_kernel(&e.rec));
}

static void binary_message(void **state)
{
	static const char msg[] = "MESSAGE=a\0b\nc\xff";
	struct blobs b = { 0 };
	struct cgfb_journal_entry e;
	char text[64];

	adds(&b, "_TRANSPORT=kernel");
	add(&b, msg, sizeof(msg) - 1);
	assert_int_equal(run(&b, &e, text, sizeof(text)), 1);
	assert_int_equal(e.rec.len, 6);
	assert_memory_equal(e.rec.text, "a\0b\nc\xff", 6);

	/* An empty MESSAGE is a record with no text. */
	b.n = 1;
	adds(&b, "MESSAGE=");
	assert_int_equal(run(&b, &e, text, sizeof(text)), 1);
	assert_int_equal(e.rec.len, 0);
}

static void long_message_cut(void **state)
{
	const size_t n = 8 + CGFB_RECORD_TEXT_MAX + 1000;
	char *msg = malloc(n), *text = malloc(CGFB_RECORD_TEXT_MAX);
	struct blobs b = { 0 };
	struct cgfb_journal_entry e;
	char small[16];

	assert_non_null(msg);
	assert_non_null(text);
	memcpy(msg, "MESSAGE=", 8);
	for (size_t i = 8; i < n; i++)
		msg[i] = (char)('a' + i % 26);
	adds(&b, "_TRANSPORT=kernel");
	add(&b, msg, n);
	assert_int_equal(run(&b, &e, text, CGFB_RECORD_TEXT_MAX), 1);
	assert_int_equal(e.rec.len, CGFB_RECORD_TEXT_MAX);
	assert_memory_equal(e.rec.text, msg + 8, CGFB_RECORD_TEXT_MAX);
	/* And no further than the caller's buffer. */
	assert_int_equal(run(&b, &e, small, sizeof(small)), 1);
	assert_int_equal(e.rec.len, sizeof(small));
	assert_memory_equal(e.rec.text, msg + 8, sizeof(small));
	free(msg);
	free(text);
}

static void source_monotonic_first(void **state)
{
	struct blobs b = { 0 };
	struct cgfb_journal_entry e;
	char text[64];

	adds(&b, "__MONOTONIC_TIMESTAMP=9000000");
	adds(&b, "_TRANSPORT=kernel");
	adds(&b, "MESSAGE=x");
	adds(&b, "_SOURCE_MONOTONIC_TIMESTAMP=1234567");
	assert_int_equal(run(&b, &e, text, sizeof(text)), 1);
	assert_true(e.rec.has_usec);
	assert_int_equal(e.rec.usec, 1234567);

	/* A malformed kernel stamp: journald's own. */
	b.p[3] = "_SOURCE_MONOTONIC_TIMESTAMP=12.5";
	b.l[3] = strlen(b.p[3]);
	assert_int_equal(run(&b, &e, text, sizeof(text)), 1);
	assert_int_equal(e.rec.usec, 9000000);

	/* 0 is a time (the first records of a boot). */
	b.p[3] = "_SOURCE_MONOTONIC_TIMESTAMP=0";
	b.l[3] = strlen(b.p[3]);
	assert_int_equal(run(&b, &e, text, sizeof(text)), 1);
	assert_true(e.rec.has_usec);
	assert_int_equal(e.rec.usec, 0);
}

static void malformed_fields(void **state)
{
	static const char nul_name[] = "\0MESSAGE=x";
	struct blobs b = { 0 };
	struct cgfb_journal_entry e;
	char text[64];

	/* No '=', an empty name, a NUL before the name, zero bytes, a NULL
	 * blob: none of them is a field, and none is MESSAGE. */
	adds(&b, "_TRANSPORT=kernel");
	adds(&b, "MESSAGE");
	adds(&b, "=MESSAGE=x");
	add(&b, nul_name, sizeof(nul_name) - 1);
	add(&b, "MESSAGE=x", 0);
	add(&b, NULL, 5);
	adds(&b, "MESSAGEX=x");
	assert_int_equal(run(&b, &e, text, sizeof(text)), 0);

	/* Numbers that are not plain decimal, or out of range: absent. */
	b.n = 0;
	adds(&b, "_TRANSPORT=kernel");
	adds(&b, "MESSAGE=m");
	adds(&b, "PRIORITY=four");
	adds(&b, "SYSLOG_FACILITY=-1");
	adds(&b, "__MONOTONIC_TIMESTAMP=12x");
	adds(&b, "__REALTIME_TIMESTAMP=99999999999999999999999");
	adds(&b, "_BOOT_ID=0123456789abcdef0123456789abcdeg");
	assert_int_equal(run(&b, &e, text, sizeof(text)), 1);
	assert_int_equal(e.rec.level, -1);
	assert_int_equal(e.rec.facility, 0);
	assert_false(e.rec.has_usec);
	assert_int_equal(e.realtime, 0);
	assert_string_equal(e.boot_id, "");

	/* The first of a field counts, even malformed; the largest u64 is a
	 * number, one more is not. */
	b.n = 2;
	adds(&b, "PRIORITY=8");
	adds(&b, "PRIORITY=3");
	adds(&b, "__MONOTONIC_TIMESTAMP=18446744073709551615");
	adds(&b, "__REALTIME_TIMESTAMP=18446744073709551616");
	adds(&b, "_BOOT_ID=0123456789ABCDEF0123456789ABCDEF");
	assert_int_equal(run(&b, &e, text, sizeof(text)), 1);
	assert_int_equal(e.rec.level, -1);
	assert_true(e.rec.has_usec);
	assert_int_equal(e.rec.usec, UINT64_MAX);
	assert_int_equal(e.realtime, 0);
	assert_string_equal(e.boot_id, BOOT_A);

	/* The first MESSAGE is the text. */
	b.n = 0;
	adds(&b, "MESSAGE=first");
	adds(&b, "_TRANSPORT=kernel");
	adds(&b, "MESSAGE=second");
	assert_int_equal(run(&b, &e, text, sizeof(text)), 1);
	assert_int_equal(e.rec.len, 5);

	/* Nothing at all, and the caller's mistakes. */
	assert_int_equal(cgfb_journal_fields(NULL, NULL, 0, &e, text, sizeof(text)), 0);
	assert_int_equal(cgfb_journal_fields(b.p, b.l, b.n, NULL, text, sizeof(text)), -EINVAL);
	assert_int_equal(cgfb_journal_fields(b.p, b.l, b.n, &e, NULL, 0), -EINVAL);
	assert_int_equal(cgfb_journal_fields(NULL, b.l, b.n, &e, text, sizeof(text)), -EINVAL);
}

/* ---- a real journal file, written by systemd-journal-remote ---- */

#define JOURNAL_REMOTE "/lib/systemd/systemd-journal-remote"

static char dir[64];
static char file[128];
static char jdir[128];

/* Two boots, in the Journal Export Format. Kernel records (K) with the
 * deprecation text and ordinary lines, and userspace entries with the
 * same text through syslog, the native protocol and stdout. */
struct ent {
	const char *boot, *transport, *msg;
	unsigned long long realtime, mono, source;   /* source 0: none */
	int facility;                                /* -1: none */
};

static const struct ent ents[] = {
	{ BOOT_A, "kernel", "Linux version 6.1.0-13-amd64", 1700000000000000ull, 50000, 0, 0 },
	{ BOOT_A, "syslog", DEPRECATED, 1700000000500000ull, 500000, 0, 3 },
	{ BOOT_A, "kernel", DEPRECATED, 1700000002600000ull, 2600000, 2000000, 0 },
	{ BOOT_A, "journal", DEPRECATED, 1700000003000000ull, 3000000, 0, 0 },
	{ BOOT_A, "kernel", "e1000e: eth0 NIC Link is Up", 1700000004000000ull, 4000000, 3900000, 0 },
	{ BOOT_B, "kernel", "Linux version 6.1.0-13-amd64", 1700090000000000ull, 100000, 0, 0 },
	{ BOOT_B, "stdout", DEPRECATED, 1700090000200000ull, 200000, 0, -1 },
	{ BOOT_B, "kernel", "e1000e: eth0 NIC Link is Up", 1700090003600000ull, 3600000, 3000000, 0 },
	{ BOOT_B, "kernel", DEPRECATED, 1700090004500000ull, 4500000, 4000000, 0 },
	{ BOOT_B, "kernel", "cgroup1: memory.soft_limit_in_bytes is deprecated", 1700090007500000ull,
	  7500000, 7000000, 0 },
	{ BOOT_B, "kernel", DEPRECATED, 1700090008100000ull, 8100000, 8000000, 1 },
};
#define N_ENTS (sizeof(ents) / sizeof(ents[0]))

static void write_export(FILE *f)
{
	for (size_t i = 0; i < N_ENTS; i++) {
		const struct ent *x = &ents[i];

		fprintf(f, "__REALTIME_TIMESTAMP=%llu\n__MONOTONIC_TIMESTAMP=%llu\n", x->realtime,
			x->mono);
		fprintf(f, "_BOOT_ID=%s\n_TRANSPORT=%s\nPRIORITY=4\n", x->boot, x->transport);
		if (x->facility >= 0)
			fprintf(f, "SYSLOG_FACILITY=%d\n", x->facility);
		if (x->source)
			fprintf(f, "_SOURCE_MONOTONIC_TIMESTAMP=%llu\n", x->source);
		fprintf(f, "SYSLOG_IDENTIFIER=kernel\nMESSAGE=%s\n\n", x->msg);
	}
	/* A binary MESSAGE (name, 64-bit little-endian size, bytes): a kernel
	 * record with a NUL and a newline in it. */
	fputs("__REALTIME_TIMESTAMP=1700090009000000\n__MONOTONIC_TIMESTAMP=9000000\n"
	      "_BOOT_ID=" BOOT_B "\n_TRANSPORT=kernel\nPRIORITY=6\n", f);
	static const char bin[] = "MESSAGE\n\x05\0\0\0\0\0\0\0a\0b\nc\n\n";

	fwrite(bin, 1, sizeof(bin) - 1, f);
	/* After it: systemd as PID 1 refusing v1 (root: read), and the same
	 * text from PID 1 of another user (never read). */
	fputs("\n__REALTIME_TIMESTAMP=1700090009500000\n__MONOTONIC_TIMESTAMP=9500000\n"
	      "_BOOT_ID=" BOOT_B "\n_TRANSPORT=journal\nPRIORITY=0\nSYSLOG_FACILITY=3\n"
	      "_PID=1\n_UID=0\n_SYSTEMD_UNIT=init.scope\nMESSAGE=" SYSTEMD_V1 "\n\n", f);
	fputs("__REALTIME_TIMESTAMP=1700090009600000\n__MONOTONIC_TIMESTAMP=9600000\n"
	      "_BOOT_ID=" BOOT_B "\n_TRANSPORT=journal\nPRIORITY=0\nSYSLOG_FACILITY=3\n"
	      "_PID=1\n_UID=1000\nMESSAGE=" SYSTEMD_V1 "\n\n", f);
	/* The scan selects these itself (no sd-journal match): root's lines
	 * in a unit are read only from the kubelet's units. A service run
	 * as root (whose record would pass as trusted: a unit, UID 0) and a
	 * user's kubelet are never handed over; the root kubelet is, its
	 * unit copied out of the field. */
	fputs("__REALTIME_TIMESTAMP=1700090009700000\n__MONOTONIC_TIMESTAMP=9700000\n"
	      "_BOOT_ID=" BOOT_B "\n_TRANSPORT=stdout\nPRIORITY=3\n_PID=8\n_UID=0\n"
	      "_SYSTEMD_UNIT=nginx.service\nMESSAGE=" KUBELET_V1 "\n\n", f);
	fputs("__REALTIME_TIMESTAMP=1700090009800000\n__MONOTONIC_TIMESTAMP=9800000\n"
	      "_BOOT_ID=" BOOT_B "\n_TRANSPORT=stdout\nPRIORITY=3\n_PID=813\n_UID=1000\n"
	      "_SYSTEMD_UNIT=kubelet.service\nMESSAGE=" KUBELET_V1 "\n\n", f);
	fputs("__REALTIME_TIMESTAMP=1700090009900000\n__MONOTONIC_TIMESTAMP=9900000\n"
	      "_BOOT_ID=" BOOT_B "\n_TRANSPORT=stdout\nPRIORITY=3\n_PID=814\n_UID=0\n"
	      "_SYSTEMD_UNIT=kubelet.service\nMESSAGE=" KUBELET_V1 "\n\n", f);
}

static int make_journal(void **state)
{
	char cmd[512];
	FILE *f;

	if (access(JOURNAL_REMOTE, X_OK) != 0) {
		print_message("%s: not installed (Debian: systemd-journal-remote)\n", JOURNAL_REMOTE);
		return -1;
	}
	strcpy(dir, "/tmp/cgfb-journal.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(jdir, sizeof(jdir), "%s/j", dir);
	assert_int_equal(mkdir(jdir, 0700), 0);
	snprintf(file, sizeof(file), "%s/j/test.journal", dir);
	snprintf(cmd, sizeof(cmd), "%s/in.export", dir);
	f = fopen(cmd, "w");
	assert_non_null(f);
	write_export(f);
	assert_int_equal(fclose(f), 0);
	/* Export format from a file into one journal file (its name must end
	 * in .journal); "Finishing after writing N entries" goes to the log. */
	snprintf(cmd, sizeof(cmd), JOURNAL_REMOTE " --output=%s %s/in.export >%s/remote.log 2>&1",
		 file, dir, dir);
	if (system(cmd) != 0) {
		snprintf(cmd, sizeof(cmd), "cat %s/remote.log >&2", dir);
		(void)!system(cmd);
		return -1;
	}
	return 0;
}

static int remove_journal(void **state)
{
	char cmd[128];

	if (dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		return system(cmd) == 0 ? 0 : -1;
	}
	return 0;
}

struct got {
	unsigned n;
	int stop_at;                      /* return 7 at this record (1-based), 0 never */
	struct {
		char text[160];
		size_t len;
		char boot[33];
		uint64_t realtime, seqnum, boot_first, usec;
		int level, facility;
		char unit[64];
	} r[16];
};

static int collect(const struct cgfb_journal_entry *e, void *arg)
{
	struct got *g = arg;
	uint64_t again = 0;

	if (g->n < 16) {
		memcpy(g->r[g->n].text, e->rec.text, e->rec.len < 159 ? e->rec.len : 159);
		g->r[g->n].text[e->rec.len < 159 ? e->rec.len : 159] = '\0';
		g->r[g->n].len = e->rec.len;
		memcpy(g->r[g->n].boot, e->boot_id, sizeof(e->boot_id));
		g->r[g->n].realtime = e->realtime;
		/* looked up once, the same when asked again */
		assert_int_equal(cgfb_journal_seqnum(e, &g->r[g->n].seqnum), 0);
		assert_int_equal(cgfb_journal_seqnum(e, &again), 0);
		assert_int_equal(again, g->r[g->n].seqnum);
		memcpy(g->r[g->n].unit, e->rec.unit, sizeof(g->r[g->n].unit));
		g->r[g->n].boot_first = e->boot_first;
		g->r[g->n].usec = e->rec.usec;
		g->r[g->n].level = e->rec.level;
		g->r[g->n].facility = e->rec.facility;
		assert_true(e->rec.has_usec);
		assert_false(e->rec.has_seq);
	}
	g->n++;
	return g->stop_at && (int)g->n == g->stop_at ? 7 : 0;
}

/* What every reading of the whole file must give: the kernel records of
 * ents[] in order, then the binary one. */
static void check_all(const struct got *g, const struct cgfb_journal_stats *st)
{
	unsigned k = 0;

	assert_int_equal(g->n, 11);
	assert_int_equal(st->entries, 11);
	assert_int_equal(st->boots, 2);
	for (size_t i = 0; i < N_ENTS; i++) {
		const struct ent *x = &ents[i];

		if (strcmp(x->transport, "kernel") != 0)
			continue;
		assert_string_equal(g->r[k].text, x->msg);
		assert_string_equal(g->r[k].boot, x->boot);
		assert_int_equal(g->r[k].realtime, x->realtime);
		assert_int_equal(g->r[k].usec, x->source ? x->source : x->mono);
		assert_int_equal(g->r[k].boot_first,
				 strcmp(x->boot, BOOT_A) == 0 ? ents[0].realtime : ents[5].realtime);
		assert_int_equal(g->r[k].level, 4);
		assert_int_equal(g->r[k].facility, x->facility);
		if (k)
			assert_true(g->r[k].seqnum > g->r[k - 1].seqnum);
		k++;
	}
	assert_int_equal(k, 8);
	assert_int_equal(g->r[8].len, 5);
	assert_memory_equal(g->r[8].text, "a\0b\nc", 5);
	assert_int_equal(g->r[8].level, 6);
	assert_int_equal(g->r[8].facility, 0);
	assert_string_equal(g->r[8].boot, BOOT_B);
	assert_int_equal(g->r[8].boot_first, ents[5].realtime);
	/* PID 1's, as root: a userspace record the catalog may hear. */
	assert_string_equal(g->r[9].text, SYSTEMD_V1);
	assert_int_equal(g->r[9].facility, 3);
	assert_int_equal(g->r[9].level, 0);
	assert_int_equal(g->r[9].usec, 9500000);
	assert_string_equal(g->r[9].unit, "init.scope");
	/* root's kubelet, not root's nginx nor a user's kubelet */
	assert_string_equal(g->r[10].text, KUBELET_V1);
	assert_string_equal(g->r[10].unit, "kubelet.service");
	assert_int_equal(g->r[10].usec, 9900000);
	assert_true(g->r[10].seqnum > g->r[9].seqnum + 2);
}

static void scan_files(void **state)
{
	const char *files[] = { file };
	const struct cgfb_journal_src src = { .files = files, .n_files = 1 };
	struct cgfb_journal_stats st;
	struct got g = { 0 };
	char err[256] = "";

	assert_int_equal(cgfb_journal_scan(&src, collect, &g, &st, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	check_all(&g, &st);
	assert_true(g.r[0].seqnum >= 1);
}

static void scan_dir(void **state)
{
	const struct cgfb_journal_src src = { .dir = jdir };
	struct cgfb_journal_stats st;
	struct got g = { 0 };
	char err[256] = "";

	assert_int_equal(cgfb_journal_scan(&src, collect, &g, &st, err, sizeof(err)), 0);
	check_all(&g, &st);
}

static void callback_stops(void **state)
{
	const struct cgfb_journal_src src = { .dir = jdir };
	struct cgfb_journal_stats st;
	struct got g = { .stop_at = 4 };
	char err[256] = "";

	assert_int_equal(cgfb_journal_scan(&src, collect, &g, &st, err, sizeof(err)), 7);
	assert_int_equal(g.n, 4);
	assert_int_equal(st.entries, 4);
	assert_int_equal(st.boots, 2);
}

static void boot_range(void **state)
{
	const char *files[] = { file };
	const struct cgfb_journal_src src = { .files = files, .n_files = 1 };
	struct got g = { 0 };
	char err[256] = "";

	/* Boot B, [3.5 s, 7 s] of the kernel's clock: the link line (3.0 s,
	 * read by journald at 3.6 s) is before it; the last deprecation
	 * (7.0 s, read at 7.5 s) is in it, and the facility-1 line after. */
	assert_int_equal(cgfb_journal_boot_range(&src, BOOT_B, 3500000, 7000000, collect, &g, err,
						 sizeof(err)), 0);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.r[0].text, DEPRECATED);
	assert_int_equal(g.r[0].usec, 4000000);
	assert_string_equal(g.r[1].text, "cgroup1: memory.soft_limit_in_bytes is deprecated");
	assert_int_equal(g.r[1].usec, 7000000);
	for (unsigned i = 0; i < 2; i++) {
		assert_string_equal(g.r[i].boot, BOOT_B);
		assert_int_equal(g.r[i].boot_first, ents[5].realtime);
	}

	/* Boot B from 9 s on: the binary record, not PID 1's line (9.5 s): a
	 * gap of the ring is filled with the kernel's records only. */
	memset(&g, 0, sizeof(g));
	assert_int_equal(cgfb_journal_boot_range(&src, BOOT_B, 9000000, UINT64_MAX, collect, &g,
						 err, sizeof(err)), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.r[0].len, 5);

	/* Boot A, the whole of it: only its own kernel records. */
	memset(&g, 0, sizeof(g));
	assert_int_equal(cgfb_journal_boot_range(&src, BOOT_A, 0, UINT64_MAX, collect, &g, err,
						 sizeof(err)), 0);
	assert_int_equal(g.n, 3);
	assert_string_equal(g.r[1].text, DEPRECATED);
	assert_int_equal(g.r[2].usec, 3900000);

	/* A boot the journal does not have: nothing, and no error. */
	memset(&g, 0, sizeof(g));
	assert_int_equal(cgfb_journal_boot_range(&src, "00000000000000000000000000000001", 0,
						 UINT64_MAX, collect, &g, err, sizeof(err)), 0);
	assert_int_equal(g.n, 0);

	assert_int_equal(cgfb_journal_boot_range(&src, "not-a-boot-id", 0, 1, collect, &g, err,
						 sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not-a-boot-id"));
}

/* A whole file, malloc'd, its size in *n. */
static char *read_whole(const char *path, long *n)
{
	FILE *f = fopen(path, "r");
	char *b;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	*n = ftell(f);
	assert_true(*n > 0);
	rewind(f);
	b = malloc((size_t)*n);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)*n, f), (size_t)*n);
	fclose(f);
	return b;
}

/* The offset of the data object whose payload is the only occurrence of
 * payload in the file's bytes: the object header (type 1, DATA; its size
 * the header's bytes plus the payload's) at an 8-aligned offset before. */
static long data_object(const unsigned char *b, size_t n, const char *payload)
{
	const size_t pl = strlen(payload);
	const unsigned char *at = memmem(b, n, payload, pl);
	size_t pos;

	assert_non_null(at);
	assert_null(memmem(at + 1, n - (size_t)(at - b) - 1, payload, pl));
	pos = (size_t)(at - b);
	for (size_t o = pos & ~(size_t)7; o >= 8 && pos - o < 256; o -= 8) {
		uint64_t size = 0;

		for (int i = 7; i >= 0; i--)
			size = size << 8 | b[o + 8 + (size_t)i];
		if (b[o] == 1 && size == pos - o + pl)
			return (long)o;
	}
	fail_msg("no data object holds \"%s\"", payload);
	return -1;
}

/* A field sd-journal cannot read (its object says two compressions at
 * once: -EPROTONOSUPPORT) in an entry the scan does not read (a user's
 * line) is no error, as with sd-journal's matches, which never handed
 * such an entry over; in a kernel record it is, as it was. */
static void unreadable_field(void **state)
{
	static const char *const payloads[] = { "MESSAGE=unreadable user line",
						"MESSAGE=unreadable kernel line" };
	char path[160], cmd[512];
	const char *files[] = { path };
	const struct cgfb_journal_src src = { .files = files, .n_files = 1 };
	struct got g = { 0 };
	char err[512] = "";
	unsigned char *b;
	FILE *f;
	long n;

	snprintf(cmd, sizeof(cmd), "%s/u.export", dir);
	f = fopen(cmd, "w");
	assert_non_null(f);
	fputs("__REALTIME_TIMESTAMP=1700000000000000\n__MONOTONIC_TIMESTAMP=50000\n"
	      "_BOOT_ID=" BOOT_A "\n_TRANSPORT=kernel\nPRIORITY=5\n"
	      "MESSAGE=Linux version 6.1.0-13-amd64\n\n"
	      "__REALTIME_TIMESTAMP=1700000000100000\n__MONOTONIC_TIMESTAMP=150000\n"
	      "_BOOT_ID=" BOOT_A "\n_TRANSPORT=stdout\nPRIORITY=6\n_PID=4242\n_UID=1000\n"
	      "_SYSTEMD_UNIT=user@1000.service\nMESSAGE=unreadable user line\n\n"
	      "__REALTIME_TIMESTAMP=1700000000200000\n__MONOTONIC_TIMESTAMP=250000\n"
	      "_BOOT_ID=" BOOT_A "\n_TRANSPORT=kernel\nPRIORITY=4\nMESSAGE=" DEPRECATED "\n\n"
	      "__REALTIME_TIMESTAMP=1700000000300000\n__MONOTONIC_TIMESTAMP=350000\n"
	      "_BOOT_ID=" BOOT_A "\n_TRANSPORT=kernel\nPRIORITY=4\n"
	      "MESSAGE=unreadable kernel line\n\n", f);
	assert_int_equal(fclose(f), 0);
	snprintf(path, sizeof(path), "%s/u.journal", dir);
	snprintf(cmd, sizeof(cmd), JOURNAL_REMOTE " --output=%s %s/u.export >/dev/null 2>&1", path,
		 dir);
	assert_int_equal(system(cmd), 0);

	/* Only the user's line unreadable: every kernel record read. */
	b = (unsigned char *)read_whole(path, &n);
	f = fopen(path, "r+");
	assert_non_null(f);
	assert_int_equal(fseek(f, data_object(b, (size_t)n, payloads[0]) + 1, SEEK_SET), 0);
	assert_int_equal(fputc(3, f), 3);                /* XZ | LZ4 */
	assert_int_equal(fflush(f), 0);
	assert_int_equal(cgfb_journal_scan(&src, collect, &g, NULL, err, sizeof(err)), 0);
	assert_int_equal(g.n, 3);
	assert_string_equal(g.r[2].text, "unreadable kernel line");

	/* The kernel's record unreadable too: the scan fails, naming the file. */
	assert_int_equal(fseek(f, data_object(b, (size_t)n, payloads[1]) + 1, SEEK_SET), 0);
	assert_int_equal(fputc(3, f), 3);
	assert_int_equal(fclose(f), 0);
	memset(&g, 0, sizeof(g));
	assert_int_equal(cgfb_journal_scan(&src, collect, &g, NULL, err, sizeof(err)),
			 -EPROTONOSUPPORT);
	assert_int_equal(g.n, 2);
	assert_non_null(strstr(err, path));
	free(b);
}

static void errors_name_the_path(void **state)
{
	char bad[160], empty[160], missing[160], err[512];
	const char *files[] = { file, bad };
	struct cgfb_journal_src src = { .files = files, .n_files = 2 };
	struct got g = { 0 };
	FILE *f;

	snprintf(bad, sizeof(bad), "%s/not-a.journal", dir);
	f = fopen(bad, "w");
	assert_non_null(f);
	fputs("__REALTIME_TIMESTAMP=1\nMESSAGE=not a journal\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(cgfb_journal_scan(&src, collect, &g, NULL, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, bad));
	assert_non_null(strstr(err, "not a journal file"));
	assert_int_equal(g.n, 0);

	snprintf(missing, sizeof(missing), "%s/missing.journal", dir);
	files[1] = missing;
	assert_int_equal(cgfb_journal_scan(&src, collect, &g, NULL, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, missing));

	snprintf(empty, sizeof(empty), "%s/empty", dir);
	assert_int_equal(mkdir(empty, 0700), 0);
	src = (struct cgfb_journal_src){ .dir = empty };
	assert_int_equal(cgfb_journal_scan(&src, collect, &g, NULL, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, empty));
	assert_non_null(strstr(err, "no journal file"));
	assert_int_equal(cgfb_journal_boot_range(&src, BOOT_A, 0, 1, collect, &g, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, empty));

	src = (struct cgfb_journal_src){ .dir = missing };
	assert_true(cgfb_journal_scan(&src, collect, &g, NULL, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, missing));

	src = (struct cgfb_journal_src){ .dir = jdir, .files = files, .n_files = 1 };
	assert_int_equal(cgfb_journal_scan(&src, collect, &g, NULL, err, sizeof(err)), -EINVAL);
	assert_int_equal(g.n, 0);
}

int main(void)
{
	const struct CMUnitTest pure[] = {
		cmocka_unit_test(kernel_record),
		cmocka_unit_test(userspace_refused),
		cmocka_unit_test(trusted_userspace),
		cmocka_unit_test(missing_priority_and_facility),
		cmocka_unit_test(binary_message),
		cmocka_unit_test(long_message_cut),
		cmocka_unit_test(source_monotonic_first),
		cmocka_unit_test(malformed_fields),
	};
	const struct CMUnitTest real[] = {
		cmocka_unit_test(scan_files),
		cmocka_unit_test(scan_dir),
		cmocka_unit_test(callback_stops),
		cmocka_unit_test(boot_range),
		cmocka_unit_test(errors_name_the_path),
		cmocka_unit_test(unreadable_field),
	};
	int failed = cmocka_run_group_tests_name("journal_fields", pure, NULL, NULL);

	return failed + cmocka_run_group_tests_name("journal_file", real, make_journal,
						    remove_journal);
}
