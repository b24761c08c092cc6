#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgfb/fnv.h"
#include "detect/detect.h"
#include "detect/echo.h"

/* More WARN_ONCE texts than this in one block would be a kernel bug. */
#define PENDING_MAX 4
/* Distinct messages of the generic entry counted apart in one boot; past
 * this a flood of made-up ones is counted as one (reported once). */
#define MESSAGES_MAX 16

struct cgfb_detector {
	const struct cgfb_catalog *cat;
	cgfb_detect_fn fn;
	void *arg;
	unsigned *counts;                /* per catalog entry, this boot */
	size_t n_msgs;                   /* the generic entry's, per message */
	struct {
		size_t entry;
		unsigned hash;
		unsigned count;
	} msgs[MESSAGES_MAX];
	struct cgfb_warn warn;
	const struct cgfb_entry *prev;   /* entry the previous record matched */
	struct cgfb_record block_start;  /* the record that opened the WARN block */
	unsigned long prev_line;         /* its line in a file; scans skip lines */
	size_t n_pending;
	struct cgfb_detection pending[PENDING_MAX];
	/* Fragments of a continued line ('c' / '+' records), joined. */
	struct cgfb_record frag;
	size_t frag_len;
	char frag_buf[CGFB_RECORD_TEXT_MAX];
	struct cgfb_log_boot boot;       /* this boot as the log showed it so far */
};

int cgfb_detector_new(const struct cgfb_catalog *cat, cgfb_detect_fn fn, void *arg,
		      struct cgfb_detector **out)
{
	struct cgfb_detector *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->counts = calloc(cat->n ? cat->n : 1, sizeof(*d->counts));
	if (!d->counts) {
		free(d);
		return -ENOMEM;
	}
	d->cat = cat;
	d->fn = fn;
	d->arg = arg;
	*out = d;
	return 0;
}

void cgfb_detector_free(struct cgfb_detector *d)
{
	if (!d)
		return;
	free(d->counts);
	free(d);
}

static size_t entry_index(const struct cgfb_detector *d, const struct cgfb_entry *e)
{
	return (size_t)(e - d->cat->entries);
}

/* The wording of a message, numbers aside: the same message about
 * another process or size is the same message. FNV-1a. */
static unsigned wording_hash(const char *text, size_t len)
{
	uint32_t h = CGFB_FNV32_INIT;
	char prev = 0;

	for (size_t i = 0; i < len; i++) {
		char c = text[i];

		if (c >= '0' && c <= '9')
			c = '0';
		else if (c == '\t' || c == '\n')
			c = ' ';
		if ((c == '0' || c == ' ') && c == prev)
			continue;
		prev = c;
		h = cgfb_fnv32_add(h, (unsigned char)c);
	}
	return h;
}

/* Whether e's occurrences are counted per message: the generic entry's
 * (each message another one) and those the kernel prints at every trigger
 * (C4: another process remounting is another use case, where a second
 * record of a once-per-boot message is the same one, or its second site). */
static bool per_wording(const struct cgfb_entry *e)
{
	return e->generic || e->every_trigger;
}

/* The counter of entry e's message with hash h; for an entry counted per
 * wording a slot of its own while there is room, else the entry's. */
static unsigned *counter(struct cgfb_detector *d, const struct cgfb_entry *e, unsigned h,
			 bool add)
{
	const size_t idx = entry_index(d, e);

	if (!per_wording(e))
		return &d->counts[idx];
	for (size_t i = 0; i < d->n_msgs; i++)
		if (d->msgs[i].entry == idx && d->msgs[i].hash == h)
			return &d->msgs[i].count;
	if (!add || d->n_msgs == MESSAGES_MAX)
		return &d->counts[idx];
	d->msgs[d->n_msgs].entry = idx;
	d->msgs[d->n_msgs].hash = h;
	d->msgs[d->n_msgs].count = 0;
	return &d->msgs[d->n_msgs++].count;
}

static bool in_slot(const struct cgfb_detector *d, const unsigned *c)
{
	return c >= &d->msgs[0].count && c <= &d->msgs[MESSAGES_MAX - 1].count;
}

