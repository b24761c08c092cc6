#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cgfb/schema.h"
#include "snapshot/analysis.h"
#include "report/report.h"
#include "report/report_detection.h"
#include "privacy/vocab.h"
#include "report/report_system.h"

static struct cgfb_catalog *cat;
static struct cgfb_allowlist *al;
static struct cgfb_anon *anon;
static struct cgfb_schema *schema;

static int setup(void **state)
{
	uint8_t key[CGFB_SECRET_LEN] = { 1, 2, 3 };
	char err[256];

	cat = test_catalog();
	if (cgfb_allowlist_load(&al, NULL, err, sizeof(err)) < 0 ||
	    cgfb_schema_load_builtin(&schema, err, sizeof(err)) < 0)
		return -1;
	return cgfb_anon_new(key, al, &anon);
}

static int teardown(void **state)
{
	cgfb_anon_free(anon);
	cgfb_allowlist_free(al);
	cgfb_schema_free(schema);
	cgfb_catalog_free(cat);
	return 0;
}

static void keep(const struct cgfb_detection *d, void *arg)
{
	struct cgfb_detection *out = arg;

	if (!out->entry)
		*out = *d;
}

/* The detection the real detector makes of one kernel record. */
static struct cgfb_detection detect(const char *text)
{
	struct cgfb_detection d = { 0 };
	struct cgfb_detector *det;
	struct cgfb_record r = { .text = text, .len = strlen(text), .level = 4 };

	assert_int_equal(cgfb_detector_new(cat, keep, &d, &det), 0);
	cgfb_detector_feed(det, &r);
	cgfb_detector_finish(det);
	cgfb_detector_free(det);
	assert_non_null(d.entry);
	return d;
}

/* The detection of several records fed in order (a WARN block). */
static struct cgfb_detection detect_all(const char *const *texts, size_t n)
{
	struct cgfb_detection d = { 0 };
	struct cgfb_detector *det;

	assert_int_equal(cgfb_detector_new(cat, keep, &d, &det), 0);
	for (size_t i = 0; i < n; i++) {
		struct cgfb_record r = { .text = texts[i], .len = strlen(texts[i]), .level = 4 };

		cgfb_detector_feed(det, &r);
	}
	cgfb_detector_finish(det);
	cgfb_detector_free(det);
	assert_non_null(d.entry);
	return d;
}

/* Neither the message nor the fields of the detection of texts hold any of
 * the planted strings. */
static void assert_clean(const char *const *texts, size_t n, const char *want_id,
			 const char *const *planted)
{
	struct cgfb_detection d = detect_all(texts, n);
	json_object *o = cgfb_report_detection(schema, d.entry, &d, "kmsg", anon);
	const char *js = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	char err[256];

	assert_string_equal(d.entry->id, want_id);
	for (const char *const *p = planted; *p; p++)
		if (strstr(js, *p))
			fail_msg("%s: planted \"%s\" reached %s", want_id, *p, js);
	/* And what is sent is what the collector accepts. */
	json_object *doc = json_object_new_object();

	json_object_object_add(doc, "detection", json_object_get(o));
	assert_int_equal(cgfb_schema_check_def(schema, "detection", o), 0);
	(void)err;
	json_object_put(doc);
	json_object_put(o);
}

static void message_of(const char *text, char *out, size_t sz)
{
	const struct cgfb_detection d = detect(text);

	cgfb_report_message(schema, d.entry, &d, anon, out, sz);
}

