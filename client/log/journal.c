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

/* The value of blob "NAME=value" when its name is name, else NULL. */
static const char *value_of(const char *b, size_t n, const char *name, size_t *vlen)
{
	const size_t nl = strlen(name);

	if (n <= nl || memcmp(b, name, nl) != 0 || b[nl] != '=')
		return NULL;
	*vlen = n - nl - 1;
	return b + nl + 1;
}

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

static void take_field(struct seen *s, struct cgfb_journal_entry *e, const char *b, size_t n)
{
	const char *v;
	size_t vl;

	if ((v = value_of(b, n, "MESSAGE", &vl))) {
		if (!s->msg) {
			s->msg = v;
			s->msg_len = vl;
		}
	} else if ((v = value_of(b, n, "_TRANSPORT", &vl))) {
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
	} else if ((v = value_of(b, n, "_PID", &vl))) {
		take_number(&s->pid, &s->pid_ok, v, vl, &s->pid_v);
	} else if ((v = value_of(b, n, "_UID", &vl))) {
		take_number(&s->uid, &s->uid_ok, v, vl, &s->uid_v);
	} else if ((v = value_of(b, n, "_SYSTEMD_UNIT", &vl))) {
		if (!s->unit) {
			s->unit = true;
			s->unit_v = v;
			s->unit_len = vl;
		}
	} else if ((v = value_of(b, n, "PRIORITY", &vl))) {
		if (!s->level) {
			s->level = true;
			e->rec.level = small_int(v, vl, 7);
		}
	} else if ((v = value_of(b, n, "SYSLOG_FACILITY", &vl))) {
		if (!s->facility) {
			s->facility = true;
			e->rec.facility = small_int(v, vl, 23);
		}
	} else if ((v = value_of(b, n, "_SOURCE_MONOTONIC_TIMESTAMP", &vl))) {
		take_number(&s->source_mono, &s->source_ok, v, vl, &s->source_usec);
	} else if ((v = value_of(b, n, "__MONOTONIC_TIMESTAMP", &vl))) {
		take_number(&s->mono, &s->mono_ok, v, vl, &s->mono_usec);
	} else if ((v = value_of(b, n, "__REALTIME_TIMESTAMP", &vl))) {
		bool ok;

		take_number(&s->realtime, &ok, v, vl, &e->realtime);
	} else if ((v = value_of(b, n, "_BOOT_ID", &vl))) {
		if (!s->boot) {
			s->boot = true;
			if (!take_boot_id(e->boot_id, v, vl))
				e->boot_id[0] = '\0';
		}
	} else if ((v = value_of(b, n, "_MACHINE_ID", &vl))) {
		if (!s->machine) {
			s->machine = true;
			if (!take_boot_id(e->machine_id, v, vl))
				e->machine_id[0] = '\0';
		}
	}
	/* Anything else, a blob with no '=' or an empty name included, names
	 * nothing this reader needs. */
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

int cgfb_journal_fields(const void *const *data, const size_t *len, size_t n,
			struct cgfb_journal_entry *e, char *text, size_t textsz)
{
	struct seen s = { 0 };
	size_t cut;

	if (!e || !text || !textsz || (n && (!data || !len)))
		return -EINVAL;
	memset(e, 0, sizeof(*e));
	e->rec.level = -1;
	e->rec.facility = -1;
	for (size_t i = 0; i < n; i++)
		if (data[i])
			take_field(&s, e, data[i], len[i]);

	if (!s.msg)
		return 0;
	if (!s.kernel && user_trusted(&s, e))
		goto text;
	if (!s.kernel || s.other_transport)
		return 0;
	/* A kernel record without SYSLOG_FACILITY is the kernel's own. */
	if (e->rec.facility < 0)
		e->rec.facility = 0;
text:
	/* The kernel's own stamp first: journald reads /dev/kmsg late at boot,
	 * and its __MONOTONIC_TIMESTAMP is then seconds after the record. */
	if (s.source_ok) {
		e->rec.has_usec = true;
		e->rec.usec = s.source_usec;
	} else if (s.mono_ok) {
		e->rec.has_usec = true;
		e->rec.usec = s.mono_usec;
	}
	cut = s.msg_len;
	if (cut > CGFB_RECORD_TEXT_MAX)
		cut = CGFB_RECORD_TEXT_MAX;
	if (cut > textsz)
		cut = textsz;
	memcpy(text, s.msg, cut);
	e->rec.text = text;
	e->rec.len = cut;
	return 1;
}

/* ---- reading a journal with sd-journal ---- */

/* Only these fields are copied out of an entry: sd_journal_enumerate_data's
 * pointer is good until its next call only (a compressed field is
 * decompressed into one buffer it reuses). */
static const char *const wanted[] = {
	"MESSAGE", "_TRANSPORT", "PRIORITY", "SYSLOG_FACILITY", "_SOURCE_MONOTONIC_TIMESTAMP",
	"_MACHINE_ID", "_PID", "_UID", "_SYSTEMD_UNIT",
};
#define MAX_BLOBS  24
#define SMALL_BLOB 64                            /* any other wanted field: short */
#define MSG_BLOB   (sizeof("MESSAGE=") - 1 + CGFB_RECORD_TEXT_MAX)
#define ARENA      (MSG_BLOB + MAX_BLOBS * SMALL_BLOB)

struct boot {
	char id[33];
	uint64_t first;
};

struct reader {
	sd_journal *j;
	const char *what;                /* the source, for messages */
	cgfb_journal_fn fn;
	void *arg;
	/* one entry's copied fields */
	char arena[ARENA];
	size_t used, n;
	const void *blob[MAX_BLOBS];
	size_t blen[MAX_BLOBS];
	char text[CGFB_RECORD_TEXT_MAX];
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

static void add_blob(struct reader *r, const void *p, size_t n)
{
	if (r->n == MAX_BLOBS || n > ARENA - r->used)
		return;                  /* only duplicates get this far: the first counts */
	memcpy(r->arena + r->used, p, n);
	r->blob[r->n] = r->arena + r->used;
	r->blen[r->n++] = n;
	r->used += n;
}

static bool is_wanted(const char *b, size_t n)
{
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		const size_t nl = strlen(wanted[i]);

		if (n > nl && b[nl] == '=' && memcmp(b, wanted[i], nl) == 0)
			return true;
	}
	return false;
}

/* The entry's header first (boot id, timestamps: what journald stamped,
 * and what the monotonic time is relative to), then its wanted fields,
 * each cut to what can matter. */
static int collect(struct reader *r)
{
	sd_id128_t boot;
	uint64_t mono, rt;
	char h[SMALL_BLOB];
	const void *d;
	size_t l;
	int rc;

	r->used = r->n = 0;
	rc = sd_journal_get_monotonic_usec(r->j, &mono, &boot);
	if (rc < 0)
		return rc;
	rc = sd_journal_get_realtime_usec(r->j, &rt);
	if (rc < 0)
		return rc;
	add_blob(r, h, (size_t)snprintf(h, sizeof(h), "_BOOT_ID=" SD_ID128_FORMAT_STR,
					SD_ID128_FORMAT_VAL(boot)));
	add_blob(r, h, (size_t)snprintf(h, sizeof(h), "__MONOTONIC_TIMESTAMP=%llu",
					(unsigned long long)mono));
	add_blob(r, h, (size_t)snprintf(h, sizeof(h), "__REALTIME_TIMESTAMP=%llu",
					(unsigned long long)rt));
	sd_journal_restart_data(r->j);
	while ((rc = sd_journal_enumerate_data(r->j, &d, &l)) > 0) {
		if (!is_wanted(d, l))
			continue;
		if (l > 8 && memcmp(d, "MESSAGE=", 8) == 0)
			add_blob(r, d, l < MSG_BLOB ? l : MSG_BLOB);
		else
			add_blob(r, d, l < SMALL_BLOB ? l : SMALL_BLOB);
	}
	return rc;
}

static int boot_first(struct reader *r, const char *id, uint64_t realtime, uint64_t *first)
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

/* The entry's sequence number. sd_journal_get_seqnum is systemd 254;
 * Debian 12 has 252, whose cursor carries it as "i=" in hex
 * ("s=<seqnum id>;i=<seqnum>;b=<boot>;m=...;t=...;x=..."). */
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

/* The current entry: 1 and e filled for a kernel record, 0 for another,
 * or -errno. */
static int read_entry(struct reader *r, struct cgfb_journal_entry *e)
{
	int rc = collect(r);

	if (rc < 0)
		return rc;
	rc = cgfb_journal_fields(r->blob, r->blen, r->n, e, r->text, sizeof(r->text));
	if (rc <= 0)
		return rc;
	rc = entry_seqnum(r->j, &e->seqnum);
	return rc < 0 ? rc : 1;
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

static int open_files(struct reader *r, const struct cgfb_journal_src *src, char *err, size_t errsz)
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
static int open_src(struct reader *r, const struct cgfb_journal_src *src, char *err, size_t errsz)
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

static struct reader *reader_new(void)
{
	return calloc(1, sizeof(struct reader));
}

static void reader_free(struct reader *r)
{
	if (!r)
		return;
	sd_journal_close(r->j);
	free(r->boots);
	free(r);
}

/* The units whose root-run records the catalog's userspace entries may
 * match (B3: the kubelet, also as k3s and RKE2 run it); PID 1's records
 * (B2, systemd) are read whatever its unit. */
static const char *const user_units[] = {
	"_SYSTEMD_UNIT=kubelet.service", "_SYSTEMD_UNIT=k3s.service",
	"_SYSTEMD_UNIT=k3s-agent.service", "_SYSTEMD_UNIT=rke2-server.service",
	"_SYSTEMD_UNIT=rke2-agent.service",
};

/* The kernel's records, or root's from PID 1 or one of user_units:
 * (kernel) OR (PID 1 AND UID 0) OR (a unit AND UID 0), and whatever the
 * caller adds later ANDed to all of it. */
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

static int kernel_only(struct reader *r, char *err, size_t errsz)
{
	int rc = add_matches(r->j);

	if (rc < 0)
		return fail(err, errsz, rc, r->what, NULL);
	/* MESSAGE is at most the text this reader uses (a hint to
	 * sd-journal: a compressed field is decompressed no further). */
	rc = sd_journal_set_data_threshold(r->j, MSG_BLOB);
	return rc < 0 ? fail(err, errsz, rc, r->what, NULL) : 0;
}

/* A reader of src's kernel records (NULL: the system journal). */
static int open_kernel(const struct cgfb_journal_src *src, struct reader **out, char *err,
		       size_t errsz)
{
	static const struct cgfb_journal_src system_journal;
	struct reader *r = reader_new();
	int rc;

	*out = r;
	if (!r)
		return fail(err, errsz, -ENOMEM, "journal", NULL);
	rc = open_src(r, src ? src : &system_journal, err, errsz);
	return rc < 0 ? rc : kernel_only(r, err, errsz);
}

int cgfb_journal_scan(const struct cgfb_journal_src *src, cgfb_journal_fn fn, void *arg,
		      struct cgfb_journal_stats *st, char *err, size_t errsz)
{
	struct cgfb_journal_entry e;
	struct reader *r;
	int rc;

	if (st)
		memset(st, 0, sizeof(*st));
	rc = open_kernel(src, &r, err, errsz);
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
static int first_of_boot(struct reader *r, uint64_t *first)
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
	struct reader *r = NULL;
	uint64_t first;
	sd_id128_t id;
	int rc;

	if (!boot_id || strlen(boot_id) != 32 || sd_id128_from_string(boot_id, &id) < 0)
		return fail(err, errsz, -EINVAL, boot_id ? boot_id : "(null)",
			    "not a boot id (32 hex digits)");
	rc = open_kernel(src, &r, err, errsz);
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