static void key_of(const struct cgfb_detector *d, const struct cgfb_entry *e, unsigned h,
		   const unsigned *c, char key[CGFB_COUNT_KEY_MAX])
{
	if (in_slot(d, c))
		snprintf(key, CGFB_COUNT_KEY_MAX, "%s#%08x", e->id, h);
	else
		snprintf(key, CGFB_COUNT_KEY_MAX, "%s", e->id);
}

/* "ID" or "ID#hash": the entry and, with a hash, its message's counter. */
static unsigned *counter_of_key(struct cgfb_detector *d, const char *key, bool add)
{
	char id[CGFB_COUNT_KEY_MAX], *hash;
	const struct cgfb_entry *e;
	unsigned h = 0;

	snprintf(id, sizeof(id), "%s", key);
	hash = strchr(id, '#');
	if (hash) {
		*hash++ = '\0';
		if (sscanf(hash, "%8x", &h) != 1)
			return NULL;
	}
	e = cgfb_catalog_find(d->cat, id);
	if (!e || (hash && !per_wording(e)))
		return NULL;
	if (!hash)
		return &d->counts[entry_index(d, e)];
	return counter(d, e, h, add);
}

unsigned cgfb_detector_count(const struct cgfb_detector *d, const char *key)
{
	unsigned *c = counter_of_key((struct cgfb_detector *)d, key, false);

	return c ? *c : 0;
}

void cgfb_detector_set_count(struct cgfb_detector *d, const char *key, unsigned n)
{
	unsigned *c = counter_of_key(d, key, true);

	if (c)
		*c = n;
}

bool cgfb_detector_holding(const struct cgfb_detector *d)
{
	return d->warn.active || d->frag_len > 0;
}

bool cgfb_detector_in_block(const struct cgfb_detector *d)
{
	return d->warn.active;
}

bool cgfb_detector_wants_next(const struct cgfb_detector *d)
{
	return d->warn.active || d->frag_len > 0 || (d->prev && d->prev->has_continuation);
}

/* rec->line is read by detected() and detect(), which only a candidate
 * reaches (both paths of cgfb_detector_feed test it first), and by the
 * continuation test, which only wants_next makes true. */
bool cgfb_detector_needs_line(const struct cgfb_detector *d, const struct cgfb_record *rec)
{
	return cgfb_detector_wants_next(d) || cgfb_catalog_candidate(d->cat, rec->text, rec->len);
}

static void emit_pending(struct cgfb_detector *d)
{
	for (size_t i = 0; i < d->n_pending; i++) {
		struct cgfb_detection *det = &d->pending[i];

		for (unsigned k = 0; k < d->warn.fields.n; k++)
			cgfb_fields_add_default(&det->fields, d->warn.fields.f[k].name,
						d->warn.fields.f[k].value,
						strlen(d->warn.fields.f[k].value));
		d->fn(det, d->arg);
	}
	d->n_pending = 0;
}

static void end_block(struct cgfb_detector *d)
{
	emit_pending(d);
	d->warn.active = false;
}

static void begin_block(struct cgfb_detector *d, const struct cgfb_record *rec)
{
	cgfb_warn_begin(&d->warn);
	d->block_start = *rec;
	d->block_start.text = NULL;     /* only its position is kept */
	d->block_start.len = 0;
}

/* Two call sites print one text (M4 and M5): the second time that text
 * shows up in a boot it can only come from the other site. */
static const struct cgfb_entry *resolve_site(const struct cgfb_detector *d,
					     const struct cgfb_entry *e)
{
	const struct cgfb_entry *other;

	if (!e->second_site || d->counts[entry_index(d, e)] == 0)
		return e;
	other = cgfb_catalog_find(d->cat, e->second_site);
	return other ? other : e;
}

static void static_fields(struct cgfb_fields *fs, const struct cgfb_entry *e,
			  const struct cgfb_record *rec)
{
	if (e->controller)
		cgfb_fields_add_default(fs, "controller", e->controller, strlen(e->controller));
	if (e->knob)
		cgfb_fields_add_default(fs, "knob", e->knob, strlen(e->knob));
	if (rec->caller[0])
		cgfb_fields_set(fs, "caller", rec->caller, strlen(rec->caller));
}

