#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

#include "log/journal.h"

/* ---- one entry's fields: pure, no journal needed ---- */

/* Plain decimal, as journald writes numbers: no sign, no space, no 0x. */
static bool parse_u64(const char *v, size_t n, uint64_t *out)
{
	uint64_t x = 0;

	if (n == 0 || n > 20)
		return false;
	for (size_t i = 0; i < n; i++) {
		const unsigned d = (unsigned)(v[i] - '0');

		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*out = x;
	return true;
}

static int small_int(const char *v, size_t n, int max)
{
	uint64_t x;

	return parse_u64(v, n, &x) && x <= (uint64_t)max ? (int)x : -1;
}

static bool take_boot_id(char out[33], const char *v, size_t n)
{
	if (n != 32)
		return false;
	for (size_t i = 0; i < 32; i++) {
		const char c = v[i];

		if (c >= 'A' && c <= 'F')
			out[i] = (char)(c - 'A' + 'a');
		else if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))
			out[i] = c;
		else
			return false;
	}
	out[32] = '\0';
	return true;
}

/* What the fields said, before the record is put together. */
struct seen {
	const char *msg;
	size_t msg_len;
	bool transport, kernel, other_transport;
	bool user_transport;        /* journal, stdout or syslog: credentials taken */
	bool pid, uid, unit;
	uint64_t pid_v, uid_v;
	bool pid_ok, uid_ok;
	const char *unit_v;
	size_t unit_len;
	bool level, facility, boot, machine;
	bool source_mono, source_ok, mono, mono_ok, realtime;
	uint64_t source_usec, mono_usec;
};

static void take_number(bool *seen, bool *ok, const char *v, size_t n, uint64_t *out)
{
	/* The first one counts, well-formed or not: a later duplicate does
	 * not stand in for a malformed first. */
	if (*seen)
		return;
	*seen = true;
	*ok = parse_u64(v, n, out);
}

/* The fields this reader takes, by the name before the blob's first '='
 * (a name has none, so that is where it ends). */
enum field {
	F_OTHER, F_MESSAGE, F_TRANSPORT, F_PID, F_UID, F_UNIT, F_PRIORITY, F_FACILITY,
	F_SOURCE_MONO, F_MONO, F_REALTIME, F_BOOT, F_MACHINE,
};

static enum field field_of(const char *b, size_t n, size_t *name_len)
{
	static const struct {
		const char *name;
		size_t len;
		enum field f;
	} names[] = {
#define NAME(s, f) { s, sizeof(s) - 1, f }
		NAME("MESSAGE", F_MESSAGE), NAME("_TRANSPORT", F_TRANSPORT), NAME("_PID", F_PID),
		NAME("_UID", F_UID), NAME("_SYSTEMD_UNIT", F_UNIT), NAME("PRIORITY", F_PRIORITY),
		NAME("SYSLOG_FACILITY", F_FACILITY),
		NAME("_SOURCE_MONOTONIC_TIMESTAMP", F_SOURCE_MONO),
		NAME("__MONOTONIC_TIMESTAMP", F_MONO), NAME("__REALTIME_TIMESTAMP", F_REALTIME),
		NAME("_BOOT_ID", F_BOOT), NAME("_MACHINE_ID", F_MACHINE),
#undef NAME
	};
	/* The longest name and its '=': no need to look further. */
	const char *eq = memchr(b, '=', n < 29 ? n : 29);
	const size_t nl = eq ? (size_t)(eq - b) : 0;

	*name_len = nl;
	if (!nl)
		return F_OTHER;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].len == nl && memcmp(b, names[i].name, nl) == 0)
			return names[i].f;
	return F_OTHER;
}

/* One "NAME=value" blob of n bytes into s and e; returns which field it
 * was. A MESSAGE or _SYSTEMD_UNIT value is pointed to, not copied: the
 * caller copies what it must keep. */
