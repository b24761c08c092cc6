#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgfb/atomic.h"
#include "cgfb/fnv.h"
#include "cgfb/readfile.h"
#include "cgfb/sha256.h"
#include "report/repindex.h"

#define INDEX_NEW    CGFB_REPEAT_INDEX_DIR ".new"
#define INDEX_OLD    CGFB_REPEAT_INDEX_DIR ".old"
#define STAMP        "stamp"
#define PENDING      "pending"
#define PENDING_MAGIC "cgfb-pending 1"
#define PENDING_CACHE_MAGIC "cgfb-pending-cache 1"
#define STAMP_MAGIC  "cgfb-repeat-index 1"
/* Keys are kept in 4096 buckets, by the first three hex digits of their
 * SHA-256, each a file of lines "KEY ID": a file per key would cost a
 * disk block per message (400 MB for 100,000 reports on ext4); a bucket
 * of a 100,000-report spool holds about 25 lines, 2.5 KiB. 10,000 lines
 * would be a spool of 40 million reports; past that a bucket is searched
 * the slow way. */
#define BUCKET_CHARS 3
#define BUCKET_MAX   (1u << 20)
#define KEY_CHARS    64
#define LINE         (KEY_CHARS + 1 + CGFB_REPORT_ID_LEN + 1)

/* The fingerprint of one id: FNV-1a. The stamp keeps the sum of those of
 * the ids it covers, which does not depend on the order of a listing. */
static unsigned long long id_hash(const char *id)
{
	return cgfb_fnv64(id, strlen(id));
}

static void key_name(const struct cgfb_report_key *k, char name[KEY_CHARS + 1])
{
	struct cgfb_buf b = { 0 };

	/* NUL between the parts: no two keys run together into one. */
	/* This machine's reports keep the key they had before origins (an
	 * index made then is still right); another machine's add theirs. */
	if (cgfb_buf_add(&b, k->catalog_id, strlen(k->catalog_id) + 1) < 0 ||
	    cgfb_buf_add(&b, k->fields, strlen(k->fields) + 1) < 0 ||
	    cgfb_buf_add(&b, k->message, strlen(k->message)) < 0 ||
	    (k->origin && k->origin[0] &&
	     (cgfb_buf_add(&b, "", 1) < 0 || cgfb_buf_add(&b, k->origin, strlen(k->origin)) < 0))) {
		/* No memory for a key: a name no key has, which finds nothing
		 * and is never written (add checks). */
		snprintf(name, 65, "-");
	} else {
		cgfb_sha256_hex(b.data, b.len, name);
	}
	cgfb_buf_free(&b);
}

