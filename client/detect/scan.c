#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log/input.h"
#include "log/mapahead.h"
#include "log/mapwin.h"
#include "log/journal_export.h"
#include "log/kmsg_record.h"
#include "detect/newlines.h"
#include "detect/paste.h"
#include "detect/scan.h"

/* Every input is read in chunks of this size, whatever its size (memory
 * stays bounded: a mapped file of 512 MiB was 526 MiB of RSS); a line
 * longer than the largest buffer is split (the kernel never prints one:
 * records are < 1 KiB). */
#define CHUNK     (1u << 20)
#define CHUNK_MAX (16u << 20)
/* A regular file is read through a window of this size (no copy: the
 * scan reads the page cache itself); mapped pages are part of the RSS, so
 * it is bounded like the buffer. */
#define WINDOW    (4u << 20)

struct scanner {
	const struct cgfb_catalog *cat;
	struct cgfb_detector *det;
	struct cgfb_scan_stats *st;
	bool fmt_known;
	bool colored;              /* escape sequences are stripped first */
	bool kmsg_pieces;          /* kmsg with continued lines: read record by record */
	/* Catalog needles plus the WARN block marker: the only places where
	 * a text-format log needs to be parsed. */
	struct cgfb_mscan anchors;
	const char *lits[CGFB_MSCAN_MAX];
	char text[CGFB_RECORD_TEXT_MAX];
};

static void count_detection(const struct cgfb_detection *d, void *arg)
{
	(void)d;
	(void)arg;
}

struct relay {
	cgfb_detect_fn fn;
	void *arg;
	struct cgfb_scan_stats *st;
};

static void relay_detection(const struct cgfb_detection *d, void *arg)
{
	struct relay *r = arg;

	r->st->detections++;
	r->fn(d, r->arg);
}

static int scanner_init(struct scanner *s, const struct cgfb_catalog *cat, struct relay *r)
{
	size_t n = 0;
	int rc;

	memset(s, 0, sizeof(*s));
	s->cat = cat;
	s->st = r->st;
	/* The catalog refuses more needles than leave room for the anchors. */
	for (; n < cat->n_needles; n++)
		s->lits[n] = cat->needles[n];
	s->lits[n++] = CGFB_WARN_CUT_HERE;
	s->lits[n++] = CGFB_BOOT_BANNER;
	s->lits[n++] = CGFB_WARN_BANNER;
	s->lits[n++] = CGFB_BOOT_CMDLINE;
	s->lits[n++] = CGFB_BOOT_KCMDLINE;
	rc = cgfb_mscan_init(&s->anchors, s->lits, n);
	if (rc < 0)
		return rc;
	return cgfb_detector_new(cat, relay_detection, r, &s->det);
}

/* The NULs among bytes the scanner has consumed (each byte is consumed
 * once, whichever mode passed over it). memchr keeps a log without any
 * as fast as before; a run is counted where it is. */
static void count_nuls(struct cgfb_scan_stats *st, const char *p, const char *end)
{
	while ((p = memchr(p, '\0', (size_t)(end - p)))) {
		const char *r = p;

		while (r < end && *r == '\0')
			r++;
		st->nul_bytes += (size_t)(r - p);
		p = r;
	}
}

static void one_record(struct scanner *s, int rc, struct cgfb_record *rec, unsigned long lineno)
{
	if (rc < 0) {
		s->st->malformed++;
		return;
	}
	if (rc == 0)
		return;
	rec->line = lineno;
	cgfb_detector_feed(s->det, rec);
}

static void one_line(struct scanner *s, const char *line, size_t len, unsigned long lineno)
{
	struct cgfb_record rec;
	const int rc = cgfb_logfmt_parse_line(s->st->fmt, line, len, s->text, sizeof(s->text),
					      &rec);

	one_record(s, rc, &rec, lineno);
}

static void journal_record(const struct cgfb_record *rec, void *arg)
{
	struct scanner *s = arg;

	cgfb_detector_feed(s->det, rec);
}

