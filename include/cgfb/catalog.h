/* The catalog of kernel messages: loaded from JSON data, matched against
 * one log record's text at a time. */
#ifndef CGFB_CATALOG_H
#define CGFB_CATALOG_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

#include "cgfb/fields.h"
#include "cgfb/mscan.h"

#define CGFB_CATALOG_MAX_NEEDLES 4
#define CGFB_CATALOG_MAX_CAPS    6
#define CGFB_CATALOG_MAX_FUNCTIONS 4
#define CGFB_CATALOG_MAX_LEVELS 4
#define CGFB_CATALOG_MAX_UNITS 6
/* Longest record text tried against the regexes; kernel records are at most
 * about 1 KiB (PRINTK_MESSAGE_MAX), so nothing real is longer. */
#define CGFB_MATCH_TEXT_MAX 4096

struct cgfb_capture {
	char name[CGFB_FIELD_NAME_MAX];
	int group;
};

#define CGFB_QUESTIONS_MAX 8

/* What the review asks about a use case, per kind of message. */
struct cgfb_question {
	char *key;                     /* answers[key] in the report */
	char *text;
};

struct cgfb_question_set {
	char *name;
	size_t n;
	struct cgfb_question q[CGFB_QUESTIONS_MAX];
};

struct cgfb_entry {
	char *id;
	char *title;
	/* The kernel's wording, each capture a {name}, an optional part in
	 * [brackets]: a report's message is rendered from it, never copied
	 * from the log. NULL for the generic entry. */
	char *message;
	char *contact;                 /* NULL: the message names nobody */
	char *kernels;
	char *trigger;
	/* What the kernel did with the write that printed it, where that is
	 * not simply done (refused, without effect); NULL otherwise. */
	char *effect;
	/* What broke and what to do, in plain words, where the message is the
	 * sound of something failing (B1-B3: cgroup v1 gone); NULL otherwise. */
	char *explain;
	char *controller;              /* NULL when not tied to one */
	char *knob;
	char *second_site;             /* id for a second identical record in one boot */
	/* "ambiguous" where call sites printing one text cannot be told apart
	 * (M4: write or event_control); NULL otherwise. */
	char *attribution;
	/* Which kernels print it: "unmerged" (a posted patch only), "old",
	 * "current"; NULL when the catalog does not say (G1). */
	char *era;
	const struct cgfb_question_set *questions;   /* never NULL after loading */
	int level;                     /* printk level, -1 any */
	bool warn_block;               /* printed inside a WARN block */
	bool generic;                  /* tried only when no specific entry matched */
	/* "userspace": a program's message, not the kernel's: "pid1" (systemd
	 * as PID 1) or "unit" (one of units). Matched only against records
	 * the journal vouches for (cgfb_catalog_match_user), never against a
	 * kernel record, and the kernel's entries never against these. */
	enum { CGFB_FROM_KERNEL, CGFB_FROM_PID1, CGFB_FROM_UNIT } from;
	size_t n_units;
	char *units[CGFB_CATALOG_MAX_UNITS];
	/* "once": false: the kernel prints it at every trigger (C4), not once
	 * per boot; counted per wording like the generic entry's messages, so
	 * that another process doing the same is another detection. */
	bool every_trigger;
	/* "levels": the printk level of a call site that differs from level,
	 * by the knob it captures (V1's memory_spread_slab is pr_warn_once). */
	size_t n_levels;
	struct {
		char *knob;
		int level;
	} levels[CGFB_CATALOG_MAX_LEVELS];
	bool has_regex;
	regex_t re;
	/* A printk with an embedded newline (P2) shows up in text logs as two
	 * lines; this matches the second so that it is not a detection too. */
	bool has_continuation;
	regex_t continuation;
	/* Their sources, to compile them afresh (cgfb_catalog_shrink). */
	char *regex_src;
	char *continuation_src;
	/* regexec ran on re (and so maybe on continuation, tried only on the
	 * record after a match of re) since it was compiled: glibc's DFA
	 * cache inside it may have grown. */
	bool ran;
	size_t n_needles;
	char *needles[CGFB_CATALOG_MAX_NEEDLES];
	size_t n_caps;
	struct cgfb_capture caps[CGFB_CATALOG_MAX_CAPS];
	/* The kernel functions that print it ("functions"): the only symbols
	 * a report names for a WARN block around it; any other is "other". */
	size_t n_functions;
	char *functions[CGFB_CATALOG_MAX_FUNCTIONS];
	/* Generic entries only: the words a shaped message may keep, lower
	 * case, sorted: the catalog's "vocabulary" and every word of every
	 * entry's message and title. */
	size_t n_vocab;
	char **vocab;
};

/* Lines every log scan must see besides the catalog's needles: the
 * start of a WARN block (with or without its "[ cut here ]" line), the
 * banner of a new boot (which resets the kernel's once-per-boot flags)
 * and the boot's command line. The multi-literal search holds
 * CGFB_MSCAN_MAX literals, so the catalog may have that many needles less
 * these. */
