#include "testutil.h"

#include <stdio.h>

#include "detect/detect.h"

#define MAXD 16

struct sink {
	unsigned n;
	struct cgfb_detection d[MAXD];
};

static void collect(const struct cgfb_detection *d, void *arg)
{
	struct sink *s = arg;

	if (s->n < MAXD)
		s->d[s->n] = *d;
	s->n++;
}

static struct cgfb_catalog *cat;

static int setup(void **state)
{
	cat = test_catalog();
	return 0;
}

static int teardown(void **state)
{
	cgfb_catalog_free(cat);
	return 0;
}

static void feed(struct cgfb_detector *d, const char *text, int facility)
{
	struct cgfb_record r = { .text = text, .len = strlen(text), .level = 4,
				 .facility = facility };

	cgfb_detector_feed(d, &r);
}

static const char M8[] = "Non-hierarchical mode is deprecated. Please report your usecase to "
			 "linux-mm@kvack.org if you depend on this functionality.";
static const char M4[] = "oom_control is deprecated and will be removed. Please report your "
			 "usecase to linux-mm-@kvack.org if you depend on this functionality. ";
static const char S1[] = "Creating hierarchies with use_hierarchy==0 (flat hierarchy) is "
			 "considered deprecated. If you believe that your setup is correct, we "
			 "kindly ask you to contact linux-mm@kvack.org and let us know";

static void counts_repeats_per_boot(void **state)
{
	struct sink s = { 0 };
	struct cgfb_detector *d;

	assert_int_equal(cgfb_detector_new(cat, collect, &s, &d), 0);
	feed(d, M8, 0);
	feed(d, M8, 0);
	feed(d, "Linux version 6.1.0", 0);
	feed(d, M8, 0);
	cgfb_detector_finish(d);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.d[0].entry->id, "M8");
	assert_int_equal(s.d[0].occurrence, 1);
	assert_int_equal(s.d[1].occurrence, 2);
	assert_int_equal(s.d[2].occurrence, 1);
	assert_int_equal(cgfb_detector_count(d, "M8"), 1);
	cgfb_detector_free(d);
}

/* What the log shows of a boot travels with each detection: its banner's
 * release and its command line, both forgotten at the next boot's banner;
 * nothing before the log shows them (issue 38). */
static void remembers_the_boot_as_shown(void **state)
{
	struct sink s = { 0 };
	struct cgfb_detector *d;

	assert_int_equal(cgfb_detector_new(cat, collect, &s, &d), 0);
	feed(d, M8, 0);
	feed(d, "Linux version 6.1.0-28-amd64 (debian-kernel@lists.debian.org) (gcc-12) #1 SMP", 0);
	feed(d, "Command line: BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro cgroup_no_v1=all", 0);
	feed(d, M8, 0);
	feed(d, "Linux version 6.12.9 (builder@host) #1", 0);
	feed(d, M8, 0);
	feed(d, "Kernel command line: psi=1", 0);
	feed(d, M8, 0);
	cgfb_detector_finish(d);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.d[0].boot.release, "");
	assert_string_equal(s.d[0].boot.cmdline, "");
	assert_string_equal(s.d[1].boot.release, "6.1.0-28-amd64");
	assert_string_equal(s.d[1].boot.cmdline, "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro cgroup_no_v1=all");
	assert_string_equal(s.d[2].boot.release, "6.12.9");
	assert_string_equal(s.d[2].boot.cmdline, "");
	assert_string_equal(s.d[3].boot.cmdline, "psi=1");
	cgfb_detector_free(d);
}

static void second_call_site(void **state)
{
	struct sink s = { 0 };
	struct cgfb_detector *d;

	assert_int_equal(cgfb_detector_new(cat, collect, &s, &d), 0);
	feed(d, M4, 0);
	feed(d, M4, 0);
	cgfb_detector_finish(d);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.d[0].entry->id, "M4");
	assert_string_equal(s.d[1].entry->id, "M5");
	assert_int_equal(s.d[1].occurrence, 1);
	/* A restarted watcher that already saw M4 calls the next one M5. */
	s.n = 0;
	cgfb_detector_free(d);
	assert_int_equal(cgfb_detector_new(cat, collect, &s, &d), 0);
	cgfb_detector_set_count(d, "M4", 1);
	feed(d, M4, 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.d[0].entry->id, "M5");
	cgfb_detector_free(d);
}

