/* One report per message and install, not per boot (docs/REPEATS.md).
 *
 * The kernel forgets at every boot that it printed a warning, and some are
 * printed at every boot (swapaccount=0, cgroup_no_v1). A new occurrence
 * belongs to a report already in the spool when:
 *
 *   - that report waits for review (pending), with the same catalog id and
 *     the same detection fields (the closed-vocabulary values and keyed
 *     tokens of the report: knob, controller, process, ...), whatever the
 *     kernel: the administrator has one question to answer, not one a boot;
 *   - or it was answered (consented, sent, declined, withdrawn) and the
 *     new one has the same catalog id, the same detection fields and a
 *     kernel of the same major.minor series: nothing the maintainers would
 *     read differently. Another series, another trigger or another cgroup
 *     makes a new report (and a new prompt).
 *
 * Belonging to a report counts the boot on its <id>.seen (once per boot
 * id), and makes no report and no prompt. */
#ifndef CGFB_REPEAT_H
#define CGFB_REPEAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "privacy/secret.h"
#include "report/spool.h"

/* What tells two reports of a message apart, from the report bytes. */
struct cgfb_report_key {
	char catalog_id[16];
	char series[16];            /* system.kernel.series, "" if unknown */
	char *fields;               /* detection.fields, canonical; malloc'ed */
	/* detection.message: the catalog's wording rendered from the fields,
	 * or, for a message no entry describes (G1), its shaped text, which is
	 * all that tells two of those apart; malloc'ed, "" when absent. */
	char *message;
	/* Whose machine: "" for this one's (no system.facts), else the whole
	 * system member, canonical: a report made from another machine's log
	 * or files repeats only one with the same facts, never one of this
	 * machine, so that no boot of another machine counts as this one's.
	 * malloc'ed. */
	char *origin;
};

/* A report consented for an endpoint carries its tokens keyed for it
 * (privacy/rekey.h); with the install's key given here, the key of such a
 * report takes them back to the snapshot's, so that a repeat of a sent
 * report is still found. The report writer gives it once (copied); without
 * it tokens are compared as they are. */
void cgfb_repeat_use_key(const uint8_t key[CGFB_SECRET_LEN]);

int cgfb_report_key(const char *bytes, size_t len, struct cgfb_report_key *k);
void cgfb_report_key_free(struct cgfb_report_key *k);

/* Same catalog id, fields, message and origin: the repeat index's key
 * (the series is not in it; belonging weighs it). */
bool cgfb_report_key_same(const struct cgfb_report_key *a, const struct cgfb_report_key *b);

/* The report an occurrence belongs to so far. */
struct cgfb_repeat_best {
	char id[CGFB_REPORT_ID_LEN + 1];    /* "" while none */
	bool pending;
	long long created;
};

/* Weigh report id for the occurrence with key k: best becomes it when the
 * occurrence belongs to it and it is better (pending first, then the
 * newest). 0, or -ENOENT when there is no such report. */
int cgfb_repeat_weigh(struct cgfb_spool *sp, const char *id, const struct cgfb_report_key *k,
		      struct cgfb_repeat_best *best);

/* The report in sp that an occurrence with key k belongs to: 1 and its id
 * in id (pending reports first), 0 when none does, or -errno. This reads
 * every report, one at a time (report/repindex.h reads only those of
 * the key). */
int cgfb_repeat_find(struct cgfb_spool *sp, const struct cgfb_report_key *k,
		     char id[CGFB_REPORT_ID_LEN + 1]);

/* Count boot boot_id (now, kernel series) on report id: false when that
 * boot was counted already (a writer killed after counting, run again). */
int cgfb_repeat_count(struct cgfb_spool *sp, const char *id, const char *boot_id,
		      const char *series, long long now, bool *counted);

/* The first <id>.seen of a new report. */
int cgfb_repeat_first(struct cgfb_spool *sp, const char *id, const char *boot_id,
		      const char *series, long long now);

#endif
