/* The WARN block parser (client/detect/warnblock.c): the input's lines are
 * the records of one block, as the detector feeds them after the
 * "[ cut here ]" record.
 *
 * Properties: every field the parser fills is a known one, terminated,
 * and, but for the taint flags (letters gathered from the taint string),
 * a piece of one of the records: the parser copies, it never invents. */
#include <errno.h>

#include "detect/warnblock.h"
#include "fuzz.h"

static const char *const known[] = {
	"kernel_file", "kernel_line", "function", "comm", "pid", "cpu", "release", "taint",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	const char *p, *end = buf + size;
	struct cgfb_warn w;
	unsigned records = 0;

	memcpy(buf, data, size);
	cgfb_warn_begin(&w);
	for (p = buf; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const size_t n = (size_t)((nl ? nl : end) - p);
		char *rec = malloc(n ? n : 1);

		memcpy(rec, p, n);
		(void)cgfb_warn_is_start(rec, n);
		if (cgfb_warn_is_end(rec, n)) {
			free(rec);
			break;
		}
		cgfb_warn_feed(&w, rec, n);
		records++;
		free(rec);
		p = nl ? nl + 1 : end;
	}
	PROPERTY(w.active && w.records == records, "%u records counted, %u fed", w.records,
		 records);
	PROPERTY(w.fields.n <= CGFB_FIELDS_MAX, "%u fields", w.fields.n);
	for (unsigned i = 0; i < w.fields.n; i++) {
		const struct cgfb_field *f = &w.fields.f[i];
		size_t k = 0;

		PROPERTY(memchr(f->name, '\0', sizeof(f->name)) &&
			 memchr(f->value, '\0', sizeof(f->value)), "field %u not terminated", i);
		while (k < sizeof(known) / sizeof(known[0]) && strcmp(known[k], f->name) != 0)
			k++;
		PROPERTY(k < sizeof(known) / sizeof(known[0]), "unknown field '%s'", f->name);
		if (strcmp(f->name, "taint") == 0)
			continue;
		PROPERTY(memmem(buf, size, f->value, strlen(f->value)) != NULL,
			 "%s '%s' is in no record", f->name, f->value);
	}
	free(buf);
	return 0;
}