/* Every line parsed: formats where records carry state (kmsg sequence
 * numbers, fragments) and the inside of WARN blocks. Returns the new p. */
static const char *line_mode(struct scanner *s, const char *p, const char *end, bool eof,
			     bool just_one)
{
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct cgfb_record rec;
		const char *next;
		unsigned lines;
		int rc;

		if (!nl && !eof)
			break;
		/* A pasted record may go on over the next lines. */
		rc = cgfb_paste_record(s->cat, s->st->fmt, s->st->pasted, p, end, eof, s->text,
				       sizeof(s->text), &rec, &next, &lines);
		if (rc == -EAGAIN)
			break;
		one_record(s, rc, &rec, s->st->lines + 1);
		s->st->lines += lines;
		count_nuls(s->st, p, next);
		p = next;
		if (just_one)
			break;
	}
	return p;
}

/* Text formats: jump from one needle to the next, parse only the lines that
 * hold one, count the lines in between.
 *
 * The search goes over the log a chunk of whole lines at a time, and the
 * lines of a chunk are counted right after it, while the search has just
 * brought them into the cache: counting them after the next needle, which
 * may be megabytes away, would read them from memory a second time. */
#define SKIP_CHUNK (256u << 10)

/* What a kmsg-format line is to the detector, as the parser reads it:
 * ' ' a property line (" KEY=value", part of the record above), 0 a line
 * it refuses (malformed: never fed, so it ends nothing), '-' a whole
 * record, 'c' the first piece of a continued line, '+' any later piece
 * (the parser takes every flag but '-' and 'c' for one). */
static char kmsg_kind(const char *line, const char *end)
{
	const char *nl = memchr(line, '\n', (size_t)(end - line));
	struct cgfb_record rec;
	char buf[1];

	if (line < end && *line == ' ')
		return ' ';
	/* A buffer of one byte: the header alone is parsed. */
	if (cgfb_kmsg_parse(line, (size_t)((nl ? nl : end) - line), buf, sizeof(buf), &rec) < 0)
		return 0;
	if (!rec.fragment)
		return '-';
	return rec.frag_start ? 'c' : '+';
}

/* The start of the line before the one at ls (> p). */
static const char *prev_line(const char *p, const char *ls)
{
	const char *nl = memrchr(p, '\n', (size_t)(ls - 1 - p));

	return nl ? nl + 1 : p;
}

/* Where the kmsg record that holds the line at ls begins, never before p:
 * a property line belongs to the record above it, and a continuation
 * piece ('+': older kernels printed a line built by pr_cont() in
 * pieces) to the piece flagged 'c' that began it, across other pieces,
 * property lines and lines the parser refuses (which line by line reading
 * would not feed either): the detector joins the pieces, and a catalog
 * message's needle, the literal text of one printk() call, lies within
 * one piece but its pattern may need them all. */
static const char *kmsg_record_start(const char *p, const char *ls, const char *end)
{
	const char *q = ls;
	char k;

	while (q > p && kmsg_kind(q, end) == ' ')
		q = prev_line(p, q);
	k = kmsg_kind(q, end);
	if (k == '-' || k == 'c')
		return q;
	/* A later piece, or a line the parser refuses inside a run of
	 * pieces: from the run's first piece on. */
	for (const char *r = q; r > p;) {
		r = prev_line(p, r);
		k = kmsg_kind(r, end);
		if (k == '-')
			break;
		if (k == '+' || k == 'c')
			q = r;
		if (k == 'c')
			break;
	}
	return q;
}

/* A kmsg log whose first buffer holds a later piece of a continued line
 * (older kernels; linux 6.12 prints only 'c' and '-', printk.c:680) is
 * read record by record: the detector joins the pieces, and one that
 * holds no needle may still complete one. */
static bool kmsg_has_pieces(const char *p, const char *end)
{
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (kmsg_kind(p, end) == '+')
			return true;
		p = nl ? nl + 1 : end;
	}
	return false;
}

/* The same where the search counts as it goes (Teddy, lib/mscan_teddy.c):
 * the bytes between needles are read once, and no chunking is needed to
 * keep them in the cache for a second pass. limit is at the end of a line,
 * and no needle holds a newline, so a needle found ends before it. */