static void pids_and_comms(void **state)
{
	char msg[4200], tok[CGFB_ANON_MAX];

	message_of("cgroup: runc (4918) created nested cgroup for controller \"memory\" which has "
		   "incomplete hierarchy support. Nested cgroups may change behavior in the future.",
		   msg, sizeof(msg));
	/* The catalog's wording, whatever prefix the record had. */
	assert_string_equal(msg, "runc (N) created nested cgroup for controller \"memory\" "
			    "which has incomplete hierarchy support. Nested cgroups may change "
			    "behavior in the future.");
	/* runc's children rename themselves: generalised back to runc. */
	message_of("cgroup: runc:[2:INIT] (4920) created nested cgroup for controller \"memory\" "
		   "which has incomplete hierarchy support. Nested cgroups may change behavior in "
		   "the future.", msg, sizeof(msg));
	assert_int_equal(strncmp(msg, "runc (N) created", 16), 0);
	message_of("billing-job (31337): memory.force_empty is deprecated and will be removed.  Let "
		   "us know if it is needed in your usecase at linux-mm@kvack.org", msg, sizeof(msg));
	cgfb_anon_comm(anon, "billing-job", 11, tok);
	assert_int_equal(strncmp(msg, tok, strlen(tok)), 0);
	assert_string_equal(msg + strlen(tok), " (N): memory.force_empty is deprecated and will be "
			    "removed. Let us know if it is needed in your usecase at linux-mm@kvack.org.");
	message_of("option changes via remount are deprecated (pid=1 comm=systemd)", msg, sizeof(msg));
	assert_string_equal(msg, "option changes via remount are deprecated (pid=N comm=systemd)");
	/* Text without a process stays as the kernel wrote it. */
	message_of("Non-hierarchical mode is deprecated. Please report your usecase to "
		   "linux-mm@kvack.org if you depend on this functionality.", msg, sizeof(msg));
	assert_string_equal(msg, "Non-hierarchical mode is deprecated. Please report your usecase "
			    "to linux-mm@kvack.org if you depend on this functionality.");
}

/* The G1 net: words with digits, paths, addresses, host names lose them. */
static void free_text(void **state)
{
	char msg[4200];

	message_of("memcg 42 of db1.corp.example at /srv/x (10.0.0.1, fe80::1) needs memory.high; "
		   "ask cgroups@vger.kernel.org", msg, sizeof(msg));
	assert_string_equal(msg, "memcg N of _ at _ (_, _ N) needs memory.high; ask "
			    "cgroups@vger.kernel.org");
}

static void fields(void **state)
{
	struct cgfb_detection d = detect("cgroup: acme-agent (77) created nested cgroup for "
					 "controller \"memory\" which has incomplete hierarchy "
					 "support. Nested cgroups may change behavior in the future.");
	json_object *o, *f;
	char tok[CGFB_ANON_MAX];

	cgfb_fields_set(&d.fields, "caller", "T77", 3);
	cgfb_fields_set(&d.fields, "release", "6.1.0-acme", 10);
	cgfb_fields_set(&d.fields, "kernel_file", "/home/abuild/mm/memcontrol.c", 28);
	cgfb_fields_set(&d.fields, "function", "css_create", 10);
	cgfb_fields_set(&d.fields, "kernel_line", "5007", 4);
	cgfb_fields_set(&d.fields, "taint", "GW", 2);
	o = cgfb_report_detection(schema, d.entry, &d, "kmsg", anon);
	f = json_object_object_get(o, "fields");
	cgfb_anon_comm(anon, "acme-agent", 10, tok);
	assert_string_equal(json_object_get_string(json_object_object_get(f, "comm")), tok);
	assert_string_equal(json_object_get_string(json_object_object_get(f, "controller")), "memory");
	assert_int_equal(json_object_get_int(json_object_object_get(f, "kernel_line")), 5007);
	assert_string_equal(json_object_get_string(json_object_object_get(f, "taint")), "GW");
	/* Outside the schema, or not the right shape: never in a report. */
	assert_null(json_object_object_get(f, "pid"));
	assert_null(json_object_object_get(f, "caller"));
	assert_null(json_object_object_get(f, "release"));
	/* From the top of the kernel tree, whatever the build directory. */
	assert_string_equal(json_object_get_string(json_object_object_get(f, "kernel_file")),
			    "mm/memcontrol.c");
	assert_string_equal(json_object_get_string(json_object_object_get(f, "function")),
			    "css_create");
	assert_int_equal(json_object_get_int(json_object_object_get(o, "count")), 1);
	json_object_put(o);
}

/* Hostile records: identifying strings in every place a kernel message can
 * carry them. None reaches the detection member of a report. */
