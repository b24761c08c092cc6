/* genjournal: turn bench/genlog.c's kmsg log into the export stream of a
 * systemd journal (systemd-journal-remote makes the journal file of it),
 * with userspace entries between the kernel's, and write the detections
 * `cgroup-feedback scan --journal-file` must report.
 *
 *   genjournal N KMSG_LOG KMSG_EXPECTED JOURNAL_EXPECTED > export
 *
 * N entries in all (the log must hold enough records). KMSG_EXPECTED is
 * genlog's "ID LINE" list; JOURNAL_EXPECTED gets "ID BOOT SEQNUM", one per
 * detection, in journal order: BOOT the entry's _BOOT_ID, SEQNUM its
 * position in the stream (systemd-journal-remote numbers a new file's
 * entries from 1 in the order it reads them).
 *
 * A kernel record gets the fields journald gives it (Debian 12's systemd
 * 252.39, src/journal/journald-kmsg.c, dev_kmsg_record() from line 99:
 * _KERNEL_<KEY> for each " KEY=value" line after it (203), then
 * _SOURCE_MONOTONIC_TIMESTAMP (256), _TRANSPORT=kernel (259), PRIORITY
 * (261), SYSLOG_FACILITY (264), SYSLOG_IDENTIFIER=kernel (268) or, for a
 * record userspace wrote to /dev/kmsg, the identifier and SYSLOG_PID parsed
 * off the text (290), and MESSAGE unescaped (296); then
 * src/journal/journald-server.c, dispatch_message_real(), adds _BOOT_ID,
 * _MACHINE_ID and _HOSTNAME (1033-1040)), journald's own
 * __MONOTONIC_TIMESTAMP (late at boot: journald starts about 2 s in) and
 * __REALTIME_TIMESTAMP.
 *
 * Each genlog boot ("N,0,..." record) is a boot of the journal. Between
 * the kernel's records, one userspace entry in three: services' lines on
 * stdout and syslog, PID 1's (the journal transport, with CODE_* and
 * UNIT), the kubelet's; and in some boots catalog messages of userspace:
 * B2b from PID 1 as root, B3 from the kubelet's unit as root (twice: it
 * is not once), which count, and the same words from writers that do not
 * (a user's kubelet, a PID other than 1, a service echoing a kernel
 * message), which must not. The seed is fixed. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splitmix.h"

#define MID "5f0c3e9a1b2d4c6e8f7a9b0c1d2e3f40"
#define HOST "node17.bench.example"

static const char B2B[] = "Detected cgroup v1 hierarchy at /sys/fs/cgroup/, which is no longer "
			  "supported by current version of systemd.";
static const char B3[] = "E0612 10:00:00.118203    %u run.go:72] \"command failed\" "
			 "err=\"failed to validate kubelet configuration, error: kubelet is "
			 "configured to not run on a host using cgroup v1. cgroup v1 support is "
			 "unsupported and will be removed in a future release, path: "
			 "&TypeMeta{Kind:,APIVersion:,}\"";

struct gen {
	uint64_t rng, seqnum, realtime, mono, boot_rt;
	unsigned long n, max, boot_no;
	char boot[33];
	FILE *exp;
	/* this boot's userspace plantings: entry counts at which they come */
	unsigned long plant_b2b, plant_b3, plant_decoy;
	unsigned b3_left;
};

static uint64_t next64(struct gen *g)
{
	return splitmix64(&g->rng);
}

static unsigned rnd(struct gen *g, unsigned n)
{
	return (unsigned)(next64(g) % n);
}

#define PICK(g, arr) ((arr)[rnd(g, sizeof(arr) / sizeof((arr)[0]))])

/* A field: text form, or the binary one when the value has a control
 * character (journalctl -o export does the same). */
static void field(const char *name, const char *v, size_t n)
{
	int binary = 0;

	for (size_t i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x20)
			binary = 1;
	if (!binary) {
		printf("%s=%.*s\n", name, (int)n, v);
		return;
	}
	printf("%s\n", name);
	for (int i = 0; i < 8; i++)
		putchar((int)(((uint64_t)n >> (8 * i)) & 0xff));
	fwrite(v, 1, n, stdout);
	putchar('\n');
}

/* The header every entry has; the caller adds its fields and the blank
 * line. Returns the entry's seqnum. */
