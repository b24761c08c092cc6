/* The live kernel log: /dev/kmsg, or klogctl(2) on kernels before 3.5 whose
 * /dev/kmsg cannot be read. */
#ifndef CGFB_KLOG_H
#define CGFB_KLOG_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "log/record.h"

struct cgfb_klog {
	int fd;                 /* -1 when reading through klogctl */
	bool device;            /* a character device: one record per read() */
	bool use_klogctl;
	/* The kernel's ring buffer as it is written: /dev/kmsg, klogctl, or a
	 * FIFO that stands for them (tests, a relay). A regular file is a
	 * recording: what is not in it was never read from a ring, so a gap
	 * in its sequence numbers is no record lost (lost stays 0). */
	bool live;
	/* The source is known to be readable as it is: a device that gave a
	 * record or said "nothing yet", or a file. From then on no privilege
	 * is needed to go on, nor to rewind (cgfb_klog_rewind). */
	bool settled;
	const char *path;
	unsigned long lost;     /* records overwritten before we read them (live only) */
	/* Records whose sequence number was read already (a duplicate, or
	 * going backwards: a file or FIFO, never the kernel): passed on, and
	 * not counted as a new position; lost counts from the last new one. */
	unsigned long backwards;
	/* Lines longer than the buffer, skipped whole: their tail is no record
	 * (a forged one could be planted there). */
	unsigned long overlong;
	bool skipping;          /* inside such a line */
	bool have_next;
	uint64_t next_seq;
	/* klogctl snapshot, and line buffer for a kmsg-format file or FIFO */
	char *buf;
	size_t cap, have, pos;
	char raw[CGFB_RECORD_TEXT_MAX];
	char text[CGFB_RECORD_TEXT_MAX];
};

/* Open path (NULL: /dev/kmsg, falling back to klogctl). A path that is not a
 * character device is read as a file of kmsg records (saved logs, tests).
 * Returns 0 or a negative errno; err explains what is needed to fix it. */
int cgfb_klog_open(struct cgfb_klog *k, const char *path, char *err, size_t errsz);
void cgfb_klog_close(struct cgfb_klog *k);

/* Back to the oldest record, on the open descriptor (lseek: /dev/kmsg's
 * first record in the buffer, a file's start) or by reading klogctl's
 * buffer again; what comes next is counted afresh. 0, or -ESPIPE for a
 * FIFO, which cannot go back (the caller opens it again), or -errno. */
int cgfb_klog_rewind(struct cgfb_klog *k);

/* The next record: 1 one was read, 0 nothing more for now, or -errno. */
int cgfb_klog_next(struct cgfb_klog *k, struct cgfb_record *rec);

/* Whether waiting can block until a record arrives (/dev/kmsg, a FIFO), or
 * must look again after a while (klogctl, a regular file). */
bool cgfb_klog_pollable(const struct cgfb_klog *k);

/* Wait until more may be read: ppoll(2) with sigmask on the device or a
 * FIFO (timeout_ms -1: no timeout), a timed re-read for klogctl and regular
 * files (where -1 means the default tick). Returns 0, or -EINTR when a
 * signal arrived. */
int cgfb_klog_wait(struct cgfb_klog *k, int timeout_ms, const sigset_t *sigmask);

#endif
