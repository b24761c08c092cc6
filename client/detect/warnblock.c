#include <ctype.h>
#include <string.h>

#include "cgfb/catalog.h"
#include "detect/warnblock.h"

static bool starts(const char *p, const char *end, const char *lit)
{
	const size_t n = strlen(lit);

	return (size_t)(end - p) >= n && memcmp(p, lit, n) == 0;
}

static const char *find(const char *p, const char *end, const char *lit)
{
	return memmem(p, (size_t)(end - p), lit, strlen(lit));
}

static const char *token_end(const char *p, const char *end)
{
	while (p < end && *p != ' ')
		p++;
	return p;
}

static void set(struct cgfb_warn *w, const char *name, const char *b, const char *e)
{
	if (e > b)
		cgfb_fields_set(&w->fields, name, b, (size_t)(e - b));
}

/* The record that is the cut line, "------------[ cut here ]------------"
 * (dashes on both sides, blanks around), and nothing else: any local user
 * can make the kernel log a record holding chosen text ("tmpfs: Unknown
 * parameter '...'"), and one quoting the cut line must open no block. */
bool cgfb_warn_is_start(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	const size_t n = sizeof(CGFB_WARN_CUT_HERE) - 1;
	const char *dashes;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	dashes = p;
	while (p < end && *p == '-')
		p++;
	if (p == dashes || (size_t)(end - p) <= n || memcmp(p, CGFB_WARN_CUT_HERE, n) != 0)
		return false;
	for (p += n; p < end; p++)
		if (*p != '-')
			return false;
	return true;
}

bool cgfb_warn_is_end(const char *text, size_t len)
{
	return starts(text, text + len, "---[ end trace");
}

/* Only the shapes banner() reads: "WARNING: " alone starts many other
 * lines ("WARNING: Spectre v2 mitigation ..."), which open no block. */
bool cgfb_warn_is_banner(const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	if (!starts(p, end, CGFB_WARN_BANNER))
		return false;
	p += strlen(CGFB_WARN_BANNER);
	/* A re-wrapped paste may have cut the banner after "PID: <n> at" or
	 * after "at": what is left still says which line it is. */
	if (starts(p, end, "CPU: "))                     /* 3.10 - 6.18 */
		return find(p, end, " PID: ") != NULL;
	if (starts(p, end, "at ") || (end - p == 2 && starts(p, end, "at")))  /* 2.6.x - 3.x */
		return end - p == 2 || memchr(p + 3, ':', (size_t)(end - p - 3)) != NULL;
	return find(p, end, ", CPU#") != NULL;          /* 6.19 */
}

void cgfb_warn_begin(struct cgfb_warn *w)
{
	memset(w, 0, sizeof(*w));
	w->active = true;
}

/* "<file>:<line>" then " <sym>+0x1/0x2..." or " <sym>()": the path of a
 * distribution build ("/usr/src/packages/BUILD/kernel-default-3.0.101/
 * linux-3.0/mm/memcontrol.c") is cut to the part inside the kernel tree. */
static void location(struct cgfb_warn *w, const char *p, const char *end)
{
	const char *tok_end = token_end(p, end);
	const char *colon = NULL, *tree, *s;

	for (s = p; s < tok_end; s++)
		if (*s == ':')
			colon = s;
	if (!colon)
		return;
	tree = p;
	for (s = p; s + 7 < colon; s++)
		if (memcmp(s, "/linux-", 7) == 0) {
			const char *slash = memchr(s + 1, '/', (size_t)(colon - s - 1));

			if (slash)
				tree = slash + 1;
		}
	set(w, "kernel_file", tree, colon);
	set(w, "kernel_line", colon + 1, tok_end);
}

static void symbol(struct cgfb_warn *w, const char *p, const char *end)
{
	const char *e = p;

	while (e < end && (isalnum((unsigned char)*e) || *e == '_' || *e == '.'))
		e++;
	set(w, "function", p, e);
}