static uint64_t head(struct gen *g, uint64_t mono)
{
	if (mono > g->mono)
		g->mono = mono;
	g->realtime = g->boot_rt + g->mono;
	printf("__REALTIME_TIMESTAMP=%" PRIu64 "\n__MONOTONIC_TIMESTAMP=%" PRIu64 "\n"
	       "_BOOT_ID=%s\n_MACHINE_ID=" MID "\n_HOSTNAME=" HOST "\n",
	       g->realtime, g->mono, g->boot);
	g->n++;
	return ++g->seqnum;
}

static void new_boot(struct gen *g)
{
	g->boot_no++;
	snprintf(g->boot, sizeof(g->boot), "%08lx%08x%016" PRIx64, g->boot_no, 0x4b00b700u,
		 next64(g));
	/* a boot a day or so after the last one */
	g->boot_rt = 1718000000000000ull + g->boot_no * (86400000000ull + rnd(g, 3600) * 1000000ull);
	g->mono = 1900000 + rnd(g, 300000);      /* journald's start */
	/* Userspace catalog messages in some boots, somewhere in the first
	 * 20,000 entries (every boot is longer). */
	g->plant_b2b = g->boot_no % 2 == 0 ? g->n + 500 + rnd(g, 20000) : 0;
	g->plant_b3 = g->boot_no % 3 != 1 ? g->n + 500 + rnd(g, 20000) : 0;
	g->b3_left = g->boot_no % 3 == 2 ? 2 : 1;
	g->plant_decoy = g->n + 500 + rnd(g, 20000);
}

static void user_entry(struct gen *g, const char *transport, unsigned pid, unsigned uid,
		       const char *unit, const char *ident, int prio, const char *msg)
{
	char cg[96];

	head(g, g->mono + 1 + rnd(g, 2000));
	printf("_TRANSPORT=%s\n_PID=%u\n_UID=%u\n_GID=%u\n_COMM=%s\n_EXE=/usr/bin/%s\n"
	       "_CMDLINE=/usr/bin/%s\n_CAP_EFFECTIVE=%s\n", transport, pid, uid, uid, ident, ident,
	       ident, uid ? "0" : "1ffffffffff");
	snprintf(cg, sizeof(cg), "/system.slice/%s", unit);
	printf("_SYSTEMD_CGROUP=%s\n_SYSTEMD_UNIT=%s\n_SYSTEMD_SLICE=system.slice\n"
	       "_SYSTEMD_INVOCATION_ID=%016" PRIx64 "%016" PRIx64 "\n",
	       pid == 1 ? "/init.scope" : cg, unit, next64(g), next64(g));
	if (strcmp(transport, "stdout") == 0)
		printf("_STREAM_ID=%016" PRIx64 "%016" PRIx64 "\n", next64(g), next64(g));
	printf("PRIORITY=%d\nSYSLOG_FACILITY=3\nSYSLOG_IDENTIFIER=%s\n", prio, ident);
	if (pid == 1)
		printf("CODE_FILE=src/core/job.c\nCODE_LINE=%u\nCODE_FUNC=job_emit_done_message\n"
		       "MESSAGE_ID=39f53479d3a045ac8e11786248231fbf\nJOB_TYPE=start\n"
		       "JOB_RESULT=done\nUNIT=%s\n", 700 + rnd(g, 200),
		       PICK(g, ((const char *[]){ "cron.service", "fstrim.service", "ssh.service" })));
	field("MESSAGE", msg, strlen(msg));
	putchar('\n');
}

static void planted(struct gen *g, const char *id)
{
	fprintf(g->exp, "%s %s %" PRIu64 "\n", id, g->boot, g->seqnum);
}

/* One userspace entry: a planted one when its turn has come, else
 * ordinary traffic. */
