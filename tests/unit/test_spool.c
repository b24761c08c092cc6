/* The spool (report/spool.c), consent (consent/consent.c) and the scan of
 * saved logs (detect/scan.c), on real files in a scratch directory. */
#include "testutil.h"

#include "cgfb/report_id.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgfb/sha256.h"
#include "cgfb/atomic.h"
#include "base/path.h"
#include "cgfb/readfile.h"
#include "cgfb/schema.h"
#include "consent/consent.h"
#include "consent/draft.h"
#include "detect/scan.h"
#include "report/snapshot.h"
#include "report/spool.h"

static char dir[] = "/tmp/cgfb-spool.XXXXXX";
static struct cgfb_catalog *cat;
static struct cgfb_schema *schema;
static struct cgfb_statedir sd = { .fd = -1 };

static int setup(void **state)
{
	char err[256];

	cat = test_catalog();
	if (!mkdtemp(dir) || cgfb_schema_load_builtin(&schema, err, sizeof(err)) < 0 ||
	    cgfb_statedir_open(&sd, dir, 0, err, sizeof(err)) < 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	char cmd[64];

	cgfb_statedir_close(&sd);
	cgfb_schema_free(schema);
	cgfb_catalog_free(cat);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* A real report of entry id (a snapshot of an empty tree), saved in the
 * spool; its id into id. */
static void make_report(const char *id_of_entry, char id[CGFB_REPORT_ID_LEN + 1])
{
	const struct cgfb_snapshot_opts o = { .state = &sd, .mountinfo = "/dev/null" };
	struct cgfb_snapshot *s;
	struct cgfb_buf b = { 0 };
	char err[512];

	assert_int_equal(cgfb_snapshot_new(&o, &s), 0);
	assert_int_equal(cgfb_snapshot_report(s, cgfb_catalog_find(cat, id_of_entry), NULL, "file",
					      false, &b, id, err, sizeof(err)), 0);
	assert_int_equal(cgfb_snapshot_save(s, id, &b), 0);
	cgfb_buf_free(&b);
	cgfb_snapshot_free(s);
}

static void spool_states(void **state)
{
	struct cgfb_spool sp;
	struct cgfb_spool_entry e, *v = NULL;
	struct cgfb_buf bytes = { 0 };
	char id[CGFB_REPORT_ID_LEN + 1], path[PATH_MAX];
	struct stat st;
	size_t n = 0;

	make_report("M8", id);
	assert_int_equal(cgfb_spool_open(&sp, &sd), 0);
	assert_int_equal(stat(sp.dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	/* No .state yet: pending, with its catalog id and exact bytes. */
	assert_int_equal(cgfb_spool_load(&sp, id, &e, &bytes), 0);
	assert_int_equal(e.state, CGFB_R_PENDING);
	assert_string_equal(e.catalog_id, "M8");
	assert_true(bytes.len > 100 && bytes.data[0] == '{');
	/* A state saved is a state loaded. */
	e.state = CGFB_R_DECLINED;
	snprintf(e.last_error, sizeof(e.last_error), "test");
	assert_int_equal(cgfb_spool_save_state(&sp, &e), 0);
	assert_int_equal(cgfb_spool_load(&sp, id, &e, NULL), 0);
	assert_int_equal(e.state, CGFB_R_DECLINED);
	assert_string_equal(cgfb_rstate_name(e.state), "declined");
	cgfb_path_join(path, sizeof(path), sp.dir, id, ".state");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* Names that are no report id never become paths. */
	assert_int_equal(cgfb_spool_load(&sp, "../../etc/shadow", &e, NULL), -EINVAL);
	assert_int_equal(cgfb_spool_load(&sp, "00000000-0000-4000-8000-000000000000", &e, NULL),
			 -ENOENT);
	/* A corrupt report is quarantined by the listing, the good one stays. */
	cgfb_path_join(path, sizeof(path), sp.dir, "11111111-1111-4111-8111-111111111111", ".json");
	assert_int_equal(cgfb_atomic_write(sp.dir, "11111111-1111-4111-8111-111111111111.json",
					   "{not json", 9, 0600), 0);
	assert_int_equal(cgfb_spool_list(&sp, &v, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].id, id);
	assert_int_equal(access(path, F_OK), -1);
	cgfb_path_join(path, sizeof(path), sp.dir, "quarantine", NULL);
	assert_int_equal(access(path, F_OK), 0);
	free(v);
	cgfb_buf_free(&bytes);
}

/* Two commands load the same report: the first to save wins; the second
 * records nothing over it (-ESTALE), and saves again once it has looked
 * afresh. The senders' lock is taken again by its holder, held against
 * another open file until the last unlock, and goes with the spool. */
static void state_once(void **state)
{
	struct cgfb_spool sp;
	struct cgfb_spool_entry a, b;
	char id[CGFB_REPORT_ID_LEN + 1], path[PATH_MAX];
	int other;

	make_report("M8", id);
	assert_int_equal(cgfb_spool_open(&sp, &sd), 0);
	assert_int_equal(cgfb_spool_load(&sp, id, &a, NULL), 0);
	assert_int_equal(cgfb_spool_load(&sp, id, &b, NULL), 0);
	a.state = CGFB_R_WITHDRAWN;
	assert_int_equal(cgfb_spool_save_state(&sp, &a), 0);
	b.state = CGFB_R_SENT;
	assert_int_equal(cgfb_spool_save_state(&sp, &b), -ESTALE);
	assert_int_equal(cgfb_spool_load(&sp, id, &b, NULL), 0);
	assert_int_equal(b.state, CGFB_R_WITHDRAWN);
	/* The one that saved follows its own save. */
	a.state = CGFB_R_DECLINED;
	assert_int_equal(cgfb_spool_save_state(&sp, &a), 0);
	b.state = CGFB_R_PENDING;
	assert_int_equal(cgfb_spool_save_state(&sp, &b), -ESTALE);
	assert_int_equal(cgfb_spool_load(&sp, id, &b, NULL), 0);
	assert_int_equal(b.state, CGFB_R_DECLINED);

	assert_int_equal(cgfb_spool_lock_send(&sp), 0);
	assert_int_equal(cgfb_spool_lock_send(&sp), 0);
	cgfb_path_join(path, sizeof(path), sp.dir, ".send-lock", NULL);
	other = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(other >= 0);
	assert_int_equal(flock(other, LOCK_EX | LOCK_NB), -1);
	cgfb_spool_unlock_send(&sp);
	assert_int_equal(flock(other, LOCK_EX | LOCK_NB), -1);
	cgfb_spool_unlock_send(&sp);
	assert_int_equal(flock(other, LOCK_EX | LOCK_NB), 0);
	flock(other, LOCK_UN);
	assert_int_equal(cgfb_spool_lock_send(&sp), 0);
	cgfb_spool_close(&sp);
	assert_int_equal(flock(other, LOCK_EX | LOCK_NB), 0);
	close(other);
}

static void consent_bytes(void **state)
{
	const char *keys[] = { "software" }, *vals[] = { "libvirt" };
	struct cgfb_use_case uc = { .text = "One VM per cgroup.", .n_answers = 1 };
	struct cgfb_buf report = { 0 }, out = { 0 };
	struct cgfb_spool sp;
	struct cgfb_spool_entry e;
	char id[CGFB_REPORT_ID_LEN + 1], token[65], err[256], sha[65], schema_sha[65];
	json_object *doc;

	uc.keys[0] = keys[0];
	uc.values[0] = vals[0];
	make_report("M3", id);
	assert_int_equal(cgfb_spool_open(&sp, &sd), 0);
	assert_int_equal(cgfb_spool_load(&sp, id, &e, &report), 0);
	assert_int_equal(cgfb_consent_build(schema, &sd, &report, &uc,
					    "https://collector.example/api/v1/reports", NULL, &out,
					    token, err, sizeof(err)), 0);
	/* The bytes are canonical, valid, and carry use case, consent and
	 * the SHA-256 of the token, never the token itself. */
	assert_int_equal(cgfb_canon_parse(out.data, out.len, CGFB_REPORT_DEPTH_MAX, &doc, err,
					  sizeof(err)), 0);
	assert_int_equal(cgfb_schema_validate(schema, doc, err, sizeof(err)), 0);
	assert_null(strstr(out.data, token));
	cgfb_sha256_hex(token, 64, sha);
	assert_non_null(strstr(out.data, sha));
	/* The snapshot made the id bound to the token the consent derived:
	 * only this install can prove to the collector that the id is its. */
	assert_true(cgfb_report_id_bound(id, sha));
	assert_non_null(strstr(out.data, "\"install\":\""));
	assert_non_null(strstr(out.data, "One VM per cgroup."));
	assert_int_equal(cgfb_consent_schema(&out, schema_sha), 0);
	assert_string_equal(schema_sha, cgfb_schema_sha256(schema));
	json_object_put(doc);
	/* The yes: consented, due now, bound to these bytes and this place. */
	assert_int_equal(cgfb_consent_record(&sp, &e, &out, "https://collector.example/api/v1/reports",
					     token), 0);
	assert_int_equal(cgfb_spool_load(&sp, id, &e, NULL), 0);
	assert_int_equal(e.state, CGFB_R_CONSENTED);
	cgfb_sha256_hex(out.data, out.len, sha);
	assert_string_equal(e.sha256, sha);
	assert_string_equal(e.deletion_token, token);
	/* Consented again for another channel (exported, then submitted):
	 * built from the consented bytes with the same token, it carries the
	 * same use case and the same deletion hash, and names the new place. */
	{
		struct cgfb_buf again = { 0 };
		char token2[65], sha_token[65];

		assert_int_equal(cgfb_consent_build(schema, &sd, &out, &uc, "mailto:linux-mm@kvack.org",
						    e.deletion_token, &again, token2, err,
						    sizeof(err)), 0);
		assert_string_equal(token2, token);
		cgfb_sha256_hex(token, 64, sha_token);
		assert_non_null(strstr(again.data, sha_token));
		assert_non_null(strstr(again.data, "One VM per cgroup."));
		assert_non_null(strstr(again.data, "\"endpoint\":\"mailto:linux-mm@kvack.org\""));
		assert_null(strstr(again.data, "collector.example"));
		cgfb_buf_free(&again);
	}
	/* An endpoint with user information cannot be consented to. */
	assert_int_not_equal(cgfb_consent_build(schema, &sd, &report, &uc,
						"https://jdoe:pw@collector.example/", NULL, &out,
						token, err, sizeof(err)), 0);
	cgfb_buf_free(&report);
	cgfb_buf_free(&out);
}

/* The first keyed token in s ("" if none) and how many s holds. */
static size_t first_token(const char *s, char tok[15])
{
	size_t n = 0;

	tok[0] = '\0';
	for (const char *p = s; (p = strstr(p, "\"h:")) != NULL; p += 3) {
		if (strspn(p + 3, "0123456789abcdef") != 12 || p[15] != '"')
			continue;
		if (!n++)
			snprintf(tok, 15, "%.14s", p + 1);
	}
	return n;
}

/* report with the keyed token of one process name in its fields. */
static void with_token(const struct cgfb_buf *report, const char *tok, struct cgfb_buf *out)
{
	json_object *doc, *det, *f;
	char err[256];

	assert_int_equal(cgfb_canon_parse(report->data, report->len, CGFB_REPORT_DEPTH_MAX, &doc,
					  err, sizeof(err)), 0);
	assert_true(json_object_object_get_ex(doc, "detection", &det));
	assert_true(json_object_object_get_ex(det, "fields", &f));
	json_object_object_add(f, "comm", json_object_new_string(tok));
	assert_int_equal(cgfb_canon_serialize(doc, CGFB_REPORT_MAX_BYTES, out), 0);
	json_object_put(doc);
}

static void consent(const struct cgfb_buf *report, const char *endpoint, struct cgfb_buf *out)
{
	struct cgfb_use_case uc = { .text = "One VM per cgroup." };
	char token[65], err[256];

	cgfb_buf_free(out);
	assert_int_equal(cgfb_consent_build(schema, &sd, report, &uc, endpoint, NULL, out, token,
					    err, sizeof(err)), 0);
}

/* Each report goes one way (consent.h): once it went, or may have gone,
 * by mail or to a collector, another way is refused; before, any. */
static void one_way(void **state)
{
	static const char http[] = "https://collector.example/api/v1/reports";
	static const char other[] = "https://other.example/api/v1/reports";
	static const char mail[] = "mailto:linux-mm@kvack.org";
	struct cgfb_spool_entry e = { .id = "0fe1ee7c-99a4-4f1d-a9fc-05b63f00552b" };
	char err[1024];

	(void)state;
	e.state = CGFB_R_PENDING;
	assert_int_equal(cgfb_consent_one_way(&e, mail, err, sizeof(err)), 0);
	assert_int_equal(cgfb_consent_one_way(&e, http, err, sizeof(err)), 0);
	/* Consented for a collector, not tried: may still go by mail. */
	e.state = CGFB_R_CONSENTED;
	snprintf(e.endpoint, sizeof(e.endpoint), "%s", http);
	assert_int_equal(cgfb_consent_one_way(&e, mail, err, sizeof(err)), 0);
	assert_int_equal(cgfb_consent_one_way(&e, other, err, sizeof(err)), 0);
	/* Tried there and to be retried: the collector may hold it, so
	 * never the public list; another collector may have it. */
	e.attempts = 1;
	assert_int_equal(cgfb_consent_one_way(&e, mail, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "was tried at https://collector.example/api/v1/reports (it may "
				    "have been stored there); each report goes one way"));
	assert_int_equal(cgfb_consent_one_way(&e, other, err, sizeof(err)), 0);
	assert_int_equal(cgfb_consent_one_way(&e, http, err, sizeof(err)), 0);
	/* Refused there for good (a wrong URL): it was not stored. */
	e.next_attempt = -1;
	assert_int_equal(cgfb_consent_one_way(&e, mail, err, sizeof(err)), 0);
	e.next_attempt = 0;
	/* Sent: there alone. */
	e.state = CGFB_R_SENT;
	e.attempts = 0;
	assert_int_equal(cgfb_consent_one_way(&e, mail, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "went to https://collector.example"));
	assert_int_equal(cgfb_consent_one_way(&e, other, err, sizeof(err)), -EPERM);
	/* Exported (consent for mail is recorded as the e-mail is written):
	 * never to a collector; to other recipients it is the same way. */
	e.state = CGFB_R_CONSENTED;
	snprintf(e.endpoint, sizeof(e.endpoint), "%s", mail);
	assert_int_equal(cgfb_consent_one_way(&e, http, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "was written as an e-mail for linux-mm@kvack.org"));
	assert_int_equal(cgfb_consent_one_way(&e, "mailto:cgroups@vger.kernel.org", err,
					       sizeof(err)), 0);
	e.state = CGFB_R_WITHDRAWN;
	assert_int_equal(cgfb_consent_one_way(&e, http, err, sizeof(err)), -EPERM);
}

/* A mailed report (a person's From:, archived in public) shares no token
 * with the reports of the same machine at a collector; two reports to one
 * endpoint give one name one token, also when the report was consented
 * for the other channel first; the report names the endpoint in a closed
 * form and the time to the hour. */
static void tokens_per_endpoint(void **state)
{
	static const char http[] = "https://collector.example/api/v1/reports?who=jdoe#acme";
	struct cgfb_buf report = { 0 }, a = { 0 }, b = { 0 }, m = { 0 }, h = { 0 }, h2 = { 0 };
	struct cgfb_buf again = { 0 };
	struct cgfb_spool sp;
	struct cgfb_spool_entry e;
	char id[CGFB_REPORT_ID_LEN + 1], tm[15], th[15], t[15];
	json_object *doc;
	char err[256];

	assert_int_equal(cgfb_spool_open(&sp, &sd), 0);
	make_report("M3", id);
	assert_int_equal(cgfb_spool_load(&sp, id, &e, &report), 0);
	with_token(&report, "h:0123456789ab", &a);
	cgfb_buf_free(&report);
	make_report("M3", id);
	assert_int_equal(cgfb_spool_load(&sp, id, &e, &report), 0);
	with_token(&report, "h:0123456789ab", &b);

	consent(&a, "mailto:jdoe@acme.example", &m);
	consent(&b, http, &h);
	assert_int_equal(first_token(m.data, tm), 1);
	assert_int_equal(first_token(h.data, th), 1);
	assert_string_not_equal(tm, "h:0123456789ab");
	assert_string_not_equal(th, "h:0123456789ab");
	assert_string_not_equal(tm, th);
	/* The same name in another report to the collector: the same token. */
	consent(&a, http, &h2);
	assert_int_equal(first_token(h2.data, t), 1);
	assert_string_equal(t, th);
	/* Mailed first, then submitted: the collector's token again. */
	consent(&m, http, &again);
	assert_int_equal(first_token(again.data, t), 1);
	assert_string_equal(t, th);
	/* Closed endpoints, the hour. */
	assert_non_null(strstr(m.data, "\"endpoint\":\"mail\""));
	assert_non_null(strstr(h.data, "\"endpoint\":\"https://collector.example/api/v1/reports\""));
	assert_null(strstr(m.data, "jdoe"));
	assert_null(strstr(h.data, "jdoe"));
	assert_null(strstr(h.data, "acme"));
	assert_int_equal(cgfb_canon_parse(h.data, h.len, CGFB_REPORT_DEPTH_MAX, &doc, err,
					  sizeof(err)), 0);
	assert_int_equal(cgfb_schema_validate(schema, doc, err, sizeof(err)), 0);
	{
		json_object *c = json_object_object_get(doc, "consent");
		const char *created = json_object_get_string(json_object_object_get(doc, "created"));
		const char *at = json_object_get_string(json_object_object_get(c, "time"));

		assert_string_equal(created + 13, ":00:00Z");
		assert_string_equal(at + 13, ":00:00Z");
	}
	json_object_put(doc);
	cgfb_buf_free(&report);
	cgfb_buf_free(&a);
	cgfb_buf_free(&b);
	cgfb_buf_free(&m);
	cgfb_buf_free(&h);
	cgfb_buf_free(&h2);
	cgfb_buf_free(&again);
}

/* A draft survives a save and a load as it was given, file 0600; a
 * damaged one is moved aside, never read as something else. */
static void drafts(void **state)
{
	struct cgfb_draft d = { 0 }, got;
	struct cgfb_spool sp;
	struct stat st;
	char id[CGFB_REPORT_ID_LEN + 1], path[PATH_MAX], name[64];
	struct cgfb_use_case uc;

	make_report("M8", id);
	assert_int_equal(cgfb_spool_open(&sp, &sd), 0);
	assert_int_equal(cgfb_draft_load(&sp, id, &got), 0);
	assert_null(got.text);
	assert_int_equal(got.n, 0);
	assert_int_equal(cgfb_draft_set_text(&d.text, "Gr\xc3\xbc\xc3\x9f" "e: one VM per group"), 0);
	assert_int_equal(cgfb_draft_set_answer(&d, "software", "libvirt"), 0);
	assert_int_equal(cgfb_draft_set_answer(&d, "why_flat", "budgets"), 0);
	assert_int_equal(cgfb_draft_set_answer(&d, "software", "our tool"), 0);
	assert_int_equal(cgfb_draft_set_answer(&d, "why_flat", NULL), 0);
	assert_int_equal(cgfb_draft_keep(&d, "use_case", "ops@example.org and more",
					 "ops@example.org and more", 15), 0);
	assert_int_equal(cgfb_draft_save(&sp, id, &d), 0);
	cgfb_path_join(path, sizeof(path), sp.dir, id, ".draft");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(cgfb_draft_load(&sp, id, &got), 0);
	assert_string_equal(got.text, d.text);
	assert_null(got.message);
	assert_int_equal(got.n, 1);
	assert_string_equal(cgfb_draft_answer(&got, "software"), "our tool");
	assert_null(cgfb_draft_answer(&got, "why_flat"));
	assert_true(cgfb_draft_is_kept(&got, "use_case", "ops@example.org and more",
				       "ops@example.org", 15));
	assert_false(cgfb_draft_is_kept(&got, "use_case", "ops@example.org and more",
					"ops@example.org and", 19));
	cgfb_draft_use_case(&got, &uc);
	assert_ptr_equal(uc.text, got.text);
	assert_int_equal(uc.n_answers, 1);
	assert_string_equal(uc.keys[0], "software");
	cgfb_draft_free(&got);
	/* The listing keeps the draft beside its report. */
	{
		struct cgfb_spool_entry *v = NULL;
		size_t n = 0;

		assert_int_equal(cgfb_spool_list(&sp, &v, &n), 0);
		free(v);
		assert_int_equal(access(path, F_OK), 0);
	}
	/* Damaged: moved to the quarantine, an empty draft instead. */
	assert_int_equal(cgfb_atomic_write(sp.dir, strrchr(path, '/') + 1, "{\"answers\":[1]}", 15,
					   0600), 0);
	assert_int_equal(cgfb_draft_load(&sp, id, &got), 0);
	assert_null(got.text);
	assert_int_equal(got.n, 0);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(name, sizeof(name), "quarantine/%s.draft", id);
	cgfb_path_join(path, sizeof(path), sp.dir, name, NULL);
	assert_int_equal(access(path, F_OK), 0);
	cgfb_draft_free(&d);
}

static void count(const struct cgfb_detection *d, void *arg)
{
	char *ids = arg;

	strcat(ids, d->entry->id);
	strcat(ids, " ");
}

static void scans_logs(void **state)
{
	static const char dmesg[] =
		"[    0.000000] Linux version 6.12.0 (x@y) #1 SMP\n"
		"[    1.000000] eth0: link up\n"
		"[    2.000000] Non-hierarchical mode is deprecated. Please report your usecase to "
		"linux-mm@kvack.org if you depend on this functionality.\n"
		"[    3.000000] audit: comm=\"Non-hierarchical mode is deprecated.\"\n"
		"[    4.000000] soft_limit_in_bytes is deprecated and will be removed. Please report "
		"your usecase to linux-mm@kvack.org if you depend on this functionality.\n";
	static const char negative[] = "Dec  3 10:00:00 host sshd[1]: Accepted key\n"
				       "Dec  3 10:00:01 host kernel: eth0: link up\n";
	struct cgfb_scan_stats st;
	char ids[256] = "";
	char path[PATH_MAX];
	int fd;

	assert_int_equal(cgfb_scan_buffer(dmesg, sizeof(dmesg) - 1, cat, count, ids, &st), 0);
	assert_string_equal(ids, "M8 M3 ");
	assert_int_equal(st.detections, 2);
	assert_int_equal(st.lines, 5);
	ids[0] = '\0';
	assert_int_equal(cgfb_scan_buffer(negative, sizeof(negative) - 1, cat, count, ids, &st), 0);
	assert_string_equal(ids, "");
	assert_int_equal(st.detections, 0);
	/* The same log from a file descriptor (mapped). */
	cgfb_path_join(path, sizeof(path), dir, "dmesg.txt", NULL);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, dmesg, sizeof(dmesg) - 1), (ssize_t)sizeof(dmesg) - 1);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	ids[0] = '\0';
	assert_int_equal(cgfb_scan_fd(fd, cat, count, ids, &st), 0);
	assert_string_equal(ids, "M8 M3 ");
	close(fd);
}

/* Lines the spool logged (on stderr) while fn ran. */
static int logged_lines(void (*fn)(struct cgfb_spool *), struct cgfb_spool *sp, char *last,
			size_t lastsz)
{
	char path[PATH_MAX], line[1024];
	int saved = dup(STDERR_FILENO), fd, n = 0;
	FILE *f;

	cgfb_path_join(path, sizeof(path), dir, "stderr.txt", NULL);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	close(fd);
	fn(sp);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		snprintf(last, lastsz, "%s", line);
		n++;
	}
	fclose(f);
	unlink(path);
	return n;
}

static void list_once(struct cgfb_spool *sp)
{
	struct cgfb_spool_entry *v = NULL;
	size_t n = 0;

	assert_int_equal(cgfb_spool_list(sp, &v, &n), 0);
	assert_int_equal(n, 0);
	free(v);
}

static size_t files_in(const char *sub)
{
	char cmd[PATH_MAX + 64], out[32] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls -A %s/%s | wc -l", dir, sub);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(out, sizeof(out), p));
	pclose(p);
	return (size_t)strtoul(out, NULL, 10);
}

/* 1,500 files that are not reports: one log line for them all, not one a
 * file; quarantine/ takes CGFB_QUARANTINE_MAX and no more, the rest stay
 * where they are, and the next listing says so in one line again. */
static void foreign_files(void **state)
{
	struct cgfb_spool sp;
	char path[PATH_MAX], name[32], last[1024] = "";

	char cmd[PATH_MAX + 32];

	/* A spool of its own: what the tests before left is not foreign. */
	snprintf(cmd, sizeof(cmd), "rm -rf %s/reports", dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(cgfb_spool_open(&sp, &sd), 0);
	for (int i = 0; i < 1500; i++) {
		snprintf(name, sizeof(name), "junk-%04d.txt", i);
		cgfb_path_join(path, sizeof(path), sp.dir, name, NULL);
		close(open(path, O_WRONLY | O_CREAT, 0600));
	}
	assert_int_equal(logged_lines(list_once, &sp, last, sizeof(last)), 1);
	assert_non_null(strstr(last, "1500 files in "));
	assert_non_null(strstr(last, "are not reports of this spool"));
	assert_non_null(strstr(last, "1000 moved to quarantine/, 500 left where they are"));
	assert_int_equal(files_in("reports/quarantine"), CGFB_QUARANTINE_MAX);
	assert_int_equal(files_in("reports"), 500 + 1);    /* and quarantine/ */
	assert_int_equal(logged_lines(list_once, &sp, last, sizeof(last)), 1);
	assert_non_null(strstr(last, "500 files in "));
	assert_non_null(strstr(last, "0 moved to quarantine/, 500 left where they are, unread "
				     "(quarantine/ is full)"));
	assert_int_equal(files_in("reports/quarantine"), CGFB_QUARANTINE_MAX);
	cgfb_spool_close(&sp);
	assert_int_equal(system(cmd), 0);
}

static void count_removed(const char *id, void *ctx)
{
	(*(int *)ctx)++;
}

/* Expiry removes declined and withdrawn reports a year after their last
 * change, with their sidecars, and nothing else: pending, consented and
 * sent reports stay however old. */
static void expiry(void **state)
{
	static const enum cgfb_rstate states[] = { CGFB_R_PENDING, CGFB_R_DECLINED,
						   CGFB_R_CONSENTED, CGFB_R_SENT,
						   CGFB_R_WITHDRAWN };
	char ids[5][CGFB_REPORT_ID_LEN + 1], path[PATH_MAX], cmd[PATH_MAX + 32];
	struct cgfb_spool_entry e;
	struct cgfb_spool sp;
	const long long now = (long long)time(NULL), year = 366LL * 86400;
	size_t n = 0;
	int calls = 0;

	snprintf(cmd, sizeof(cmd), "rm -rf %s/reports", dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(cgfb_spool_open(&sp, &sd), 0);
	for (int i = 0; i < 5; i++) {
		make_report("M8", ids[i]);
		assert_int_equal(cgfb_spool_load(&sp, ids[i], &e, NULL), 0);
		e.state = states[i];
		if (i)
			assert_int_equal(cgfb_spool_save_state(&sp, &e), 0);
		assert_int_equal(cgfb_spool_save_draft(&sp, ids[i], "{}", 2), 0);
	}
	/* Answered today: kept. */
	assert_int_equal(cgfb_spool_expire(&sp, now, count_removed, &calls, &n), 0);
	assert_int_equal(n, 0);
	/* A year and a day later: the declined and the withdrawn one go. */
	assert_int_equal(cgfb_spool_expire(&sp, now + year, count_removed, &calls, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(calls, 2);
	for (int i = 0; i < 5; i++) {
		const bool gone = states[i] == CGFB_R_DECLINED || states[i] == CGFB_R_WITHDRAWN;

		assert_int_equal(cgfb_spool_load(&sp, ids[i], &e, NULL), gone ? -ENOENT : 0);
		cgfb_path_join(path, sizeof(path), sp.dir, ids[i], ".draft");
		assert_int_equal(access(path, F_OK) == 0, !gone);
		cgfb_path_join(path, sizeof(path), sp.dir, ids[i], ".state");
		assert_int_equal(access(path, F_OK) == 0, !gone && i != 0);
	}
	cgfb_spool_close(&sp);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(spool_states),
		cmocka_unit_test(state_once),
		cmocka_unit_test(consent_bytes),
		cmocka_unit_test(one_way),
		cmocka_unit_test(tokens_per_endpoint),
		cmocka_unit_test(drafts),
		cmocka_unit_test(scans_logs),
		cmocka_unit_test(foreign_files),
		cmocka_unit_test(expiry),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