static const char *skip_tallied(struct scanner *s, const char *p, const char *limit, bool eof)
{
	while (p < limit) {
		struct cgfb_mscan_tally t = { 0, 0 };

		if (cgfb_detector_wants_next(s->det)) {
			p = line_mode(s, p, limit, true, true);
			continue;
		}
		const char *hit = cgfb_mscan_find_tally(&s->anchors, p, limit, NULL, &t);

		s->st->lines += t.newlines;
		s->st->nul_bytes += t.nuls;
		if (!hit) {
			if (eof && limit[-1] != '\n')
				s->st->lines++;
			return limit;
		}
		const char *ls = memrchr(p, '\n', (size_t)(hit - p));

		ls = ls ? ls + 1 : p;
		if (s->st->fmt == CGFB_FMT_KMSG)
			ls = kmsg_record_start(p, ls, limit);
		/* The record is parsed, and its lines and NULs counted, from
		 * its start. */
		for (const char *q = ls; q < hit; q++) {
			s->st->lines -= *q == '\n';
			s->st->nul_bytes -= *q == '\0';
		}
		p = line_mode(s, ls, limit, true, true);
	}
	return p;
}

static const char *skip_mode(struct scanner *s, const char *p, const char *end, bool eof)
{
	const char *limit = end;
	size_t longest = 0;

	if (!eof) {
		const char *last = memrchr(p, '\n', (size_t)(end - p));

		limit = last ? last + 1 : p;
		/* A kmsg record is read whole, with its properties and
		 * pieces: the last one may go on in the next buffer. */
		if (s->st->fmt == CGFB_FMT_KMSG && limit > p)
			limit = kmsg_record_start(p, prev_line(p, limit), end);
	}
	if (s->anchors.teddy.on)
		return skip_tallied(s, p, limit, eof);
	for (size_t i = 0; i < s->anchors.n; i++)
		if (s->anchors.len[i] > longest)
			longest = s->anchors.len[i];
	/* p is always at the start of a line. */
	while (p < limit) {
		if (cgfb_detector_wants_next(s->det)) {
			p = line_mode(s, p, limit, true, true);
			continue;
		}
		const char *chunk_end = limit, *search_end = limit;

		if ((size_t)(limit - p) > SKIP_CHUNK + longest) {
			const char *nl = memrchr(p, '\n', SKIP_CHUNK);

			/* A needle that starts in the chunk may end after it. */
			if (nl) {
				chunk_end = nl + 1;
				search_end = chunk_end + longest - 1;
			}
		}
		const char *hit = cgfb_mscan_find(&s->anchors, p, search_end, NULL);

		if (!hit || hit >= chunk_end) {
			s->st->lines += cgfb_count_newlines(p, chunk_end);
			count_nuls(s->st, p, chunk_end);
			if (chunk_end < limit) {
				p = chunk_end;
				continue;
			}
			if (eof && limit > p && limit[-1] != '\n')
				s->st->lines++;
			return limit;
		}
		const char *ls = memrchr(p, '\n', (size_t)(hit - p));

		ls = ls ? ls + 1 : p;
		s->st->lines += cgfb_count_newlines(p, ls);
		count_nuls(s->st, p, ls);
		p = line_mode(s, ls, limit, true, true);
	}
	return p;
}

/* The whole input read: a file mostly of NULs (a power cut that left
 * nothing but zeros, a preallocated file never written) is no text log,
 * whatever its few bytes say; "nothing found" in it means nothing. Never
 * a journal export, whose binary fields may hold anything. */
static void judge_nuls(struct cgfb_scan_stats *st)
{
	if (st->fmt == CGFB_FMT_JOURNAL_EXPORT || st->nul_bytes * 2 <= st->bytes)
		return;
	st->mostly_nul = true;
	st->binary = true;
}

