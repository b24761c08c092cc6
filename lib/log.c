#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cgfb/fnv.h"
#include "cgfb/log.h"
#include "cgfb/utf8.h"

#define LINE_MAX_BYTES (1024 + 64)
/* Repeats: a warning or error logged again within REPEAT_WINDOW_S of the
 * first time is counted, not written; REPEAT_SLOTS distinct lines are
 * tracked, the least recently written one giving way. */
#define REPEAT_WINDOW_S 10
#define REPEAT_SLOTS    32

struct repeat {
	uint64_t key;          /* 0: slot free */
	int64_t since;         /* monotonic ns of the last line written */
	unsigned suppressed;   /* lines not written since */
	char line[LINE_MAX_BYTES];
	size_t len;            /* without the newline */
};

static const char *prog = "cgroup-feedback";
static bool journal;
static struct repeat repeats[REPEAT_SLOTS];
static pthread_mutex_t repeat_lock = PTHREAD_MUTEX_INITIALIZER;

static void flush_repeats(void);

void cgfb_log_init(const char *progname)
{
	static bool registered;

	prog = progname;
	journal = getenv("JOURNAL_STREAM") != NULL;
	/* A count still pending at exit is written then, not lost. */
	if (!registered && atexit(flush_repeats) == 0)
		registered = true;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint64_t fnv1a(const char *s, size_t len)
{
	return cgfb_fnv64(s, len) | 1;  /* never 0, the free slot's key */
}

/* One write per line: threads (the collector's connections) never
 * interleave their lines, and a busy server makes one syscall, not three. */
static void emit(const char *line, size_t len, unsigned suppressed)
{
	char out[LINE_MAX_BYTES + 64];
	int n = 0;

	if (suppressed)
		n = snprintf(out, sizeof(out), "%.*s (%u similar messages suppressed)\n", (int)len,
			     line, suppressed);
	else
		n = snprintf(out, sizeof(out), "%.*s\n", (int)len, line);
	if (n > (int)sizeof(out) - 1)
		n = (int)sizeof(out) - 1;
	fwrite(out, 1, (size_t)n, stderr);
}

static void flush_slot(struct repeat *r)
{
	if (r->key && r->suppressed)
		emit(r->line, r->len, r->suppressed);
	r->suppressed = 0;
}

static void flush_repeats(void)
{
	pthread_mutex_lock(&repeat_lock);
	for (size_t i = 0; i < REPEAT_SLOTS; i++)
		flush_slot(&repeats[i]);
	pthread_mutex_unlock(&repeat_lock);
}

/* Whether to write this warning or error now. A full disk refuses every
 * request with the same line; one per REPEAT_WINDOW_S says as much, the
 * count of the others goes on the next one (or comes out at exit). Lines
 * are told apart by their text, so two different errors are both seen. */
static bool repeat_admit(const char *line, size_t len, unsigned *suppressed)
{
	const uint64_t key = fnv1a(line, len);
	const int64_t now = now_ns();
	struct repeat *r = NULL, *oldest = &repeats[0];
	bool write = true;

	*suppressed = 0;
	pthread_mutex_lock(&repeat_lock);
	for (size_t i = 0; i < REPEAT_SLOTS && !r; i++) {
		if (repeats[i].key == key)
			r = &repeats[i];
		else if (repeats[i].since < oldest->since)
			oldest = &repeats[i];
	}
	if (r && now - r->since < (int64_t)REPEAT_WINDOW_S * 1000000000) {
		r->suppressed++;
		write = false;
	} else if (r) {
		*suppressed = r->suppressed;
		r->suppressed = 0;
		r->since = now;
	} else {
		flush_slot(oldest);
		oldest->key = key;
		oldest->since = now;
		oldest->len = len < sizeof(oldest->line) ? len : sizeof(oldest->line) - 1;
		memcpy(oldest->line, line, oldest->len);
	}
	pthread_mutex_unlock(&repeat_lock);
	return write;
}

/* Every message is escaped (cgfb_utf8_escape): what a client sent, a file
 * name, a kernel record can never start a forged line of its own, in the
 * journal or on a terminal. */
void cgfb_log(int priority, const char *fmt, ...)
{
	char msg[1024], line[LINE_MAX_BYTES];
	unsigned suppressed = 0;
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
	/* Informational lines (the collector's one line per request) are all
	 * written: each is a request, and the per-address limiter bounds them. */
	if ((priority & 7) <= LOG_WARNING && !repeat_admit(line, (size_t)n, &suppressed))
		return;
	emit(line, (size_t)n, suppressed);
}