static void hostile_messages(void **state)
{
	static const char *const planted[] = { "acme", "jdoe", "ACME", "secret", "4711",
					       "10.9.8.7", "\xc3", "\x1b", NULL };
	/* comm cut by the kernel inside a multi-byte character, and one with
	 * control bytes: neither may fall back to free text. */
	const char *c1_utf8[] = { "cgroup: acme-db\xc3 (4711) created nested cgroup for controller "
				  "\"memory\" which has incomplete hierarchy support. Nested "
				  "cgroups may change behavior in the future." };
	const char *c1_ctrl[] = { "cgroup: acme\x1b[1m (4711) created nested cgroup for controller "
				  "\"memory\" which has incomplete hierarchy support. Nested "
				  "cgroups may change behavior in the future." };
	/* A controller that is not one is a name. */
	const char *c1_name[] = { "cgroup: runc (4711) created nested cgroup for controller "
				  "\"acme_secret\" which has incomplete hierarchy support. Nested "
				  "cgroups may change behavior in the future." };
	const char *s2[] = { "acme\xe2\x82 (4711): memory.force_empty is deprecated and will be "
			     "removed.  Let us know if it is needed in your usecase at "
			     "linux-mm@kvack.org" };
	const char *v1[] = { "cpuset.acme_secret is deprecated, use /home/jdoe/acme instead" };
	const char *c2[] = { "cgroup: \"acme_secret\" requires setting use_hierarchy to 1 on the root." };
	/* Uncatalogued: the safety net keeps only vocabulary words. */
	const char *g1[] = { "acme-db01 (4711): memory.acme_customer_secret broke at "
			     "/home/jdoe/x 10.9.8.7 for jdoe@acme.example, tell linux-mm@kvack.org" };
	/* Text after a catalog wording makes it another message. */
	const char *p2[] = { "Setting this file to 0 (flat hierarchy) is considered deprecated. "
			     "acme secret, contact linux-mm@kvack.org" };
	/* A WARN block built in /srv/.../jdoe/acme-kernel, and one from an
	 * out-of-tree module whose file and symbol are its own. */
	const char *warn[] = {
		"------------[ cut here ]------------",
		"WARNING: CPU: 1 PID: 4711 at /srv/linux-builds/jdoe/acme-kernel/mm/memcontrol.c:5001 "
		"mem_cgroup_css_alloc+0x1a/0x2b0 [acme_mod]",
		"Creating hierarchies with use_hierarchy==0 (flat hierarchy) is considered "
		"deprecated. If you believe that your setup is correct, we kindly ask you to "
		"contact linux-mm@kvack.org and let us know",
		"---[ end trace 0000000000000000 ]---",
	};
	/* A kernel file of the list, and someone's own debugging hook in it. */
	const char *warn_hook[] = {
		"------------[ cut here ]------------",
		"WARNING: CPU: 1 PID: 4711 at mm/memcontrol.c:5001 jdoe_debug_hook+0x1a/0x2b0",
		"Creating hierarchies with use_hierarchy==0 (flat hierarchy) is considered "
		"deprecated. If you believe that your setup is correct, we kindly ask you to "
		"contact linux-mm@kvack.org and let us know",
		"---[ end trace 0000000000000000 ]---",
	};
	const char *warn_mod[] = {
		"------------[ cut here ]------------",
		"WARNING: CPU: 1 PID: 4711 at /home/jdoe/acme_mod/acme_secret.c:12 "
		"acme_secret_init+0x1a/0x2b0 [acme_mod]",
		"Creating hierarchies with use_hierarchy==0 (flat hierarchy) is considered "
		"deprecated. If you believe that your setup is correct, we kindly ask you to "
		"contact linux-mm@kvack.org and let us know",
		"---[ end trace 0000000000000000 ]---",
	};

	assert_clean(c1_utf8, 1, "C1", planted);
	assert_clean(c1_ctrl, 1, "C1", planted);
	assert_clean(c1_name, 1, "C1", planted);
	assert_clean(s2, 1, "S2", planted);
	assert_clean(v1, 1, "V1", planted);
	assert_clean(c2, 1, "C2", planted);
	assert_clean(g1, 1, "G1", planted);
	assert_clean(p2, 1, "G1", planted);
	assert_clean(warn, 4, "S1", planted);
	assert_clean(warn_mod, 4, "S1", planted);
	assert_clean(warn_hook, 4, "S1", planted);
}