/* The generic entry's address where a local user put it (echo.h). */
static bool echoed(const struct cgfb_entry *e, const struct cgfb_fields *fields,
		   const struct cgfb_record *rec)
{
	const char *addr = e->generic ? cgfb_fields_get(fields, "address") : NULL;
	const char *at = addr ? memmem(rec->text, rec->len, addr, strlen(addr)) : NULL;

	return at && cgfb_echo_of_user(rec->text, rec->len, (size_t)(at - rec->text),
				       strlen(addr));
}

/* The detection of entry e in rec: held with its WARN block's, or handed
 * out now. */
static void detected(struct cgfb_detector *d, const struct cgfb_record *rec,
		     const struct cgfb_entry *e, const struct cgfb_fields *fields)
{
	struct cgfb_detection *det, tmp;
	const bool hold = d->warn.active && rec->facility <= 0;
	unsigned h, *c;

	det = hold && d->n_pending < PENDING_MAX ? &d->pending[d->n_pending++] : &tmp;
	memset(det, 0, sizeof(*det));
	det->entry = e;
	h = per_wording(e) ? wording_hash(rec->text, rec->len) : 0;
	c = counter(d, e, h, true);
	det->occurrence = ++*c;
	key_of(d, e, h, c, det->count_key);
	det->level = rec->level;
	det->has_seq = rec->has_seq;
	det->seq = rec->seq;
	det->has_usec = rec->has_usec;
	det->usec = rec->usec;
	det->line = rec->line;
	det->boot = d->boot;
	det->unproven = rec->unproven;
	det->in_warn_block = hold;
	if (det->in_warn_block) {
		det->block_has_seq = d->block_start.has_seq;
		det->block_seq = d->block_start.seq;
		det->block_has_usec = d->block_start.has_usec;
		det->block_usec = d->block_start.usec;
	}
	det->text_len = rec->len < sizeof(det->text) - 1 ? rec->len : sizeof(det->text) - 1;
	memcpy(det->text, rec->text, det->text_len);
	det->text[det->text_len] = '\0';
	det->fields = *fields;
	static_fields(&det->fields, e, rec);
	if (det == &tmp)
		d->fn(det, d->arg);
}

static void detect(struct cgfb_detector *d, const struct cgfb_record *rec)
{
	struct cgfb_fields fields = { 0 };
	const struct cgfb_entry *e = cgfb_catalog_match(d->cat, rec->text, rec->len, &fields);

	if (e && echoed(e, &fields, rec))
		e = NULL;
	d->prev = e;
	d->prev_line = rec->line;
	if (!e)
		return;
	/* A block without its end line: a message past the WARN's own text
	 * is the next record after the block, not part of it. */
	if (d->warn.active && d->warn.past_text)
		end_block(d);
	detected(d, rec, resolve_site(d, e), &fields);
}

/* A program's record the journal vouches for (systemd as PID 1, the
 * kubelet's unit): only the catalog's userspace entries, each only from
 * the writer its rule names. It touches no WARN block and no
 * continuation: those are the kernel's. */
static void detect_user(struct cgfb_detector *d, const struct cgfb_record *rec)
{
	struct cgfb_fields fields = { 0 };
	const struct cgfb_entry *e;

	if (!rec->user_trusted || !cgfb_catalog_candidate(d->cat, rec->text, rec->len))
		return;
	e = cgfb_catalog_match_user(d->cat, rec->text, rec->len, rec->pid, rec->unit, &fields);
	if (e)
		detected(d, rec, e, &fields);
}

static bool starts_with(const struct cgfb_record *rec, const char *lit)
{
	const size_t n = strlen(lit);

	return rec->len >= n && memcmp(rec->text, lit, n) == 0;
}

/* What the record after prefix says, up to its end (or, with word, its
 * first blank), into out. */
static void take_text(const struct cgfb_record *rec, const char *prefix, bool word, char *out,
		      size_t outsz)
{
	const size_t skip = strlen(prefix);
	size_t n = 0;

	while (skip + n < rec->len && n + 1 < outsz && rec->text[skip + n] != '\n' &&
	       !(word && (rec->text[skip + n] == ' ' || rec->text[skip + n] == '\t')))
		n++;
	memcpy(out, rec->text + skip, n);
	out[n] = '\0';
}