static void userspace(struct gen *g)
{
	static const char *const svc[][2] = {
		{ "nginx.service", "nginx" }, { "postgresql@15-main.service", "postgres" },
		{ "containerd.service", "containerd" }, { "cron.service", "CRON" },
		{ "ssh.service", "sshd" }, { "docker.service", "dockerd" },
		{ "systemd-logind.service", "systemd-logind" }, { "rsyslog.service", "rsyslogd" },
	};
	static const char *const said[] = {
		"pam_unix(cron:session): session opened for user root(uid=0) by (uid=0)",
		"Accepted publickey for deploy from 10.20.3.4 port 51022 ssh2: ED25519 SHA256:Qk3",
		"10.1.2.3 - - \"GET /healthz HTTP/1.1\" 200 2 \"-\" \"kube-probe/1.29\"",
		"checkpoint complete: wrote 1204 buffers (7.3%); 0 WAL file(s) added",
		"time=\"2024-06-12T10:00:00Z\" level=info msg=\"loading plugin\" type=io.containerd",
		"New session 4711 of user deploy.",
	};
	static const char *const pid1[] = {
		"Started cron.service - Regular background program processing daemon.",
		"Finished fstrim.service - Discard unused blocks on filesystems from /etc/fstab.",
		"Reached target timers.target - Timer Units.",
		"Created slice user-1000.slice - User Slice of UID 1000.",
	};
	char msg[600];
	unsigned k;

	if (g->plant_b2b && g->n >= g->plant_b2b) {
		g->plant_b2b = 0;
		user_entry(g, "journal", 1, 0, "init.scope", "systemd", 0, B2B);
		planted(g, "B2b");
		return;
	}
	if (g->plant_b3 && g->n >= g->plant_b3) {
		/* twice: systemd restarts the kubelet, and B3 is not once */
		g->plant_b3 = --g->b3_left ? g->n + 100 + rnd(g, 1000) : 0;
		snprintf(msg, sizeof(msg), B3, 800 + rnd(g, 100));
		user_entry(g, "stdout", 800 + rnd(g, 100), 0, "kubelet.service", "kubelet", 3, msg);
		planted(g, "B3");
		return;
	}
	if (g->plant_decoy && g->n >= g->plant_decoy && g->n + 3 <= g->max) {
		g->plant_decoy = 0;
		snprintf(msg, sizeof(msg), B3, 900u);
		user_entry(g, "stdout", 900, 1000, "kubelet.service", "kubelet", 3, msg);
		user_entry(g, "syslog", 4242, 0, "cron.service", "systemd", 0, B2B);
		user_entry(g, "stdout", 4243, 0, "nginx.service", "nginx", 4,
			   "Non-hierarchical mode is deprecated. Please report your usecase to "
			   "linux-mm@kvack.org if you depend on this functionality.");
		return;
	}
	k = rnd(g, 20);
	if (k == 0) {
		user_entry(g, "journal", 1, 0, "init.scope", "systemd", 6, PICK(g, pid1));
	} else if (k == 1) {
		snprintf(msg, sizeof(msg), "I0612 10:00:%02u.%06u     %u kubelet.go:2330] \"SyncLoop "
			 "(PLEG): event for pod\" pod=\"kube-system/kube-proxy-%05u\"", rnd(g, 60),
			 rnd(g, 1000000), 800 + rnd(g, 100), rnd(g, 100000));
		user_entry(g, "stdout", 800 + rnd(g, 100), 0, "kubelet.service", "kubelet", 6, msg);
	} else {
		const unsigned s = rnd(g, sizeof(svc) / sizeof(svc[0]));

		user_entry(g, k % 3 ? "stdout" : "syslog", 300 + s * 97 + rnd(g, 50),
			   s < 3 ? 100 + s : 0, svc[s][0], svc[s][1], 6, PICK(g, said));
	}
}

/* genlog's text as /dev/kmsg escapes it, unescaped as journald does
 * (cunescape: \xHH; genlog writes no other escape). */
static size_t unescape(const char *p, size_t n, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned v;

		if (p[i] == '\\' && i + 3 < n && p[i + 1] == 'x' &&
		    sscanf(p + i + 2, "%2x", &v) == 1) {
			out[o++] = (char)v;
			i += 3;
		} else {
			out[o++] = p[i];
		}
	}
	return o;
}

