/* A saved log scanned as `cgroup-feedback scan FILE` does
 * (client/detect/scan.c): the format sniffed, every line parsed, records
 * through the WARN block parser and the catalog, detections out.
 *
 * Property: for the text formats the scanner does not parse every line: it
 * jumps from one catalog needle (or WARN or boot marker) to the next with
 * a multi-literal search and parses only those lines and the inside of
 * WARN blocks. That shortcut must never change the result: the
 * detections (entry, occurrence, line, text, fields, level, time) and the
 * line count are the same as when every line is parsed and fed to a
 * detector in turn. A log that looks pasted is read a record at a time by
 * cgfb_paste_record, which may join re-wrapped lines: the reference does
 * the same, so what is checked there is the reading of streams in pieces
 * (joins at the end of the bytes wait for more) and the line count. */
#include <inttypes.h>

#include "detect/detect.h"
#include "detect/paste.h"
#include "detect/scan.h"
#include "fuzz.h"

static struct cgfb_catalog *cat;

FUZZ_INIT_BUILTIN(cgfb_catalog_load_builtin, cat, "built-in catalog")

struct log {
	char *b;
	size_t len, cap;
	unsigned n;
};

static void add(struct log *l, const char *s, size_t n)
{
	if (l->len + n + 1 > l->cap) {
		l->cap = (l->len + n) * 2 + 256;
		l->b = realloc(l->b, l->cap);
		if (!l->b)
			abort();
	}
	memcpy(l->b + l->len, s, n);
	l->len += n;
	l->b[l->len] = '\0';
}

static void detection(const struct cgfb_detection *d, void *arg)
{
	struct log *l = arg;
	char head[256];
	int n;

	n = snprintf(head, sizeof(head), "%s #%u line %lu level %d seq %d:%" PRIu64
		     " usec %d:%" PRIu64 " block %d text ", d->entry->id, d->occurrence, d->line,
		     d->level, d->has_seq, d->seq, d->has_usec, d->usec, d->in_warn_block);
	add(l, head, (size_t)n);
	PROPERTY(d->text_len < sizeof(d->text), "text of %zu bytes", d->text_len);
	add(l, d->text, d->text_len);
	for (unsigned i = 0; i < d->fields.n; i++) {
		add(l, " ", 1);
		add(l, d->fields.f[i].name, strlen(d->fields.f[i].name));
		add(l, "=", 1);
		add(l, d->fields.f[i].value, strlen(d->fields.f[i].value));
	}
	add(l, "\n", 1);
	l->n++;
}

/* Every line parsed and fed, one after the other (a record at a time when
 * pasted). */
static unsigned long reference(const char *buf, size_t len, enum cgfb_logfmt fmt, bool pasted,
			       struct log *l)
{
	static char text[CGFB_RECORD_TEXT_MAX];
	struct cgfb_detector *det;
	const char *p = buf, *end = buf + len;
	unsigned long lines = 0;

	if (cgfb_detector_new(cat, detection, l, &det) < 0)
		abort();
	while (p < end) {
		struct cgfb_record rec;
		const char *next;
		unsigned n;

		if (cgfb_paste_record(cat, fmt, pasted, p, end, true, text, sizeof(text), &rec,
				      &next, &n) == 1) {
			rec.line = lines + 1;
			cgfb_detector_feed(det, &rec);
		}
		lines += n;
		p = next;
	}
	cgfb_detector_finish(det);
	cgfb_detector_free(det);
	return lines;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct log got = { 0 }, want = { 0 };
	struct cgfb_scan_stats st;
	char *buf = malloc(size ? size : 1);
	int rc;

	memcpy(buf, data, size);
	rc = cgfb_scan_buffer(buf, size, cat, detection, &got, &st);
	PROPERTY(rc == 0, "scan returned %d", rc);
	PROPERTY(st.detections == got.n, "%lu detections counted, %u reported", st.detections,
		 got.n);
	PROPERTY(st.fmt == cgfb_logfmt_detect(buf, size), "format");
	PROPERTY(st.pasted == cgfb_logfmt_looks_pasted(st.fmt, buf, size), "paste");
	PROPERTY(!st.pasted || st.fmt == CGFB_FMT_DMESG || st.fmt == CGFB_FMT_SYSLOG,
		 "a %s log read as a paste", cgfb_logfmt_name(st.fmt));
	/* A systemd journal file (its magic first) is refused, not read as
	 * text: nothing scanned. */
	if (st.journal_file) {
		PROPERTY(size >= 8 && memcmp(buf, "LPKSHHRH", 8) == 0, "a journal file without its magic");
		PROPERTY(st.lines == 0 && got.n == 0, "a journal file scanned as text");
	} else if (st.fmt != CGFB_FMT_JOURNAL_EXPORT) {
		const unsigned long lines = reference(buf, size, st.fmt, st.pasted, &want);

		PROPERTY(st.lines == lines, "%s: %lu lines counted, %lu in the log",
			 cgfb_logfmt_name(st.fmt), st.lines, lines);
		PROPERTY(got.len == want.len && (!got.len || memcmp(got.b, want.b, got.len) == 0),
			 "%s: the scan found\n%s\nline by line:\n%s", cgfb_logfmt_name(st.fmt),
			 got.b ? got.b : "(nothing)\n", want.b ? want.b : "(nothing)\n");
	}
	free(got.b);
	free(want.b);
	free(buf);
	return 0;
}