static enum field take_field(struct seen *s, struct cgfb_journal_entry *e, const char *b,
			     size_t n)
{
	size_t nl;
	const enum field f = field_of(b, n, &nl);
	const char *v = b + nl + 1;
	const size_t vl = n - nl - 1;

	switch (f) {
	case F_OTHER:
		/* Anything else, a blob with no '=' or an empty name
		 * included, names nothing this reader needs. */
		break;
	case F_MESSAGE:
		if (!s->msg) {
			s->msg = v;
			s->msg_len = vl;
		}
		break;
	case F_TRANSPORT:
		/* Two transports in one entry is no record journald wrote:
		 * kernel only if every one says so. */
		s->transport = true;
		if (vl == 6 && memcmp(v, "kernel", 6) == 0) {
			s->kernel = true;
		} else {
			s->other_transport = true;
			s->user_transport = (vl == 7 && memcmp(v, "journal", 7) == 0) ||
					    (vl == 6 && memcmp(v, "stdout", 6) == 0) ||
					    (vl == 6 && memcmp(v, "syslog", 6) == 0);
		}
		break;
	case F_PID:
		take_number(&s->pid, &s->pid_ok, v, vl, &s->pid_v);
		break;
	case F_UID:
		take_number(&s->uid, &s->uid_ok, v, vl, &s->uid_v);
		break;
	case F_UNIT:
		if (!s->unit) {
			s->unit = true;
			s->unit_v = v;
			s->unit_len = vl;
		}
		break;
	case F_PRIORITY:
		if (!s->level) {
			s->level = true;
			e->rec.level = small_int(v, vl, 7);
		}
		break;
	case F_FACILITY:
		if (!s->facility) {
			s->facility = true;
			e->rec.facility = small_int(v, vl, 23);
		}
		break;
	case F_SOURCE_MONO:
		take_number(&s->source_mono, &s->source_ok, v, vl, &s->source_usec);
		break;
	case F_MONO:
		take_number(&s->mono, &s->mono_ok, v, vl, &s->mono_usec);
		break;
	case F_REALTIME: {
		bool ok;

		take_number(&s->realtime, &ok, v, vl, &e->realtime);
		break;
	}
	case F_BOOT:
		if (!s->boot) {
			s->boot = true;
			if (!take_boot_id(e->boot_id, v, vl))
				e->boot_id[0] = '\0';
		}
		break;
	case F_MACHINE:
		if (!s->machine) {
			s->machine = true;
			if (!take_boot_id(e->machine_id, v, vl))
				e->machine_id[0] = '\0';
		}
		break;
	}
	return f;
}

/* A userspace entry the catalog may hear (record.h user_trusted): one
 * transport that takes the writer's credentials, _UID 0, and _PID 1 or a
 * unit. Its facility stays userspace's (daemon when unsaid), so nothing
 * takes it for the kernel's. */
static bool user_trusted(const struct seen *s, struct cgfb_journal_entry *e)
{
	if (!s->user_transport || s->kernel || !s->uid_ok || s->uid_v != 0 || !s->pid_ok)
		return false;
	if (s->unit && s->unit_len > 0 && s->unit_len < sizeof(e->rec.unit) &&
	    !memchr(s->unit_v, '\0', s->unit_len)) {
		memcpy(e->rec.unit, s->unit_v, s->unit_len);
		e->rec.unit[s->unit_len] = '\0';
	}
	if (s->pid_v != 1 && !e->rec.unit[0])
		return false;
	e->rec.user_trusted = true;
	e->rec.pid = s->pid_v <= INT32_MAX ? (int)s->pid_v : 0;
	if (e->rec.facility <= 0)
		e->rec.facility = 3;                     /* LOG_DAEMON */
	return true;
}

static void fields_begin(struct seen *s, struct cgfb_journal_entry *e)
{
	memset(s, 0, sizeof(*s));
	memset(e, 0, sizeof(*e));
	e->rec.level = -1;
	e->rec.facility = -1;
}

/* The record of what the fields said: 1 (e filled, its text copied into
 * text unless it is there already), or 0. */