/* One kernel record (its header line) and its " KEY=value" lines. */
static void kernel_entry(struct gen *g, const char *rec, char props[][160], size_t n_props,
			 unsigned long line, const unsigned long *exp_line, const char *const *exp_id,
			 size_t n_exp, size_t *next_exp)
{
	unsigned prio;
	uint64_t seq, usec;
	const char *text = strchr(rec, ';');
	char msg[8192];
	size_t len;

	if (sscanf(rec, "%u,%" SCNu64 ",%" SCNu64, &prio, &seq, &usec) != 3 || !text) {
		fprintf(stderr, "genjournal: line %lu is no kmsg record\n", line);
		exit(2);
	}
	text++;
	if (seq == 0)
		new_boot(g);
	head(g, usec + 50 + rnd(g, 200));
	for (size_t i = 0; i < n_props; i++)
		printf("_KERNEL_%s\n", props[i]);
	printf("_SOURCE_MONOTONIC_TIMESTAMP=%" PRIu64 "\n_TRANSPORT=kernel\nPRIORITY=%u\n"
	       "SYSLOG_FACILITY=%u\n", usec, prio & 7, prio >> 3);
	if (prio >> 3 == 0) {
		printf("SYSLOG_IDENTIFIER=kernel\n");
	} else {
		/* "systemd[1]: text": the identifier and pid come off the text */
		const char *b = strchr(text, '['), *c = strstr(text, "]: ");

		if (b && c && b < c && !memchr(text, ' ', (size_t)(b - text))) {
			printf("SYSLOG_IDENTIFIER=%.*s\nSYSLOG_PID=%.*s\n", (int)(b - text), text,
			       (int)(c - b - 1), b + 1);
			text = c + 3;
		}
	}
	len = unescape(text, strlen(text), msg);
	field("MESSAGE", msg, len);
	putchar('\n');
	while (*next_exp < n_exp && exp_line[*next_exp] == line) {
		planted(g, exp_id[*next_exp]);
		++*next_exp;
	}
}

int main(int argc, char **argv)
{
	static char obuf[1 << 20], props[8][160];
	struct gen g = { .rng = 0x6a6f75726e616c31ull };
	unsigned long *exp_line = NULL, line = 0, rec_line = 0;
	const char **exp_id = NULL;
	size_t n_exp = 0, cap = 0, next_exp = 0, n_props = 0;
	char *rec = NULL, *buf = NULL, id[16];
	size_t bufsz = 0;
	FILE *log, *kexp;
	ssize_t got;

	if (argc != 5 || !(g.max = strtoul(argv[1], NULL, 10))) {
		fprintf(stderr, "usage: genjournal N KMSG_LOG KMSG_EXPECTED JOURNAL_EXPECTED\n");
		return 2;
	}
	log = fopen(argv[2], "r");
	kexp = fopen(argv[3], "r");
	g.exp = fopen(argv[4], "w");
	if (!log || !kexp || !g.exp) {
		perror("genjournal");
		return 2;
	}
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	while (fscanf(kexp, "%15s %lu", id, &line) == 2) {
		if (n_exp == cap) {
			cap = cap ? cap * 2 : 256;
			exp_line = realloc(exp_line, cap * sizeof(*exp_line));
			exp_id = realloc(exp_id, cap * sizeof(*exp_id));
			if (!exp_line || !exp_id)
				return 2;
		}
		exp_line[n_exp] = line;
		exp_id[n_exp++] = strdup(id);
	}
	line = 0;
	/* A record is written when the next one starts: its " KEY=value"
	 * lines come after it. */
	while ((got = getline(&buf, &bufsz, log)) > 0) {
		if (buf[got - 1] == '\n')
			buf[--got] = '\0';
		line++;
		if (buf[0] == ' ') {
			if (n_props < sizeof(props) / sizeof(props[0]))
				snprintf(props[n_props++], sizeof(props[0]), "%s", buf + 1);
			continue;
		}
		if (rec) {
			kernel_entry(&g, rec, props, n_props, rec_line, exp_line, exp_id, n_exp,
				     &next_exp);
			free(rec);
			n_props = 0;
			if (g.n < g.max && rnd(&g, 3) == 0)
				userspace(&g);
		}
		if (g.n >= g.max) {
			rec = NULL;
			break;
		}
		rec = strdup(buf);
		rec_line = line;
	}
	if (g.n < g.max) {
		fprintf(stderr, "genjournal: %s: %lu entries, %lu wanted: a bigger log is needed\n",
			argv[2], g.n, g.max);
		return 2;
	}
	if (fflush(stdout) != 0 || fclose(g.exp) != 0) {
		perror("genjournal");
		return 2;
	}
	fprintf(stderr, "%lu entries, %lu boots\n", g.n, g.boot_no);
	return 0;
}
