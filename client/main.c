/* cgroup-feedback: command line parsing and dispatch only. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgfb/catalog.h"
#include "cgfb/log.h"
#include "klog.h"
#include "output.h"
#include "scan.h"
#include "state.h"
#include "watch.h"

#define DEFAULT_STATE_DIR "/var/lib/cgroup-feedback"
#define EXIT_FOUND    0
#define EXIT_NOTFOUND 1
#define EXIT_TROUBLE  2

static const char usage_text[] =
	"Usage: cgroup-feedback [--catalog FILE] COMMAND [OPTIONS]\n"
	"\n"
	"Recognise kernel messages that deprecate cgroup behaviour and ask for\n"
	"your use case, so that you can tell the kernel maintainers.\n"
	"\n"
	"Commands:\n"
	"  scan [--json] [FILE...]   look for catalog messages in saved logs (- for\n"
	"                            stdin) or, without FILE, in the live kernel log;\n"
	"                            exit 0 if found, 1 if not, 2 on trouble\n"
	"  watch [--json] [--state-dir DIR] [--once]\n"
	"                            read the live kernel log from its oldest record,\n"
	"                            then follow it; report each message once per boot\n"
	"  catalog [--json]          list the messages this version recognises\n"
	"\n"
	"Options:\n"
	"  --catalog FILE   use this catalog instead of the installed one\n"
	"  --kmsg PATH      read kernel records from PATH instead of /dev/kmsg\n"
	"  --boot-id-file PATH   where the boot id is read (default " CGFB_BOOT_ID_PATH ")\n"
	"  -h, --help       show this help\n"
	"  -V, --version    show the version\n";

struct cli {
	const char *catalog_path;
	const char *kmsg_path;
	const char *boot_id_path;
	const char *state_dir;
	bool json;
	bool once;
};

static int load_catalog(const struct cli *c, struct cgfb_catalog **cat)
{
	const char *installed = CGFB_DATADIR "/catalog.json";
	char err[512];
	int rc;

	if (c->catalog_path) {
		rc = cgfb_catalog_load_file(cat, c->catalog_path, err, sizeof(err));
		if (rc < 0)
			cgfb_log(LOG_ERR, "catalog %s: %s", c->catalog_path, err);
		return rc;
	}
	if (access(installed, R_OK) == 0) {
		rc = cgfb_catalog_load_file(cat, installed, err, sizeof(err));
		if (rc == 0)
			return 0;
		cgfb_log(LOG_WARNING, "catalog %s: %s; using the built-in copy", installed, err);
	}
	rc = cgfb_catalog_load_builtin(cat, err, sizeof(err));
	if (rc < 0)
		cgfb_log(LOG_ERR, "built-in catalog: %s", err);
	return rc;
}

struct scan_out {
	const char *name;
	bool json;
	bool write_failed;
	unsigned long found;
};

static void print_detection(const struct cgfb_detection *d, void *arg)
{
	struct scan_out *so = arg;

	so->found++;
	if (cgfb_detection_print(stdout, d, so->name, so->json) < 0)
		so->write_failed = true;
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

static int scan_file(const struct cgfb_catalog *cat, const char *path, struct scan_out *so)
{
	const bool is_stdin = strcmp(path, "-") == 0;
	const int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	struct cgfb_scan_stats st;
	int rc;

	if (fd < 0) {
		cgfb_log(LOG_ERR, "%s: %s", path, strerror(errno));
		return -errno;
	}
	so->name = is_stdin ? "<stdin>" : path;
	rc = cgfb_scan_fd(fd, cat, print_detection, so, &st);
	if (!is_stdin)
		close(fd);
	if (rc < 0)
		cgfb_log(LOG_ERR, "%s: read error after %lu lines: %s", so->name, st.lines,
			 strerror(-rc));
	report_oddities(so->name, &st);
	return rc;
}

static int scan_live(const struct cgfb_catalog *cat, const struct cli *c, struct scan_out *so)
{
	struct cgfb_detector *det = NULL;
	struct cgfb_record rec;
	struct cgfb_klog k;
	char err[512];
	int rc;

	rc = cgfb_klog_open(&k, c->kmsg_path, err, sizeof(err));
	if (rc < 0) {
		cgfb_log(LOG_ERR, "%s", err);
		return rc;
	}
	so->name = NULL;
	rc = cgfb_detector_new(cat, print_detection, so, &det);
	if (rc == 0)
		while ((rc = cgfb_klog_next(&k, &rec)) == 1)
			cgfb_detector_feed(det, &rec);
	if (rc < 0)
		cgfb_log(LOG_ERR, "reading %s: %s", k.path, strerror(-rc));
	if (k.lost)
		cgfb_log(LOG_WARNING, "%lu kernel log records were overwritten while reading",
			 k.lost);
	if (det)
		cgfb_detector_finish(det);
	cgfb_detector_free(det);
	cgfb_klog_close(&k);
	return rc < 0 ? rc : 0;
}

static int cmd_scan(const struct cgfb_catalog *cat, const struct cli *c, int argc, char **argv)
{
	struct scan_out so = { .json = c->json };
	bool trouble = false;

	if (argc == 0)
		trouble = scan_live(cat, c, &so) < 0;
	for (int i = 0; i < argc; i++)
		if (scan_file(cat, argv[i], &so) < 0)
			trouble = true;
	if (fflush(stdout) != 0 || so.write_failed) {
		cgfb_log(LOG_ERR, "writing the output: %s", strerror(errno));
		trouble = true;
	}
	if (trouble)
		return EXIT_TROUBLE;
	return so.found ? EXIT_FOUND : EXIT_NOTFOUND;
}

static int cmd_catalog(const struct cgfb_catalog *cat, const struct cli *c)
{
	for (size_t i = 0; i < cat->n; i++) {
		const struct cgfb_entry *e = &cat->entries[i];

		if (c->json) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "id", json_object_new_string(e->id));
			json_object_object_add(o, "title", json_object_new_string(e->title));
			json_object_object_add(o, "contact", e->contact ? json_object_new_string(e->contact) : NULL);
			json_object_object_add(o, "level", json_object_new_int(e->level));
			json_object_object_add(o, "kernels", e->kernels ? json_object_new_string(e->kernels) : NULL);
			json_object_object_add(o, "trigger", e->trigger ? json_object_new_string(e->trigger) : NULL);
			printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
								      JSON_C_TO_STRING_NOSLASHESCAPE));
			json_object_put(o);
		} else {
			printf("%-4s %s\n     kernels: %s\n     contact: %s\n", e->id, e->title,
			       e->kernels ? e->kernels : "-", e->contact ? e->contact : "none");
		}
	}
	return fflush(stdout) == 0 ? 0 : EXIT_TROUBLE;
}

enum { OPT_CATALOG = 256, OPT_KMSG, OPT_BOOT_ID, OPT_STATE_DIR, OPT_ONCE, OPT_JSON };

static const struct option long_opts[] = {
	{ "catalog", required_argument, NULL, OPT_CATALOG },
	{ "kmsg", required_argument, NULL, OPT_KMSG },
	{ "boot-id-file", required_argument, NULL, OPT_BOOT_ID },
	{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
	{ "once", no_argument, NULL, OPT_ONCE },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* Options may come before or after the command; "--" ends them. */