static int fields_end(struct seen *s, struct cgfb_journal_entry *e, char *text, size_t textsz)
{
	size_t cut;

	if (!s->msg)
		return 0;
	if (!s->kernel && user_trusted(s, e))
		goto text;
	if (!s->kernel || s->other_transport)
		return 0;
	/* A kernel record without SYSLOG_FACILITY is the kernel's own. */
	if (e->rec.facility < 0)
		e->rec.facility = 0;
text:
	/* The kernel's own stamp first: journald reads /dev/kmsg late at boot,
	 * and its __MONOTONIC_TIMESTAMP is then seconds after the record. */
	if (s->source_ok) {
		e->rec.has_usec = true;
		e->rec.usec = s->source_usec;
	} else if (s->mono_ok) {
		e->rec.has_usec = true;
		e->rec.usec = s->mono_usec;
	}
	cut = s->msg_len;
	if (cut > CGFB_RECORD_TEXT_MAX)
		cut = CGFB_RECORD_TEXT_MAX;
	if (cut > textsz)
		cut = textsz;
	if (s->msg != text)
		memcpy(text, s->msg, cut);
	e->rec.text = text;
	e->rec.len = cut;
	return 1;
}

int cgfb_journal_fields(const void *const *data, const size_t *len, size_t n,
			struct cgfb_journal_entry *e, char *text, size_t textsz)
{
	struct seen s;

	if (!e || !text || !textsz || (n && (!data || !len)))
		return -EINVAL;
	fields_begin(&s, e);
	for (size_t i = 0; i < n; i++)
		if (data[i])
			take_field(&s, e, data[i], len[i]);
	return fields_end(&s, e, text, textsz);
}

/* ---- reading a journal with sd-journal ---- */

/* MESSAGE is at most the text this reader uses: a compressed field is
 * decompressed no further (sd_journal_set_data_threshold). */
#define MSG_BLOB (sizeof("MESSAGE=") - 1 + CGFB_RECORD_TEXT_MAX)

struct boot {
	char id[33];
	uint64_t first;
};

struct cgfb_journal_reader {
	sd_journal *j;
	/* the current entry's sequence number, once asked for */
	bool have_seqnum;
	uint64_t seqnum;
	const char *what;                /* the source, for messages */
	/* what is kept of the current entry's fields: a pointer
	 * sd_journal_enumerate_data gives is good until its next call only
	 * (a compressed field is decompressed into one buffer it reuses) */
	char text[CGFB_RECORD_TEXT_MAX];
	char unit[sizeof(((struct cgfb_record *)0)->unit)];
	/* the last entry header's boot id, and its hex form */
	sd_id128_t boot;
	char boot_hex[33];
	/* the boots seen, for boot_first */
	struct boot *boots;
	size_t n_boots, cap_boots, last_boot;
	unsigned long entries;
};

static int fail(char *err, size_t errsz, int rc, const char *what, const char *why)
{
	snprintf(err, errsz, "%s: %s", what, why ? why : strerror(-rc));
	return rc;
}

/* The units whose root-run records the catalog's userspace entries may
 * match (B3: the kubelet, also as k3s and RKE2 run it); PID 1's records
 * (B2, systemd) are read whatever its unit. */
static const char *const user_units[] = {
	"_SYSTEMD_UNIT=kubelet.service", "_SYSTEMD_UNIT=k3s.service",
	"_SYSTEMD_UNIT=k3s-agent.service", "_SYSTEMD_UNIT=rke2-server.service",
	"_SYSTEMD_UNIT=rke2-agent.service",
};

/* The entries read: (kernel) OR (PID 1 AND UID 0) OR (a unit of
 * user_units AND UID 0), each term a field of exactly that value, as
 * sd-journal's matches (add_matches) select them. */
struct matched {
	bool kernel, pid1, uid0, unit;
};

static void note_match(struct matched *m, enum field f, const char *b, size_t n)
{
	switch (f) {
	case F_TRANSPORT:
		m->kernel |= n == 17 && memcmp(b, "_TRANSPORT=kernel", 17) == 0;
		break;
	case F_PID:
		m->pid1 |= n == 6 && b[5] == '1';
		break;
	case F_UID:
		m->uid0 |= n == 6 && b[5] == '0';
		break;
	case F_UNIT:
		for (size_t i = 0; i < sizeof(user_units) / sizeof(user_units[0]); i++)
			m->unit |= n == strlen(user_units[i]) && memcmp(b, user_units[i], n) == 0;
		break;
	default:
		break;
	}
}

static bool is_matched(const struct matched *m)
{
	return m->kernel || (m->uid0 && (m->pid1 || m->unit));
}

/* The MESSAGE or _SYSTEMD_UNIT that take_field just pointed s to inside
 * blob b, copied into r: the blob is gone at the next field. */