#define CGFB_WARN_CUT_HERE "[ cut here ]"
#define CGFB_BOOT_BANNER   "Linux version "
/* The first line of a WARN block that lost its "[ cut here ]" line. */
#define CGFB_WARN_BANNER   "WARNING: "
/* A boot's kernel command line, as x86 and every architecture print it:
 * what a report made from another machine's log says of that machine
 * (besides the banner's kernel release). */
#define CGFB_BOOT_CMDLINE  "Command line: "
#define CGFB_BOOT_KCMDLINE "Kernel command line: "
#define CGFB_CATALOG_ANCHORS 5
#define CGFB_CATALOG_NEEDLES_MAX (CGFB_MSCAN_MAX - CGFB_CATALOG_ANCHORS)

struct cgfb_catalog {
	size_t n;
	struct cgfb_entry *entries;
	size_t n_sets;
	struct cgfb_question_set *sets;
	/* Every needle of every entry, deduplicated, for the prefilter. */
	size_t n_needles;
	const char *needles[CGFB_CATALOG_NEEDLES_MAX];
	struct cgfb_mscan scan;
};

/* Parse catalog JSON. On failure returns a negative errno and, if err is not
 * NULL, a message naming the entry and the field at fault. */
int cgfb_catalog_load_buffer(struct cgfb_catalog **out, const char *json, size_t len,
			     char *err, size_t errsz);
/* e's message with {name} replaced by values[i] where names[i] is name. An
 * optional [part] is left out when a field in it has no value (NULL);
 * a field without value outside brackets renders as "_". -ENOENT if e has
 * no message, -ENOSPC when out is too small (out is still terminated). */
int cgfb_catalog_render(const struct cgfb_entry *e, const char *const *names,
			const char *const *values, size_t n, char *out, size_t outsz);

/* Whether the word w (n bytes, any case) is in the generic entry e's
 * vocabulary. */
bool cgfb_catalog_word(const struct cgfb_entry *e, const char *w, size_t n);
/* The bytes a vocabulary word is made of. */
#define CGFB_CATALOG_WORD_CHARS \
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.=/-"

/* The printk level e's message is printed at when the knob it names is
 * knob (may be NULL): a call site's own level from "levels", else e's. */
int cgfb_catalog_level(const struct cgfb_entry *e, const char *knob);

/* Whether sym is one of the functions e's message is printed from. */
bool cgfb_catalog_function(const struct cgfb_entry *e, const char *sym);

int cgfb_catalog_load_file(struct cgfb_catalog **out, const char *path, char *err, size_t errsz);
/* The copy compiled into the binary. */
int cgfb_catalog_load_builtin(struct cgfb_catalog **out, char *err, size_t errsz);
void cgfb_catalog_free(struct cgfb_catalog *cat);

const struct cgfb_entry *cgfb_catalog_find(const struct cgfb_catalog *cat, const char *id);

/* True when text holds at least one needle: a record without one can't match. */
bool cgfb_catalog_candidate(const struct cgfb_catalog *cat, const char *text, size_t len);
/* True when text is the second line of e's message (see has_continuation). */
bool cgfb_catalog_continues(const struct cgfb_entry *e, const char *text, size_t len);
/* The entry whose regex matches text (specific entries first, then generic
 * ones), or NULL. Captured fields are stored into fields (may be NULL).
 * The result depends on nothing but cat and text; but glibc's regexec
 * grows a cache of DFA states inside each regex it runs (a few hundred KiB
 * for a long message matched once), and the entry is marked for
 * cgfb_catalog_shrink. Not for two threads at once on one catalog. */
const struct cgfb_entry *cgfb_catalog_match(const struct cgfb_catalog *cat, const char *text,
					    size_t len, struct cgfb_fields *fields);
/* The userspace entry whose regex matches text written by process pid of
 * unit (unit "" for none), where the entry's rule says that writer may
 * print it: PID 1 for "pid1", one of its units for "unit". The caller
 * vouches that pid and unit are the journal's (record.h user_trusted). */
const struct cgfb_entry *cgfb_catalog_match_user(const struct cgfb_catalog *cat,
						 const char *text, size_t len, int pid,
						 const char *unit, struct cgfb_fields *fields);
/* Give back the memory matching grew: every regex that ran since it was
 * compiled is compiled afresh from its source (the same regex: every later
 * match is the same) and the old one freed. For a long-running process
 * that matches rarely (the watcher); a scan that matches constantly would
 * only pay for the compiling again. Returns how many entries were
 * compiled again, or -ENOMEM (what could not be compiled again is kept as
 * it was, and tried at the next call). */
int cgfb_catalog_shrink(struct cgfb_catalog *cat);

#endif