/* Returns the bytes consumed from buf. */
static size_t scanner_feed(struct scanner *s, const char *buf, size_t len, bool eof)
{
	const char *end = buf + len;

	if (!s->fmt_known) {
		s->st->fmt = cgfb_logfmt_detect(buf, len);
		s->st->pasted = cgfb_logfmt_looks_pasted(s->st->fmt, buf, len);
		s->fmt_known = true;
		/* Binary is scanned for what text it holds (a log whose head
		 * was overwritten), but "nothing found" in it means nothing:
		 * the caller says so. A journal file has a reader of its own. */
		s->st->binary = s->st->fmt != CGFB_FMT_JOURNAL_EXPORT &&
				cgfb_logfmt_binary(buf, len);
		s->st->journal_file = cgfb_logfmt_journal_file(buf, len);
		s->kmsg_pieces = s->st->fmt == CGFB_FMT_KMSG && kmsg_has_pieces(buf, buf + len);
		if (s->st->journal_file)
			return len;
	}
	switch (s->st->fmt) {
	case CGFB_FMT_JOURNAL_EXPORT: {
		const long n = cgfb_journal_export_parse(buf, len, eof, &s->st->lines,
							 journal_record, s);
		if (n < 0) {
			s->st->truncated = true;
			count_nuls(s->st, buf, end);
			return len;
		}
		count_nuls(s->st, buf, buf + n);
		return (size_t)n;
	}
	case CGFB_FMT_KMSG:
		/* Jumping from needle to needle where the search counts the
		 * lines it passes; otherwise record by record. */
		if (s->anchors.teddy.on && !s->kmsg_pieces)
			break;
		return (size_t)(line_mode(s, buf, end, eof, false) - buf);
	case CGFB_FMT_DMESG:
	case CGFB_FMT_SYSLOG:
		/* A re-wrapped record may have its needle on any of its lines,
		 * or split across two: a paste is read line by line. */
		if (s->st->pasted)
			return (size_t)(line_mode(s, buf, end, eof, false) - buf);
		break;
	}
	return (size_t)(skip_mode(s, buf, end, eof) - buf);
}

static int scan_with(const struct cgfb_catalog *cat, cgfb_detect_fn fn, void *arg,
		     struct cgfb_scan_stats *st,
		     int (*body)(struct scanner *s, void *ctx), void *ctx)
{
	struct relay r = { fn ? fn : count_detection, arg, st };
	struct scanner *s = malloc(sizeof(*s));
	int rc;

	memset(st, 0, sizeof(*st));
	if (!s)
		return -ENOMEM;
	rc = scanner_init(s, cat, &r);
	if (rc == 0) {
		rc = body(s, ctx);
		cgfb_detector_finish(s->det);
	}
	cgfb_detector_free(s->det);
	free(s);
	return rc;
}

struct membuf {
	const char *buf;
	size_t len;
};

static int body_buffer(struct scanner *s, void *ctx)
{
	const struct membuf *m = ctx;

	s->st->bytes += m->len;
	scanner_feed(s, m->buf, m->len, true);
	judge_nuls(s->st);
	return 0;
}

int cgfb_scan_buffer(const char *buf, size_t len, const struct cgfb_catalog *cat,
		     cgfb_detect_fn fn, void *arg, struct cgfb_scan_stats *st)
{
	struct membuf m = { buf, len };

	return scan_with(cat, fn, arg, st, body_buffer, &m);
}

/* A buffer full of one line: pass the head on as a line of its own. */
static size_t split_long_line(struct scanner *s, const char *buf, size_t len)
{
	s->st->long_lines++;
	s->st->lines++;
	count_nuls(s->st, buf, buf + len);
	one_line(s, buf, len, s->st->lines);
	/* The rest of the line must not count as a new line. */
	s->st->lines--;
	return len;
}

/* One more chunk of the input after the have bytes kept: 0 at its end. */
static ssize_t more(struct scanner *s, struct cgfb_input *in, char *buf, size_t have, size_t cap)
{
	const ssize_t r = cgfb_input_read(in, buf + have, cap - have);

	if (r < 0)
		snprintf(s->st->error, sizeof(s->st->error), "%s", *cgfb_input_error(in) ?
			 cgfb_input_error(in) : strerror((int)-r));
	return r;
}