static int open_index_dir(int sd_fd, const char *name)
{
	int rc = cgfb_mkdir_at(sd_fd, name, 0700);

	if (rc < 0)
		return rc;
	rc = openat(sd_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return rc < 0 ? -errno : rc;
}

static int write_stamp_at(int fd, const struct cgfb_repindex *ix)
{
	char s[256];
	const int n = snprintf(s, sizeof(s), STAMP_MAGIC " %llu %016llx %ju %ju %lld %lld %s %lld %d\n",
			       ix->count, ix->sum, (uintmax_t)ix->dev, (uintmax_t)ix->ino,
			       ix->sec, ix->nsec, ix->adding[0] ? ix->adding : "-", ix->expired,
			       ix->pending_ok);

	return cgfb_atomic_write_at(fd, STAMP, s, (size_t)n, 0600);
}

static int read_stamp(struct cgfb_repindex *ix)
{
	struct cgfb_buf b = { 0 };
	uintmax_t dev, ino;
	char adding[64];
	int rc;

	rc = cgfb_read_file_at(ix->fd, STAMP, 512, CGFB_RF_REGULAR | CGFB_RF_NOFOLLOW, &b);
	if (rc < 0)
		return rc;
	if (strncmp(b.data, STAMP_MAGIC " ", sizeof(STAMP_MAGIC)) != 0 ||
	    sscanf(b.data + sizeof(STAMP_MAGIC), "%llu %llx %ju %ju %lld %lld %63s %lld %d",
		   &ix->count, &ix->sum, &dev, &ino, &ix->sec, &ix->nsec, adding,
		   &ix->expired, &ix->pending_ok) != 9) {
		rc = -EBADMSG;
		goto out;
	}
	ix->dev = (dev_t)dev;
	ix->ino = (ino_t)ino;
	ix->adding[0] = '\0';
	if (strlen(adding) == CGFB_REPORT_ID_LEN && cgfb_report_id_valid(adding))
		memcpy(ix->adding, adding, CGFB_REPORT_ID_LEN + 1);
out:
	cgfb_buf_free(&b);
	return rc;
}

static void take_dir(struct cgfb_repindex *ix, const struct stat *st)
{
	ix->dev = st->st_dev;
	ix->ino = st->st_ino;
	ix->sec = (long long)st->st_mtim.tv_sec;
	ix->nsec = (long long)st->st_mtim.tv_nsec;
}

static bool same_dir(const struct cgfb_repindex *ix, const struct stat *st)
{
	return ix->dev == st->st_dev && ix->ino == st->st_ino &&
	       ix->sec == (long long)st->st_mtim.tv_sec &&
	       ix->nsec == (long long)st->st_mtim.tv_nsec;
}

struct tally {
	unsigned long long count, sum;
};

static int tally_one(const char *id, void *ctx)
{
	struct tally *t = ctx;

	t->count++;
	t->sum += id_hash(id);
	return 0;
}

/* reports/ changed behind the writer (a review's .state, a report
 * quarantined, one copied in): does the index still cover exactly its
 * reports? By name only, nothing read. */
static bool still_covers(struct cgfb_repindex *ix)
{
	struct tally t = { 0, 0 };

	if (cgfb_spool_each_id(ix->sp, tally_one, &t) < 0)
		return false;
	if (t.count == ix->count && t.sum == ix->sum)
		return true;
	/* Killed after writing the report it was adding, before counting it. */
	if (ix->adding[0] && t.count == ix->count + 1 && t.sum == ix->sum + id_hash(ix->adding)) {
		ix->count = t.count;
		ix->sum = t.sum;
		ix->adding[0] = '\0';
		return true;
	}
	return false;
}

static void remove_tree(int sd_fd, const char *name)
{
	const int fd = openat(sd_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
	unlinkat(sd_fd, name, AT_REMOVEDIR);
}

struct entry {
	char key[65];
	char id[CGFB_REPORT_ID_LEN + 1];
};

struct collect {
	struct cgfb_spool *sp;
	struct entry *v;
	size_t n, cap;
	struct tally t;
	struct cgfb_buf bytes;
};

/* One report's key into the rebuild: its bytes are read and let go. */
static int collect_one(const char *id, void *ctx)
{
	struct collect *c = ctx;
	struct cgfb_report_key k;
	char name[64];

	tally_one(id, &c->t);
	snprintf(name, sizeof(name), "%s" CGFB_REPORT_SUFFIX, id);
	if (cgfb_read_file_at(c->sp->fd, name, CGFB_REPORT_MAX_BYTES,
			      CGFB_RF_REGULAR | CGFB_RF_NOFOLLOW, &c->bytes) < 0 ||
	    cgfb_report_key(c->bytes.data, c->bytes.len, &k) < 0)
		return 0;       /* gone, or not a report: it owns no repeat */
	if (c->n == c->cap) {
		const size_t cap = c->cap ? c->cap * 2 : 256;
		struct entry *bigger = realloc(c->v, cap * sizeof(*bigger));

		if (!bigger) {
			cgfb_report_key_free(&k);
			return -ENOMEM;
		}
		c->v = bigger;
		c->cap = cap;
	}
	key_name(&k, c->v[c->n].key);
	snprintf(c->v[c->n].id, sizeof(c->v[c->n].id), "%s", id);
	c->n++;
	cgfb_report_key_free(&k);
	return 0;
}

static int by_key(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	const int c = strcmp(x->key, y->key);

	return c ? c : strcmp(x->id, y->id);
}

static void bucket_of(const char *key, char bucket[BUCKET_CHARS + 1])
{
	memcpy(bucket, key, BUCKET_CHARS);
	bucket[BUCKET_CHARS] = '\0';
}

/* The buckets of the entries (sorted by key), into the directory fd. One
 * sync at the end, not one per file: the stamp that makes them count is
 * written (synced) after it. */
static int write_buckets(int fd, const struct entry *v, size_t n)
{
	struct cgfb_buf b = { 0 };
	char bucket[BUCKET_CHARS + 1];
	int rc = 0;

	for (size_t i = 0; i < n && rc == 0;) {
		size_t j = i;
		int f;

		b.len = 0;
		bucket_of(v[i].key, bucket);
		for (; j < n && strncmp(v[j].key, bucket, BUCKET_CHARS) == 0; j++)
			if (v[j].key[0] != '-' && cgfb_buf_printf(&b, "%s %s\n", v[j].key, v[j].id) < 0)
				rc = -ENOMEM;
		if (rc < 0)
			break;
		i = j;
		if (!b.len)
			continue;       /* no memory for these keys: not indexed */
		/* Given to the directory's owner as every file of the state
		 * directory: root's rebuild must leave buckets the service
		 * user's report writer can read. */
		f = cgfb_create_at(fd, bucket, 0600);
		if (f < 0) {
			rc = f;
			break;
		}
		rc = cgfb_write_all(f, b.data, b.len);
		close(f);
	}
	if (rc == 0 && syncfs(fd) < 0)
		rc = -errno;
	cgfb_buf_free(&b);
	return rc;
}

/* The index made anew from the reports, one read at a time, beside the
 * old one and put in its place by rename: killed at any point, the next
 * writer finds the old index (stale: rebuilt again) or none (made). */
static int rebuild(struct cgfb_repindex *ix, const struct stat *st)
{
	struct collect c = { .sp = ix->sp };
	int fd = -1, rc;

	remove_tree(ix->sd_fd, INDEX_NEW);
	remove_tree(ix->sd_fd, INDEX_OLD);
	rc = cgfb_spool_each_id(ix->sp, collect_one, &c);
	if (rc < 0)
		goto out;
	if (c.n)
		qsort(c.v, c.n, sizeof(*c.v), by_key);
	fd = open_index_dir(ix->sd_fd, INDEX_NEW);
	if (fd < 0) {
		rc = fd;
		goto out;
	}
	rc = write_buckets(fd, c.v, c.n);
	if (rc < 0)
		goto out;
	ix->count = c.t.count;
	ix->sum = c.t.sum;
	ix->adding[0] = '\0';
	/* reports/ as it was before the listing: a change during it is seen. */
	take_dir(ix, st);
	rc = write_stamp_at(fd, ix);
	if (rc < 0)
		goto out;
	if (renameat(ix->sd_fd, CGFB_REPEAT_INDEX_DIR, ix->sd_fd, INDEX_OLD) < 0 && errno != ENOENT)
		rc = -errno;
	else if (renameat(ix->sd_fd, INDEX_NEW, ix->sd_fd, CGFB_REPEAT_INDEX_DIR) < 0)
		rc = -errno;
	if (rc < 0)
		goto out;
	fsync(ix->sd_fd);
	close(ix->fd);
	ix->fd = fd;
	fd = -1;
	ix->rebuilt = true;
	remove_tree(ix->sd_fd, INDEX_OLD);
out:
	if (fd >= 0)
		close(fd);
	if (rc < 0)
		remove_tree(ix->sd_fd, INDEX_NEW);
	free(c.v);
	cgfb_buf_free(&c.bytes);
	return rc;
}

/* The pending reports a command listed, believed when reports/ is still
 * as that command marked it: then the writer's own are those. */
static void adopt_cached_pending(struct cgfb_repindex *ix, const struct stat *st)
{
	struct cgfb_buf b = { 0 };
	uintmax_t dev, ino;
	long long sec, nsec;
	int used = 0;

	if (cgfb_read_file_at(ix->sd_fd, CGFB_PENDING_CACHE, 4096, CGFB_RF_REGULAR | CGFB_RF_NOFOLLOW,
			      &b) < 0)
		return;
	if (strncmp(b.data, PENDING_CACHE_MAGIC " ", sizeof(PENDING_CACHE_MAGIC)) == 0 &&
	    sscanf(b.data + sizeof(PENDING_CACHE_MAGIC), "%ju %ju %lld %lld\n%n", &dev, &ino, &sec,
		   &nsec, &used) == 4 && used > 0 && (dev_t)dev == st->st_dev &&
	    (ino_t)ino == st->st_ino && sec == (long long)st->st_mtim.tv_sec &&
	    nsec == (long long)st->st_mtim.tv_nsec) {
		const char *body = b.data + sizeof(PENDING_CACHE_MAGIC) + used;

		ix->pending_ok = cgfb_atomic_write_at(ix->fd, PENDING, body, strlen(body), 0600) == 0;
	}
	cgfb_buf_free(&b);
}

int cgfb_repindex_open(struct cgfb_repindex *ix, const struct cgfb_statedir *sd,
		       struct cgfb_spool *sp)
{
	struct stat st;
	int rc;

	memset(ix, 0, sizeof(*ix));
	ix->fd = -1;
	ix->sd_fd = sd->fd;
	ix->sp = sp;
	if (sp->fd < 0)
		return -ENOENT;
	rc = open_index_dir(sd->fd, CGFB_REPEAT_INDEX_DIR);
	if (rc < 0)
		return rc;
	ix->fd = rc;
	if (fstat(sp->fd, &st) < 0) {
		rc = -errno;
		goto fail;
	}
	rc = read_stamp(ix);
	if (rc == 0 && same_dir(ix, &st))
		return 0;
	/* Changed behind the writer: the pending reports it kept may have
	 * been answered, unless the command that changed it listed them. */
	ix->pending_ok = 0;
	if (rc == 0 && still_covers(ix)) {
		adopt_cached_pending(ix, &st);
		return 0;
	}
	rc = rebuild(ix, &st);
	if (rc == 0)
		return 0;
fail:
	cgfb_repindex_close(ix);
	return rc;
}

void cgfb_repindex_close(struct cgfb_repindex *ix)
{
	if (ix->fd >= 0)
		close(ix->fd);
	ix->fd = -1;
}

static int read_bucket(struct cgfb_repindex *ix, const char *bucket, struct cgfb_buf *b)
{
	const int rc = cgfb_read_file_at(ix->fd, bucket, BUCKET_MAX,
					 CGFB_RF_REGULAR | CGFB_RF_NOFOLLOW, b);

	if (rc == -ENOENT) {
		cgfb_buf_free(b);
		return 0;
	}
	return rc;
}

/* Line i of a bucket: 1 with its id when it is of key, 0 when of another,
 * -1 past the end or on a damaged line (then the rest is not read: the
 * reports it names are weighed anyway, and a report it lost is found by
 * the stamp's count). */
static int line_at(const struct cgfb_buf *b, size_t i, const char *key,
		   char id[CGFB_REPORT_ID_LEN + 1])
{
	const char *l = b->data + i * LINE;

	if ((i + 1) * LINE > b->len || l[KEY_CHARS] != ' ' || l[LINE - 1] != '\n')
		return -1;
	memcpy(id, l + KEY_CHARS + 1, CGFB_REPORT_ID_LEN);
	id[CGFB_REPORT_ID_LEN] = '\0';
	if (!cgfb_report_id_valid(id))
		return -1;
	return memcmp(l, key, KEY_CHARS) == 0;
}

/* The bucket without the lines of gone reports (kept as it was on
 * failure: an id of a gone report is only passed over again). */
static void forget_gone(struct cgfb_repindex *ix, const char *bucket, const struct cgfb_buf *b,
			const char *gone, size_t n)
{
	struct cgfb_buf keep = { 0 };

	for (size_t i = 0; i < n; i++)
		if (!gone[i] && cgfb_buf_add(&keep, b->data + i * LINE, LINE) < 0)
			goto out;
	if (keep.len)
		cgfb_atomic_write_at(ix->fd, bucket, keep.data, keep.len, 0600);
	else
		unlinkat(ix->fd, bucket, 0);
out:
	cgfb_buf_free(&keep);
}

/* The reports of key in its bucket, weighed: 1 or 0 as find, or
 * -EBADMSG for a damaged bucket. */
static int lookup(struct cgfb_repindex *ix, const struct cgfb_report_key *k, const char *key,
		  char id[CGFB_REPORT_ID_LEN + 1])
{
	struct cgfb_repeat_best best = { .id = "" };
	struct cgfb_buf b = { 0 };
	char bucket[BUCKET_CHARS + 1], one[CGFB_REPORT_ID_LEN + 1], *gone = NULL;
	size_t n, n_gone = 0, i = 0;
	int rc, mine = 0;

	bucket_of(key, bucket);
	rc = read_bucket(ix, bucket, &b);
	if (rc < 0)
		return rc;
	n = b.len / LINE;
	gone = calloc(n + 1, 1);
	if (!gone) {
		rc = -ENOMEM;
		goto out;
	}
	for (; i < n && (mine = line_at(&b, i, key, one)) >= 0; i++)
		if (mine && cgfb_repeat_weigh(ix->sp, one, k, &best) == -ENOENT) {
			gone[i] = 1;
			n_gone++;
		}
	if (i < n || n * LINE != b.len) {
		rc = -EBADMSG;          /* what it lost cannot be told */
		goto out;
	}
	if (n_gone)
		forget_gone(ix, bucket, &b, gone, n);
	if (best.id[0])
		snprintf(id, CGFB_REPORT_ID_LEN + 1, "%s", best.id);
	rc = best.id[0] ? 1 : 0;
out:
	free(gone);
	cgfb_buf_free(&b);
	return rc;
}

int cgfb_repindex_find(struct cgfb_repindex *ix, const struct cgfb_report_key *k,
		       char id[CGFB_REPORT_ID_LEN + 1])
{
	char key[KEY_CHARS + 1];
	struct stat st;
	int rc;

	key_name(k, key);
	rc = lookup(ix, k, key, id);
	if (rc != -EBADMSG)
		return rc;
	/* A damaged bucket may have lost a line: made anew from the reports. */
	if (fstat(ix->sp->fd, &st) < 0)
		return -errno;
	rc = rebuild(ix, &st);
	return rc < 0 ? rc : lookup(ix, k, key, id);
}

int cgfb_repindex_add(struct cgfb_repindex *ix, const char *id, const struct cgfb_report_key *k)
{
	struct cgfb_buf b = { 0 };
	char key[65], bucket[BUCKET_CHARS + 1], one[CGFB_REPORT_ID_LEN + 1];
	bool there = false;
	size_t i = 0;
	int rc, mine;

	if (!cgfb_report_id_valid(id))
		return -EINVAL;
	key_name(k, key);
	if (key[0] == '-')
		return -ENOMEM;
	bucket_of(key, bucket);
	rc = read_bucket(ix, bucket, &b);
	if (rc < 0)
		goto out;
	/* A writer killed after this, run again with the same id. */
	for (; !there && (mine = line_at(&b, i, key, one)) >= 0; i++)
		there = mine && strcmp(one, id) == 0;
	if (!there) {
		b.len = i * LINE;       /* a damaged tail goes */
		rc = cgfb_buf_printf(&b, "%s %s\n", key, id);
		if (rc == 0)
			rc = cgfb_atomic_write_at(ix->fd, bucket, b.data, b.len, 0600);
		if (rc < 0)
			goto out;
	}
	snprintf(ix->adding, sizeof(ix->adding), "%s", id);
	rc = write_stamp_at(ix->fd, ix);
out:
	cgfb_buf_free(&b);
	return rc;
}

int cgfb_repindex_seal(struct cgfb_repindex *ix)
{
	char name[64];
	struct stat st;

	if (ix->adding[0]) {
		snprintf(name, sizeof(name), "%s" CGFB_REPORT_SUFFIX, ix->adding);
		if (faccessat(ix->sp->fd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
			ix->count++;
			ix->sum += id_hash(ix->adding);
			ix->adding[0] = '\0';
		}
	}
	if (cgfb_reports_mark(ix->sp, &st) == 0)
		take_dir(ix, &st);
	else
		ix->sec = -1;       /* unmarked: checked by name next time */
	return write_stamp_at(ix->fd, ix);
}

void cgfb_repindex_drop(struct cgfb_repindex *ix, const struct cgfb_statedir *sd)
{
	cgfb_repindex_close(ix);
	remove_tree(sd->fd, INDEX_NEW);
	remove_tree(sd->fd, INDEX_OLD);
	remove_tree(sd->fd, CGFB_REPEAT_INDEX_DIR);
}

void cgfb_repindex_forget(struct cgfb_repindex *ix, const char *id)
{
	ix->count--;
	ix->sum -= id_hash(id);
}

int cgfb_repindex_pending(struct cgfb_repindex *ix, struct cgfb_pending *p)
{
	struct cgfb_buf b = { 0 };
	const char *at;
	int rc, used;

	memset(p, 0, sizeof(*p));
	if (!ix->pending_ok)
		return -ESTALE;
	rc = cgfb_read_file_at(ix->fd, PENDING, 4096, CGFB_RF_REGULAR | CGFB_RF_NOFOLLOW, &b);
	if (rc < 0)
		return rc;
	rc = -EBADMSG;
	if (sscanf(b.data, PENDING_MAGIC " %zu %zu\n%n", &p->count, &p->named, &used) != 2 ||
	    p->named > CGFB_PENDING_NAMED || p->named > p->count)
		goto out;
	at = b.data + used;
	for (size_t i = 0; i < p->named; i++) {
		struct cgfb_pending_one *o = &p->oldest[i];

		if (sscanf(at, "%lld %36s %15s\n%n", &o->created, o->id, o->catalog_id, &used) != 3 ||
		    !cgfb_report_id_valid(o->id))
			goto out;
		at += used;
	}
	p->known = true;
	rc = 0;
out:
	if (rc < 0)
		memset(p, 0, sizeof(*p));
	cgfb_buf_free(&b);
	return rc;
}

static int pending_text(struct cgfb_buf *b, const struct cgfb_pending *p)
{
	int rc = cgfb_buf_printf(b, PENDING_MAGIC " %zu %zu\n", p->count, p->named);

	for (size_t i = 0; rc == 0 && i < p->named; i++)
		rc = cgfb_buf_printf(b, "%lld %s %s\n", p->oldest[i].created, p->oldest[i].id,
				     p->oldest[i].catalog_id[0] ? p->oldest[i].catalog_id : "?");
	return rc;
}

int cgfb_repindex_save_pending(struct cgfb_repindex *ix, const struct cgfb_pending *p)
{
	struct cgfb_buf b = { 0 };
	int rc;

	rc = pending_text(&b, p);
	if (rc == 0)
		rc = cgfb_atomic_write_at(ix->fd, PENDING, b.data, b.len, 0600);
	/* Believed from the seal on: written before it, with reports/ as the
	 * seal will find it. */
	ix->pending_ok = rc == 0;
	cgfb_buf_free(&b);
	return rc;
}

/* reports/'s modification time set to a second ago: whatever changes it
 * after this (a review, a report copied in) stamps the present, which can
 * never be this, however fast it comes (the clock's tick would let a
 * change in the same millisecond pass unseen). The seal's mark, and the
 * pending cache's. */
int cgfb_reports_mark(struct cgfb_spool *sp, struct stat *mark)
{
	struct timespec t[2];

	clock_gettime(CLOCK_REALTIME, &t[1]);
	t[1].tv_sec--;
	t[0].tv_nsec = UTIME_OMIT;
	t[0].tv_sec = 0;
	if (futimens(sp->fd, t) < 0 || fstat(sp->fd, mark) < 0)
		return -errno;
	return 0;
}

int cgfb_pending_cache_save(const struct cgfb_statedir *sd, const struct stat *mark,
			    const struct cgfb_pending *p)
{
	struct cgfb_buf b = { 0 };
	int rc;

	rc = cgfb_buf_printf(&b, PENDING_CACHE_MAGIC " %ju %ju %lld %lld\n",
			     (uintmax_t)mark->st_dev, (uintmax_t)mark->st_ino,
			     (long long)mark->st_mtim.tv_sec, (long long)mark->st_mtim.tv_nsec);
	if (rc == 0)
		rc = pending_text(&b, p);
	/* 0644, as the banner it says the same as: whichever user the
	 * report writer runs as reads it. */
	if (rc == 0)
		rc = cgfb_atomic_write_at(sd->fd, CGFB_PENDING_CACHE, b.data, b.len, 0644);
	cgfb_buf_free(&b);
	return rc;
}

