/* Saved kernel log formats: detection per file and parsing per line. */
#ifndef CGFB_LOGFMT_H
#define CGFB_LOGFMT_H

#include <stdbool.h>
#include <stddef.h>

#include "log/record.h"

enum cgfb_logfmt {
	CGFB_FMT_DMESG,          /* dmesg output: [ts], -T, -H, --reltime, -x, -r, or no timestamps */
	CGFB_FMT_KMSG,           /* raw /dev/kmsg records */
	CGFB_FMT_SYSLOG,         /* syslog files and journalctl -k short formats */
	CGFB_FMT_JOURNAL_EXPORT, /* journalctl -o export */
};

const char *cgfb_logfmt_name(enum cgfb_logfmt fmt);

/* The first bytes of an input are no text log: more control bytes than a
 * log has (runs of NULs, as a power cut leaves in a log file, are not
 * counted). After decompression: a compressed file is recognised before. */
bool cgfb_logfmt_binary(const char *buf, size_t len);
/* A systemd journal file ("LPKSHHRH"), which scan reads with
 * --journal-file, not as text. */
bool cgfb_logfmt_journal_file(const char *buf, size_t len);
/* Remove the terminal's escape sequences (ECMA-48 CSI: the colours of
 * dmesg --color=always, grep --color) from buf in place, so that a
 * coloured message reads as the kernel printed it; returns the new
 * length. A sequence cut off at the end is kept for the next call. */
size_t cgfb_logfmt_strip_csi(char *buf, size_t len);

/* Guess the format of a log from its first bytes (the first lines decide). */
enum cgfb_logfmt cgfb_logfmt_detect(const char *buf, size_t len);

/* Parse one line (without newline) of a line-oriented format into rec.
 * Returns 1 for a kernel record, 0 for a line to skip (a syslog line from
 * another program, a kmsg continuation line), or -EBADMSG for a line that
 * does not fit a structured format. buf receives unescaped text if needed. */
int cgfb_logfmt_parse_line(enum cgfb_logfmt fmt, const char *line, size_t len, char *buf,
			   size_t bufsz, struct cgfb_record *rec);

/* Where a line starts once what a paste adds in front is skipped: e-mail
 * quote marks (">", "> ", ">> ", "> > ") and indentation (spaces, tabs). */
const char *cgfb_logfmt_unquote(const char *line, size_t len);

/* Whether the line (quote marks allowed) starts a record of a text format
 * (DMESG: a priority or a time stamp; SYSLOG: a time stamp): a line that
 * does not may be the rest of the record before it, re-wrapped. */
bool cgfb_logfmt_starts_record(enum cgfb_logfmt fmt, const char *line, size_t len);

/* Whether a text-format log looks pasted rather than saved: quoted or
 * indented lines, or lines without a record prefix (re-wrapped records,
 * time stamps stripped). The first lines decide, as for the format. */
bool cgfb_logfmt_looks_pasted(enum cgfb_logfmt fmt, const char *buf, size_t len);

#endif