/* dmesg --color=always, less -R, grep --color: a log saved with its
 * colours reads as one without (from its first chunk on; never a journal
 * export, whose binary fields may hold an ESC). Returns the new length. */
static size_t uncolor(struct scanner *s, char *buf, size_t have)
{
	if (!s->fmt_known && !s->colored)
		s->colored = memmem(buf, have, "\x1b[", 2) &&
			     cgfb_logfmt_detect(buf, have) != CGFB_FMT_JOURNAL_EXPORT;
	return s->colored ? cgfb_logfmt_strip_csi(buf, have) : have;
}

static int body_stream(struct scanner *s, void *ctx)
{
	struct cgfb_input *in = ctx;
	size_t cap = CHUNK, have = 0;
	char *buf = malloc(cap);
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	s->st->compression = cgfb_input_compression(in);
	for (;;) {
		const ssize_t r = have < cap ? more(s, in, buf, have, cap) : 0;
		const bool eof = r == 0 && have < cap;

		if (r < 0) {
			/* What came before the damage is scanned. */
			rc = (int)r;
			scanner_feed(s, buf, have, true);
			break;
		}
		s->st->bytes += (size_t)r;
		have += (size_t)r;
		have = uncolor(s, buf, have);
		size_t used = scanner_feed(s, buf, have, eof);

		if (s->st->journal_file) {
			rc = -EMEDIUMTYPE;
			break;
		}
		if (eof)
			break;
		if (used == 0 && have == cap) {
			char *bigger = cap < CHUNK_MAX ? realloc(buf, cap * 2) : NULL;

			if (bigger) {
				buf = bigger;
				cap *= 2;
				continue;
			}
			used = s->st->fmt == CGFB_FMT_JOURNAL_EXPORT ? have
					   : split_long_line(s, buf, have);
		}
		memmove(buf, buf + used, have - used);
		have -= used;
	}
	judge_nuls(s->st);
	free(buf);
	return rc;
}

/* A regular file, uncompressed: its bytes where the page cache holds
 * them, a window at a time. Each window starts at the first byte not
 * consumed (whole lines are); the first is CHUNK bytes, as the first read
 * of the stream is, so that the format is told from the same bytes. */
struct mapped {
	int fd;
	off_t pos;              /* first byte not consumed */
	off_t size;
	bool colored;           /* found in the first window: read it as a stream */
};

/* The file's size now: a log written while it is scanned is read on. */
static off_t size_now(int fd, off_t known)
{
	struct stat st;

	return fstat(fd, &st) == 0 && st.st_size > known ? st.st_size : known;
}

/* The next window is prepared this far before the end of the one read:
 * it starts at the first record not wholly in it, which is shorter. */
#define SLACK (64u << 10)

/* The window [pos, pos + len): the one prepared, or one mapped now. */
static int window_at(struct mapped *m, struct cgfb_mapahead *ahead, size_t len,
		     struct cgfb_mapwin *w)
{
	if (ahead && cgfb_mapahead_take(ahead, m->pos, len, w))
		return 0;
	return cgfb_mapwin_map(w, m->fd, m->pos, len);
}

static void window_done(struct cgfb_mapahead *ahead, struct cgfb_mapwin *w)
{
	if (ahead)
		cgfb_mapahead_release(ahead, w);
	else
		cgfb_mapwin_unmap(w);
}