static void warn_site(void **state)
{
	const char *warn[] = {
		"------------[ cut here ]------------",
		"WARNING: CPU: 1 PID: 4711 at /srv/linux-builds/jdoe/acme-kernel/mm/memcontrol.c:5001 "
		"mem_cgroup_css_alloc.isra.0+0x1a/0x2b0",
		"Creating hierarchies with use_hierarchy==0 (flat hierarchy) is considered "
		"deprecated. If you believe that your setup is correct, we kindly ask you to "
		"contact linux-mm@kvack.org and let us know",
		"---[ end trace 0000000000000000 ]---",
	};
	struct cgfb_detection d = detect_all(warn, 4);
	json_object *o = cgfb_report_detection(schema, d.entry, &d, "kmsg", anon);
	json_object *f = json_object_object_get(o, "fields");
	char msg[2048];

	assert_string_equal(json_object_get_string(json_object_object_get(f, "kernel_file")),
			    "mm/memcontrol.c");
	assert_string_equal(json_object_get_string(json_object_object_get(f, "function")),
			    "mem_cgroup_css_alloc");
	assert_int_equal(json_object_get_int(json_object_object_get(f, "kernel_line")), 5001);
	cgfb_report_message(schema, d.entry, &d, anon, msg, sizeof(msg));
	assert_string_equal(msg, d.entry->message);
	json_object_put(o);
}

/* Captures outside the closed lists: a token in the message, a placeholder
 * in the fields. */
static void closed_captures(void **state)
{
	char msg[2048], tok[CGFB_ANON_MAX];
	struct cgfb_detection d;
	json_object *o, *f;

	message_of("cgroup: runc (1) created nested cgroup for controller \"acme_secret\" which "
		   "has incomplete hierarchy support. Nested cgroups may change behavior in the "
		   "future.", msg, sizeof(msg));
	cgfb_anon_token(anon, "acme_secret", 11, tok);
	assert_non_null(strstr(msg, tok));
	message_of("cpuset.sched_load_balance is deprecated, use cpuset.cpus.partition instead",
		   msg, sizeof(msg));
	assert_string_equal(msg, "cpuset.sched_load_balance is deprecated, use "
			    "cpuset.cpus.partition instead");
	message_of("cpuset.mem_exclusive is deprecated", msg, sizeof(msg));
	assert_string_equal(msg, "cpuset.mem_exclusive is deprecated");
	d = detect("cpuset.acme is deprecated, use acme instead");
	o = cgfb_report_detection(schema, d.entry, &d, "kmsg", anon);
	f = json_object_object_get(o, "fields");
	assert_string_equal(json_object_get_string(json_object_object_get(f, "knob")), "other");
	assert_string_equal(json_object_get_string(json_object_object_get(f, "replacement")),
			    "other");
	assert_string_equal(json_object_get_string(json_object_object_get(o, "message")),
			    "other is deprecated, use other instead");
	json_object_put(o);
}

/* Every catalog entry's own controller and knob are in the schema's lists,
 * and every entry renders a message the schema accepts. */
static void catalog_in_vocabulary(void **state)
{
	for (size_t i = 0; i < cat->n; i++) {
		const struct cgfb_entry *e = &cat->entries[i];

		if (e->controller)
			assert_non_null(cgfb_vocab_or(schema, "controller", e->controller, NULL));
		if (e->knob)
			assert_non_null(cgfb_vocab_or(schema, "knob", e->knob, NULL));
	}
}

static void release_is(const char *uname, const char *want)
{
	char out[65];

	cgfb_report_release(schema, uname, out);
	if (strcmp(out, want) != 0)
		fail_msg("uname -r %s gave %s, want %s", uname, out, want);
}

