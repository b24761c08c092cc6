#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "log/kmsg_record.h"
#include "log/logfmt.h"

/* How much of a file the format guess looks at. */
#define DETECT_LINES 64
#define DETECT_BYTES (64u << 10)

static const char *const level_names[] = {
	"emerg", "alert", "crit", "err", "warn", "notice", "info", "debug",
};

static const char *const facility_names[] = {
	"kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news",
	"uucp", "cron", "authpriv", "ftp", "res0", "res1", "res2", "res3",
	"local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7",
};

const char *cgfb_logfmt_name(enum cgfb_logfmt fmt)
{
	switch (fmt) {
	case CGFB_FMT_KMSG:
		return "kmsg";
	case CGFB_FMT_SYSLOG:
		return "syslog";
	case CGFB_FMT_JOURNAL_EXPORT:
		return "journal-export";
	case CGFB_FMT_DMESG:
		break;
	}
	return "dmesg";
}

static bool starts(const char *p, const char *end, const char *lit)
{
	const size_t n = strlen(lit);

	return (size_t)(end - p) >= n && memcmp(p, lit, n) == 0;
}

static const char *skip_spaces(const char *p, const char *end)
{
	while (p < end && *p == ' ')
		p++;
	return p;
}

static const char *skip_token(const char *p, const char *end)
{
	while (p < end && *p != ' ')
		p++;
	return p;
}

/* "<N>" as in klogctl output and dmesg -r: facility and level. */
static const char *parse_prio(const char *p, const char *end, struct cgfb_record *rec)
{
	unsigned v = 0;
	const char *s = p + 1;

	if (p >= end || *p != '<')
		return p;
	for (; s < end && isdigit((unsigned char)*s) && v < 1024; s++)
		v = v * 10 + (unsigned)(*s - '0');
	if (s == p + 1 || s >= end || *s != '>' || v >= 1024)
		return p;
	rec->level = (int)(v & 7);
	rec->facility = (int)(v >> 3);
	return s + 1;
}

static int name_index(const char *p, size_t n, const char *const *names, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (strlen(names[i]) == n && memcmp(names[i], p, n) == 0)
			return (int)i;
	return -1;
}

/* dmesg -x: "kern  :warn  : " (facility and level names, padded). */
static const char *parse_decoded_prio(const char *p, const char *end, struct cgfb_record *rec)
{
	const char *c1 = memchr(p, ':', (size_t)(end - p) < 16 ? (size_t)(end - p) : 16);
	const char *f_end, *l, *c2;
	int fac, lvl;

	if (!c1)
		return p;
	for (f_end = c1; f_end > p && f_end[-1] == ' '; f_end--)
		;
	l = c1 + 1;
	c2 = memchr(l, ':', (size_t)(end - l) < 16 ? (size_t)(end - l) : 16);
	if (!c2 || c2 + 1 >= end || c2[1] != ' ')
		return p;
	const char *l_end = c2;

	while (l_end > l && l_end[-1] == ' ')
		l_end--;
	fac = name_index(p, (size_t)(f_end - p), facility_names, 24);
	lvl = name_index(l, (size_t)(l_end - l), level_names, 8);
	if (fac < 0 || lvl < 0)
		return p;
	rec->facility = fac;
	rec->level = lvl;
	return c2 + 2;
}

/* A bracketed time stamp as dmesg prints it: "[ 1.234567]", "[Tue Feb  3
 * 13:45:33 2026]", "[  +0,000000]", "[Feb 3 13:45]", "[<    0.000000>]". Only
 * characters a time stamp is made of are accepted, so "[drm]" is text. */
static const char *skip_timestamp(const char *p, const char *end)
{
	const char *s;

	if (p >= end || *p != '[')
		return p;
	for (s = p + 1; s < end && s - p < 48; s++) {
		const unsigned char c = (unsigned char)*s;

		if (c == ']')
			break;
		if (!isdigit(c) && !isalpha(c) && !strchr(" .,:+-<>", c))
			return p;
	}
	if (s >= end || *s != ']' || s == p + 1)
		return p;
	/* At least one digit, or "[drm]" and friends would be taken. */
	for (const char *d = p + 1; d < s; d++)
		if (isdigit((unsigned char)*d))
			return skip_spaces(s + 1, end);
	return p;
}

