/* Holding a record whose report could not be written for now (a full
 * disk, a report writer killed): the position saved stays before it, and
 * after a wait that doubles from 1 s up to 5 min the log is read again from
 * there, so the warning is reported later, never lost. Pure: the caller
 * gives the time (CLOCK_MONOTONIC). */
#ifndef CGFB_HOLD_H
#define CGFB_HOLD_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define CGFB_HOLD_FIRST_MS 1000
#define CGFB_HOLD_CAP_MS   (5 * 60 * 1000)

struct cgfb_hold {
	bool on;
	uint64_t pos;              /* the earliest record held */
	long backoff_ms;           /* the last wait; 0 once a report was written */
	struct timespec due;       /* when to read again */
};

/* Hold the record at pos. The first hold of a round schedules the next try
 * one wait later (twice the last wait, within the cap); records held while
 * it waits keep the earliest position. */
void cgfb_hold_add(struct cgfb_hold *h, uint64_t pos, const struct timespec *now);

/* The position to save: the earliest held record when it comes before pos. */
uint64_t cgfb_hold_floor(const struct cgfb_hold *h, uint64_t pos);

/* Milliseconds until the held records are tried again: 0 when due (or
 * nothing is held), never more than the cap. */
int cgfb_hold_wait_ms(const struct cgfb_hold *h, const struct timespec *now);

/* The log is read again from the position returned: nothing is held. The
 * wait keeps growing until a report is written (cgfb_hold_written). */
uint64_t cgfb_hold_release(struct cgfb_hold *h);

/* A report was written: the next hold starts with the first wait again. */
void cgfb_hold_written(struct cgfb_hold *h);

#endif