/* Distribution kernels keep their flavour; a local suffix is "custom". */
static void kernel_releases(void **state)
{
	release_is("6.1.0-28-cloud-amd64", "6.1.0-28-cloud-amd64");
	release_is("6.1.0-28-amd64", "6.1.0-28-amd64");
	release_is("6.8.0-45-generic", "6.8.0-45-generic");
	release_is("6.15.4-200.fc42.x86_64", "6.15.4-N.fc42.x86_64");
	release_is("6.11.4-301.fc41.x86_64", "6.11.4-N.fc41.x86_64");
	release_is("4.18.0-553.el8_10.x86_64", "4.18.0-N.el8_10.x86_64");
	release_is("6.12.0", "6.12.0");
	release_is("6.13.0-rc3", "6.13.0-rc3");
	release_is("6.1.0-acmedb01-build", "6.1.0-custom");
	release_is("6.1.0-28-acme-amd64", "6.1.0-custom");
	release_is("6.6.7+", "6.6.7-custom");
	release_is("5.10.0-rc2-jdoe", "5.10.0-rc2-custom");
	release_is("acme", "0.0-custom");
	release_is("6.1.0-28-amd64-acme", "6.1.0-custom");
}

/* A distribution's shape with numbers it did not publish (a local rebuild)
 * keeps the upstream version and the flavour, and the build number only as
 * far as data/kernels.json vouches for it; the result is in the schema. */
static void kernel_release_numbers(void **state)
{
	/* Published (each end of a Debian range; Ubuntu ABIs its indices
	 * name, for the flavour they name them with; the tests' fixtures). */
	release_is("6.1.0-1-amd64", "6.1.0-1-amd64");
	release_is("6.1.0-57-amd64", "6.1.0-57-amd64");
	release_is("5.10.0-32-amd64", "5.10.0-32-amd64");
	release_is("5.4.0-150-generic", "5.4.0-150-generic");
	release_is("5.15.0-143-generic", "5.15.0-143-generic");
	release_is("5.15.0-1045-aws", "5.15.0-1045-aws");
	/* Invented: beyond a range, an upstream the table has no entry for,
	 * a number Ubuntu skipped inside its published span (5.4.0-27: the
	 * index names 26 and 28), a cloud ABI with the generic flavour. */
	release_is("6.1.0-1337-amd64", "6.1.0-N-amd64");
	release_is("6.1.0-58-amd64", "6.1.0-N-amd64");
	release_is("6.1.0-0-amd64", "6.1.0-N-amd64");
	release_is("6.2.0-1-amd64", "6.2.0-N-amd64");
	release_is("6.8.0-999-generic", "6.8.0-N-generic");
	release_is("5.4.0-25-generic", "5.4.0-N-generic");
	release_is("5.4.0-27-generic", "5.4.0-N-generic");
	release_is("5.15.0-1046-aws", "5.15.0-N-aws");
	release_is("5.15.0-1045-generic", "5.15.0-N-generic");
	/* Families the table has no source for: every build number, and a
	 * dotted sub-build with it (Debian 10: buster's indices were not
	 * reachable; RHEL, Fedora, SUSE, Arch, Amazon, WSL: no list read). */
	release_is("4.19.0-27-amd64", "4.19.0-N-amd64");
	release_is("5.14.0-427.13.1.el9_4.x86_64", "5.14.0-N.el9_4.x86_64");
	release_is("5.14.0-99999.1.2.el9_4.x86_64", "5.14.0-N.el9_4.x86_64");
	release_is("4.18.0-553.el8_10.aarch64", "4.18.0-N.el8_10.aarch64");
	release_is("6.15.4-1337.fc42.x86_64", "6.15.4-N.fc42.x86_64");
	release_is("5.14.21-150500.55.65-default", "5.14.21-N-default");
	release_is("6.12.4-arch1-1", "6.12.4-archN-N");
	release_is("6.6.30-1-lts", "6.6.30-N-lts");
	release_is("6.1.109-118.189.amzn2023.x86_64", "6.1.109-N.amzn2023.x86_64");
	release_is("5.15.153.1-microsoft-standard-WSL2", "5.15.153.N-microsoft-standard-WSL2");
	/* Already general: a fixed point. */
	release_is("6.1.0-N-amd64", "6.1.0-N-amd64");
	release_is("5.14.0-N.el9_4.x86_64", "5.14.0-N.el9_4.x86_64");
	/* The schema takes the general forms and nothing looser. */
	assert_int_equal(cgfb_schema_check_word(schema, "kernel_release", "6.1.0-N-amd64"), 0);
	assert_int_equal(cgfb_schema_check_word(schema, "kernel_release",
						"5.14.0-427.N.el9_4.x86_64"), 0);
	assert_int_not_equal(cgfb_schema_check_word(schema, "kernel_release", "6.1.0-NN-amd64"), 0);
	assert_int_not_equal(cgfb_schema_check_word(schema, "kernel_release", "6.1.0-x-amd64"), 0);
	assert_int_not_equal(cgfb_schema_check_word(schema, "kernel_release",
						    "5.14.0-N.13.el9_4.x86_64"), 0);
	assert_int_not_equal(cgfb_schema_check_word(schema, "kernel_release", "6.12.4-archN-1"),
			     0);
}