/* CONFIG_PRINTK_CALLER as dmesg shows it: "[  T123] " or "[    C1] ". */
static const char *parse_caller(const char *p, const char *end, struct cgfb_record *rec)
{
	const char *s = p + 1, *id;

	if (p >= end || *p != '[')
		return p;
	s = skip_spaces(s, end);
	id = s;
	if (s >= end || (*s != 'T' && *s != 'C'))
		return p;
	for (s++; s < end && isdigit((unsigned char)*s); s++)
		;
	if (s >= end || *s != ']' || s == id + 1 || (size_t)(s - id) >= sizeof(rec->caller))
		return p;
	memcpy(rec->caller, id, (size_t)(s - id));
	rec->caller[s - id] = '\0';
	return skip_spaces(s + 1, end);
}

static void finish(struct cgfb_record *rec, const char *p, const char *end)
{
	rec->text = p;
	rec->len = (size_t)(end - p);
	/* Carriage returns from logs that went through a Windows share. */
	while (rec->len && rec->text[rec->len - 1] == '\r')
		rec->len--;
}

/* "[ 1234.567890]": seconds since boot, kept so that a log without sequence
 * numbers (klogctl on old kernels) still has an order to resume from. */
static void monotonic_time(const char *p, const char *end, struct cgfb_record *rec)
{
	uint64_t sec = 0, usec = 0;
	int digits = 0;

	if (p >= end || *p != '[')
		return;
	for (p = skip_spaces(p + 1, end); p < end && isdigit((unsigned char)*p); p++)
		sec = sec * 10 + (uint64_t)(*p - '0');
	if (p >= end || *p != '.' || sec > UINT64_MAX / 2000000)
		return;
	for (p++; p < end && isdigit((unsigned char)*p) && digits < 6; p++, digits++)
		usec = usec * 10 + (uint64_t)(*p - '0');
	if (p >= end || *p != ']' || digits != 6)
		return;
	rec->usec = sec * 1000000 + usec;
	rec->has_usec = true;
}

static int parse_dmesg(const char *line, size_t len, struct cgfb_record *rec)
{
	const char *p = line, *end = line + len, *q;

	p = parse_prio(p, end, rec);
	if (p == line)
		p = parse_decoded_prio(p, end, rec);
	monotonic_time(p, end, rec);
	p = skip_timestamp(p, end);
	/* "[  T123]" after the time stamp is the caller, which would also pass
	 * for a time stamp; dmesg -H prints "[Feb 3 13:45] " before the first
	 * "[  +0.000123]". */
	q = parse_caller(p, end, rec);
	if (q == p) {
		p = skip_timestamp(p, end);
		q = parse_caller(p, end, rec);
	}
	p = q;
	finish(rec, p, end);
	return 1;
}

static bool is_month(const char *p, const char *end)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";

	if (end - p < 4 || p[3] != ' ')
		return false;
	for (int i = 0; i < 12; i++)
		if (memcmp(p, months + 3 * i, 3) == 0)
			return true;
	return false;
}

/* Past the time stamp of a syslog or journalctl line, or NULL. */
static const char *skip_syslog_time(const char *p, const char *end)
{
	if (is_month(p, end)) {
		/* "Aug 10 18:00:07", "Dec 03 01:50:51.123456" */
		p = skip_spaces(p + 4, end);
		p = skip_token(p, end);
		p = skip_spaces(p, end);
		if (p >= end || !isdigit((unsigned char)*p))
			return NULL;
		p = skip_token(p, end);
		return p < end ? p + 1 : NULL;
	}
	if (end - p >= 11 && isdigit((unsigned char)p[0]) && p[4] == '-' && p[7] == '-' &&
	    (p[10] == 'T' || p[10] == ' ')) {
		/* RFC 3339 (rsyslog) and journalctl short-iso(-precise) */
		p = skip_token(p + 11, end);
		return p < end ? p + 1 : NULL;
	}
	if (p < end && *p == '[') {
		/* journalctl -o short-monotonic */
		const char *q = skip_timestamp(p, end);

		return q != p ? q : NULL;
	}
	return NULL;
}

