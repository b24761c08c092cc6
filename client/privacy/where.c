#include <stdbool.h>
#include <string.h>

#include "privacy/where.h"

static bool continuation(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

static size_t line_start(const char *text, size_t at)
{
	while (at > 0 && text[at - 1] != '\n')
		at--;
	return at;
}

struct cgfb_where cgfb_finding_where(const char *text, const struct cgfb_finding *f)
{
	struct cgfb_where w = { .line = 1, .column = 1 };
	const size_t from = line_start(text, f->start);

	for (size_t i = 0; i < from; i++)
		w.line += text[i] == '\n';
	for (size_t i = from; i < f->start; i++)
		w.column += !continuation((unsigned char)text[i]);
	return w;
}

int cgfb_finding_context(struct cgfb_buf *b, const char *text, const struct cgfb_finding *f)
{
	const size_t end = f->start + f->len, ls = line_start(text, f->start);
	const size_t le = end + strcspn(text + end, "\n");
	size_t from = f->start - ls > CGFB_WHERE_CONTEXT ? f->start - CGFB_WHERE_CONTEXT : ls;
	size_t to = le - end > CGFB_WHERE_CONTEXT ? end + CGFB_WHERE_CONTEXT : le;

	/* Not inside a character: a cut sequence would print as garbage. */
	while (from < f->start && continuation((unsigned char)text[from]))
		from++;
	while (to > end && continuation((unsigned char)text[to]))
		to--;
	return cgfb_buf_printf(b, "%s%.*s>>%.*s<<%.*s%s", from > ls ? "..." : "",
			       (int)(f->start - from), text + from, (int)f->len, text + f->start,
			       (int)(to - end), text + end, to < le ? "..." : "");
}
