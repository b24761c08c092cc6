#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgfb/log.h"
#include "log/journal.h"
#include "reporter/gap.h"

struct gap {
	uint64_t from, to;
	unsigned long printed;
};

/* "1111...-..." or 32 hex digits into 32 lowercase hex digits. */
static int parse_boot(const char *s, size_t n, char out[33])
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const char c = s[i];

		if (c == '-')
			continue;
		if (k == 32 || !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
				 (c >= 'A' && c <= 'F')))
			return -EINVAL;
		out[k++] = (char)(c | 0x20);
	}
	out[k] = '\0';
	return k == 32 ? 0 : -EINVAL;
}

static int parse_spec(const char *spec, char boot[33], struct gap *g)
{
	const char *c1 = strchr(spec, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	char *end;

	if (!c2 || parse_boot(spec, (size_t)(c1 - spec), boot) < 0)
		return -EINVAL;
	errno = 0;
	g->from = strtoull(c1 + 1, &end, 10);
	if (end != c2 || errno)
		return -EINVAL;
	g->to = strtoull(c2 + 1, &end, 10);
	if (*end || errno || c2[1] == '\0' || g->to < g->from)
		return -EINVAL;
	return 0;
}

/* One record as /dev/kmsg writes it: the watcher parses it with the same
 * code as the live log. */
static int print_record(const struct cgfb_journal_entry *e, void *arg)
{
	struct gap *g = arg;
	const struct cgfb_record *r = &e->rec;
	uint64_t seqnum;
	int rc;

	/* The window is open at both ends: its edges are records the watcher
	 * read itself. */
	if (!r->has_usec || r->usec <= g->from || r->usec >= g->to)
		return 0;
	/* The journal's sequence number stands where the ring's would: the
	 * watcher names the record by it (journal:BOOT:SEQNUM, as scan does). */
	rc = cgfb_journal_seqnum(e, &seqnum);
	if (rc < 0)
		return rc;
	printf("%d,%" PRIu64 ",%" PRIu64 ",-;", (r->facility > 0 ? r->facility : 0) * 8 +
	       (r->level >= 0 ? r->level : 4), seqnum, r->usec);
	for (size_t i = 0; i < r->len; i++) {
		const unsigned char c = (unsigned char)r->text[i];

		if (c < 0x20 || c >= 0x7f || c == '\\')
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	putchar('\n');
	g->printed++;
	return ferror(stdout) ? -EIO : 0;
}

int cgfb_journal_gap(const char *spec, const char *journal_dir)
{
	const struct cgfb_journal_src src = { .dir = journal_dir };
	struct gap g = { 0 };
	char boot[33], err[512] = "";
	int rc;

	if (parse_spec(spec, boot, &g) < 0) {
		cgfb_log(LOG_ERR, "--journal-gap: '%s' is not BOOT:FROM:TO", spec);
		return -EINVAL;
	}
	rc = cgfb_journal_boot_range(&src, boot, g.from, g.to, print_record, &g, err, sizeof(err));
	/* print_record's own failure: the reader said nothing */
	if (rc < 0 && !err[0])
		snprintf(err, sizeof(err), "%s", strerror(-rc));
	if (rc < 0) {
		cgfb_log(LOG_WARNING, "kernel records lost from the ring buffer cannot be looked up "
			 "in the journal: %s", err);
		return rc;
	}
	return fflush(stdout) == 0 ? 0 : -EIO;
}