/* Past a syslog line's own "<PRI>", which a template may write first:
 * rsyslog's RSYSLOG_SyslogProtocol23Format and RFC 5424 ("<PRI>1 ", *rfc5424
 * set; rsyslog runtime/rsconf.c template_SyslogProtocol23Format), or one
 * that puts %PRI% before a traditional line. Not before a bracketed time
 * stamp: "<4>[ 1.2] ..." is dmesg -r. p itself when there is none. */
static const char *skip_syslog_pri(const char *p, const char *end, struct cgfb_record *rec,
				   bool *rfc5424)
{
	const char *q = parse_prio(p, end, rec);

	*rfc5424 = false;
	if (q == p)
		return p;
	if (end - q >= 2 && q[0] == '1' && q[1] == ' ') {
		*rfc5424 = true;
		return q + 2;
	}
	return q < end && *q == '[' ? p : q;
}

/* RFC 5424 after APP-NAME: PROCID, MSGID and STRUCTURED-DATA ("-", or
 * elements "[id name="value"]" whose values may hold an escaped '"' or
 * ']'); the message follows, after a byte order mark if any. NULL when
 * they are not there. */
static const char *skip_5424_header(const char *p, const char *end)
{
	p = skip_token(skip_spaces(p, end), end);          /* PROCID */
	p = skip_token(skip_spaces(p, end), end);          /* MSGID */
	p = skip_spaces(p, end);
	if (p >= end)
		return NULL;
	if (*p == '-') {
		p++;
	} else {
		while (p < end && *p == '[') {
			bool quoted = false;

			for (p++; p < end && (quoted || *p != ']'); p++) {
				if (*p == '\\' && quoted && p + 1 < end)
					p++;
				else if (*p == '"')
					quoted = !quoted;
			}
			if (p >= end)
				return NULL;
			p++;
		}
	}
	if (p < end && *p != ' ')
		return NULL;
	p = skip_spaces(p, end);
	if (end - p >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	return p;
}

/* "<time> <host> <tag>: message", or RFC 5424's "<PRI>1 <time> <host>
 * <app> <procid> <msgid> <sd> message". Only the "kernel" tag counts:
 * every other program's lines are skipped, whatever they say, and so is a
 * "kernel" line whose own PRI names another facility than kern.
 *
 * What is left is still not proven the kernel's (rec->unproven): a syslog
 * file's tag and facility are what the sender claimed. Any local user
 * may send "<4>... kernel: ..." to /dev/log (systemd 252's
 * units/systemd-journald-dev-log.socket:26, SocketMode=0666): glibc's
 * syslog(3) turns facility 0 into its default, LOG_USER (misc/syslog.c,
 * "Set default facility if none specified"), but a raw datagram says what
 * it likes. On Debian 12 /dev/log is systemd-journald's: it keeps the
 * claimed facility (src/basic/syslog-util.c:15-57, syslog_parse_priority
 * with_facility, called from src/journal/journald-syslog.c:370) and hands
 * the datagram on to rsyslog verbatim (forward_syslog_raw, :111-122, from
 * :384; ForwardToSyslog=yes by Debian's
 * debian/patches/debian/Re-enable-journal-forwarding-to-syslog.patch,
 * journald-server.c:2293). rsyslog's imuxsock takes the PRI as it comes
 * (plugins/imuxsock/imuxsock.c:845-852 and :980, rsyslog 8.2302.0), so the
 * line lands in kern.log with facility kern and the tag "kernel:", exactly
 * as imklog writes the kernel's own (plugins/imklog/imklog.c:298). Only
 * journald's own record of it differs
 * (_TRANSPORT=syslog, journald-syslog.c:398): scan --journal reads that. */
static int parse_syslog(const char *line, size_t len, struct cgfb_record *rec)
{
	const char *p = line, *end = line + len, *tag;
	bool rfc5424, kernel;

	p = skip_syslog_pri(p, end, rec, &rfc5424);
	const bool pri = p != line;
	const bool monotonic = p < end && *p == '[';

	p = skip_syslog_time(p, end);
	if (!p)
		return -EBADMSG;
	p = skip_spaces(p, end);
	p = skip_token(p, end);            /* host */
	tag = skip_spaces(p, end);
	p = skip_token(tag, end);
	if (p == tag || (!rfc5424 && p[-1] != ':'))
		return -EBADMSG;
	if (rfc5424) {
		kernel = (size_t)(p - tag) == 6 && memcmp(tag, "kernel", 6) == 0;
		p = skip_5424_header(p, end);
		if (!p)
			return -EBADMSG;
	} else {
		kernel = (size_t)(p - tag) == 7 && memcmp(tag, "kernel:", 7) == 0;
	}
	if (!kernel)
		/* "[ 1.2] usb 2-1: ..." is dmesg, not journalctl -o
		 * short-monotonic, which with -k only ever shows "kernel:". */
		return monotonic ? -EBADMSG : 0;
	if (pri && rec->facility > 0)
		return 0;
	rec->unproven = true;
	p = skip_spaces(p, end);
	p = skip_timestamp(p, end);
	p = parse_caller(p, end, rec);
	finish(rec, p, end);
	return 1;
}

const char *cgfb_logfmt_unquote(const char *line, size_t len)
{
	const char *p = line, *end = line + len;

	for (;;) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p >= end || *p != '>')
			return p;
		p++;
	}
}