static void ignores_userspace(void **state)
{
	struct sink s = { 0 };
	struct cgfb_detector *d;

	assert_int_equal(cgfb_detector_new(cat, collect, &s, &d), 0);
	feed(d, M8, 1);
	feed(d, M8, 3);
	cgfb_detector_finish(d);
	assert_int_equal(s.n, 0);
	feed(d, M8, -1);
	assert_int_equal(s.n, 1);
	cgfb_detector_free(d);
}

static void warn_block_context(void **state)
{
	static const char *const block[] = {
		"------------[ cut here ]------------",
		"WARNING: at mm/memcontrol.c:5007 mem_cgroup_create+0x3ac/0x510()",
		"Hardware name: X",
		S1,
		"Modules linked in: a b",
		"Pid: 4242, comm: libvirtd Not tainted 3.0.42-0.7-default #1",
		"Call Trace:",
		NULL,
	};
	struct sink s = { 0 };
	struct cgfb_detector *d;

	assert_int_equal(cgfb_detector_new(cat, collect, &s, &d), 0);
	for (const char *const *l = block; *l; l++)
		feed(d, *l, 0);
	/* Held until the block ends: the comm comes after the message. */
	assert_int_equal(s.n, 0);
	assert_true(cgfb_detector_in_block(d));
	feed(d, "---[ end trace a6c54db610fd5bb5 ]---", 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.d[0].entry->id, "S1");
	assert_true(s.d[0].in_warn_block);
	assert_string_equal(cgfb_fields_get(&s.d[0].fields, "comm"), "libvirtd");
	assert_string_equal(cgfb_fields_get(&s.d[0].fields, "pid"), "4242");
	assert_string_equal(cgfb_fields_get(&s.d[0].fields, "function"), "mem_cgroup_create");
	assert_string_equal(cgfb_fields_get(&s.d[0].fields, "knob"), "memory.use_hierarchy");
	cgfb_detector_free(d);
}

/* A pasted block that lost both markers: it starts at its banner and ends
 * at the next banner (or the end of the input), and the detection in it
 * still carries the block's process. */
static void block_without_markers(void **state)
{
	static const char *const block[] = {
		"WARNING: CPU: 3 PID: 4242 at mm/memcontrol.c:5007 mem_cgroup_css_alloc+0x3ac/0x510",
		S1,
		"Modules linked in: a b",
		"CPU: 3 PID: 4242 Comm: libvirtd Not tainted 4.4.121-92-default #1",
		"Call Trace:",
		" dump_stack+0x63/0x8e",
		"WARNING: at kernel/other.c:1 other_fn+0x1/0x2()",
		"Pid: 7, comm: kworker/0:1 Not tainted 3.0.42-0.7-default #1",
		NULL,
	};
	struct sink s = { 0 };
	struct cgfb_detector *d;

	assert_int_equal(cgfb_detector_new(cat, collect, &s, &d), 0);
	for (const char *const *l = block; *l; l++) {
		feed(d, *l, 0);
		assert_true(cgfb_detector_in_block(d));
	}
	/* The second banner ended the first block. */
	assert_int_equal(s.n, 1);
	assert_string_equal(s.d[0].entry->id, "S1");
	assert_true(s.d[0].in_warn_block);
	assert_string_equal(cgfb_fields_get(&s.d[0].fields, "comm"), "libvirtd");
	assert_string_equal(cgfb_fields_get(&s.d[0].fields, "function"), "mem_cgroup_css_alloc");
	cgfb_detector_finish(d);
	assert_int_equal(s.n, 1);
	cgfb_detector_free(d);
}

/* No end line either: a catalog message after the block's process line is
 * the next record, not the WARN's text. */