static void keep(struct cgfb_journal_reader *r, struct seen *s, enum field f, const char *b)
{
	if (f == F_MESSAGE && s->msg == b + sizeof("MESSAGE=") - 1) {
		if (s->msg_len > sizeof(r->text))
			s->msg_len = sizeof(r->text);
		memcpy(r->text, s->msg, s->msg_len);
		s->msg = r->text;
	} else if (f == F_UNIT && s->unit_v == b + sizeof("_SYSTEMD_UNIT=") - 1) {
		/* one too long for the record is never copied (user_trusted) */
		if (s->unit_len < sizeof(r->unit))
			memcpy(r->unit, s->unit_v, s->unit_len);
		s->unit_v = r->unit;
	}
}

/* What the entry's header says, in binary: its boot, journald's monotonic
 * and realtime stamps. The header counts before any field of the same
 * name (cgfb_journal_fields: the first of each counts), so these are
 * marked seen before the fields are read, and filled in after. */
static void header_first(struct seen *s)
{
	s->boot = s->mono = s->realtime = true;
}

static void take_header(struct cgfb_journal_reader *r, struct seen *s,
			struct cgfb_journal_entry *e, sd_id128_t boot, uint64_t mono,
			uint64_t realtime)
{
	if (!r->boot_hex[0] || !sd_id128_equal(boot, r->boot)) {
		r->boot = boot;
		sd_id128_to_string(boot, r->boot_hex);
	}
	memcpy(e->boot_id, r->boot_hex, sizeof(e->boot_id));
	s->mono_ok = true;
	s->mono_usec = mono;
	e->realtime = realtime;
}

/* The entry's sequence number. sd_journal_get_seqnum is systemd 254's
 * (src/libsystemd/libsystemd.sym:817 in 254.26); Debian 12 has 252, whose
 * cursor carries it as "i=" in hex, asprintf'd at every call
 * (src/libsystemd/sd-journal/sd-journal.c:933-934 in 252.39:
 * "s=<seqnum id>;i=<seqnum>;b=<boot>;m=...;t=...;x=..."): asked for only
 * where it is needed (cgfb_journal_seqnum). */
static int entry_seqnum(sd_journal *j, uint64_t *seqnum)
{
	char *cursor = NULL, *i, *end;
	int rc = sd_journal_get_cursor(j, &cursor);

	if (rc < 0)
		return rc;
	rc = -EBADMSG;
	i = strstr(cursor, ";i=");
	if (i) {
		errno = 0;
		*seqnum = strtoull(i + 3, &end, 16);
		if (!errno && end != i + 3 && (*end == ';' || *end == '\0'))
			rc = 0;
	}
	free(cursor);
	return rc;
}

/* The errors sd_journal_enumerate_available_data steps over (systemd
 * 252.39, src/libsystemd/sd-journal/journal-internal.h:134-139); a bad
 * data object sd_journal_enumerate_data steps over itself (sd-journal.c:
 * 2349-2352). */
static bool unavailable_field(int rc)
{
	return rc == -ENOBUFS || rc == -E2BIG || rc == -EPROTONOSUPPORT;
}

/* The current entry: 1 and e filled for a kernel record (or a trusted
 * userspace one), 0 for another, or -errno. Each field is taken as
 * sd_journal_enumerate_data hands it over, nothing turned into text and
 * parsed again; the header is read only for an entry the matches select. */
