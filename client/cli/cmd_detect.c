/* scan and catalog: the detection commands (watch is a program of its
 * own, client/watch/). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/bootid.h"
#include "cgfb/buf.h"
#include "cgfb/log.h"
#include "cgfb/sha256.h"
#include "cli/commands.h"
#include "cli/scan_report.h"
#include "log/journal.h"
#include "log/klog.h"
#include "detect/output.h"
#include "detect/scan.h"

enum {
	OPT_CATALOG = 256, OPT_KMSG, OPT_JSON, OPT_JOURNAL, OPT_JOURNAL_DIR, OPT_JOURNAL_FILE,
	OPT_REPORT, OPT_STATE_DIR, OPT_CGROUP_ROOT, OPT_MOUNTINFO, OPT_OTHER_MACHINE, OPT_TRUST_FILE,
};

#define JOURNAL_FILES_MAX 64

struct opts {
	struct cgfb_globals g;
	const char *kmsg_path;
	bool json;
	bool journal;                 /* --journal, --journal-dir or --journal-file */
	bool report;                  /* --report: each message found a pending report */
	bool other_machine;           /* --other-machine: the logs are another machine's */
	bool trust_file;              /* --trust-file: the administrator vouches for FILEs */
	const char *state_dir, *cgroup_root, *mountinfo;
	struct cgfb_journal_src src;
	const char *files[JOURNAL_FILES_MAX];
};

