/* validate-report FILE...: the C side of the report checks in the tests.
 * Each file must hold canonical JSON (byte-identical to its own canonical
 * serialisation, as lib/canon.c makes it) that lib/schema.c accepts
 * against the built-in docs/report.schema.json. One line per file, exit 0
 * only when every file passes. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cgfb/canon.h"
#include "cgfb/schema.h"
#include "cgfb/readfile.h"
#include "cgfb/wire.h"

#define REPORT_FILE_MAX (1u << 20)

static int check(const struct cgfb_schema *s, const char *path)
{
	struct cgfb_buf b = { 0 };
	json_object *doc = NULL;
	char err[512] = "";
	int rc;

	rc = cgfb_read_file(path, REPORT_FILE_MAX, 0, &b);
	if (rc < 0) {
		snprintf(err, sizeof(err), "%s", strerror(-rc));
		goto out;
	}
	/* A trailing newline is what `snapshot --json` adds for the terminal. */
	if (b.len && b.data[b.len - 1] == '\n')
		b.len--;
	rc = cgfb_canon_parse(b.data, b.len, CGFB_REPORT_DEPTH_MAX, &doc, err, sizeof(err));
	if (rc == 0)
		rc = cgfb_schema_validate(s, doc, err, sizeof(err));
out:
	printf("%s: %s\n", path, rc == 0 ? "ok" : err);
	json_object_put(doc);
	cgfb_buf_free(&b);
	return rc;
}

int main(int argc, char **argv)
{
	struct cgfb_schema *s = NULL;
	char err[512];
	int bad = 0;

	if (argc < 2) {
		fputs("usage: validate-report FILE...\n", stderr);
		return 2;
	}
	if (cgfb_schema_load_builtin(&s, err, sizeof(err)) < 0) {
		fprintf(stderr, "schema: %s\n", err);
		return 2;
	}
	for (int i = 1; i < argc; i++)
		bad |= check(s, argv[i]) < 0;
	cgfb_schema_free(s);
	return bad;
}
