/* cgroup-feedback-report: the report of one new detection. The watcher
 * starts it with the detection on standard input (detect/handoff.h) and
 * without CAP_SYSLOG; it takes the snapshot, writes
 * <state-dir>/reports/<id>.json, tells the administrators (consent/notify.h)
 * and prints the report id (followed by " silenced" when the administrator
 * asked not to be told of that message); for a repeat of a report already in the spool
 * (report/repeat.h) it counts the boot there and prints "<id> repeat". With --report-id the id is made
 * from the watcher's (its nonce, bound to the report's deletion token:
 * privacy/deltoken.h), the same every time, and a report already there
 * under it (written before a kill) is the report.
 * Errors are logged here, once, with context; the exit status is 0, 75
 * (EX_TEMPFAIL) when no report was written for now (a full disk: the
 * watcher tries again later), or 2 when none can be written. With
 * --refresh-banner it only rewrites the login banner from the spool, as the
 * watcher asks at its start (the watcher has no notification code). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "base/statedir.h"
#include "cgfb/log.h"
#include "cgfb/sha256.h"
#include "base/path.h"
#include "cgfb/wire.h"
#include "base/bootid.h"
#include "consent/notify.h"
#include "privacy/allowlist.h"
#include "privacy/deltoken.h"
#include "privacy/secret.h"
#include "report/repeat.h"
#include "report/repindex.h"
#include "detect/handoff.h"
#include "report/snapshot.h"
#include "reporter/gap.h"
#include "base/cmdline.h"
#include "base/exec.h"
#include "base/hint.h"
#include "base/watchlock.h"
#include "config/config.h"

#define HANDOFF_MAX (16u << 10)

struct opts {
	struct cgfb_globals g;
	const char *state_dir;
	struct cgfb_statedir sd;     /* opened once, before anything is read */
	struct cgfb_snapshot_opts s;
	const char *boot_id_path;
	const char *boot;            /* --boot-id: a past boot's (scan --report) */
	bool refresh_banner;
	const char *journal_gap;     /* BOOT:FROM:TO */
	bool check;                  /* --check: the configuration and what it names */
	const char *journal_dir;
	bool other_machine;          /* --other-machine: the log says it is another's */
	bool this_machine;           /* --this-machine: the log says it is this one's */
	char log_boot[40];           /* a boot id for another machine's log's boot */
};

