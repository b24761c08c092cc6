/* The kernel records of a systemd journal, read with libsystemd's
 * sd-journal: every boot on this machine, a journal directory, or files. */
#ifndef CGFB_JOURNAL_H
#define CGFB_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "log/record.h"

struct cgfb_journal_reader;

/* Where to read: exactly one of these, or none for the system journal
 * (SD_JOURNAL_LOCAL_ONLY|SD_JOURNAL_SYSTEM: every boot on this machine). */
struct cgfb_journal_src {
	const char *dir;            /* a journal directory (sd_journal_open_directory) */
	const char *const *files;   /* journal files (sd_journal_open_files), n_files of them */
	size_t n_files;
};

struct cgfb_journal_entry {
	/* text = MESSAGE (binary-safe, cut at CGFB_RECORD_TEXT_MAX), level from
	 * PRIORITY (-1 if absent), facility from SYSLOG_FACILITY (0 when absent:
	 * the kernel's transport), usec from _SOURCE_MONOTONIC_TIMESTAMP (when
	 * the kernel stamped the record), else __MONOTONIC_TIMESTAMP (when
	 * journald read it); has_seq false; line 0 (the caller may put the
	 * entry's sequence number there, cgfb_journal_seqnum). */
	struct cgfb_record rec;
	char boot_id[33];           /* _BOOT_ID, 32 lowercase hex; "" when unknown */
	char machine_id[33];        /* _MACHINE_ID, the same; "" when unknown */
	uint64_t realtime;          /* __REALTIME_TIMESTAMP, usec since the epoch; 0 unknown */
	uint64_t boot_first;        /* realtime of this boot's first kernel record seen */
	/* The journal the entry is being read from (cgfb_journal_seqnum);
	 * NULL for cgfb_journal_fields. */
	struct cgfb_journal_reader *reader;
};

/* A nonzero return stops the reading, and is returned. */
typedef int (*cgfb_journal_fn)(const struct cgfb_journal_entry *e, void *arg);

struct cgfb_journal_stats {
	unsigned long entries;      /* kernel records handed to the callback */
	unsigned long boots;        /* distinct boots among them */
};

/* One entry's fields, each "NAME=value" of len[i] bytes as
 * sd_journal_enumerate_data gives them (binary-safe, not NUL-terminated),
 * into e. MESSAGE is copied into text (textsz bytes, at most
 * CGFB_RECORD_TEXT_MAX of them are used) and e->rec.text points there.
 * Also read: _TRANSPORT, PRIORITY, SYSLOG_FACILITY, _BOOT_ID, _MACHINE_ID,
 * _SOURCE_MONOTONIC_TIMESTAMP and the export format's __MONOTONIC_TIMESTAMP
 * and __REALTIME_TIMESTAMP; the first of each counts. A blob with no '=' or
 * an empty name is skipped; a number that is not plain decimal (or out of
 * range) is taken as absent, as is a _BOOT_ID or _MACHINE_ID that is not
 * 32 hex digits.
 * Returns 1 for a kernel record (_TRANSPORT=kernel, and no other transport
 * named, with a MESSAGE), 0 for anything else (userspace writes what it
 * likes, "kernel" as its identifier too, but never the kernel's transport),
 * or -EINVAL when e or text is missing. */
int cgfb_journal_fields(const void *const *data, const size_t *len, size_t n,
			struct cgfb_journal_entry *e, char *text, size_t textsz);

/* Every kernel record (_TRANSPORT=kernel) in the journal's order (time,
 * boot after boot). Returns 0, the callback's nonzero value, or a negative
 * errno with the reason in err, naming the path: a directory with no
 * journal files, a file that is not a journal, permission denied. st may
 * be NULL. */
int cgfb_journal_scan(const struct cgfb_journal_src *src, cgfb_journal_fn fn, void *arg,
		      struct cgfb_journal_stats *st, char *err, size_t errsz);

/* The kernel records of one boot (boot_id: 32 hex digits) whose monotonic
 * time (rec.usec) is in [from_usec, to_usec]: for a watcher that lost
 * records of the current boot from the ring buffer (EPIPE) to find them in
 * the journal. Returns as cgfb_journal_scan. */
int cgfb_journal_boot_range(const struct cgfb_journal_src *src, const char *boot_id,
			    uint64_t from_usec, uint64_t to_usec, cgfb_journal_fn fn, void *arg,
			    char *err, size_t errsz);

/* The entry's sequence number in its journal file (what the cursor says
 * as "i="), looked up when asked: on Debian 12's systemd 252 only the
 * cursor gives it, and formatting and parsing one for every entry costs
 * the scan a sixth of its time, while a detection needs it for a few.
 * Only while the callback that got e runs. 0, -ENODATA for an entry of
 * cgfb_journal_fields, or another negative errno. */
int cgfb_journal_seqnum(const struct cgfb_journal_entry *e, uint64_t *seqnum);

/* This machine's id (/etc/machine-id), 32 lowercase hex, as the journal
 * stamps it (_MACHINE_ID): a journal's records of another machine are
 * told by it. 0, or a negative errno and "". */
int cgfb_journal_this_machine(char out[33]);

#endif