/* os-release and /proc/cmdline values outside the vocabularies. */
static void hostile_profile(void **state)
{
	struct cgfb_profile p = { .init = "systemd" };
	const char *cmd = "BOOT_IMAGE=/vmlinuz-acme root=/dev/acme swapaccount=0 psi=acme "
			  "cgroup_no_v1=memory,acme_ctl,all cgroup.memory=nokmem,acmeflag "
			  "systemd.unified_cgroup_hierarchy=false cgroup_enable=jdoe";
	json_object *sys, *cl;
	const char *js;

	snprintf(p.release, sizeof(p.release), "6.1.0-acmedb01-build");
	snprintf(p.series, sizeof(p.series), "6.1");
	snprintf(p.arch, sizeof(p.arch), "x86_64");
	cgfb_os_release_parse(S("ID=acme-linux\nVERSION_ID=\"jdoe-7\"\n"), p.distro_id,
			      p.distro_version);
	assert_int_equal(cgfb_cmdline_parse(cmd, strlen(cmd), &p.cmdline), 0);
	p.hw.virt = "kvm";
	sys = cgfb_report_system(schema, &p, CGFB_MODE_LEGACY);
	js = json_object_to_json_string_ext(sys, JSON_C_TO_STRING_PLAIN);
	assert_null(strstr(js, "acme"));
	assert_null(strstr(js, "jdoe"));
	assert_int_equal(cgfb_schema_check_def(schema, "system", sys), 0);
	cl = json_object_object_get(sys, "cmdline");
	assert_string_equal(json_object_get_string(json_object_object_get(cl, "swapaccount")), "0");
	assert_string_equal(json_object_get_string(json_object_object_get(cl, "psi")), "other");
	assert_string_equal(json_object_get_string(json_object_object_get(cl, "cgroup_no_v1")),
			    "memory,other,all");
	assert_string_equal(json_object_get_string(json_object_object_get(cl, "cgroup.memory")),
			    "nokmem,other");
	assert_string_equal(json_object_get_string(json_object_object_get(
		cl, "systemd.unified_cgroup_hierarchy")), "false");
	assert_string_equal(json_object_get_string(json_object_object_get(
		json_object_object_get(sys, "distribution"), "id")), "other");
	assert_string_equal(json_object_get_string(json_object_object_get(
		json_object_object_get(sys, "distribution"), "version_id")), "other");
	json_object_put(sys);
	cgfb_cmdline_free(&p.cmdline);
}

/* A tree far over the byte cap: 20,000 cgroups with every attribute (some
 * 3 MB of nodes; small enough for valgrind). */