static void message_after_block_without_end(void **state)
{
	struct sink s = { 0 };
	struct cgfb_detector *d;

	assert_int_equal(cgfb_detector_new(cat, collect, &s, &d), 0);
	feed(d, "------------[ cut here ]------------", 0);
	feed(d, "WARNING: CPU: 3 PID: 4242 at mm/memcontrol.c:5007 mem_cgroup_css_alloc+0x3/0x5", 0);
	feed(d, S1, 0);
	feed(d, "Modules linked in: a b", 0);
	feed(d, "CPU: 3 PID: 4242 Comm: libvirtd Not tainted 4.4.121-92-default #1", 0);
	assert_int_equal(s.n, 0);
	feed(d, M8, 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.d[0].entry->id, "S1");
	assert_string_equal(cgfb_fields_get(&s.d[0].fields, "comm"), "libvirtd");
	assert_string_equal(s.d[1].entry->id, "M8");
	assert_false(s.d[1].in_warn_block);
	assert_null(cgfb_fields_get(&s.d[1].fields, "comm"));
	cgfb_detector_free(d);
}

/* "WARNING: " starts other lines too: they open no block. */
static void warning_lines_that_are_no_banner(void **state)
{
	struct sink s = { 0 };
	struct cgfb_detector *d;

	assert_int_equal(cgfb_detector_new(cat, collect, &s, &d), 0);
	feed(d, "WARNING: Spectre v2 mitigation leaves CPU vulnerable to RETBleed attacks", 0);
	assert_false(cgfb_detector_in_block(d));
	feed(d, "WARNING: at least one CPU is offline", 0);
	assert_false(cgfb_detector_in_block(d));
	feed(d, S1, 0);
	/* Not held for a block: out at once, without a block's context. */
	assert_int_equal(s.n, 1);
	assert_false(s.d[0].in_warn_block);
	cgfb_detector_free(d);
}

static void unterminated_block_is_flushed(void **state)
{
	struct sink s = { 0 };
	struct cgfb_detector *d;
	char line[64];

	assert_int_equal(cgfb_detector_new(cat, collect, &s, &d), 0);
	feed(d, "------------[ cut here ]------------", 0);
	feed(d, S1, 0);
	/* No end marker: a truncated log. The detection is not lost... */
	for (int i = 0; i <= CGFB_WARN_MAX_RECORDS; i++) {
		snprintf(line, sizeof(line), "line %d", i);
		feed(d, line, 0);
	}
	assert_int_equal(s.n, 1);
	assert_false(cgfb_detector_in_block(d));
	/* ...and neither is one at the very end of the input. */
	feed(d, "------------[ cut here ]------------", 0);
	feed(d, M8, 0);
	assert_int_equal(s.n, 1);
	cgfb_detector_finish(d);
	assert_int_equal(s.n, 2);
	cgfb_detector_free(d);
}

static void joins_fragments(void **state)
{
	struct sink s = { 0 };
	struct cgfb_detector *d;
	struct cgfb_record a = { .text = "Non-hierarchical mode is deprecated. ", .level = 4,
				 .fragment = true, .frag_start = true };
	struct cgfb_record b = { .text = "Please report your usecase to linux-mm@kvack.org if "
					 "you depend on this functionality.",
				 .level = 4, .fragment = true };

	a.len = strlen(a.text);
	b.len = strlen(b.text);
	assert_int_equal(cgfb_detector_new(cat, collect, &s, &d), 0);
	cgfb_detector_feed(d, &a);
	cgfb_detector_feed(d, &b);
	assert_int_equal(s.n, 0);
	feed(d, "next line", 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.d[0].entry->id, "M8");
	cgfb_detector_free(d);
}

/* A local user has the kernel print words of their choosing (echo.h). The
 * generic entry's address quoted by a parameter parser, or inside a cgroup
 * path, is no message of the kernel's; the genuine one after it is. */
static const char G1[] = "mm: the knob you used goes away soon, please contact "
			 "linux-mm@kvack.org";