/* "CPU#<n>: <comm>/<pid>" of the 6.19 banner. */
static void cpu_comm_pid(struct cgfb_warn *w, const char *p, const char *end)
{
	const char *colon = memchr(p, ':', (size_t)(end - p));
	const char *slash = NULL;

	if (!colon)
		return;
	set(w, "cpu", p, colon);
	for (const char *s = colon + 2; s < end; s++)
		if (*s == '/')
			slash = s;
	if (!slash || colon + 2 > slash)
		return;
	set(w, "comm", colon + 2, slash);
	set(w, "pid", slash + 1, end);
}

static void banner(struct cgfb_warn *w, const char *p, const char *end)
{
	const char *at, *cpu;

	p += strlen(CGFB_WARN_BANNER);
	if (starts(p, end, "CPU: ")) {                 /* 3.10 - 6.18 */
		const char *pid = find(p, end, " PID: ");

		set(w, "cpu", p + 5, token_end(p + 5, end));
		if (pid)
			set(w, "pid", pid + 6, token_end(pid + 6, end));
		at = find(p, end, " at ");
		if (at) {
			location(w, at + 4, end);
			const char *sym = token_end(at + 4, end);

			if (sym < end)
				symbol(w, sym + 1, end);
		}
		return;
	}
	cpu = find(p, end, ", CPU#");
	if (cpu) {                                     /* 6.19 */
		cpu_comm_pid(w, cpu + 6, end);
		end = cpu;
		if (starts(p, end, "at ")) {
			symbol(w, p + 3, end);
			return;
		}
		location(w, p, end);
		at = find(p, end, " at ");
		if (at)
			symbol(w, at + 4, end);
		return;
	}
	if (starts(p, end, "at ")) {                   /* 2.6.x - 3.x */
		location(w, p + 3, end);
		const char *sym = token_end(p + 3, end);

		if (sym < end)
			symbol(w, sym + 1, end);
	}
}

/* "... Not tainted <release> #1" or "... Tainted: G        W  <release> #1" */
static void taint_release(struct cgfb_warn *w, const char *p, const char *end)
{
	const char *t = find(p, end, "Not tainted ");
	const char *r;

	if (t) {
		cgfb_fields_set(&w->fields, "taint", "none", 4);
		r = t + strlen("Not tainted ");
	} else if ((t = find(p, end, "Tainted: ")) != NULL) {
		char flags[32];
		size_t n = 0;

		for (r = t + strlen("Tainted: "); r < end && !isdigit((unsigned char)*r); r++)
			if (*r != ' ' && n + 1 < sizeof(flags))
				flags[n++] = *r;
		cgfb_fields_set(&w->fields, "taint", flags, n);
	} else {
		return;
	}
	set(w, "release", r, token_end(r, end));
}

/* The comm runs up to the taint state: it may itself contain spaces. */
static void comm_until_taint(struct cgfb_warn *w, const char *p, const char *end)
{
	const char *t = find(p, end, " Not tainted");

	if (!t)
		t = find(p, end, " Tainted:");
	set(w, "comm", p, t ? t : token_end(p, end));
	taint_release(w, p, end);
}

void cgfb_warn_feed(struct cgfb_warn *w, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	w->records++;
	if (starts(p, end, CGFB_WARN_BANNER)) {
		w->banner = true;
		banner(w, p, end);
	} else if (starts(p, end, "Modules linked in:")) {
		w->past_text = true;
	} else if (starts(p, end, "Pid: ")) {          /* 2.6.x - 3.x */
		const char *c = find(p, end, ", comm: ");

		w->past_text = true;
		set(w, "pid", p + 5, c ? c : token_end(p + 5, end));
		if (c)
			comm_until_taint(w, c + 8, end);
	} else if (starts(p, end, "CPU: ")) {          /* 3.10+ */
		const char *pid = find(p, end, " PID: ");
		const char *c = find(p, end, " Comm: ");

		w->past_text = true;
		set(w, "cpu", p + 5, token_end(p + 5, end));
		if (pid)
			set(w, "pid", pid + 6, token_end(pid + 6, end));
		if (c)
			comm_until_taint(w, c + 7, end);
	}
}