static int read_entry(struct cgfb_journal_reader *r, struct cgfb_journal_entry *e)
{
	struct matched m = { 0 };
	struct seen s;
	sd_id128_t boot;
	uint64_t mono, realtime;
	const void *d;
	size_t l;
	int rc, unreadable = 0;

	fields_begin(&s, e);
	header_first(&s);
	sd_journal_restart_data(r->j);
	for (;;) {
		enum field f;

		/* After a field that cannot be read (too big, or compressed in
		 * a way this libsystemd cannot undo: 252.39's
		 * JOURNAL_ERRNO_IS_UNAVAILABLE_FIELD), the others still say
		 * whether the entry is one to read: sd-journal's matches never
		 * handed over another, so only one to read fails for it. */
		rc = unreadable ? sd_journal_enumerate_available_data(r->j, &d, &l) :
				  sd_journal_enumerate_data(r->j, &d, &l);
		if (rc == 0)
			break;
		if (rc < 0) {
			if (unreadable || !unavailable_field(rc))
				return rc;
			unreadable = rc;
			continue;
		}
		f = take_field(&s, e, d, l);
		note_match(&m, f, d, l);
		keep(r, &s, f, d);
	}
	if (!is_matched(&m))
		return 0;
	if (unreadable)
		return unreadable;
	rc = sd_journal_get_monotonic_usec(r->j, &mono, &boot);
	if (rc < 0)
		return rc;
	rc = sd_journal_get_realtime_usec(r->j, &realtime);
	if (rc < 0)
		return rc;
	take_header(r, &s, e, boot, mono, realtime);
	r->have_seqnum = false;
	e->reader = r;
	return fields_end(&s, e, r->text, sizeof(r->text));
}

int cgfb_journal_seqnum(const struct cgfb_journal_entry *e, uint64_t *seqnum)
{
	struct cgfb_journal_reader *r = e->reader;
	int rc;

	if (!r)
		return -ENODATA;
	if (!r->have_seqnum) {
		rc = entry_seqnum(r->j, &r->seqnum);
		if (rc < 0)
			return rc;
		r->have_seqnum = true;
	}
	*seqnum = r->seqnum;
	return 0;
}

static int boot_first(struct cgfb_journal_reader *r, const char *id, uint64_t realtime,
		      uint64_t *first)
{
	struct boot *b;

	if (r->n_boots && strcmp(r->boots[r->last_boot].id, id) == 0)
		goto found;
	/* Boots come one after the other; a handful of files interleaved
	 * bring one back now and then. */
	for (r->last_boot = 0; r->last_boot < r->n_boots; r->last_boot++)
		if (strcmp(r->boots[r->last_boot].id, id) == 0)
			goto found;
	if (r->n_boots == r->cap_boots) {
		const size_t cap = r->cap_boots ? r->cap_boots * 2 : 16;

		b = realloc(r->boots, cap * sizeof(*b));
		if (!b)
			return -ENOMEM;
		r->boots = b;
		r->cap_boots = cap;
	}
	b = &r->boots[r->n_boots];
	memcpy(b->id, id, sizeof(b->id));
	b->first = realtime;
	r->last_boot = r->n_boots++;
found:
	*first = r->boots[r->last_boot].first;
	return 0;
}

/* A file named on the command line must say it is a journal: sd-journal
 * reports a bad one without saying which of the files it was. */
static int check_file(const char *path, char *err, size_t errsz)
{
	char magic[8];
	ssize_t got;
	int fd, rc = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return fail(err, errsz, -errno, path, NULL);
	got = read(fd, magic, sizeof(magic));
	if (got < 0)
		rc = fail(err, errsz, -errno, path, NULL);
	else if (got != (ssize_t)sizeof(magic) || memcmp(magic, "LPKSHHRH", 8) != 0)
		rc = fail(err, errsz, -EBADMSG, path, "not a journal file (no systemd journal header)");
	close(fd);
	return rc;
}

static int open_files(struct cgfb_journal_reader *r, const struct cgfb_journal_src *src,
		      char *err, size_t errsz)
{
	const char **paths;
	int rc;

	for (size_t i = 0; i < src->n_files; i++) {
		rc = check_file(src->files[i], err, errsz);
		if (rc < 0)
			return rc;
	}
	paths = calloc(src->n_files + 1, sizeof(*paths));
	if (!paths)
		return fail(err, errsz, -ENOMEM, "journal files", NULL);
	memcpy(paths, src->files, src->n_files * sizeof(*paths));
	rc = sd_journal_open_files(&r->j, paths, 0);
	free(paths);
	r->what = src->n_files == 1 ? src->files[0] : "the journal files";
	return rc < 0 ? fail(err, errsz, rc, r->what, NULL) : 0;
}

/* sd-journal opens a directory, or the system journal, without a word
 * when it finds no file it may read: say so, and what to do. */