#define BIG_NODES 20000
static void big_topology(struct cgfb_topology *t, struct cgfb_analysis *an)
{
	struct cgfb_hier *h = &t->h[0];

	memset(t, 0, sizeof(*t));
	t->n = 1;
	t->mode = CGFB_MODE_LEGACY;
	t->max_nodes = CGFB_TOPO_MAX_NODES;
	h->version = 1;
	h->controllers = 1u << CGFB_C_MEMORY;
	h->n = h->total = BIG_NODES;
	h->nodes = calloc(h->n, sizeof(*h->nodes));
	for (size_t i = 0; i < h->n; i++) {
		struct cgfb_node *n = &h->nodes[i];

		n->parent = i ? (uint32_t)((i - 1) / 8) : CGFB_NO_PARENT;
		n->depth = i ? h->nodes[n->parent].depth + 1 : 0;
		n->children = i < BIG_NODES / 8 ? 8 : 0;
		n->tasks = i % 37;
		cgfb_anon_token(anon, (const char *)&i, sizeof(i), n->name);
		for (int a = 0; a <= CGFB_A_SWAPPINESS; a++) {
			n->have |= 1u << a;
			n->v[a] = a == CGFB_A_USE_HIERARCHY ? 0 : (a >= CGFB_A_OOM_KILL_DISABLE ? 1 :
								   (uint64_t)(i + 1) << 20);
		}
		if (i > 0)
			h->max_depth = n->depth > h->max_depth ? n->depth : h->max_depth;
	}
	/* The analysis names nodes deep in the tree: they must stay listed. */
	assert_int_equal(cgfb_analyse(t, cgfb_catalog_find(cat, "M8"), NULL, NULL, an), 0);
}

/* The first flat subtree's node, or the first of its children. */
static int64_t flat0(json_object *doc, const char *key)
{
	json_object *f = json_object_array_get_idx(json_object_object_get(json_object_object_get(
		doc, "analysis"), "flat_subtrees"), 0);
	json_object *v = json_object_object_get(f, key);

	if (json_object_is_type(v, json_type_array))
		v = json_object_array_get_idx(v, 0);
	return json_object_get_int64(v);
}

static bool listed(json_object *h, int64_t id)
{
	json_object *nodes = json_object_object_get(h, "nodes");

	for (size_t i = 0; i < json_object_array_length(nodes); i++)
		if (json_object_get_int64(json_object_object_get(json_object_array_get_idx(nodes, i),
								 "id")) == id)
			return true;
	return false;
}

static void size_cap(void **state)
{
	struct cgfb_topology t;
	struct cgfb_analysis an;
	struct cgfb_profile p = { .release = "6.1.0-13-amd64", .series = "6.1", .arch = "x86_64",
				  .distro_id = "debian", .distro_version = "12",
				  .hw = { 64, 2, (uint64_t)256 << 30, "none" }, .init = "systemd" };
	struct cgfb_report_in in = { .entry = cgfb_catalog_find(cat, "M8"), .source = "kmsg",
				     .profile = &p, .topo = &t, .an = &an, .anon = anon,
				     .now = 1700000000 };
	struct cgfb_buf b = { 0 };
	json_object *doc, *h;
	char id[CGFB_UUID_LEN + 1], err[256];
	size_t caps[] = { CGFB_REPORT_MAX_BYTES, 40000 };

	big_topology(&t, &an);
	assert_int_equal(an.n_flat, CGFB_FLAT_MAX);
	for (size_t c = 0; c < sizeof(caps) / sizeof(caps[0]); c++) {
		assert_int_equal(cgfb_report_make(&in, schema, caps[c], &b, id, err, sizeof(err)), 0);
		assert_true(b.len <= caps[c]);
		assert_int_equal(cgfb_canon_parse(b.data, b.len, CGFB_REPORT_DEPTH_MAX, &doc, err,
						  sizeof(err)), 0);
		h = json_object_array_get_idx(json_object_object_get(json_object_object_get(doc,
								"topology"), "hierarchies"), 0);
		assert_int_equal(json_object_get_int(json_object_object_get(h, "nodes_total")),
				 BIG_NODES);
		assert_string_equal(json_object_get_string(json_object_object_get(
			json_object_object_get(h, "cut"), "reason")), "size_cap");
		/* The first flat subtree's node and children are listed, whatever the cap. */
		assert_true(listed(h, flat0(doc, "node")));
		assert_true(listed(h, flat0(doc, "children")));
		assert_string_equal(json_object_get_string(json_object_object_get(doc, "report_id")), id);
		/* To the hour: 22:13:20 would help say which machine it was. */
		assert_string_equal(json_object_get_string(json_object_object_get(doc, "created")),
				    "2023-11-14T22:00:00Z");
		json_object_put(doc);
	}
	/* A cap nothing fits in is an error, not a broken report. */
	assert_int_equal(cgfb_report_make(&in, schema, 500, &b, id, err, sizeof(err)), -E2BIG);
	assert_non_null(strstr(err, "500"));
	cgfb_buf_free(&b);
	cgfb_analysis_free(&an);
	cgfb_topology_free(&t);
}