static void feed_one(struct cgfb_detector *d, const struct cgfb_record *rec)
{
	/* A new boot in a saved log: the kernel's "once" flags are reset, and
	 * what the log shows of the boot starts again with its release. */
	if (starts_with(rec, CGFB_BOOT_BANNER)) {
		end_block(d);
		memset(d->counts, 0, d->cat->n * sizeof(*d->counts));
		d->n_msgs = 0;
		memset(&d->boot, 0, sizeof(d->boot));
		take_text(rec, CGFB_BOOT_BANNER, true, d->boot.release, sizeof(d->boot.release));
	}
	if (starts_with(rec, CGFB_BOOT_CMDLINE))
		take_text(rec, CGFB_BOOT_CMDLINE, false, d->boot.cmdline, sizeof(d->boot.cmdline));
	else if (starts_with(rec, CGFB_BOOT_KCMDLINE))
		take_text(rec, CGFB_BOOT_KCMDLINE, false, d->boot.cmdline, sizeof(d->boot.cmdline));
	if (cgfb_warn_is_start(rec->text, rec->len)) {
		end_block(d);
		begin_block(d, rec);
		return;
	}
	/* A block that lost its "[ cut here ]" line starts at its banner; a
	 * second banner in a block is the next block (the end line was lost
	 * too). */
	if (cgfb_warn_is_banner(rec->text, rec->len) && (!d->warn.active || d->warn.banner)) {
		end_block(d);
		begin_block(d, rec);
	}
	if (d->warn.active) {
		if (cgfb_warn_is_end(rec->text, rec->len)) {
			end_block(d);
			return;
		}
		cgfb_warn_feed(&d->warn, rec->text, rec->len);
		if (d->warn.records > CGFB_WARN_MAX_RECORDS)
			end_block(d);
	}
	/* A message of three lines (P1's posting) has two continuations:
	 * each one consumed keeps the entry for the next line. */
	if (d->prev && (!rec->line || rec->line == d->prev_line + 1) &&
	    cgfb_catalog_continues(d->prev, rec->text, rec->len)) {
		d->prev_line = rec->line;
		return;
	}
	d->prev = NULL;
	if (cgfb_catalog_candidate(d->cat, rec->text, rec->len))
		detect(d, rec);
}

static void flush_fragments(struct cgfb_detector *d)
{
	if (!d->frag_len)
		return;
	d->frag.text = d->frag_buf;
	d->frag.len = d->frag_len;
	d->frag_len = 0;
	feed_one(d, &d->frag);
}

void cgfb_detector_feed(struct cgfb_detector *d, const struct cgfb_record *rec)
{
	if (!cgfb_record_from_kernel(rec)) {
		detect_user(d, rec);
		return;
	}
	if (rec->fragment) {
		const size_t room = sizeof(d->frag_buf) - d->frag_len;
		const size_t n = rec->len < room ? rec->len : room;

		if (rec->frag_start)
			flush_fragments(d);
		if (!d->frag_len)
			d->frag = *rec;
		memcpy(d->frag_buf + d->frag_len, rec->text, n);
		d->frag_len += n;
		return;
	}
	flush_fragments(d);
	feed_one(d, rec);
}

void cgfb_detector_finish(struct cgfb_detector *d)
{
	flush_fragments(d);
	end_block(d);
}

const char *cgfb_detection_contact(const struct cgfb_detection *d)
{
	const char *addr = d->entry->generic ? cgfb_fields_get(&d->fields, "address") : NULL;

	if (!addr)
		return d->entry->contact;
	if (strstr(addr, "cgroups@vger"))
		return "cgroups@vger.kernel.org";
	return "linux-mm@kvack.org";
}

int cgfb_detection_level(const struct cgfb_detection *d)
{
	if (d->level >= 0)
		return d->level;
	return cgfb_catalog_level(d->entry, cgfb_fields_get(&d->fields, "knob"));
}
