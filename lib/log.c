#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "cgfb/log.h"

static const char *prog = "cgroup-feedback";
static bool journal;

void cgfb_log_init(const char *progname)
{
	prog = progname;
	journal = getenv("JOURNAL_STREAM") != NULL;
}

void cgfb_log(int priority, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	if (journal)
		n = snprintf(line, sizeof(line), "<%d>", priority & 7);
	else
		n = snprintf(line, sizeof(line), "%s: ", prog);
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	/* One write per line: threads (the collector's connections) never
	 * interleave their lines, and a busy server makes one syscall, not three. */
	fwrite(line, 1, (size_t)n, stderr);
}