/* The options of the detection commands; each says which it takes. */
static int parse(int argc, char **argv, const struct cgfb_globals *g, const char *allowed,
		 const char *usage, struct opts *o)
{
	static const struct option long_opts[] = {
		{ "catalog", required_argument, NULL, OPT_CATALOG },
		{ "kmsg", required_argument, NULL, OPT_KMSG },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "journal", no_argument, NULL, OPT_JOURNAL },
		{ "journal-dir", required_argument, NULL, OPT_JOURNAL_DIR },
		{ "journal-file", required_argument, NULL, OPT_JOURNAL_FILE },
		{ "report", no_argument, NULL, OPT_REPORT },
		{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
		{ "cgroup-root", required_argument, NULL, OPT_CGROUP_ROOT },
		{ "mountinfo", required_argument, NULL, OPT_MOUNTINFO },
		{ "other-machine", no_argument, NULL, OPT_OTHER_MACHINE },
		{ "trust-file", no_argument, NULL, OPT_TRUST_FILE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	memset(o, 0, sizeof(*o));
	o->g = *g;
	while ((opt = cgfb_next_option(argc, argv, long_opts, allowed, usage)) != -1) {
		switch (opt) {
		case CGFB_OPT_HELP: return 1;
		case CGFB_OPT_ERROR: return -EINVAL;
		case OPT_CATALOG: o->g.catalog_path = optarg; break;
		case OPT_KMSG: o->kmsg_path = optarg; break;
		case OPT_JSON: o->json = true; break;
		case OPT_REPORT: o->report = true; break;
		case OPT_STATE_DIR: o->state_dir = optarg; break;
		case OPT_CGROUP_ROOT: o->cgroup_root = optarg; break;
		case OPT_MOUNTINFO: o->mountinfo = optarg; break;
		case OPT_OTHER_MACHINE: o->other_machine = true; break;
		case OPT_TRUST_FILE: o->trust_file = true; break;
		case OPT_JOURNAL: o->journal = true; break;
		case OPT_JOURNAL_DIR:
			o->journal = true;
			o->src.dir = optarg;
			break;
		case OPT_JOURNAL_FILE:
			if (o->src.n_files == JOURNAL_FILES_MAX) {
				cgfb_log(LOG_ERR, "--journal-file: at most %d files", JOURNAL_FILES_MAX);
				return -EINVAL;
			}
			o->journal = true;
			o->files[o->src.n_files++] = optarg;
			o->src.files = o->files;
			break;
		}
	}
	if (o->src.dir && o->src.n_files) {
		cgfb_log(LOG_ERR, "--journal-dir and --journal-file: one or the other");
		return -EINVAL;
	}
	return 0;
}

struct scan_out {
	const char *name;
	bool json;
	bool write_failed;
	unsigned long found;
	struct scan_report *report;   /* NULL without --report */
	bool trust_file;              /* --trust-file: unproven lines reported too */
	unsigned long refused;        /* of this input: not reported, not proven */
	unsigned long refused_total;
	const char *source;           /* of the reports: "file", "kmsg" */
	char boot[CGFB_BOOT_ID_MAX];  /* of the reports; "" this boot */
};

static void print_detection(const struct cgfb_detection *d, void *arg)
{
	struct scan_out *so = arg;

	so->found++;
	if (cgfb_detection_print(stdout, d, so->name, so->json) < 0)
		so->write_failed = true;
	if (!so->report)
		return;
	/* A line the format cannot prove the kernel's (a syslog file's
	 * "kernel:" is any program's to claim) is no report without the
	 * administrator's word: scan_file says so. */
	if (d->unproven && !so->trust_file) {
		so->refused += d->occurrence == 1;
		return;
	}
	scan_report_one(so->report, d, so->source, so->boot, SCAN_MACHINE_UNSAID);
}

/* A saved file's messages count as one boot of their own on a report
 * (which boot printed them the file does not say): scanning it again
 * counts nothing again. In the boot id's form, from the file's name. */
static void file_boot(const char *path, char out[CGFB_BOOT_ID_MAX])
{
	scan_report_boot_of("scan", path, out);
}

static void report_oddities(const char *name, const struct cgfb_scan_stats *st)
{
	if (st->malformed)
		cgfb_log(LOG_WARNING, "%s: %lu lines are not valid %s records; they were skipped",
			 name, st->malformed, cgfb_logfmt_name(st->fmt));
	if (st->long_lines)
		cgfb_log(LOG_WARNING, "%s: %lu lines longer than 16 MiB were split", name,
			 st->long_lines);
	if (st->truncated)
		cgfb_log(LOG_WARNING, "%s: the input ends inside a record", name);
}

/* On standard error, whatever the output format: a person can tell "found
 * nothing" from "read nothing" (an empty file, the wrong file, a log the
 * kernel had already overwritten). */
static void say_what_was_read(const char *name, unsigned long n, const char *unit,
			      const char *fmt, bool pasted, unsigned long found)
{
	const char *const s = n == 1 ? "" : "s";

	if (found)
		cgfb_log(LOG_INFO, "%s: %lu %s%s read (%s%s), %lu catalog message%s", name, n, unit,
			 s, fmt, pasted ? ", as a paste" : "", found, found == 1 ? "" : "s");
	else
		cgfb_log(LOG_INFO, "%s: %lu %s%s read (%s%s), no catalog message in %s", name, n,
			 unit, s, fmt, pasted ? ", as a paste" : "", n == 1 ? "it" : "them");
}

/* "kmsg", or "kmsg, gzip compressed". */
static const char *format_name(const struct cgfb_scan_stats *st, char *buf, size_t sz)
{
	if (st->compression == CGFB_COMP_NONE)
		return cgfb_logfmt_name(st->fmt);
	snprintf(buf, sz, "%s, %s compressed", cgfb_logfmt_name(st->fmt),
		 cgfb_compression_name(st->compression));
	return buf;
}

/* scan --report over lines no format could prove the kernel's: what was
 * not made and what the administrator may do (docs/SECURITY.md, "Saved
 * logs: what proves a line is the kernel's"). */
static void say_refused(struct scan_out *so)
{
	if (!so->refused)
		return;
	so->refused_total += so->refused;
	cgfb_log(LOG_ERR, "%s: --report: %lu catalog message%s not reported: a syslog file "
		 "cannot prove a line is the kernel's (any local user can log one tagged "
		 "\"kernel:\", kern.log included); scan the journal (scan --journal --report), "
		 "or add --trust-file if only the system logger writes this file", so->name,
		 so->refused, so->refused == 1 ? "" : "s");
}

static int scan_file(const struct cgfb_catalog *cat, const char *path, struct scan_out *so)
{
	const bool is_stdin = strcmp(path, "-") == 0;
	const int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	struct cgfb_scan_stats st;
	char fmt[64];
	int rc;

	if (fd < 0) {
		rc = -errno;
		cgfb_log(LOG_ERR, "%s: %s", path, strerror(-rc));
		return rc;
	}
	so->name = is_stdin ? "<stdin>" : path;
	so->source = "file";
	so->refused = 0;
	/* Only a report names the file's boot: a plain scan does not pay for
	 * OpenSSL's start (a fifth of its start-up) for a hash it never shows. */
	if (so->report)
		file_boot(path, so->boot);
	else
		so->boot[0] = '\0';
	rc = cgfb_scan_fd(fd, cat, print_detection, so, &st);
	if (!is_stdin)
		close(fd);
	if (st.journal_file) {
		cgfb_log(LOG_ERR, "%s: a systemd journal file, not a text log: scan it with "
			 "--journal-file %s", so->name, so->name);
		return rc;
	}
	/* Never "no catalog message" for what is no log. */
	if (st.mostly_nul && st.detections == 0 && rc == 0) {
		cgfb_log(LOG_ERR, "%s: %llu of its %llu bytes are NULs (zeros, as a power cut or a "
			 "file never written leaves): not a text log, cannot tell whether the kernel "
			 "printed a catalog message", so->name, st.nul_bytes, st.bytes);
		return -EMEDIUMTYPE;
	}
	if (st.binary && st.detections == 0 && rc == 0) {
		cgfb_log(LOG_ERR, "%s: binary, not a text log (nor gzip, xz, zstd, bzip2 or lz4 "
			 "compressed text): cannot tell whether the kernel printed a catalog message", so->name);
		return -EMEDIUMTYPE;
	}
	if (st.mostly_nul)
		cgfb_log(LOG_WARNING, "%s: mostly NULs (%llu of %llu bytes), not text; what text "
			 "it holds was scanned", so->name, st.nul_bytes, st.bytes);
	else if (st.binary)
		cgfb_log(LOG_WARNING, "%s: starts with binary data, not text; what text it holds "
			 "was scanned", so->name);
	if (rc < 0)
		cgfb_log(LOG_ERR, "%s: %s; %lu lines before it were scanned", so->name, st.error,
			 st.lines);
	report_oddities(so->name, &st);
	say_what_was_read(so->name, st.lines, "line", format_name(&st, fmt, sizeof(fmt)),
			  st.pasted, st.detections);
	say_refused(so);
	return rc;
}

static int scan_live(const struct cgfb_catalog *cat, const struct opts *o, struct scan_out *so)
{
	struct cgfb_detector *det = NULL;
	struct cgfb_record rec;
	unsigned long records = 0;
	struct cgfb_klog k;
	char err[512];
	int rc;

	rc = cgfb_klog_open(&k, o->kmsg_path, err, sizeof(err));
	if (rc < 0) {
		cgfb_log(LOG_ERR, "%s", err);
		return rc;
	}
	so->name = NULL;
	so->source = "kmsg";
	so->boot[0] = '\0';          /* this boot's: the writer reads it */
	rc = cgfb_detector_new(cat, print_detection, so, &det);
	if (rc == 0)
		while ((rc = cgfb_klog_next(&k, &rec)) == 1) {
			records++;
			cgfb_detector_feed(det, &rec);
		}
	if (rc < 0)
		cgfb_log(LOG_ERR, "reading %s: %s", k.path, strerror(-rc));
	if (k.lost)
		cgfb_log(LOG_WARNING, "%lu kernel log records were overwritten while reading",
			 k.lost);
	if (det)
		cgfb_detector_finish(det);
	say_what_was_read(k.path, records, "record", "the live kernel log", false, so->found);
	cgfb_detector_free(det);
	cgfb_klog_close(&k);
	return rc < 0 ? rc : 0;
}

/* The journal's kernel records, boot after boot: each boot a detector of
 * its own (the kernel's "once" is per boot), each detection named by its
 * boot and the record's journal sequence number. */
struct journal_scan {
	const struct cgfb_catalog *cat;
	struct scan_out *so;
	struct cgfb_detector *det;
	char this_machine[33];        /* this machine's id; "" unknown */
	char machine[sizeof(((struct cgfb_journal_entry *)0)->machine_id)]; /* _MACHINE_ID; "" unknown */
	char boot[33];
	uint64_t boot_first;
	bool boot_said;
	char name[48];                /* "journal:BOOT" */
	unsigned long found;
};

static void boot_time(uint64_t usec, char *buf, size_t sz)
{
	const time_t t = (time_t)(usec / 1000000);
	struct tm tm;

	if (usec == 0 || !gmtime_r(&t, &tm) || !strftime(buf, sz, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, sz, "unknown");
}

/* The journal's boot id (32 hex digits) in the form of
 * /proc/sys/kernel/random/boot_id, so that this boot's messages count on
 * the same boot as the watcher's. */
static void report_journal(struct journal_scan *js, const struct cgfb_detection *d)
{
	const char *b = js->boot;
	char boot[CGFB_BOOT_ID_MAX] = "";

	if (!js->so->report)
		return;
	if (strlen(b) == 32)
		cgfb_boot_id_dashed(b, boot);
	/* The journal says whose records they are: this machine's past boots
	 * are its own; another machine's (a copy of its journal) carry its
	 * boots and its facts as its log shows them, never this machine's. */
	scan_report_one(js->so->report, d, "journal", boot[0] ? boot : "0",
			!js->machine[0] ? SCAN_MACHINE_UNSAID :
			strcmp(js->machine, js->this_machine) == 0 ? SCAN_MACHINE_THIS :
			SCAN_MACHINE_OTHER);
}

static void journal_detection(const struct cgfb_detection *d, void *arg)
{
	struct journal_scan *js = arg;
	char when[32];

	js->so->found++;
	js->found++;
	boot_time(js->boot_first, when, sizeof(when));
	if (js->so->json) {
		json_object *o = cgfb_detection_json(d, js->name), *b = json_object_new_object();

		json_object_object_add(b, "id", json_object_new_string(js->boot));
		json_object_object_add(b, "first_record", json_object_new_string(when));
		json_object_object_add(o, "boot", b);
		if (cgfb_print_json_line(stdout, o) < 0)
			js->so->write_failed = true;
		report_journal(js, d);
		return;
	}
	if (!js->boot_said)
		printf("-- boot %s, first kernel record %s --\n", js->boot, when);
	js->boot_said = true;
	if (cgfb_detection_print(stdout, d, js->name, false) < 0)
		js->so->write_failed = true;
	report_journal(js, d);
}

static int journal_boot(struct journal_scan *js, const struct cgfb_journal_entry *e)
{
	if (js->det)
		cgfb_detector_finish(js->det);
	cgfb_detector_free(js->det);
	js->det = NULL;
	snprintf(js->boot, sizeof(js->boot), "%s", e->boot_id);
	snprintf(js->name, sizeof(js->name), "journal:%s", e->boot_id[0] ? e->boot_id : "unknown");
	js->boot_first = e->boot_first;
	js->boot_said = false;
	return cgfb_detector_new(js->cat, journal_detection, js, &js->det);
}

static int journal_entry(const struct cgfb_journal_entry *e, void *arg)
{
	struct journal_scan *js = arg;
	struct cgfb_record rec = e->rec;
	int rc;

	if (!js->det || strcmp(js->boot, e->boot_id) != 0) {
		rc = journal_boot(js, e);
		if (rc < 0)
			return rc;
	}
	/* both 33 bytes, e's NUL-terminated: no formatting per record */
	memcpy(js->machine, e->machine_id, sizeof(js->machine));
	/* The sequence number names a detection and tells a continuation
	 * from a later line; the detector reads it for few records. */
	if (cgfb_detector_needs_line(js->det, &rec)) {
		uint64_t seqnum;

		rc = cgfb_journal_seqnum(e, &seqnum);
		if (rc < 0)
			return rc;
		rec.line = (unsigned long)seqnum;
	}
	cgfb_detector_feed(js->det, &rec);
	return 0;
}

static const char *journal_name(const struct cgfb_journal_src *src)
{
	if (src->dir)
		return src->dir;
	if (src->n_files == 1)
		return src->files[0];
	return src->n_files ? "the journal files" : "the system journal";
}

static int scan_journal(const struct cgfb_catalog *cat, const struct opts *o, struct scan_out *so)
{
	struct journal_scan js = { .cat = cat, .so = so };
	struct cgfb_journal_stats st = { 0 };
	char err[512] = "";
	int rc;

	cgfb_journal_this_machine(js.this_machine);
	rc = cgfb_journal_scan(&o->src, journal_entry, &js, &st, err, sizeof(err));
	/* journal_entry's own failure: the reader said nothing */
	if (rc < 0 && !err[0])
		snprintf(err, sizeof(err), "%s: %s", journal_name(&o->src), strerror(-rc));
	if (js.det)
		cgfb_detector_finish(js.det);
	cgfb_detector_free(js.det);
	if (rc < 0) {
		cgfb_log(LOG_ERR, "%s", err);
		return rc;
	}
	cgfb_log(LOG_INFO, "%s: %lu kernel record%s of %lu boot%s read, %lu catalog message%s",
		 journal_name(&o->src), st.entries, st.entries == 1 ? "" : "s", st.boots,
		 st.boots == 1 ? "" : "s", js.found, js.found == 1 ? "" : "s");
	return 0;
}

int cgfb_cmd_scan(const struct cgfb_globals *g, int argc, char **argv)
{
	static const char usage[] =
		"Usage: cgroup-feedback scan [--json] [--journal | --journal-dir DIR |\n"
		"                             --journal-file FILE (repeatable)] [FILE...]\n"
		"       cgroup-feedback scan [--json] [--kmsg PATH]\n"
		"       ... --report [--state-dir DIR] [--other-machine]: each message found\n"
		"       becomes a pending report (once per message and boot), reviewed like\n"
		"       the watcher's. A report of a log another kernel printed (its boot's\n"
		"       \"Linux version\"), of another machine's journal, or with\n"
		"       --other-machine, carries only what the log shows of that machine.\n"
		"       A syslog file cannot prove a \"kernel:\" line is the kernel's: its\n"
		"       messages are shown as not proven and reported only with --trust-file\n"
		"       (the administrator vouches that only the system logger writes FILE).\n"
		"Look for catalog messages in the systemd journal of every boot (--journal),\n"
		"another machine's journal, saved kernel logs, rotated and compressed (gzip,\n"
		"xz, zstd, bzip2, lz4; - is stdin) or, with none of these, the live kernel\n"
		"log. Exit 0 if found, 1 if not, 2 on trouble.\n";
	struct cgfb_catalog *cat = NULL;
	struct scan_out so = { 0 };
	struct scan_report rep = { 0 };
	bool trouble = false;
	struct opts o;
	int rc;

	rc = parse(argc, argv, g, "catalog kmsg json journal journal-dir journal-file report "
		   "state-dir cgroup-root mountinfo other-machine trust-file", usage, &o);
	if (rc != 0)
		return rc > 0 ? CGFB_EXIT_OK : CGFB_EXIT_TROUBLE;
	if (!o.report && (o.state_dir || o.cgroup_root || o.mountinfo || o.other_machine ||
			  o.trust_file)) {
		cgfb_log(LOG_ERR, "scan: --state-dir, --cgroup-root, --mountinfo, --other-machine "
			 "and --trust-file go with --report");
		return CGFB_EXIT_TROUBLE;
	}
	if (o.trust_file && optind >= argc) {
		cgfb_log(LOG_ERR, "scan: --trust-file vouches for the FILEs named: name one");
		return CGFB_EXIT_TROUBLE;
	}
	if (o.report) {
		rep = (struct scan_report){
			.config_path = o.g.config_path, .catalog_path = o.g.catalog_path,
			.state_dir = o.state_dir ? o.state_dir : cgfb_state_dir(&o.g),
			.cgroup_root = o.cgroup_root, .mountinfo = o.mountinfo,
			.other_machine = o.other_machine,
		};
		if (scan_report_init(&rep) < 0)
			return CGFB_EXIT_TROUBLE;
		so.report = &rep;
	}
	if (cgfb_load_catalog(&o.g, &cat) < 0)
		return CGFB_EXIT_TROUBLE;
	so.json = o.json;
	so.trust_file = o.trust_file;
	if (o.journal && scan_journal(cat, &o, &so) < 0)
		trouble = true;
	if (optind >= argc && !o.journal)
		trouble = scan_live(cat, &o, &so) < 0;
	for (int i = optind; i < argc; i++)
		if (scan_file(cat, argv[i], &so) < 0)
			trouble = true;
	if (fflush(stdout) != 0 || so.write_failed) {
		cgfb_log(LOG_ERR, "writing the output: %s", strerror(errno));
		trouble = true;
	}
	cgfb_catalog_free(cat);
	if (o.report)
		cgfb_log(LOG_INFO, "--report: %u new report%s, %u counted on earlier ones%s", rep.written,
			 rep.written == 1 ? "" : "s", rep.repeats,
			 rep.failed ? "; some could not be written (above)" : "");
	/* A report asked for and not made: the administrator must decide. */
	if (trouble || rep.failed || so.refused_total)
		return CGFB_EXIT_TROUBLE;
	return so.found ? CGFB_EXIT_OK : CGFB_EXIT_NONE;
}

/* Each question with the key --answer gives its answer under. */
static json_object *questions_json(const struct cgfb_question_set *qs)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < qs->n; i++) {
		json_object *q = json_object_new_object();

		json_object_object_add(q, "key", json_object_new_string(qs->q[i].key));
		json_object_object_add(q, "text", json_object_new_string(qs->q[i].text));
		json_object_array_add(a, q);
	}
	return a;
}

/* What the catalog's "era" means for the administrator reading the list. */
static const char *era_note(const char *era)
{
	if (!era)
		return "";
	if (strcmp(era, "unmerged") == 0)
		return " [no released kernel printed it: a posted patch only]";
	if (strcmp(era, "old") == 0)
		return " [only old kernels print it]";
	return "";
}

int cgfb_cmd_catalog(const struct cgfb_globals *g, int argc, char **argv)
{
	static const char usage[] =
		"Usage: cgroup-feedback catalog [--json]\n"
		"List the kernel messages this version recognises.\n";
	struct cgfb_catalog *cat = NULL;
	struct opts o;
	int rc;

	rc = parse(argc, argv, g, "catalog json", usage, &o);
	if (rc != 0)
		return rc > 0 ? CGFB_EXIT_OK : CGFB_EXIT_TROUBLE;
	if (cgfb_load_catalog(&o.g, &cat) < 0)
		return CGFB_EXIT_TROUBLE;
	for (size_t i = 0; i < cat->n; i++) {
		const struct cgfb_entry *e = &cat->entries[i];

		if (o.json) {
			json_object *j = json_object_new_object();

			json_object_object_add(j, "id", json_object_new_string(e->id));
			json_object_object_add(j, "title", json_object_new_string(e->title));
			json_object_object_add(j, "contact", cgfb_json_str_or_null(e->contact));
			json_object_object_add(j, "level", json_object_new_int(e->level));
			json_object_object_add(j, "kernels", cgfb_json_str_or_null(e->kernels));
			json_object_object_add(j, "trigger", cgfb_json_str_or_null(e->trigger));
			json_object_object_add(j, "era", cgfb_json_str_or_null(e->era));
			if (!e->generic)
				json_object_object_add(j, "once",
						       json_object_new_boolean(!e->every_trigger));
			json_object_object_add(j, "attribution",
					       cgfb_json_str_or_null(e->attribution));
			json_object_object_add(j, "questions", questions_json(e->questions));
			cgfb_print_json_line(stdout, j);
		} else {
			printf("%-4s %s\n     kernels: %s%s\n     contact: %s\n", e->id, e->title,
			       e->kernels ? e->kernels : "-", era_note(e->era),
			       e->contact ? e->contact : "none");
			printf("     answer keys:");
			for (size_t q = 0; q < e->questions->n; q++)
				printf("%s %s", q ? "," : "", e->questions->q[q].key);
			putchar('\n');
			if (!e->generic)
				printf("     printed: %s%s\n", e->every_trigger ?
				       "more than once a boot (each wording counted apart)" :
				       "once per boot and call site", e->attribution ?
				       "; the call sites cannot be told apart in the log" : "");
		}
	}
	cgfb_catalog_free(cat);
	return fflush(stdout) == 0 ? CGFB_EXIT_OK : CGFB_EXIT_TROUBLE;
}
