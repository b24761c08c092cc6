/* What the watcher remembers between runs: the boot it was watching, how
 * far it read, and what it already reported in that boot. */
#ifndef CGFB_STATE_H
#define CGFB_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/statedir.h"

#define CGFB_STATE_MAX_IDS  64

struct cgfb_state {
	char boot_id[40];
	bool has_pos;
	uint64_t pos;              /* next kmsg sequence number to read (or usec for klogctl) */
	bool has_usec;
	uint64_t usec;             /* the kernel's time of the record before pos */
	unsigned long lost;        /* records overwritten before they were read */
	/* The report being written for the record at handoff_pos, under this
	 * id: a watcher killed meanwhile gives that record the same id again,
	 * so the report is written once. */
	bool has_handoff;
	uint64_t handoff_pos;
	char handoff_entry[16];    /* the catalog entry detected in that record */
	char handoff_id[40];
	unsigned n_ids;
	struct {
		char id[16];
		unsigned count;
	} ids[CGFB_STATE_MAX_IDS];
};

/* Load watch.state from the state directory open as dfd. A missing file
 * gives an empty state and 0; a corrupt one is renamed to
 * watch.state.corrupt, and -EBADMSG tells the caller. */
int cgfb_state_load(int dfd, struct cgfb_state *st);
int cgfb_state_save(int dfd, const struct cgfb_state *st);

unsigned cgfb_state_count(const struct cgfb_state *st, const char *id);
int cgfb_state_set_count(struct cgfb_state *st, const char *id, unsigned count);

#endif
