/* The secret scan of a use-case text (client/privacy/redact.c): what an
 * administrator typed, before it may leave the machine.
 *
 * Properties: findings are inside the text, non-empty, sorted and
 * disjoint; the redacted copy has exactly the length the findings say;
 * and in the redacted copy the machine's own names (host and user names)
 * are found no more: scanned again, it gives no finding that the
 * patterns alone do not give. */
#include "fuzz.h"
#include "privacy/redact.h"

static struct cgfb_local_names names;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	cgfb_local_names_add(&names, "db1.example.com", CGFB_SECRET_HOSTNAME);
	cgfb_local_names_add(&names, "db1", CGFB_SECRET_HOSTNAME);
	cgfb_local_names_add(&names, "alice", CGFB_SECRET_USER);
	cgfb_local_names_add(&names, "jdoe", CGFB_SECRET_USER);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cgfb_finding f[CGFB_REDACT_MAX_FINDINGS], g[CGFB_REDACT_MAX_FINDINGS];
	char *text = fuzz_cstr(data, size), *red;
	const size_t tlen = strlen(text);
	size_t n, want, all, patterns;

	n = cgfb_find_secrets(text, &names, f, CGFB_REDACT_MAX_FINDINGS);
	PROPERTY(n <= CGFB_REDACT_MAX_FINDINGS, "%zu findings", n);
	want = tlen;
	for (size_t i = 0; i < n; i++) {
		PROPERTY(f[i].len > 0 && f[i].start + f[i].len <= tlen, "finding %zu at %zu+%zu of %zu",
			 i, f[i].start, f[i].len, tlen);
		PROPERTY(i == 0 || f[i - 1].start + f[i - 1].len <= f[i].start,
			 "findings %zu and %zu overlap or are out of order", i - 1, i);
		PROPERTY((int)f[i].kind >= 0 && f[i].kind <= CGFB_SECRET_CGROUP, "kind %d",
			 (int)f[i].kind);
		want += strlen("[redacted ]") + strlen(cgfb_secret_name(f[i].kind)) - f[i].len;
	}
	red = cgfb_redact(text, f, n);
	PROPERTY(red && strlen(red) == want, "redacted copy of %zu bytes, not %zu",
		 red ? strlen(red) : 0, want);
	/* Only when every finding fitted: past the limit some stay unredacted. */
	if (n < CGFB_REDACT_MAX_FINDINGS) {
		all = cgfb_find_secrets(red, &names, g, CGFB_REDACT_MAX_FINDINGS);
		patterns = cgfb_find_secrets(red, NULL, g, CGFB_REDACT_MAX_FINDINGS);
		PROPERTY(all == patterns || all == CGFB_REDACT_MAX_FINDINGS,
			 "a local name survives redaction: %s", red);
	}
	free(red);
	free(text);
	return 0;
}
