/* The /dev/kmsg record reader (client/log/kmsg_record.c): one record line,
 * as read() hands it over or as a saved file holds it.
 *
 * Properties: cgfb_kmsg_looks_like() agrees with cgfb_kmsg_parse(); and a
 * parsed record, written back the way the kernel writes it (prefix,
 * sequence, time, flags, caller=, then the text with every byte below
 * 0x20, from 0x7f, and the backslash as \xNN: msg_add_ext_text() in
 * kernel/printk/printk.c), parses to the same record. */
#include <inttypes.h>

#include "fuzz.h"
#include "log/kmsg_record.h"

static size_t render(const struct cgfb_record *r, char *out, size_t outsz)
{
	static const char hex[] = "0123456789abcdef";
	const char flag = !r->fragment ? '-' : r->frag_start ? 'c' : '+';
	int n = snprintf(out, outsz, "%d,%" PRIu64 ",%" PRIu64 ",%c%s%s;",
			 r->facility << 3 | r->level, r->seq, r->usec, flag,
			 r->caller[0] ? ",caller=" : "", r->caller);
	size_t o = (size_t)n;

	for (size_t i = 0; i < r->len; i++) {
		const unsigned char c = (unsigned char)r->text[i];

		if (c < 0x20 || c >= 0x7f || c == '\\') {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		} else {
			out[o++] = (char)c;
		}
	}
	return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char text[CGFB_RECORD_TEXT_MAX], again[CGFB_RECORD_TEXT_MAX];
	static char line2[64 + 4 * CGFB_RECORD_TEXT_MAX];
	struct cgfb_record rec, rec2;
	/* An exact copy, no terminator: a read past the line is caught. */
	char *line = malloc(size ? size : 1);
	int rc;

	memcpy(line, data, size);
	rc = cgfb_kmsg_parse(line, size, text, sizeof(text), &rec);
	PROPERTY((rc == 0) == cgfb_kmsg_looks_like(line, size), "looks_like disagrees (rc %d)", rc);
	if (rc == 0) {
		PROPERTY(rec.text == text && rec.len < sizeof(text) && text[rec.len] == '\0',
			 "text not in the buffer given, or not terminated");
		PROPERTY(rec.level >= 0 && rec.level <= 7 && rec.facility >= 0 &&
			 rec.facility <= 127, "level %d facility %d", rec.level, rec.facility);
		PROPERTY(memchr(rec.caller, '\0', sizeof(rec.caller)), "caller not terminated");
		PROPERTY(!rec.frag_start || rec.fragment, "a 'c' record that is no fragment");

		const size_t n = render(&rec, line2, sizeof(line2));

		rc = cgfb_kmsg_parse(line2, n, again, sizeof(again), &rec2);
		PROPERTY(rc == 0, "the rendered record does not parse: %.*s", (int)n, line2);
		PROPERTY(rec2.level == rec.level && rec2.facility == rec.facility &&
			 rec2.seq == rec.seq && rec2.usec == rec.usec &&
			 rec2.fragment == rec.fragment && rec2.frag_start == rec.frag_start &&
			 strcmp(rec2.caller, rec.caller) == 0, "header differs after a round trip");
		PROPERTY(rec2.len == rec.len && memcmp(again, text, rec.len) == 0,
			 "text differs after a round trip");
	}
	free(line);
	return 0;
}