static int open_src(struct cgfb_journal_reader *r, const struct cgfb_journal_src *src,
		    char *err, size_t errsz)
{
	uint64_t bytes = 0;
	int rc;

	if ((src->dir != NULL) + (src->n_files != 0) > 1)
		return fail(err, errsz, -EINVAL, "journal", "a directory or files, not both");
	if (src->n_files) {
		rc = open_files(r, src, err, errsz);
		if (rc < 0)
			return rc;
	} else if (src->dir) {
		r->what = src->dir;
		rc = sd_journal_open_directory(&r->j, src->dir, 0);
		if (rc < 0)
			return fail(err, errsz, rc, src->dir, NULL);
	} else {
		r->what = "the system journal";
		rc = sd_journal_open(&r->j, SD_JOURNAL_LOCAL_ONLY | SD_JOURNAL_SYSTEM);
		if (rc < 0)
			return fail(err, errsz, rc, r->what, NULL);
	}
	rc = sd_journal_get_usage(r->j, &bytes);
	if (rc < 0)
		return fail(err, errsz, rc, r->what, NULL);
	if (bytes > 0)
		return 0;
	if (src->dir)
		return fail(err, errsz, -ENOENT, src->dir,
			    "no journal file (*.journal) there that could be read");
	if (geteuid() != 0)
		return fail(err, errsz, -EACCES, r->what,
			    "no journal file could be read in /var/log/journal or /run/log/journal: "
			    "every boot's journal needs root or the systemd-journal group");
	return fail(err, errsz, -ENOENT, r->what,
		    "no journal file in /var/log/journal or /run/log/journal");
}

static struct cgfb_journal_reader *reader_new(void)
{
	return calloc(1, sizeof(struct cgfb_journal_reader));
}

static void reader_free(struct cgfb_journal_reader *r)
{
	if (!r)
		return;
	sd_journal_close(r->j);
	free(r->boots);
	free(r);
}

/* The kernel's records, or root's from PID 1 or one of user_units:
 * (kernel) OR (PID 1 AND UID 0) OR (a unit AND UID 0), and whatever the
 * caller adds later ANDed to all of it; note_match says the same. */
static int add_matches(sd_journal *j)
{
	int rc = sd_journal_add_match(j, "_TRANSPORT=kernel", 0);

	if (rc >= 0)
		rc = sd_journal_add_disjunction(j);
	if (rc >= 0)
		rc = sd_journal_add_match(j, "_PID=1", 0);
	if (rc >= 0)
		rc = sd_journal_add_match(j, "_UID=0", 0);
	if (rc >= 0)
		rc = sd_journal_add_disjunction(j);
	for (size_t i = 0; rc >= 0 && i < sizeof(user_units) / sizeof(user_units[0]); i++)
		rc = sd_journal_add_match(j, user_units[i], 0);
	if (rc >= 0)
		rc = sd_journal_add_match(j, "_UID=0", 0);
	if (rc >= 0)
		rc = sd_journal_add_conjunction(j);
	return rc;
}

/* With matches, sd-journal hands over only the entries read_entry takes:
 * for a boot's range, where the boot's match skips the others. A whole
 * journal is read faster without: sd-journal's matching of this
 * disjunction costs more than reading every entry's fields (bench/journal.sh
 * measured 0.27 s against 0.10 s to step through 200,000 entries), and
 * read_entry decides the same (note_match) from fields it reads anyway. */
static int kernel_only(struct cgfb_journal_reader *r, bool matches, char *err, size_t errsz)
{
	int rc = matches ? add_matches(r->j) : 0;

	if (rc < 0)
		return fail(err, errsz, rc, r->what, NULL);
	rc = sd_journal_set_data_threshold(r->j, MSG_BLOB);
	return rc < 0 ? fail(err, errsz, rc, r->what, NULL) : 0;
}

/* A reader of src's kernel records (NULL: the system journal). */
static int open_kernel(const struct cgfb_journal_src *src, bool matches,
		       struct cgfb_journal_reader **out, char *err, size_t errsz)
{
	static const struct cgfb_journal_src system_journal;
	struct cgfb_journal_reader *r = reader_new();
	int rc;

	*out = r;
	if (!r)
		return fail(err, errsz, -ENOMEM, "journal", NULL);
	rc = open_src(r, src ? src : &system_journal, err, errsz);
	return rc < 0 ? rc : kernel_only(r, matches, err, errsz);
}