/* Text formats only: a kmsg line starting with a space is a property line,
 * and a quote mark is never the start of a kmsg record. */
static void unquote_line(const char **line, size_t *len)
{
	const char *u = cgfb_logfmt_unquote(*line, *len);

	*len -= (size_t)(u - *line);
	*line = u;
}

int cgfb_logfmt_parse_line(enum cgfb_logfmt fmt, const char *line, size_t len, char *buf,
			   size_t bufsz, struct cgfb_record *rec)
{
	int rc;

	if (fmt == CGFB_FMT_DMESG || fmt == CGFB_FMT_SYSLOG)
		unquote_line(&line, &len);

	switch (fmt) {
	case CGFB_FMT_KMSG:
		/* Continuation lines (" KEY=value") are device properties, not text. */
		if (len == 0 || line[0] == ' ')
			return 0;
		/* A saved copy that went through a Windows share. */
		while (len && line[len - 1] == '\r')
			len--;
		rc = cgfb_kmsg_parse(line, len, buf, bufsz, rec);
		return rc < 0 ? rc : 1;
	case CGFB_FMT_SYSLOG:
		memset(rec, 0, sizeof(*rec));
		rec->level = -1;
		rec->facility = -1;
		return parse_syslog(line, len, rec);
	case CGFB_FMT_JOURNAL_EXPORT:
		return -EINVAL;
	case CGFB_FMT_DMESG:
		break;
	}
	memset(rec, 0, sizeof(*rec));
	rec->level = -1;
	rec->facility = -1;
	return parse_dmesg(line, len, rec);
}

/* The format a line has, or -1 for a line with no record prefix at all
 * (dmesg without time stamps, the rest of a re-wrapped record, the prose
 * around a paste), which says nothing about the format. */
static int classify(const char *line, size_t len)
{
	struct cgfb_record rec = { .level = -1, .facility = -1 };

	if (cgfb_kmsg_looks_like(line, len))
		return CGFB_FMT_KMSG;
	/* A quoted or indented syslog paste is still syslog. */
	unquote_line(&line, &len);
	if (parse_syslog(line, len, &rec) >= 0)
		return CGFB_FMT_SYSLOG;
	if (!cgfb_logfmt_starts_record(CGFB_FMT_DMESG, line, len))
		return -1;
	return CGFB_FMT_DMESG;
}