static void echoed_address_is_no_detection(void **state)
{
	static const char *const echoes[] = {
		"tmpfs: Unknown parameter 'please contact linux-mm@kvack.org'",
		"tmpfs: Unknown parameter 'x' linux-mm@kvack.org'",
		"overlayfs: unrecognized mount option \"see linux-mm@kvack.org\" or missing value",
		"Memory cgroup out of memory: oom_memcg=/user.slice/linux-mm@kvack.org,task=x",
		"cgroup: name=cgroups@vger.kernel.org",
	};
	struct sink s = { 0 };
	struct cgfb_detector *d;

	assert_int_equal(cgfb_detector_new(cat, collect, &s, &d), 0);
	for (size_t i = 0; i < sizeof(echoes) / sizeof(echoes[0]); i++)
		feed(d, echoes[i], 0);
	assert_int_equal(s.n, 0);
	feed(d, G1, 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.d[0].entry->id, "G1");
	assert_int_equal(s.d[0].occurrence, 1);
	/* The kernel's own ways of writing an address. */
	feed(d, "cgroup: this goes away, tell us at <cgroups@vger.kernel.org>", 0);
	feed(d, "mm: knob deprecated (linux-mm@kvack.org)", 0);
	feed(d, "linux-mm@kvack.org wants to hear from you", 0);
	assert_int_equal(s.n, 4);
	cgfb_detector_free(d);
}

/* One report per distinct message of the generic entry, not one per boot:
 * a message that is not the kernel's cannot make the genuine one a mere
 * repeat. The same wording with other numbers is the same message. */
static void generic_counts_each_message(void **state)
{
	static const char other[] = "something (pid 4242) asks linux-mm@kvack.org";
	static const char other2[] = "something (pid 17) asks linux-mm@kvack.org";
	struct sink s = { 0 };
	struct cgfb_detector *d;
	char key[CGFB_COUNT_KEY_MAX];

	assert_int_equal(cgfb_detector_new(cat, collect, &s, &d), 0);
	feed(d, other, 0);
	feed(d, G1, 0);
	feed(d, other2, 0);
	feed(d, G1, 0);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.d[0].occurrence, 1);
	assert_int_equal(s.d[1].occurrence, 1);
	assert_int_equal(s.d[2].occurrence, 2);
	assert_int_equal(s.d[3].occurrence, 2);
	assert_string_not_equal(s.d[0].count_key, s.d[1].count_key);
	assert_string_equal(s.d[0].count_key, s.d[2].count_key);
	assert_memory_equal(s.d[1].count_key, "G1#", 3);
	snprintf(key, sizeof(key), "%s", s.d[1].count_key);
	assert_int_equal(cgfb_detector_count(d, key), 2);
	cgfb_detector_free(d);

	/* A restarted watcher knows which messages it reported. */
	s.n = 0;
	assert_int_equal(cgfb_detector_new(cat, collect, &s, &d), 0);
	cgfb_detector_set_count(d, key, 1);
	feed(d, other, 0);
	feed(d, G1, 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.d[0].occurrence, 1);
	assert_int_equal(s.d[1].occurrence, 2);
	/* A new boot forgets them. */
	feed(d, "Linux version 6.1.0", 0);
	feed(d, G1, 0);
	assert_int_equal(s.d[2].occurrence, 1);
	cgfb_detector_free(d);
}

/* A flood of made-up messages is bounded: past 16 distinct ones they are
 * counted as one, reported once. */
static void count_firsts(const struct cgfb_detection *d, void *arg)
{
	unsigned *firsts = arg;

	*firsts += d->occurrence == 1;
}

static void generic_messages_are_bounded(void **state)
{
	struct cgfb_detector *d;
	char text[128];
	unsigned firsts = 0;

	assert_int_equal(cgfb_detector_new(cat, count_firsts, &firsts, &d), 0);
	for (char c = 'a'; c <= 'z'; c++) {
		snprintf(text, sizeof(text), "made up %c%c%c: linux-mm@kvack.org", c, c, c);
		feed(d, text, 0);
		feed(d, text, 0);
	}
	cgfb_detector_finish(d);
	/* 16 messages counted apart, the other 10 (twice each) as one. */
	assert_int_equal(firsts, 17);
	assert_int_equal(cgfb_detector_count(d, "G1"), 20);
	cgfb_detector_free(d);
}


/* C4 is a plain pr_warn, printed at every qualifying remount (issue 42):
 * another process remounting in the same boot is another detection, the
 * same process again is a repeat of it. A once-per-boot entry (M8) is
 * not counted so. */