static int body_mapped(struct scanner *s, void *ctx)
{
	struct mapped *m = ctx;
	struct cgfb_mapahead *ahead = NULL;
	size_t win = CHUNK;
	int rc = 0;

	cgfb_mapwin_guard();
	/* More than the first window and one more: a thread maps each while
	 * the one before is read (without one, each is mapped when needed). */
	if (m->size - m->pos > (off_t)(CHUNK + WINDOW) && cgfb_mapahead_new(m->fd, &ahead) < 0)
		ahead = NULL;
	while (m->pos < m->size) {
		struct cgfb_mapwin w;
		const size_t left = (size_t)(m->size - m->pos);
		const size_t len = left < win ? left : win;
		const size_t next_win = win < WINDOW ? WINDOW : win;
		bool eof = false;
		size_t used;

		rc = window_at(m, ahead, len, &w);
		if (rc < 0) {
			snprintf(s->st->error, sizeof(s->st->error), "%s", strerror(-rc));
			break;
		}
		if (!s->fmt_known && memmem(w.base, len, "\x1b[", 2) &&
		    cgfb_logfmt_detect(w.base, len) != CGFB_FMT_JOURNAL_EXPORT) {
			/* Colours are stripped in a buffer of our own. */
			m->colored = true;
			window_done(ahead, &w);
			break;
		}
		if (len == left) {
			m->size = size_now(m->fd, m->size);
			eof = m->pos + (off_t)len >= m->size;
		} else if (ahead && len == win && len > SLACK) {
			const off_t next = m->pos + (off_t)(len - SLACK);
			const size_t after = (size_t)(m->size - next);

			cgfb_mapahead_prepare(ahead, next, after < next_win + SLACK ? after
										 : next_win + SLACK);
		}
		used = scanner_feed(s, w.base, len, eof);
		if (used == 0 && !eof && !s->st->journal_file) {
			/* Not one whole line: a wider window, up to the
			 * stream's largest buffer, then the line is split. */
			if (len < win || len < CHUNK_MAX) {
				/* len < win: the file grew since; map it again. */
				if (len == win)
					win = win * 2 < CHUNK_MAX ? win * 2 : CHUNK_MAX;
				window_done(ahead, &w);
				continue;
			}
			used = s->st->fmt == CGFB_FMT_JOURNAL_EXPORT ? len
								  : split_long_line(s, w.base, len);
		}
		s->st->bytes += used;
		if (cgfb_mapwin_shrunk(&w)) {
			rc = -ESTALE;
			snprintf(s->st->error, sizeof(s->st->error),
				 "the file shrank while it was read (truncated by log rotation?)");
			window_done(ahead, &w);
			break;
		}
		window_done(ahead, &w);
		if (s->st->journal_file) {
			rc = -EMEDIUMTYPE;
			break;
		}
		m->pos += (off_t)used;
		if (eof)
			break;
		win = next_win;
	}
	cgfb_mapahead_free(ahead);
	cgfb_mapwin_unguard();
	if (!m->colored)
		judge_nuls(s->st);
	return rc;
}

/* fd is a regular file whose bytes from its offset on are not
 * compressed: mapped then, and *m says where. */
static bool can_map(int fd, struct mapped *m)
{
	unsigned char head[8];
	struct stat st;
	ssize_t n;

	memset(m, 0, sizeof(*m));
	m->fd = fd;
	m->pos = lseek(fd, 0, SEEK_CUR);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || m->pos < 0 || st.st_size <= m->pos)
		return false;
	m->size = st.st_size;
	n = pread(fd, head, sizeof(head), m->pos);
	return n > 0 && cgfb_compression_sniff(head, (size_t)n) == CGFB_COMP_NONE;
}

int cgfb_scan_fd(int fd, const struct cgfb_catalog *cat, cgfb_detect_fn fn, void *arg,
		 struct cgfb_scan_stats *st)
{
	struct cgfb_input *in;
	struct mapped m;
	int rc;

	memset(st, 0, sizeof(*st));
	/* Read once, front to back: the page cache need not keep it. */
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	if (can_map(fd, &m)) {
		rc = scan_with(cat, fn, arg, st, body_mapped, &m);
		if (!m.colored)
			return rc;
		/* Nothing was consumed: the stream starts where the file's
		 * offset still is. */
		memset(st, 0, sizeof(*st));
	}
	rc = cgfb_input_open(fd, &in);
	if (rc < 0) {
		snprintf(st->error, sizeof(st->error), "%s", strerror(-rc));
		return rc;
	}
	rc = scan_with(cat, fn, arg, st, body_stream, in);
	cgfb_input_close(in);
	return rc;
}
