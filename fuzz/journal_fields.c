/* One journal entry's fields (client/log/journal.c, cgfb_journal_fields):
 * the input is split at newlines into "NAME=value" blobs, each copied to
 * a heap block of its exact size (so that ASan sees a read past one), as
 * sd_journal_enumerate_data hands them over.
 *
 * Properties: only an entry with a _TRANSPORT=kernel blob and no other
 * transport is a record; its text is the start of the first MESSAGE's
 * value, within CGFB_RECORD_TEXT_MAX and the caller's buffer; level,
 * facility and boot id are in range; a smaller text buffer changes
 * nothing but how much of the text is kept. */
#include <errno.h>

#include "fuzz.h"
#include "log/journal.h"

#define MAX_BLOBS 256

static bool blob_is(const void *p, size_t n, const char *s)
{
	return n == strlen(s) && memcmp(p, s, n) == 0;
}

static bool starts(const void *p, size_t n, const char *s)
{
	return n >= strlen(s) && memcmp(p, s, strlen(s)) == 0;
}

static void check_boot_id(const char *id)
{
	const size_t n = strlen(id);

	PROPERTY(n == 0 || n == 32, "boot id of %zu characters", n);
	for (size_t i = 0; i < n; i++)
		PROPERTY((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f'),
			 "boot id character 0x%02x", (unsigned char)id[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char text[CGFB_RECORD_TEXT_MAX], small[CGFB_RECORD_TEXT_MAX];
	const void *blob[MAX_BLOBS];
	size_t len[MAX_BLOBS], n = 0, small_sz;
	const uint8_t *p = data, *end = data + size;
	struct cgfb_journal_entry e, e2;
	bool kernel = false, other = false;
	const void *msg = NULL;
	size_t msg_len = 0;
	int rc, rc2;

	while (p < end && n < MAX_BLOBS) {
		const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
		const size_t l = (size_t)((nl ? nl : end) - p);
		void *b = malloc(l ? l : 1);

		if (!b)
			abort();
		memcpy(b, p, l);
		blob[n] = b;
		len[n++] = l;
		if (starts(b, l, "_TRANSPORT=")) {
			if (blob_is(b, l, "_TRANSPORT=kernel"))
				kernel = true;
			else
				other = true;
		}
		if (!msg && starts(b, l, "MESSAGE=")) {
			msg = (const char *)b + 8;
			msg_len = l - 8;
		}
		p = nl ? nl + 1 : end;
	}

	rc = cgfb_journal_fields(blob, len, n, &e, text, sizeof(text));
	PROPERTY(rc == 0 || rc == 1, "returned %d", rc);
	PROPERTY(rc == (kernel && !other && msg), "returned %d: kernel %d, other transport %d, "
		 "MESSAGE %d", rc, kernel, other, msg != NULL);
	check_boot_id(e.boot_id);
	if (rc == 1) {
		PROPERTY(e.rec.text == text, "text outside the caller's buffer");
		PROPERTY(e.rec.len == (msg_len < sizeof(text) ? msg_len : sizeof(text)),
			 "text of %zu bytes from a MESSAGE of %zu", e.rec.len, msg_len);
		PROPERTY(memcmp(e.rec.text, msg, e.rec.len) == 0, "text is not the MESSAGE");
		PROPERTY(e.rec.level >= -1 && e.rec.level <= 7, "level %d", e.rec.level);
		PROPERTY(e.rec.facility >= 0 && e.rec.facility <= 23, "facility %d",
			 e.rec.facility);
		PROPERTY(!e.rec.has_seq && e.rec.line == 0 && !e.reader && e.boot_first == 0,
			 "a field only the reader fills");

		/* A smaller buffer keeps less of the text, and nothing else. */
		small_sz = 1 + size % 64;
		rc2 = cgfb_journal_fields(blob, len, n, &e2, small, small_sz);
		PROPERTY(rc2 == 1, "returned %d with a buffer of %zu", rc2, small_sz);
		PROPERTY(e2.rec.len == (e.rec.len < small_sz ? e.rec.len : small_sz),
			 "%zu bytes in a buffer of %zu", e2.rec.len, small_sz);
		PROPERTY(memcmp(small, text, e2.rec.len) == 0, "a different text");
		PROPERTY(e2.rec.level == e.rec.level && e2.rec.facility == e.rec.facility &&
			 e2.rec.has_usec == e.rec.has_usec && e2.rec.usec == e.rec.usec &&
			 e2.realtime == e.realtime && strcmp(e2.boot_id, e.boot_id) == 0,
			 "the buffer's size changed a field");
	}
	for (size_t i = 0; i < n; i++)
		free((void *)blob[i]);
	return 0;
}