static int parse(int argc, char **argv, struct cli *c)
{
	int opt;

	while ((opt = getopt_long(argc, argv, "hV", long_opts, NULL)) != -1) {
		switch (opt) {
		case OPT_CATALOG: c->catalog_path = optarg; break;
		case OPT_KMSG: c->kmsg_path = optarg; break;
		case OPT_BOOT_ID: c->boot_id_path = optarg; break;
		case OPT_STATE_DIR: c->state_dir = optarg; break;
		case OPT_ONCE: c->once = true; break;
		case OPT_JSON: c->json = true; break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case 'V': printf("cgroup-feedback %s\n", CGFB_VERSION); exit(0);
		default: fputs(usage_text, stderr); return -EINVAL;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct cli c = { .state_dir = DEFAULT_STATE_DIR };
	struct cgfb_catalog *cat = NULL;
	const char *cmd;
	int rc;

	cgfb_log_init("cgroup-feedback");
	if (parse(argc, argv, &c) < 0)
		return EXIT_TROUBLE;
	if (optind >= argc) {
		fputs(usage_text, stderr);
		return EXIT_TROUBLE;
	}
	cmd = argv[optind];
	if (strcmp(cmd, "scan") != 0 && strcmp(cmd, "watch") != 0 && strcmp(cmd, "catalog") != 0) {
		cgfb_log(LOG_ERR, "unknown command '%s' (try --help)", cmd);
		return EXIT_TROUBLE;
	}
	if (load_catalog(&c, &cat) < 0)
		return EXIT_TROUBLE;
	if (strcmp(cmd, "scan") == 0) {
		rc = cmd_scan(cat, &c, argc - optind - 1, argv + optind + 1);
	} else if (strcmp(cmd, "watch") == 0) {
		const struct cgfb_watch_opts o = {
			.cat = cat, .state_dir = c.state_dir, .kmsg_path = c.kmsg_path,
			.boot_id_path = c.boot_id_path, .json = c.json, .once = c.once,
		};

		rc = optind + 1 < argc ? (cgfb_log(LOG_ERR, "watch takes no arguments"), 2)
				       : cgfb_watch(&o);
	} else {
		rc = cmd_catalog(cat, &c);
	}
	cgfb_catalog_free(cat);
	return rc;
}
