#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log/journal_export.h"

struct entry {
	const char *msg;
	size_t msg_len;
	bool kernel, other_transport;
	int level;
	int facility;
	bool has_usec;
	unsigned long long usec;
	unsigned long line;
};

static bool field_is(const char *p, size_t n, const char *name)
{
	return strlen(name) == n && memcmp(p, name, n) == 0;
}

static int small_int(const char *v, size_t n)
{
	int x = 0;

	if (n == 0 || n > 3)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -1;
		x = x * 10 + (v[i] - '0');
	}
	return x;
}

static void take_field(struct entry *e, const char *name, size_t nlen, const char *v, size_t vlen)
{
	if (field_is(name, nlen, "MESSAGE")) {
		e->msg = v;
		e->msg_len = vlen;
	} else if (field_is(name, nlen, "_TRANSPORT")) {
		/* journald sets it and drops any a client sends (a field
		 * with a leading '_' is trusted: systemd 252
		 * src/journal/journald-native.c:160 and :228,
		 * journal_field_valid(..., false)). Two in one entry is no
		 * entry journald wrote: kernel only if every one says so, as
		 * journal.c reads them. */
		if (vlen != 6 || memcmp(v, "kernel", 6) != 0)
			e->other_transport = true;
		e->kernel = !e->other_transport;
	} else if (field_is(name, nlen, "PRIORITY")) {
		e->level = small_int(v, vlen);
	} else if (field_is(name, nlen, "SYSLOG_FACILITY")) {
		e->facility = small_int(v, vlen);
	} else if (field_is(name, nlen, "__MONOTONIC_TIMESTAMP") && vlen && vlen < 21) {
		char tmp[24];

		memcpy(tmp, v, vlen);
		tmp[vlen] = '\0';
		e->usec = strtoull(tmp, NULL, 10);
		e->has_usec = true;
	}
}

static void emit(const struct entry *e, cgfb_record_fn fn, void *arg)
{
	struct cgfb_record rec = { 0 };

	/* Only the kernel's own transport: a program logging "kernel" as its
	 * identifier still arrives through syslog or the journal API. */
	if (!e->kernel || !e->msg)
		return;
	rec.text = e->msg;
	rec.len = e->msg_len;
	rec.level = e->level;
	rec.facility = e->facility >= 0 ? e->facility : 0;
	rec.has_usec = e->has_usec;
	rec.usec = e->usec;
	rec.line = e->line;
	fn(&rec, arg);
}

static void reset(struct entry *e, unsigned long line)
{
	memset(e, 0, sizeof(*e));
	e->level = -1;
	e->facility = -1;
	e->line = line;
}

long cgfb_journal_export_parse(const char *buf, size_t len, bool eof, unsigned long *line,
			       cgfb_record_fn fn, void *arg)
{
	const char *p = buf, *end = buf + len, *entry_start = buf;
	unsigned long ln = *line, entry_line = *line + 1;
	struct entry e;

	reset(&e, entry_line);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl) {
			/* A last line without its newline still counts at the end. */
			const char *eq = eof ? memchr(p, '=', (size_t)(end - p)) : NULL;

			if (eq) {
				take_field(&e, p, (size_t)(eq - p), eq + 1, (size_t)(end - eq - 1));
				p = end;
			}
			break;
		}
		ln++;
		if (nl == p) {                      /* blank line ends the entry */
			emit(&e, fn, arg);
			p = entry_start = nl + 1;
			*line = ln;
			reset(&e, ln + 1);
			continue;
		}
		const char *eq = memchr(p, '=', (size_t)(nl - p));

		if (eq) {
			take_field(&e, p, (size_t)(eq - p), eq + 1, (size_t)(nl - eq - 1));
			p = nl + 1;
			continue;
		}
		/* Binary field: NAME\n, 64-bit little-endian size, data, \n. */
		const unsigned char *sz = (const unsigned char *)nl + 1;
		uint64_t n = 0;

		if ((size_t)(end - (const char *)sz) < 8)
			break;
		for (int i = 7; i >= 0; i--)
			n = n << 8 | sz[i];
		const char *data = (const char *)sz + 8;

		if (n > (uint64_t)(end - data) || (uint64_t)(end - data) - n < 1)
			break;
		take_field(&e, p, (size_t)(nl - p), data, (size_t)n);
		for (const char *c = data; c < data + n; c++)
			ln += *c == '\n';
		p = data + n + 1;
		ln++;
	}
	if (eof) {
		/* What was read of a truncated entry is still worth a look. */
		emit(&e, fn, arg);
		*line = ln;
		return p < end ? -EBADMSG : (long)len;
	}
	return (long)(entry_start - buf);
}
