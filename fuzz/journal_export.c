/* journalctl -o export (client/log/journal_export.c), text and binary
 * fields.
 *
 * Property: the parser reads a stream in pieces (cgfb_scan_fd hands it
 * chunks, and keeps what was not consumed for the next call), so parsing
 * the input in two pieces, cut anywhere, gives the same records, with the
 * same line numbers, as parsing it whole. */
#include <errno.h>

#include "fuzz.h"
#include "log/journal_export.h"

struct log {
	char *b;
	size_t len, cap;
	unsigned n;
};

static void add(struct log *l, const void *p, size_t n)
{
	if (l->len + n > l->cap) {
		l->cap = (l->len + n) * 2 + 64;
		l->b = realloc(l->b, l->cap);
		if (!l->b)
			abort();
	}
	memcpy(l->b + l->len, p, n);
	l->len += n;
}

/* Everything a record says, in a form that can be compared. */
static void record(const struct cgfb_record *rec, void *arg)
{
	struct log *l = arg;

	fuzz_touch(rec->text, rec->len);
	add(l, &rec->len, sizeof(rec->len));
	add(l, rec->text, rec->len);
	add(l, &rec->level, sizeof(rec->level));
	add(l, &rec->facility, sizeof(rec->facility));
	add(l, &rec->has_usec, sizeof(rec->has_usec));
	add(l, &rec->usec, sizeof(rec->usec));
	add(l, &rec->line, sizeof(rec->line));
	l->n++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct log whole = { 0 }, parts = { 0 };
	unsigned long line = 0, line2 = 0;
	char *buf;
	size_t cut;
	long n, m, used;

	if (size < 2)
		return 0;
	/* The first two bytes choose where the input is cut. */
	cut = ((size_t)data[0] << 8 | data[1]) % (size - 1);
	data += 2;
	size -= 2;
	buf = malloc(size ? size : 1);
	memcpy(buf, data, size);

	n = cgfb_journal_export_parse(buf, size, true, &line, record, &whole);
	PROPERTY(n == (long)size || n == -EBADMSG, "whole: returned %ld of %zu", n, size);

	used = cgfb_journal_export_parse(buf, cut, false, &line2, record, &parts);
	PROPERTY(used >= 0 && (size_t)used <= cut, "first piece: consumed %ld of %zu", used, cut);
	m = cgfb_journal_export_parse(buf + used, size - (size_t)used, true, &line2, record,
				      &parts);
	PROPERTY(m == -EBADMSG || m == (long)size - used, "second piece: returned %ld of %zu", m,
		 size - (size_t)used);
	PROPERTY((n < 0) == (m < 0), "truncated whole (%ld) but not in pieces (%ld) or the reverse",
		 n, m);
	PROPERTY(whole.n == parts.n, "%u records whole, %u in pieces (cut at %zu)", whole.n,
		 parts.n, cut);
	PROPERTY(whole.len == parts.len && (!whole.len || memcmp(whole.b, parts.b, whole.len) == 0),
		 "records differ whole and in pieces (cut at %zu)", cut);
	PROPERTY(line == line2, "line %lu whole, %lu in pieces", line, line2);
	free(whole.b);
	free(parts.b);
	free(buf);
	return 0;
}
