#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "cgfb/log.h"
#include "cgfb/utf8.h"

static const char *prog = "cgroup-feedback";
static bool journal;

void cgfb_log_init(const char *progname)
{
	prog = progname;
	journal = getenv("JOURNAL_STREAM") != NULL;
}

/* Every message is escaped (cgfb_utf8_escape): what a client sent, a file
 * name, a kernel record can never start a forged line of its own, in the
 * journal or on a terminal. */
void cgfb_log(int priority, const char *fmt, ...)
{
	char msg[1024], line[1024 + 64];
	va_list ap;
	int n, m;

	if (journal)
		n = snprintf(line, sizeof(line), "<%d>", priority & 7);
	else
		n = snprintf(line, sizeof(line), "%s: ", prog);
	va_start(ap, fmt);
	m = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (m < 0)
		m = 0;
	if (m > (int)sizeof(msg) - 1)
		m = (int)sizeof(msg) - 1;
	n += (int)cgfb_utf8_escape(line + n, sizeof(line) - (size_t)n - 1, msg, (size_t)m);
	line[n++] = '\n';
	/* One write per line: threads (the collector's connections) never
	 * interleave their lines, and a busy server makes one syscall, not three. */
	fwrite(line, 1, (size_t)n, stderr);
}