/* " KEY=value": a property line of a kmsg record, which the vote skips. */
static bool kmsg_property(const char *p, const char *end)
{
	const char *s = p + 1;

	while (s < end && (isupper((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_'))
		s++;
	return *p == ' ' && s > p + 1 && s < end && *s == '=';
}

enum cgfb_logfmt cgfb_logfmt_detect(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + (len < DETECT_BYTES ? len : DETECT_BYTES);
	unsigned votes[4] = { 0 }, lines = 0;

	while (p < end && (*p == '\n' || *p == '\r'))
		p++;
	if (starts(p, end, "__CURSOR=") || starts(p, end, "__REALTIME_TIMESTAMP="))
		return CGFB_FMT_JOURNAL_EXPORT;
	while (p < end && lines < DETECT_LINES) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;

		const int f = e > p && !kmsg_property(p, e) ? classify(p, (size_t)(e - p)) : -1;

		if (f >= 0) {
			votes[f]++;
			lines++;
		}
		p = nl ? nl + 1 : end;
	}
	/* A structured format wins when most lines have its shape; dmesg
	 * output without time stamps has no shape at all. */
	if (votes[CGFB_FMT_KMSG] * 2 > lines)
		return CGFB_FMT_KMSG;
	if (votes[CGFB_FMT_SYSLOG] * 2 > lines)
		return CGFB_FMT_SYSLOG;
	return CGFB_FMT_DMESG;
}

bool cgfb_logfmt_binary(const char *buf, size_t len)
{
	const size_t n = len < DETECT_BYTES ? len : DETECT_BYTES;
	size_t odd = 0, zeros = 0;

	/* Control bytes other than the text ones (tab, newlines, form feed,
	 * the ESC of colours) are rare in a log; a run of NULs is not one of
	 * them: a syslog file after a power cut has blocks of zeros. */
	for (size_t i = 0; i < n; i++) {
		const unsigned char c = (unsigned char)buf[i];

		if (c == 0) {
			zeros++;
			continue;
		}
		odd += zeros > 0 && zeros < 16;
		zeros = 0;
		odd += c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' &&
		       c != '\v' && c != '\b' && c != 0x1b;
	}
	return odd * 32 > n;
}

/* Copy what is left, a sequence cut by the end of the buffer included:
 * the next call sees it whole. */
static size_t keep_rest(char *w, const char *r, const char *end, char *buf)
{
	memmove(w, r, (size_t)(end - r));
	return (size_t)(w - buf) + (size_t)(end - r);
}

size_t cgfb_logfmt_strip_csi(char *buf, size_t len)
{
	char *w = memchr(buf, 0x1b, len);
	const char *r = w, *const end = buf + len;

	if (!w)
		return len;
	while (r < end) {
		const char *p = r + 2;

		if (*r != 0x1b || (r + 1 < end && r[1] != '[')) {
			*w++ = *r++;        /* text, or an ESC that starts no CSI */
			continue;
		}
		/* ESC [ parameters intermediates final (ECMA-48). */
		while (p < end && *p >= 0x30 && *p <= 0x3f)
			p++;
		while (p < end && *p >= 0x20 && *p <= 0x2f)
			p++;
		if (p >= end)
			return keep_rest(w, r, end, buf);
		if (*p >= 0x40 && *p <= 0x7e)
			r = p + 1;
		else
			*w++ = *r++;
	}
	return (size_t)(w - buf);
}

bool cgfb_logfmt_journal_file(const char *buf, size_t len)
{
	return len >= 8 && memcmp(buf, "LPKSHHRH", 8) == 0;
}

bool cgfb_logfmt_starts_record(enum cgfb_logfmt fmt, const char *line, size_t len)
{
	struct cgfb_record rec;
	const char *p, *end;
	bool rfc5424;

	unquote_line(&line, &len);
	end = line + len;
	switch (fmt) {
	case CGFB_FMT_SYSLOG:
		memset(&rec, 0, sizeof(rec));
		p = skip_syslog_pri(line, end, &rec, &rfc5424);
		return skip_syslog_time(p, end) != NULL;
	case CGFB_FMT_DMESG:
		memset(&rec, 0, sizeof(rec));
		p = parse_prio(line, end, &rec);
		if (p == line)
			p = parse_decoded_prio(line, end, &rec);
		return p != line || skip_timestamp(line, end) != line;
	case CGFB_FMT_KMSG:
	case CGFB_FMT_JOURNAL_EXPORT:
		break;
	}
	return true;
}

bool cgfb_logfmt_looks_pasted(enum cgfb_logfmt fmt, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + (len < DETECT_BYTES ? len : DETECT_BYTES);
	unsigned lines = 0;

	if (fmt != CGFB_FMT_DMESG && fmt != CGFB_FMT_SYSLOG)
		return false;
	while (p < end && lines < DETECT_LINES) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		const char *u = cgfb_logfmt_unquote(p, (size_t)(e - p));

		/* Blank lines (a quoted one is ">") say nothing. */
		if (u < e && *u != '\r') {
			if (u != p || !cgfb_logfmt_starts_record(fmt, u, (size_t)(e - u)))
				return true;
			lines++;
		}
		p = nl ? nl + 1 : end;
	}
	return false;
}
