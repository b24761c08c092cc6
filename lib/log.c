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
	va_list ap;

	if (journal)
		fprintf(stderr, "<%d>", priority & 7);
	else
		fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