static void every_trigger_counted_per_wording(void **state)
{
	struct sink s = { 0 };
	struct cgfb_detector *d;

	assert_int_equal(cgfb_detector_new(cat, collect, &s, &d), 0);
	feed(d, "cgroup: option changes via remount are deprecated (pid=101 comm=mount)", 0);
	feed(d, "cgroup: option changes via remount are deprecated (pid=202 comm=lxc-start)", 0);
	feed(d, "cgroup: option changes via remount are deprecated (pid=303 comm=mount)", 0);
	cgfb_detector_finish(d);
	assert_int_equal(s.n, 3);
	for (unsigned i = 0; i < 3; i++)
		assert_string_equal(s.d[i].entry->id, "C4");
	assert_int_equal(s.d[0].occurrence, 1);
	assert_int_equal(s.d[1].occurrence, 1);
	assert_int_equal(s.d[2].occurrence, 2);
	assert_string_equal(s.d[0].count_key, s.d[2].count_key);
	assert_string_not_equal(s.d[0].count_key, s.d[1].count_key);
	assert_int_equal(strncmp(s.d[0].count_key, "C4#", 3), 0);
	/* A restarted watcher gets its per-wording counts back. */
	assert_int_equal(cgfb_detector_count(d, s.d[1].count_key), 1);
	cgfb_detector_free(d);
}

/* P1's posted WARN_ONCE (Glauber Costa, 2012) printed three lines, the
 * third naming cgroups@vger.kernel.org: one WARN is one report (P1), not P1
 * and G1 — as text lines of a 3.4-era block, and as one kmsg record whose
 * newlines are inside it. */
static void three_line_warn_is_one_detection(void **state)
{
	static const char *const block[] = {
		"------------[ cut here ]------------",
		"WARNING: at /usr/src/packages/BUILD/kernel-default-3.4.11/linux-3.4/mm/memcontrol.c:3998 "
		"mem_cgroup_hierarchy_write+0x7c/0xa0()",
		"Hardware name: X",
		"Non-hierarchical memcg is considered for deprecation",
		"Please consider reorganizing your tree to work with hierarchical accounting",
		"If you have any reason not to, let us know at cgroups@vger.kernel.org",
		"Modules linked in: a b",
		"Pid: 4242, comm: bash Not tainted 3.4.11-2.16-default #1",
		"Call Trace:",
		"---[ end trace a6c54db610fd5bb5 ]---",
		NULL,
	};
	struct sink s = { 0 };
	struct cgfb_detector *d;
	unsigned long line = 1;

	assert_int_equal(cgfb_detector_new(cat, collect, &s, &d), 0);
	for (const char *const *l = block; *l; l++) {
		struct cgfb_record r = { .text = *l, .len = strlen(*l), .level = -1,
					 .facility = 0, .line = line++ };

		cgfb_detector_feed(d, &r);
	}
	cgfb_detector_finish(d);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.d[0].entry->id, "P1");
	assert_string_equal(cgfb_fields_get(&s.d[0].fields, "comm"), "bash");
	assert_string_equal(cgfb_detection_contact(&s.d[0]), "cgroups@vger.kernel.org");
	s.n = 0;
	feed(d, "Non-hierarchical memcg is considered for deprecation\n"
		"Please consider reorganizing your tree to work with hierarchical accounting\n"
		"If you have any reason not to, let us know at cgroups@vger.kernel.org\n", 0);
	cgfb_detector_finish(d);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.d[0].entry->id, "P1");
	cgfb_detector_free(d);
}

/* The journal's sequence numbers as a line, fed as scan --journal feeds
 * them: only where cgfb_detector_needs_line says so (else 0). Returns
 * the detections as "ID:LINE ..." into out. */