static int parse(int argc, char **argv, struct opts *o)
{
	enum { OPT_CONFIG = 256, OPT_CATALOG, OPT_STATE_DIR, OPT_CGROUP_ROOT, OPT_MOUNTINFO,
	       OPT_OS_RELEASE, OPT_CMDLINE, OPT_REPORT_ID, OPT_BOOT_ID, OPT_REFRESH_BANNER,
	       OPT_JOURNAL_GAP, OPT_JOURNAL_DIR, OPT_CHECK, OPT_BOOT, OPT_OTHER, OPT_THIS, OPT_ROOT };
	static const struct option opts[] = {
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "catalog", required_argument, NULL, OPT_CATALOG },
		{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
		{ "cgroup-root", required_argument, NULL, OPT_CGROUP_ROOT },
		{ "mountinfo", required_argument, NULL, OPT_MOUNTINFO },
		{ "os-release", required_argument, NULL, OPT_OS_RELEASE },
		{ "cmdline", required_argument, NULL, OPT_CMDLINE },
		{ "report-id", required_argument, NULL, OPT_REPORT_ID },
		{ "boot-id-file", required_argument, NULL, OPT_BOOT_ID },
		{ "boot-id", required_argument, NULL, OPT_BOOT },
		{ "refresh-banner", no_argument, NULL, OPT_REFRESH_BANNER },
		{ "journal-gap", required_argument, NULL, OPT_JOURNAL_GAP },
		{ "journal-dir", required_argument, NULL, OPT_JOURNAL_DIR },
		{ "check", no_argument, NULL, OPT_CHECK },
		{ "other-machine", no_argument, NULL, OPT_OTHER },
		{ "this-machine", no_argument, NULL, OPT_THIS },
		{ "root", required_argument, NULL, OPT_ROOT },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	memset(o, 0, sizeof(*o));
	o->state_dir = CGFB_DEFAULT_STATE_DIR;
	o->sd.fd = -1;
	o->s.state = &o->sd;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case OPT_CONFIG: o->g.config_path = optarg; break;
		case OPT_CATALOG: o->g.catalog_path = optarg; break;
		case OPT_STATE_DIR: o->state_dir = optarg; break;
		case OPT_CGROUP_ROOT: o->s.cgroup_root = optarg; break;
		case OPT_MOUNTINFO: o->s.mountinfo = optarg; break;
		case OPT_OS_RELEASE: o->s.os_release = optarg; break;
		case OPT_CMDLINE: o->s.cmdline = optarg; break;
		case OPT_BOOT_ID: o->boot_id_path = optarg; break;
		case OPT_BOOT:
			if (strlen(optarg) >= 40 || strspn(optarg, "0123456789abcdef-") != strlen(optarg)) {
				cgfb_log(LOG_ERR, "--boot-id: '%s' is not a boot id", optarg);
				return -EINVAL;
			}
			o->boot = optarg;
			break;
		case OPT_REFRESH_BANNER: o->refresh_banner = true; break;
		case OPT_JOURNAL_GAP: o->journal_gap = optarg; break;
		case OPT_JOURNAL_DIR: o->journal_dir = optarg; break;
		case OPT_CHECK: o->check = true; break;
		case OPT_OTHER: o->other_machine = true; break;
		case OPT_THIS: o->this_machine = true; break;
		case OPT_ROOT: o->s.copy_root = optarg; break;
		case OPT_REPORT_ID:
			if (!cgfb_report_id_valid(optarg)) {
				cgfb_log(LOG_ERR, "--report-id: '%s' is not a report id", optarg);
				return -EINVAL;
			}
			o->s.report_id = optarg;
			break;
		default:
			fputs("Usage: cgroup-feedback-report [--config F] [--catalog F] [--state-dir D]\n"
			      "       [--cgroup-root D --mountinfo F] [--os-release F] [--cmdline F]\n"
			      "       [--report-id ID] [--boot-id-file F] [--boot-id ID]\n"
			      "       [--other-machine | --this-machine | --root DIR]\n"
			      "       < detection (started by cgroup-feedback-watch)\n"
			      "       cgroup-feedback-report [--config F] [--state-dir D] --refresh-banner\n"
			      "       cgroup-feedback-report --journal-gap BOOT:FROM:TO [--journal-dir D]\n"
			      "       cgroup-feedback-report [--config F] [--catalog F] --check\n",
			      stderr);
			return -EINVAL;
		}
	}
	return optind == argc ? 0 : -EINVAL;
}