int cgfb_journal_scan(const struct cgfb_journal_src *src, cgfb_journal_fn fn, void *arg,
		      struct cgfb_journal_stats *st, char *err, size_t errsz)
{
	struct cgfb_journal_entry e;
	struct cgfb_journal_reader *r;
	int rc;

	if (st)
		memset(st, 0, sizeof(*st));
	rc = open_kernel(src, false, &r, err, errsz);
	if (rc < 0)
		goto out;
	while ((rc = sd_journal_next(r->j)) > 0) {
		rc = read_entry(r, &e);
		if (rc == 0)
			continue;
		if (rc > 0)
			rc = boot_first(r, e.boot_id, e.realtime, &e.boot_first);
		if (rc < 0) {
			fail(err, errsz, rc, r->what, NULL);
			goto out;
		}
		r->entries++;
		rc = fn(&e, arg);
		if (rc)
			goto out;
	}
	if (rc < 0)
		fail(err, errsz, rc, r->what, NULL);
out:
	if (st && r) {
		st->entries = r->entries;
		st->boots = r->n_boots;
	}
	reader_free(r);
	return rc;
}

/* The realtime of the boot's first kernel record; the matches are set. */
static int first_of_boot(struct cgfb_journal_reader *r, uint64_t *first)
{
	struct cgfb_journal_entry e;
	int rc;

	*first = 0;
	rc = sd_journal_seek_head(r->j);
	while (rc >= 0 && (rc = sd_journal_next(r->j)) > 0) {
		rc = read_entry(r, &e);
		if (rc > 0) {
			*first = e.realtime;
			return 0;
		}
	}
	return rc;
}

int cgfb_journal_boot_range(const struct cgfb_journal_src *src, const char *boot_id,
			    uint64_t from_usec, uint64_t to_usec, cgfb_journal_fn fn, void *arg,
			    char *err, size_t errsz)
{
	struct cgfb_journal_entry e;
	char match[sizeof("_BOOT_ID=") + 32];
	struct cgfb_journal_reader *r = NULL;
	uint64_t first;
	sd_id128_t id;
	int rc;

	if (!boot_id || strlen(boot_id) != 32 || sd_id128_from_string(boot_id, &id) < 0)
		return fail(err, errsz, -EINVAL, boot_id ? boot_id : "(null)",
			    "not a boot id (32 hex digits)");
	rc = open_kernel(src, true, &r, err, errsz);
	if (rc < 0)
		goto out;
	snprintf(match, sizeof(match), "_BOOT_ID=" SD_ID128_FORMAT_STR, SD_ID128_FORMAT_VAL(id));
	rc = sd_journal_add_match(r->j, match, 0);
	if (rc < 0)
		goto failed;
	rc = first_of_boot(r, &first);
	if (rc < 0)
		goto failed;
	/* journald stamps a record (__MONOTONIC_TIMESTAMP) after the kernel
	 * did (_SOURCE_MONOTONIC_TIMESTAMP, rec.usec): seeking to from_usec
	 * passes over none in the window, but one stamped after to_usec may
	 * still be in it, so the rest of the boot is read. */
	rc = sd_journal_seek_monotonic_usec(r->j, id, from_usec);
	while (rc >= 0 && (rc = sd_journal_next(r->j)) > 0) {
		rc = read_entry(r, &e);
		if (rc < 0)
			break;
		/* A gap of the kernel's ring is filled with the kernel's records
		 * only: programs' lines are scan's (the watcher reads kmsg). */
		if (rc == 0 || e.rec.user_trusted || !e.rec.has_usec || e.rec.usec < from_usec ||
		    e.rec.usec > to_usec)
			continue;
		e.boot_first = first;
		rc = fn(&e, arg);
		if (rc)
			goto out;
	}
	if (rc >= 0)
		goto out;
failed:
	fail(err, errsz, rc, r->what, NULL);
out:
	reader_free(r);
	return rc;
}

int cgfb_journal_this_machine(char out[33])
{
	sd_id128_t id;
	const int rc = sd_id128_get_machine(&id);

	out[0] = '\0';
	if (rc < 0)
		return rc;
	sd_id128_to_string(id, out);
	return 0;
}
