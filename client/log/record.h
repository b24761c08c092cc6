/* One kernel log record, as every log source hands it to the detector. */
#ifndef CGFB_RECORD_H
#define CGFB_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CGFB_RECORD_TEXT_MAX 8192

struct cgfb_record {
	const char *text;      /* unescaped message, not NUL-terminated */
	size_t len;
	int level;             /* printk level 0-7, -1 when the format does not say */
	int facility;          /* 0 kernel, >0 userspace, -1 when the format does not say */
	bool has_seq;
	uint64_t seq;          /* /dev/kmsg sequence number */
	bool has_usec;
	uint64_t usec;         /* time since boot */
	bool fragment;         /* kmsg 'c' or '+' flag: part of a continued line */
	bool frag_start;       /* kmsg 'c': the first part of one */
	unsigned long line;    /* 1-based line in a file, 0 for the live log */
	char caller[16];       /* CONFIG_PRINTK_CALLER: "T123" or "C1", else "" */
	/* The format cannot show that the kernel wrote it: a syslog file's
	 * "kernel:" tag, and its facility kern, are any local program's to
	 * claim (logfmt.c, docs/SECURITY.md "Saved logs: what proves a line
	 * is the kernel's"). Detected and shown, never reported unless the
	 * administrator vouches for the file. */
	bool unproven;
	/* A userspace record the journal vouches for: journald took _UID (0)
	 * and _PID or _SYSTEMD_UNIT from the writer's credentials, which no
	 * writer can choose (log/journal.c). Only such records may match the
	 * catalog's userspace entries (B2 systemd, B3 kubelet); a syslog file
	 * or /dev/kmsg line never is one. */
	bool user_trusted;
	int pid;               /* _PID of a trusted userspace record, else 0 */
	char unit[64];         /* its _SYSTEMD_UNIT, "" when none */
};

/* Records a detection may come from: kernel facility, or a format that
 * cannot tell. Userspace can write /dev/kmsg but never with facility 0. */
static inline bool cgfb_record_from_kernel(const struct cgfb_record *r)
{
	return r->facility <= 0;
}

#endif