static int read_handoff(struct cgfb_buf *b)
{
	char chunk[4096];
	ssize_t n;

	while ((n = read(STDIN_FILENO, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (b->len + (size_t)n > HANDOFF_MAX)
			return -EFBIG;
		if (cgfb_buf_add(b, chunk, (size_t)n) < 0)
			return -ENOMEM;
	}
	return b->len ? 0 : -ENODATA;
}

/* The report the watcher reserved this id for is there already: a kill
 * came after it was written and before the watcher knew. */
static bool written_before(const struct opts *o)
{
	char name[PATH_MAX];

	return o->s.report_id &&
	       cgfb_path_join(name, sizeof(name), CGFB_REPORTS_DIR, o->s.report_id,
			      CGFB_REPORT_SUFFIX) == 0 &&
	       faccessat(o->sd.fd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Trouble that passes (space, memory, a signal) against trouble that
 * stays (an unreadable cgroup tree, a bug): only the first is retried. */
static bool transient(int rc)
{
	return rc == -ENOSPC || rc == -EDQUOT || rc == -ENOMEM || rc == -EIO || rc == -EINTR ||
	       rc == -EAGAIN || rc == -EMFILE || rc == -ENFILE;
}

/* This boot's id: a boot counts once on a report however often its
 * writer runs. "" when unreadable (then every run counts). Never this
 * boot's for another machine's log: its boot as the log shows it. */
static void boot_id(const struct opts *o, char out[40])
{
	const char *path = o->boot_id_path ? o->boot_id_path : CGFB_BOOT_ID_PATH;
	int rc;

	if (o->boot) {
		snprintf(out, 40, "%s", o->boot);
		return;
	}
	if (o->log_boot[0]) {
		snprintf(out, 40, "%s", o->log_boot);
		return;
	}
	rc = cgfb_read_boot_id(path, out, 40);

	if (rc < 0) {
		cgfb_log(LOG_WARNING, "reading the boot id from %s: %s", path, strerror(-rc));
		out[0] = '\0';
	}
}

/* The spool and its repeat index (report/repindex.h) for one detection:
 * opened to look for a report this one repeats, kept for writing it. */
struct spool_ctx {
	struct cgfb_spool sp;
	struct cgfb_repindex ix;
	bool indexed;                /* ix is open and current */
	struct cgfb_report_key k;
};

static void spool_ctx_close(struct spool_ctx *c)
{
	cgfb_repindex_close(&c->ix);
	cgfb_spool_close(&c->sp);
	cgfb_report_key_free(&c->k);
}

/* The index is a cache: on a full disk it gives way to the reports and
 * the watcher's state, and the next writer makes it anew if there is room
 * (reading every report until then). */
static bool index_gives_way(const struct opts *o, struct spool_ctx *c, int rc)
{
	if (rc != -ENOSPC && rc != -EDQUOT)
		return false;
	cgfb_log(LOG_NOTICE, "repeat index %s/" CGFB_REPEAT_INDEX_DIR ": %s; removed to leave the "
		 "room to reports (the next report makes it anew)", o->state_dir, strerror(-rc));
	cgfb_repindex_drop(&c->ix, &o->sd);
	c->indexed = false;
	return true;
}

/* The writer's last change to reports/ is made: the index says so, and
 * the next writer trusts it without reading reports/. */
static void seal_index(const struct opts *o, struct spool_ctx *c)
{
	int rc;

	if (!c->indexed)
		return;
	rc = cgfb_repindex_seal(&c->ix);
	if (rc < 0 && !index_gives_way(o, c, rc))
		cgfb_log(LOG_WARNING, "repeat index %s/" CGFB_REPEAT_INDEX_DIR ": %s; the next "
			 "report checks it against reports/", o->state_dir, strerror(-rc));
}

static void forget_removed(const char *id, void *ctx)
{
	cgfb_repindex_forget(ctx, id);
}

/* What the spool keeps of answered reports (report/spool.h): looked at
 * once a day, when a new report is written (the spool grows only then),
 * by the one writer that keeps the index. */
static void expire_spool(const struct opts *o, struct spool_ctx *c)
{
	const long long now = (long long)time(NULL);
	size_t n = 0;
	int rc;

	if (!c->indexed || (c->ix.expired <= now && now - c->ix.expired < 86400))
		return;
	c->ix.expired = now;
	rc = cgfb_spool_expire(&c->sp, now, forget_removed, &c->ix, &n);
	if (rc < 0)
		cgfb_log(LOG_WARNING, "spool %s/reports: looking for reports past keeping: %s",
			 o->state_dir, strerror(-rc));
	else if (n)
		cgfb_log(LOG_NOTICE, "spool %s/reports: removed %zu declined or withdrawn report%s "
			 "answered more than %d days ago or beyond the %d kept", o->state_dir, n,
			 n == 1 ? "" : "s", CGFB_SPOOL_KEEP_DAYS, CGFB_SPOOL_KEEP_ANSWERED);
}

/* The new report's <id>.seen: its first boot. Without it the report
 * counts as seen once, so a failure here only loses the boot id. */
static void seen_first(const char *id, const char *boot, struct spool_ctx *c)
{
	const int rc = cgfb_repeat_first(&c->sp, id, boot, c->k.series, (long long)time(NULL));

	if (rc < 0)
		cgfb_log(LOG_WARNING, "report %s: writing %s.seen: %s", id, id, strerror(-rc));
}

/* The report in the spool an occurrence with c->k belongs to, through the
 * index, or by reading every report when the index cannot be used. */
static int look_up(const struct opts *o, struct spool_ctx *c, char found[CGFB_REPORT_ID_LEN + 1])
{
	int rc = cgfb_repindex_open(&c->ix, &o->sd, &c->sp);

	if (rc < 0) {
		cgfb_log(LOG_WARNING, "repeat index %s/" CGFB_REPEAT_INDEX_DIR ": %s; reading "
			 "every report instead", o->state_dir, strerror(-rc));
		return cgfb_repeat_find(&c->sp, &c->k, found);
	}
	if (c->ix.rebuilt)
		cgfb_log(LOG_NOTICE, "repeat index %s/" CGFB_REPEAT_INDEX_DIR " rebuilt from %llu "
			 "reports", o->state_dir, c->ix.count);
	c->indexed = true;
	rc = cgfb_repindex_find(&c->ix, &c->k, found);
	if (rc >= 0)
		return rc;
	cgfb_log(LOG_WARNING, "repeat index %s/" CGFB_REPEAT_INDEX_DIR ": %s; reading every "
		 "report instead", o->state_dir, strerror(-rc));
	return cgfb_repeat_find(&c->sp, &c->k, found);
}

/* A sent report's tokens are keyed for its endpoint: the repeat rule
 * compares them as the snapshot made them (report/repeat.h). The snapshot
 * read the secret already, so a failure here is not new; without it a
 * repeat of a consented report that names a token is a new report. */
static void use_install_key(const struct opts *o)
{
	uint8_t key[CGFB_SECRET_LEN];
	char err[256];

	if (cgfb_secret_load(&o->sd, key, err, sizeof(err)) == 0)
		cgfb_repeat_use_key(key);
	explicit_bzero(key, sizeof(key));
}

/* A new report's bytes b, or a repeat of a report already in the spool
 * (report/repeat.h): then the boot is counted there, id becomes that
 * report's, and *repeat is set. Nobody is told about a repeat. Trouble
 * never loses a warning nor doubles a report: when the spool cannot be
 * searched the report is new (logged); when a repeat's boot cannot be
 * counted, it is still a repeat, uncounted (logged). */
static void find_repeat(const struct opts *o, const struct cgfb_buf *b, const char *boot,
			char id[CGFB_UUID_LEN + 1], bool *repeat, struct spool_ctx *c)
{
	char found[CGFB_REPORT_ID_LEN + 1] = "";
	bool counted = false;
	int rc;

	*repeat = false;
	use_install_key(o);
	rc = cgfb_report_key(b->data, b->len, &c->k);
	if (rc == 0)
		rc = cgfb_spool_open(&c->sp, &o->sd);
	if (rc == 0)
		rc = look_up(o, c, found);
	if (rc < 0)
		cgfb_log(LOG_WARNING, "looking for an earlier report of %s in %s/reports: %s; "
			 "this one is new", c->k.catalog_id[0] ? c->k.catalog_id : "this message",
			 o->state_dir, strerror(-rc));
	if (rc <= 0)
		return;
	*repeat = true;
	snprintf(id, CGFB_UUID_LEN + 1, "%s", found);
	rc = cgfb_repeat_count(&c->sp, found, boot, c->k.series, (long long)time(NULL), &counted);
	if (rc < 0)
		cgfb_log(LOG_WARNING, "%s again: counting this boot on report %s (%s/reports/%s.seen): "
			 "%s; no new report, nobody told again", c->k.catalog_id, found,
			 o->state_dir, found, strerror(-rc));
	else
		cgfb_log(LOG_NOTICE, "%s again (kernel series %s): %s on report %s; no new "
			 "report, nobody told again", c->k.catalog_id,
			 c->k.series[0] ? c->k.series : "unknown",
			 counted ? "counted" : "this boot was counted already", found);
	seal_index(o, c);
}

/* Before a new report is written: its key's index file names it. An
 * index that cannot say so is left unsealed: the next writer sees
 * reports/ changed and the report it lacks, and rebuilds it. */
static void index_new(const struct opts *o, const char *id, struct spool_ctx *c)
{
	int rc;

	if (!c->indexed)
		return;
	rc = cgfb_repindex_add(&c->ix, id, &c->k);
	if (rc == 0 || index_gives_way(o, c, rc))
		return;
	cgfb_log(LOG_WARNING, "repeat index %s/" CGFB_REPEAT_INDEX_DIR ": adding report %s: %s; "
		 "the next report rebuilds it", o->state_dir, id, strerror(-rc));
	c->indexed = false;
}

/* Tell of new report id. The login banner counts the pending reports:
 * those the last writer kept in the index, and this one, when nothing
 * changed the spool since; else they are listed from the spool, and kept
 * for the next writer. Before the seal, so that what is kept is what the
 * seal vouches for. */
static void notify_new(const struct opts *o, const struct cgfb_config *conf,
		       const struct cgfb_catalog *cat, const struct cgfb_detection *d,
		       const char *id, bool by_check, struct spool_ctx *c)
{
	struct cgfb_pending pending = { .known = false };

	if (c->indexed && cgfb_repindex_pending(&c->ix, &pending) == 0)
		cgfb_pending_add(&pending, (long long)time(NULL), id, d->entry->id);
	cgfb_notify_new_report_with(conf, NULL, cat, &o->sd, id, d->entry->id, by_check,
				    &pending);
	if (c->indexed && pending.known)
		index_gives_way(o, c, cgfb_repindex_save_pending(&c->ix, &pending));
}

/* A new report's id for the watcher, and " silenced" when the
 * administrator asked not to be told of this message (review's "never"):
 * then the watcher does not start a review for it either. */
static void print_new(const struct opts *o, const char *id, const struct cgfb_detection *d)
{
	printf("%s%s\n", id, cgfb_silenced(&o->sd, d->entry->id) ? " silenced" : "");
}

static int write_report(const struct opts *o, const struct cgfb_config *conf,
			const struct cgfb_catalog *cat, const struct cgfb_detection *d,
			const char *source)
{
	struct cgfb_snapshot *snap = NULL;
	char id[CGFB_UUID_LEN + 1], err[512], boot[40];
	struct cgfb_buf b = { 0 };
	struct spool_ctx c = { .sp = { .fd = -1 }, .ix = { .fd = -1 } };
	bool repeat;
	int rc;

	if (written_before(o)) {
		cgfb_notify_new_report(conf, NULL, cat, &o->sd, o->s.report_id,
				       d->entry->id, strcmp(source, "check") == 0);
		print_new(o, o->s.report_id, d);
		return 0;
	}
	rc = cgfb_snapshot_new(&o->s, &snap);
	if (rc < 0) {
		/* Reported there: the secret, the allowlist file, the schema;
		 * each can be fixed, so the detection is held, not lost. */
		rc = -EAGAIN;
		goto out;
	}
	rc = cgfb_snapshot_report(snap, d->entry, d, source, false, &b, id, err, sizeof(err));
	if (rc < 0) {
		cgfb_log(LOG_ERR, "report for %s not written: %s", d->entry->id, err);
		goto out;
	}
	boot_id(o, boot);
	find_repeat(o, &b, boot, id, &repeat, &c);
	if (repeat) {
		/* The watcher prompts for new reports only. */
		printf("%s repeat\n", id);
		goto out;
	}
	index_new(o, id, &c);
	rc = cgfb_snapshot_save(snap, id, &b);
	if ((rc == -ENOSPC || rc == -EDQUOT) && index_gives_way(o, &c, rc))
		rc = cgfb_snapshot_save(snap, id, &b);
	if (rc < 0) {
		cgfb_log(LOG_ERR, "report for %s not written to %s/reports/%s.json: %s",
			 d->entry->id, o->state_dir, id, strerror(-rc));
		seal_index(o, &c);
		goto out;
	}
	if (c.sp.fd >= 0)
		seen_first(id, boot, &c);
	expire_spool(o, &c);
	notify_new(o, conf, cat, d, id, strcmp(source, "check") == 0, &c);
	seal_index(o, &c);
	print_new(o, id, d);
out:
	spool_ctx_close(&c);
	cgfb_buf_free(&b);
	cgfb_snapshot_free(snap);
	return rc;
}

/* The id the watcher reserved gives its nonce to the report's id, which
 * is bound to the report's deletion token (privacy/deltoken.h): the same
 * reserved id makes the same id, so a writer killed after the report was
 * written finds it again. The secret read here is read again by the
 * snapshot; trouble with it is logged there too, and passes. */
static int bind_reserved(struct opts *o, char bound[CGFB_UUID_LEN + 1])
{
	uint8_t key[CGFB_SECRET_LEN];
	char err[256];
	int rc;

	if (!o->s.report_id)
		return 0;
	/* The machine-bound key (privacy/deltoken.h says why). */
	rc = cgfb_secret_load(&o->sd, key, err, sizeof(err));
	if (rc < 0) {
		cgfb_log(LOG_ERR, "secret %s/%s: %s", o->state_dir, CGFB_SECRET_FILE, err);
		rc = -EAGAIN;
	} else {
		rc = cgfb_deltoken_new_id(key, o->s.report_id, bound);
		if (rc < 0)
			cgfb_log(LOG_ERR, "report id from %s: %s", o->s.report_id, strerror(-rc));
	}
	explicit_bzero(key, sizeof(key));
	if (rc == 0)
		o->s.report_id = bound;
	return rc;
}

/* Whose facts the report of d carries (docs/PRIVACY.md, "A report about
 * another machine"): a copy's (check --root); another machine's log's
 * when the sender says so (another machine's journal, scan
 * --other-machine) or, when the log does not say whose it is (a text log,
 * a recording), its boot banner names a kernel other than the one running
 * here (this machine's facts are not those of the boot that printed it);
 * else this machine's (the live log, this machine's journal). The boot of
 * another machine's log counts as its own, never as this boot: an id made
 * from what the log shows of it, unless the sender gave one. */
static void choose_facts(struct opts *o, const struct cgfb_detection *d)
{
	struct utsname u;
	struct cgfb_buf b = { 0 };
	char hex[65];

	if (o->s.copy_root) {
		o->s.facts = CGFB_FACTS_COPY;
		return;
	}
	if (!o->other_machine && (o->this_machine || !d->boot.release[0] ||
				  (uname(&u) == 0 && strcmp(u.release, d->boot.release) == 0)))
		return;
	o->s.facts = CGFB_FACTS_LOG;
	if (o->boot)
		return;
	cgfb_buf_printf(&b, "log\n%s\n%s", d->boot.release, d->boot.cmdline);
	cgfb_sha256_hex(b.data ? b.data : "", b.len, hex);
	cgfb_buf_free(&b);
	cgfb_boot_id_dashed(hex, o->log_boot);
}

/* --check, at the watcher's start: everything a report will need from
 * the configuration (the allowlist file it names, the catalog) is read
 * now, so that a mistake stops the watcher before it reads the log, with
 * the file, line and key, instead of costing a boot's warnings. */
static int check_config(const struct opts *o, const struct cgfb_config *conf)
{
	struct cgfb_catalog *cat = NULL;
	struct cgfb_allowlist *al = NULL;
	char err[512];
	int rc;

	rc = cgfb_allowlist_load(&al, conf->allowlist_file[0] ? conf->allowlist_file : NULL, err,
				 sizeof(err));
	cgfb_allowlist_free(al);
	if (rc < 0) {
		cgfb_log(LOG_ERR, "allowlist-file = %s: %s", conf->allowlist_file, err);
		return CGFB_EXIT_TROUBLE;
	}
	rc = cgfb_load_catalog(&o->g, &cat);
	cgfb_catalog_free(cat);
	return rc < 0 ? CGFB_EXIT_TROUBLE : CGFB_EXIT_OK;
}

/* How long a writer waits for another to finish: one takes well under a
 * second; longer means one hung (a cgroup file that never answers) or a
 * lock held by someone who may open a state directory an administrator
 * left readable (docs/SECURITY.md). Then no report for now: the watcher
 * holds the detection and tries again later, scan says so. */
#define WRITER_WAIT_MS 30000
/* For the test suite only (docs/TESTING.md): 100 to 60000. */
#define TEST_WRITER_WAIT_ENV "CGFB_TEST_WRITER_WAIT_MS"

static long writer_wait_ms(void)
{
	const char *v = getenv(TEST_WRITER_WAIT_ENV);
	char *end;
	long ms;

	if (!v)
		return WRITER_WAIT_MS;
	errno = 0;
	ms = strtol(v, &end, 10);
	if (errno || end == v || *end || ms < 100 || ms > 60000) {
		cgfb_log(LOG_WARNING, "%s=%s ignored: not 100 to 60000 (ms)", TEST_WRITER_WAIT_ENV, v);
		return WRITER_WAIT_MS;
	}
	return ms;
}

/* One report writer at a time on a spool, whoever started it: the watcher
 * (one a state directory, base/watchlock.h), scan --report and check
 * --report run by hand meanwhile, a writer run by hand. Two at once would
 * each find no report of a message and make one each, and each rewrite
 * the repeat index's stamp. An exclusive flock(2) on reports/, through a
 * spool of its own (the lock belongs to that open file), waited for up to
 * WRITER_WAIT_MS: 0, or -EAGAIN (transient: written later). */
static int lock_writers(const struct opts *o, struct cgfb_spool *lk)
{
	const long wait_ms = writer_wait_ms();
	long pid = 0;
	char who[64];
	int rc = cgfb_spool_open(lk, &o->sd);

	if (rc < 0) {
		cgfb_log(LOG_ERR, "%s/%s: %s", o->state_dir, CGFB_REPORTS_DIR, strerror(-rc));
		return rc;
	}
	rc = cgfb_flock_wait(lk->fd, wait_ms);
	/* A file system that cannot lock a directory (NFS: byte-range locks
	 * want a file open for writing, flock(2) NOTES) leaves the writer as
	 * it was before the lock, unguarded, rather than without reports. */
	if (rc < 0 && rc != -EWOULDBLOCK)
		cgfb_log(LOG_WARNING, "%s/%s not locked for this report (%s): a writer started "
			 "meanwhile could write beside this one", o->state_dir, CGFB_REPORTS_DIR,
			 strerror(-rc));
	if (rc != -EWOULDBLOCK)
		return 0;
	if (cgfb_flock_holder(lk->fd, &pid) <= 0 || pid <= 0)
		snprintf(who, sizeof(who), "another report writer");
	else
		snprintf(who, sizeof(who), "another report writer (pid %ld)", pid);
	cgfb_log(LOG_ERR, "%s/%s has been locked by %s for %ld ms: this report is not written "
		 "for now", o->state_dir, CGFB_REPORTS_DIR, who, wait_ms);
	return -EAGAIN;
}

int main(int argc, char **argv)
{
	struct cgfb_catalog *cat = NULL;
	struct cgfb_buf in = { 0 };
	struct cgfb_detection d;
	struct cgfb_config conf;
	char source[16], err[256], bound[CGFB_UUID_LEN + 1];
	struct cgfb_spool lock = { .fd = -1 };
	struct opts o;
	int rc;

	cgfb_log_init("cgroup-feedback");
	if (parse(argc, argv, &o) < 0)
		return CGFB_EXIT_TROUBLE;
	/* The log line, the banner and the wall name the command line program
	 * beside this one, and the configuration it was given. */
	cgfb_hint_name_cli(false);
	cgfb_hint_use_config(o.g.config_path);
	/* For the watcher: records the ring lost, from the journal. No state
	 * directory, no configuration: it only reads. */
	if (o.journal_gap)
		return cgfb_journal_gap(o.journal_gap, o.journal_dir) < 0 ? CGFB_EXIT_TROUBLE
									  : CGFB_EXIT_OK;
	/* A configuration that cannot be used now may be fixed: the watcher
	 * holds the detection and tries again (CGFB_EXIT_TEMPFAIL), it does not
	 * count it as handled. */
	if (cgfb_load_config(&o.g, &conf) < 0)
		return o.check ? CGFB_EXIT_TROUBLE : CGFB_EXIT_TEMPFAIL;
	if (o.check)
		return check_config(&o, &conf);
	rc = cgfb_statedir_open(&o.sd, o.state_dir, CGFB_SD_CREATE, err, sizeof(err));
	if (rc < 0) {
		cgfb_log(LOG_ERR, "state directory %s: %s", o.state_dir, err);
		return transient(rc) ? CGFB_EXIT_TEMPFAIL : CGFB_EXIT_TROUBLE;
	}
	/* At the watcher's start: the banner says what the spool says now
	 * (/run was emptied by a reboot, or it is stale). */
	if (o.refresh_banner) {
		if (conf.notify & CGFB_NOTIFY_MOTD)
			cgfb_notify_refresh_motd(&conf, &o.sd);
		cgfb_statedir_close(&o.sd);
		return CGFB_EXIT_OK;
	}
	rc = cgfb_load_catalog(&o.g, &cat) < 0 ? -EINVAL : 0;
	if (rc < 0)
		goto out;
	o.s.allowlist = conf.allowlist_file[0] ? conf.allowlist_file : NULL;
	rc = read_handoff(&in);
	if (rc < 0) {
		cgfb_log(LOG_ERR, "reading the detection from the watcher: %s", strerror(-rc));
		goto out;
	}
	rc = cgfb_handoff_decode(cat, in.data, in.len, &d, source, err, sizeof(err));
	if (rc < 0) {
		cgfb_log(LOG_ERR, "%s", err);
		goto out;
	}
	choose_facts(&o, &d);
	rc = lock_writers(&o, &lock);
	if (rc == 0)
		rc = bind_reserved(&o, bound);
	if (rc == 0)
		rc = write_report(&o, &conf, cat, &d, source);
out:
	cgfb_buf_free(&in);
	cgfb_catalog_free(cat);
	cgfb_spool_close(&lock);
	cgfb_statedir_close(&o.sd);
	if (rc < 0)
		return transient(rc) ? CGFB_EXIT_TEMPFAIL : CGFB_EXIT_TROUBLE;
	return fflush(stdout) == 0 ? CGFB_EXIT_OK : CGFB_EXIT_TEMPFAIL;
}