static void feed_numbered(const char *const *text, const unsigned long *seq, size_t n,
			  bool lazy, char *out, size_t outsz)
{
	struct sink s = { 0 };
	struct cgfb_detector *d;
	size_t used = 0;

	assert_int_equal(cgfb_detector_new(cat, collect, &s, &d), 0);
	for (size_t i = 0; i < n; i++) {
		struct cgfb_record r = { .text = text[i], .len = strlen(text[i]), .level = 4,
					 .facility = 0 };

		if (!lazy || cgfb_detector_needs_line(d, &r))
			r.line = seq[i];
		cgfb_detector_feed(d, &r);
	}
	cgfb_detector_finish(d);
	out[0] = '\0';
	for (unsigned i = 0; i < s.n && i < MAXD; i++)
		used += (size_t)snprintf(out + used, outsz - used, "%s:%lu ", s.d[i].entry->id,
					 s.d[i].line);
	cgfb_detector_free(d);
}

/* A line number read only where the detector needs one gives what every
 * line numbered gives: a continuation is told from a later record (a gap
 * in the numbers) in the lines after a match, which no needle finds. */
static void line_only_where_needed(void **state)
{
	static const char *const text[] = {
		"e1000e: eth0 NIC Link is Up",
		"Non-hierarchical memcg is considered for deprecation",
		"Please consider reorganizing your tree to work with hierarchical accounting",
		"If you have any reason not to, let us know at cgroups@vger.kernel.org",
		"usb 1-1: new high-speed USB device",
		"Non-hierarchical memcg is considered for deprecation",
		"Please consider reorganizing your tree to work with hierarchical accounting",
		"If you have any reason not to, let us know at cgroups@vger.kernel.org",
		M8,
		"e1000e: eth0 NIC Link is Down",
	};
	/* the second P1's lines are not consecutive: another writer's
	 * entries came between them */
	static const unsigned long seq[] = { 3, 4, 5, 6, 7, 20, 22, 23, 30, 31 };
	char all[256], lazy[256];
	struct cgfb_record plain = { .text = text[0], .len = strlen(text[0]), .facility = 0 };
	struct cgfb_detector *d;
	struct sink s = { 0 };

	feed_numbered(text, seq, 10, false, all, sizeof(all));
	feed_numbered(text, seq, 10, true, lazy, sizeof(lazy));
	assert_string_equal(lazy, all);
	/* the first P1 is one detection; the gap is seen in the second, whose
	 * third line is then a message of its own (G1) */
	assert_string_equal(all, "P1:4 P1:20 G1:23 M8:30 ");

	assert_int_equal(cgfb_detector_new(cat, collect, &s, &d), 0);
	assert_false(cgfb_detector_needs_line(d, &plain));
	cgfb_detector_free(d);
}

/* G1's contact is the address its message named, not always linux-mm. */
static void generic_contact_is_the_address_matched(void **state)
{
	struct sink s = { 0 };
	struct cgfb_detector *d;

	assert_int_equal(cgfb_detector_new(cat, collect, &s, &d), 0);
	feed(d, "frobnicator: please tell cgroups@vger.kernel.org about this", 0);
	feed(d, "frobnicator: please tell linux-mm-@kvack.org about that", 0);
	cgfb_detector_finish(d);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.d[0].entry->id, "G1");
	assert_string_equal(cgfb_detection_contact(&s.d[0]), "cgroups@vger.kernel.org");
	assert_string_equal(cgfb_detection_contact(&s.d[1]), "linux-mm@kvack.org");
	cgfb_detector_free(d);
}

/* V1's memory_spread_slab call site is pr_warn_once (4), the others
 * pr_info_once (6): a record without a level takes its call site's. */
static void level_of_the_call_site(void **state)
{
	struct sink s = { 0 };
	struct cgfb_detector *d;
	static const char *const texts[] = {
		"cpuset.memory_spread_slab is deprecated",
		"cpuset.sched_relax_domain_level is deprecated",
	};

	assert_int_equal(cgfb_detector_new(cat, collect, &s, &d), 0);
	for (unsigned i = 0; i < 2; i++) {
		struct cgfb_record r = { .text = texts[i], .len = strlen(texts[i]), .level = -1 };

		cgfb_detector_feed(d, &r);
	}
	cgfb_detector_finish(d);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.d[0].entry->id, "V1");
	assert_int_equal(cgfb_detection_level(&s.d[0]), 4);
	assert_string_equal(s.d[1].entry->id, "V1");
	assert_int_equal(cgfb_detection_level(&s.d[1]), 6);
	cgfb_detector_free(d);
}