static void uuids(void **state)
{
	char a[CGFB_UUID_LEN + 1], b[CGFB_UUID_LEN + 1];

	assert_int_equal(cgfb_uuid4(a), 0);
	assert_int_equal(cgfb_uuid4(b), 0);
	assert_int_equal(strlen(a), 36);
	assert_int_equal(a[14], '4');
	assert_non_null(strchr("89ab", a[19]));
	assert_string_not_equal(a, b);
}


/* A report's detection says what the log can tell (issue 42): G1's contact
 * is the address its message named; M4's title says "write or
 * event_control" instead of guessing one of its two call sites; a record
 * without a level (dmesg) gets its call site's (V1 memory_spread_slab: 4). */
static void contact_title_and_level(void **state)
{
	struct cgfb_detection d = detect("acme: tell cgroups@vger.kernel.org about this");
	json_object *o = cgfb_report_detection(schema, d.entry, &d, "kmsg", anon);

	assert_string_equal(d.entry->id, "G1");
	assert_string_equal(json_object_get_string(json_object_object_get(o, "contact")),
			    "cgroups@vger.kernel.org");
	json_object_put(o);
	d = detect("oom_control is deprecated and will be removed. Please report your usecase "
		   "to linux-mm-@kvack.org if you depend on this functionality.");
	o = cgfb_report_detection(schema, d.entry, &d, "kmsg", anon);
	assert_string_equal(json_object_get_string(json_object_object_get(o, "catalog_id")), "M4");
	assert_string_equal(json_object_get_string(json_object_object_get(o, "contact")),
			    "linux-mm@kvack.org");
	assert_non_null(strstr(json_object_get_string(json_object_object_get(o, "title")),
			       "write or event_control"));
	json_object_put(o);
	d = detect("cpuset.memory_spread_slab is deprecated");
	d.level = -1;
	o = cgfb_report_detection(schema, d.entry, &d, "file", anon);
	assert_int_equal(json_object_get_int(json_object_object_get(o, "level")), 4);
	json_object_put(o);
}


/* The sound of the break (issue 42 part 2): the kernel's refused v1 mount
 * is a report like any other, valid for the collector, with the break's
 * own questions. */
static void break_report(void **state)
{
	struct cgfb_detection d = detect("cgroup: Unknown subsys name 'memory'");
	json_object *o = cgfb_report_detection(schema, d.entry, &d, "kmsg", anon);
	json_object *f = json_object_object_get(o, "fields");

	assert_string_equal(d.entry->id, "B1");
	assert_string_equal(json_object_get_string(json_object_object_get(f, "controller")),
			    "memory");
	assert_string_equal(json_object_get_string(json_object_object_get(o, "message")),
			    "Unknown subsys name 'memory'");
	assert_int_equal(cgfb_schema_check_def(schema, "detection", o), 0);
	assert_string_equal(d.entry->questions->name, "break");
	assert_string_equal(d.entry->questions->q[0].key, "v1_user");
	assert_string_equal(d.entry->questions->q[1].key, "went_back");
	assert_non_null(strstr(d.entry->explain, "cgroup-feedback check"));
	json_object_put(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pids_and_comms),
		cmocka_unit_test(free_text),
		cmocka_unit_test(fields),
		cmocka_unit_test(hostile_messages),
		cmocka_unit_test(warn_site),
		cmocka_unit_test(closed_captures),
		cmocka_unit_test(catalog_in_vocabulary),
		cmocka_unit_test(kernel_releases),
		cmocka_unit_test(kernel_release_numbers),
		cmocka_unit_test(hostile_profile),
		cmocka_unit_test(size_cap),
		cmocka_unit_test(uuids),
		cmocka_unit_test(contact_title_and_level),
		cmocka_unit_test(break_report),
	};

	return cmocka_run_group_tests_name("report", tests, setup, teardown);
}
