/* The saved-log formats and the format sniffer (client/log/logfmt.c): the
 * whole input is sniffed, then every line is parsed as each line format.
 *
 * Properties: the sniffer names a format; a line format returns a record,
 * a skip or -EBADMSG and nothing else; dmesg takes every line; a record's
 * text lies inside the line (dmesg, syslog: its end, the prefixes cut and
 * only carriage returns after it) or inside the buffer given (kmsg), and its level and facility are
 * in range; unquoting stays inside the line and stops at the line's own
 * first byte; only a text format (dmesg, syslog) looks pasted. */
#include <errno.h>

#include "fuzz.h"
#include "log/logfmt.h"

static void check_line(enum cgfb_logfmt fmt, const char *line, size_t len)
{
	static char buf[CGFB_RECORD_TEXT_MAX];
	struct cgfb_record rec;
	const int rc = cgfb_logfmt_parse_line(fmt, line, len, buf, sizeof(buf), &rec);

	PROPERTY(rc == 1 || rc == 0 || rc == -EBADMSG, "%s: rc %d", cgfb_logfmt_name(fmt), rc);
	PROPERTY(fmt != CGFB_FMT_DMESG || rc == 1, "dmesg refused a line");
	if (rc != 1)
		return;
	PROPERTY(rec.level >= -1 && rec.level <= 7, "level %d", rec.level);
	PROPERTY(rec.facility >= -1 && rec.facility <= 127, "facility %d", rec.facility);
	PROPERTY(memchr(rec.caller, '\0', sizeof(rec.caller)), "caller not terminated");
	if (fmt == CGFB_FMT_KMSG) {
		PROPERTY(rec.text == buf && rec.len < sizeof(buf), "kmsg text outside its buffer");
	} else {
		PROPERTY(rec.text >= line && rec.text + rec.len <= line + len,
			 "%s text outside the line", cgfb_logfmt_name(fmt));
		for (const char *c = rec.text + rec.len; c < line + len; c++)
			PROPERTY(*c == '\r', "%s text is not the end of the line",
				 cgfb_logfmt_name(fmt));
	}
	fuzz_touch(rec.text, rec.len);
}

/* What a paste adds in front of a line: unquote only skips, and what it
 * leaves starts with neither a quote mark nor a blank. */
static void check_unquote(const char *line, size_t len)
{
	const char *u = cgfb_logfmt_unquote(line, len);

	PROPERTY(u >= line && u <= line + len, "unquote left the line");
	PROPERTY(u == line + len || (*u != '>' && *u != ' ' && *u != '\t'),
		 "unquote stopped at '%c'", *u);
	(void)cgfb_logfmt_starts_record(CGFB_FMT_DMESG, line, len);
	(void)cgfb_logfmt_starts_record(CGFB_FMT_SYSLOG, line, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	const char *p, *end = buf + size;
	enum cgfb_logfmt fmt;

	memcpy(buf, data, size);
	fmt = cgfb_logfmt_detect(buf, size);
	PROPERTY(fmt == CGFB_FMT_DMESG || fmt == CGFB_FMT_KMSG || fmt == CGFB_FMT_SYSLOG ||
		 fmt == CGFB_FMT_JOURNAL_EXPORT, "format %d", (int)fmt);
	PROPERTY(!cgfb_logfmt_looks_pasted(fmt, buf, size) || fmt == CGFB_FMT_DMESG ||
		 fmt == CGFB_FMT_SYSLOG, "a %s log looks pasted", cgfb_logfmt_name(fmt));
	for (p = buf; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const size_t n = (size_t)((nl ? nl : end) - p);
		/* Each line on its own allocation: a read past it is caught. */
		char *line = malloc(n ? n : 1);

		memcpy(line, p, n);
		check_line(CGFB_FMT_DMESG, line, n);
		check_line(CGFB_FMT_SYSLOG, line, n);
		check_line(CGFB_FMT_KMSG, line, n);
		check_unquote(line, n);
		free(line);
		p = nl ? nl + 1 : end;
	}
	free(buf);
	return 0;
}