/* The break's userspace entries (issue 42): each only from the writer its
 * rule names, and only from a record the journal vouches for; a syslog
 * file's or /dev/kmsg's line of the same text is nothing. */
static void userspace_break_only_from_trusted_writers(void **state)
{
	static const char systemd[] = "Detected cgroup v1 hierarchy at /sys/fs/cgroup/, which is "
				      "no longer supported by current version of systemd.\n"
				      "Please instruct your initrd to mount cgroup v2 (unified) "
				      "hierarchy,";
	static const char kubelet[] = "E1205 10:00:00.123456    812 run.go:72] \"command failed\" "
				      "err=\"failed to validate kubelet configuration, error: "
				      "kubelet is configured to not run on a host using cgroup v1. "
				      "cgroup v1 support is unsupported and will be removed in a "
				      "future release, path: &TypeMeta{}\"";
	static const struct {
		const char *text;
		bool trusted;
		int pid;
		const char *unit;
		const char *want;
	} cases[] = {
		{ systemd, true, 1, "init.scope", "B2b" },
		{ systemd, false, 1, "", NULL },              /* syslog file, kmsg */
		{ systemd, true, 4242, "evil.service", NULL },  /* not PID 1 */
		{ kubelet, true, 812, "kubelet.service", "B3" },
		{ kubelet, true, 913, "k3s.service", "B3" },
		{ kubelet, true, 1, "init.scope", NULL },     /* not the kubelet's unit */
		{ kubelet, true, 555, "", NULL },
		{ kubelet, false, 812, "kubelet.service", NULL },
		/* The kernel's B1, written by a program: not the kernel's. */
		{ "cgroup: Unknown subsys name 'memory'", true, 1, "init.scope", NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sink s = { 0 };
		struct cgfb_detector *d;
		struct cgfb_record r = { .text = cases[i].text, .len = strlen(cases[i].text),
					 .level = 3, .facility = 3, .user_trusted = cases[i].trusted,
					 .pid = cases[i].pid };

		snprintf(r.unit, sizeof(r.unit), "%s", cases[i].unit);
		assert_int_equal(cgfb_detector_new(cat, collect, &s, &d), 0);
		cgfb_detector_feed(d, &r);
		cgfb_detector_finish(d);
		if (s.n != (cases[i].want ? 1u : 0u))
			fail_msg("case %zu: %u detections", i, s.n);
		if (cases[i].want)
			assert_string_equal(s.d[0].entry->id, cases[i].want);
		cgfb_detector_free(d);
	}
	/* And the kernel's own record never matches a userspace entry. */
	{
		struct sink s = { 0 };
		struct cgfb_detector *d;

		assert_int_equal(cgfb_detector_new(cat, collect, &s, &d), 0);
		feed(d, systemd, 0);
		cgfb_detector_finish(d);
		assert_int_equal(s.n, 0);
		cgfb_detector_free(d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counts_repeats_per_boot),
		cmocka_unit_test(remembers_the_boot_as_shown),
		cmocka_unit_test(second_call_site),
		cmocka_unit_test(ignores_userspace),
		cmocka_unit_test(warn_block_context),
		cmocka_unit_test(unterminated_block_is_flushed),
		cmocka_unit_test(block_without_markers),
		cmocka_unit_test(warning_lines_that_are_no_banner),
		cmocka_unit_test(message_after_block_without_end),
		cmocka_unit_test(joins_fragments),
		cmocka_unit_test(echoed_address_is_no_detection),
		cmocka_unit_test(generic_counts_each_message),
		cmocka_unit_test(generic_messages_are_bounded),
		cmocka_unit_test(every_trigger_counted_per_wording),
		cmocka_unit_test(three_line_warn_is_one_detection),
		cmocka_unit_test(line_only_where_needed),
		cmocka_unit_test(generic_contact_is_the_address_matched),
		cmocka_unit_test(level_of_the_call_site),
		cmocka_unit_test(userspace_break_only_from_trusted_writers),
	};

	return cmocka_run_group_tests_name("detect", tests, setup, teardown);
}
