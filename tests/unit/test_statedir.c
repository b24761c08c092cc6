/* The state directory's owner (base/statedir.c) and what goes through its
 * descriptor (the spool, watch.state, the secret, silenced), on real
 * directories in a scratch directory. */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/statedir.h"
#include "consent/notify.h"
#include "privacy/secret.h"
#include "report/repindex.h"
#include "report/spool.h"
#include "watch/state.h"

static char dir[] = "/tmp/cgfb-statedir.XXXXXX";

static int setup(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void path_in(char *buf, size_t sz, const char *name)
{
	snprintf(buf, sz, "%s/%s", dir, name);
}

static void created_private(void **state)
{
	struct cgfb_statedir sd;
	char p[PATH_MAX], err[256];
	struct stat st;

	path_in(p, sizeof(p), "new/state");
	assert_int_equal(cgfb_statedir_open(&sd, p, 0, err, sizeof(err)), -ENOENT);
	assert_int_equal(sd.fd, -1);
	assert_int_equal(access(p, F_OK), -1);     /* nothing made without CREATE */
	assert_int_equal(cgfb_statedir_open(&sd, p, CGFB_SD_CREATE, err, sizeof(err)), 0);
	assert_true(sd.fd >= 0);
	assert_string_equal(sd.path, p);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	cgfb_statedir_close(&sd);
	assert_int_equal(sd.fd, -1);
	cgfb_statedir_close(&sd);                 /* twice is harmless */
}

static void refused_with_reason(void **state)
{
	struct cgfb_statedir sd;
	char p[PATH_MAX], link[PATH_MAX], err[256];
	int fd;

	path_in(p, sizeof(p), "shared");
	assert_int_equal(mkdir(p, 0700), 0);
	assert_int_equal(chmod(p, 0770), 0);
	assert_int_equal(cgfb_statedir_open(&sd, p, CGFB_SD_CREATE, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "writable by its group (mode 0770)"));
	assert_int_equal(chmod(p, 01777), 0);
	assert_int_equal(cgfb_statedir_open(&sd, p, 0, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "writable by everyone (mode 1777)"));
	assert_int_equal(chmod(p, 0755), 0);
	assert_int_equal(cgfb_statedir_open(&sd, p, 0, err, sizeof(err)), 0);
	cgfb_statedir_close(&sd);

	/* A link where the directory should be is not followed, even to a
	 * good directory: its target can change between two opens. */
	path_in(link, sizeof(link), "link");
	assert_int_equal(symlink(p, link), 0);
	assert_int_equal(cgfb_statedir_open(&sd, link, CGFB_SD_CREATE, err, sizeof(err)), -ELOOP);
	assert_non_null(strstr(err, "symbolic link"));

	path_in(p, sizeof(p), "file");
	fd = open(p, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(cgfb_statedir_open(&sd, p, CGFB_SD_CREATE, err, sizeof(err)), -ENOTDIR);
	assert_string_equal(err, "not a directory");
}

/* Someone else's directory: refused to a user, whatever its mode, and to
 * root unless it is the service user's. Needs root to make the owners. */
static void owner(void **state)
{
	struct cgfb_statedir sd;
	char p[PATH_MAX], err[256];
	int status;
	pid_t pid;

	if (geteuid() != 0)
		skip();
	path_in(p, sizeof(p), "theirs");
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(chown(p, 65534, 65534), 0);
	assert_int_equal(cgfb_statedir_open(&sd, p, 0, err, sizeof(err)), -EACCES);
	assert_non_null(strstr(err, "belongs to uid 65534, neither root nor the service user"));
	if (getpwnam(CGFB_SERVICE_USER)) {
		assert_int_equal(chown(p, getpwnam(CGFB_SERVICE_USER)->pw_uid, 0), 0);
		assert_int_equal(cgfb_statedir_open(&sd, p, 0, err, sizeof(err)), 0);
		cgfb_statedir_close(&sd);
	}
	assert_int_equal(chown(p, 0, 0), 0);
	assert_int_equal(chmod(dir, 0711), 0);     /* the way in is not what is tested */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		const int ok = setresuid(65534, 65534, 65534) == 0 &&
			       cgfb_statedir_open(&sd, p, 0, err, sizeof(err)) == -EACCES &&
			       strstr(err, "belongs to uid 0, not to you (uid 65534)");

		_exit(ok ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(chmod(dir, 0700), 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Fd first, path second: once open, the directory that was checked is the
 * one written, even when its path is moved and replaced by a link to
 * somewhere else. Every writer of the state directory is tried. */
static void swapped_after_open(void **state)
{
	struct cgfb_statedir sd;
	struct cgfb_spool sp;
	struct cgfb_state st = { 0 };
	struct cgfb_spool_entry *v;
	uint8_t key[CGFB_SECRET_LEN];
	char p[PATH_MAX], moved[PATH_MAX], decoy[PATH_MAX], f[PATH_MAX + 64], err[256];
	static const char id[] = "4f0c9a55-0000-4000-8000-0000000000aa";
	size_t n;

	path_in(p, sizeof(p), "swap");
	path_in(moved, sizeof(moved), "swap.moved");
	path_in(decoy, sizeof(decoy), "decoy");
	assert_int_equal(mkdir(decoy, 0700), 0);
	assert_int_equal(cgfb_statedir_open(&sd, p, CGFB_SD_CREATE, err, sizeof(err)), 0);
	assert_int_equal(rename(p, moved), 0);
	assert_int_equal(symlink(decoy, p), 0);

	snprintf(st.boot_id, sizeof(st.boot_id), "b");
	assert_int_equal(cgfb_state_save(sd.fd, &st), 0);
	assert_int_equal(cgfb_secret_load(&sd, key, err, sizeof(err)), 0);
	assert_int_equal(cgfb_silence_add(&sd, "M8"), 0);
	assert_int_equal(cgfb_spool_open(&sp, &sd), 0);
	assert_int_equal(cgfb_spool_save_report(&sp, id, S("{}")), 0);
	/* What the spool cannot read goes to quarantine/, also in place: this
	 * report (not one the watcher writes), its draft and a stray file. */
	assert_int_equal(cgfb_spool_save_draft(&sp, id, S("x")), 0);
	snprintf(f, sizeof(f), "%s/reports/stray", moved);
	assert_int_equal(close(open(f, O_WRONLY | O_CREAT, 0600)), 0);
	assert_int_equal(cgfb_spool_list(&sp, &v, &n), 0);
	free(v);
	cgfb_spool_close(&sp);

	for (const char *const *name = (const char *const[]){ CGFB_STATE_FILE, CGFB_SECRET_FILE,
			CGFB_SILENCED_FILE, "reports/quarantine/4f0c9a55-0000-4000-8000-0000000000aa.json",
			"reports/quarantine/4f0c9a55-0000-4000-8000-0000000000aa.draft",
			"reports/quarantine/stray", NULL }; *name; name++) {
		snprintf(f, sizeof(f), "%s/%s", moved, *name);
		if (access(f, F_OK) != 0)
			fail_msg("%s is not in the directory that was opened", *name);
	}
	snprintf(f, sizeof(f), "rmdir %s", decoy);   /* fails unless still empty */
	assert_int_equal(system(f), 0);
	cgfb_statedir_close(&sd);
}

/* Commands on reports create nothing: a state directory without reports/
 * is an empty spool, whose reads find nothing and whose writes fail. */
static void existing_spool(void **state)
{
	struct cgfb_statedir sd;
	struct cgfb_spool sp;
	struct cgfb_spool_entry e, *v = NULL;
	char p[PATH_MAX], r[PATH_MAX + 16], err[256];
	size_t n = 1;

	path_in(p, sizeof(p), "fresh");
	assert_int_equal(cgfb_statedir_open(&sd, p, CGFB_SD_CREATE, err, sizeof(err)), 0);
	assert_int_equal(cgfb_spool_open_existing(&sp, &sd), 0);
	assert_int_equal(sp.fd, -1);
	assert_int_equal(cgfb_spool_list(&sp, &v, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(cgfb_spool_load(&sp, "4f0c9a55-0000-4000-8000-0000000000bb", &e, NULL),
			 -ENOENT);
	assert_int_equal(cgfb_spool_save_draft(&sp, "4f0c9a55-0000-4000-8000-0000000000bb",
					       S("x")), -ENOENT);
	snprintf(r, sizeof(r), "%s/reports", p);
	assert_int_equal(access(r, F_OK), -1);
	assert_string_equal(sp.dir, r);
	cgfb_spool_close(&sp);
	cgfb_statedir_close(&sd);
}

/* Root's first run in the service user's directory (sudo cgroup-feedback
 * snapshot before the watcher's first report): every file and directory
 * it makes is the directory owner's, and that user (here 65534, standing
 * for the service user: root's own check of the owner is not what is
 * tested, so the directory is opened as the programs' descriptor is) then
 * reads the secret and writes its own report. Needs root. */
#define KEYED "{\"detection\":{\"catalog_id\":\"M8\",\"fields\":{}}," \
	"\"system\":{\"kernel\":{\"series\":\"6.1\"}}}"
static void root_first_run(void **state)
{
	struct cgfb_statedir sd = { .fd = -1 };
	struct cgfb_state st = { 0 };
	struct cgfb_seen seen = { .boots = 1 };
	struct cgfb_spool sp;
	struct cgfb_repindex ix;
	struct cgfb_spool_entry *v;
	uint8_t key[CGFB_SECRET_LEN];
	char p[256], cmd[1024], err[256];
	static const char id[] = "4f0c9a55-0000-4000-8000-0000000000cc";
	int status;
	size_t n;
	pid_t pid;

	if (geteuid() != 0)
		skip();
	path_in(p, sizeof(p), "service");
	assert_int_equal(mkdir(p, 0700), 0);
	assert_int_equal(chown(p, 65534, 65534), 0);
	assert_int_equal(chmod(dir, 0711), 0);     /* the way in is not what is tested */
	sd.fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(sd.fd >= 0);
	snprintf(sd.path, sizeof(sd.path), "%s", p);

	snprintf(st.boot_id, sizeof(st.boot_id), "b");
	assert_int_equal(cgfb_state_save(sd.fd, &st), 0);
	assert_int_equal(cgfb_secret_load(&sd, key, err, sizeof(err)), 0);
	assert_int_equal(cgfb_silence_add(&sd, "M8"), 0);
	assert_int_equal(cgfb_spool_open(&sp, &sd), 0);
	assert_int_equal(cgfb_spool_save_report(&sp, id, S(KEYED)), 0);
	assert_int_equal(cgfb_spool_save_draft(&sp, id, S("x")), 0);
	assert_int_equal(cgfb_spool_save_seen(&sp, id, &seen), 0);
	snprintf(cmd, sizeof(cmd), "%s/reports/stray", p);
	assert_int_equal(close(open(cmd, O_WRONLY | O_CREAT, 0600)), 0);
	assert_int_equal(chown(cmd, 65534, 65534), 0);
	assert_int_equal(cgfb_spool_list(&sp, &v, &n), 0);  /* quarantine/ made */
	free(v);
	assert_int_equal(cgfb_repindex_open(&ix, &sd, &sp), 0);   /* repeat-index/ made */
	cgfb_repindex_close(&ix);
	cgfb_spool_close(&sp);
	snprintf(cmd, sizeof(cmd), "test -d %s/reports/quarantine && test -d %s/repeat-index && "
		 "test -z \"$(find %s ! -user 65534)\"", p, p, p);
	if (system(cmd) != 0) {
		snprintf(cmd, sizeof(cmd), "find %s ! -user 65534 -ls >&2", p);
		(void)!system(cmd);
		fail_msg("root left files the directory's owner does not own (above)");
	}

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct cgfb_spool sp2;
		struct cgfb_repindex ix2;
		const int ok = setgroups(0, NULL) == 0 && setresgid(65534, 65534, 65534) == 0 &&
			       setresuid(65534, 65534, 65534) == 0 &&
			       cgfb_secret_load(&sd, key, err, sizeof(err)) == 0 &&
			       cgfb_spool_open(&sp2, &sd) == 0 &&
			       cgfb_repindex_open(&ix2, &sd, &sp2) == 0 &&
			       cgfb_spool_save_report(&sp2, "4f0c9a55-0000-4000-8000-0000000000dd",
						      S("{}")) == 0 &&
			       cgfb_state_save(sd.fd, &st) == 0;

		if (!ok)
			fprintf(stderr, "as the owner: %s (%s)\n", err, strerror(errno));
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(chmod(dir, 0700), 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	cgfb_statedir_close(&sd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(created_private),
		cmocka_unit_test(refused_with_reason),
		cmocka_unit_test(owner),
		cmocka_unit_test(swapped_after_open),
		cmocka_unit_test(existing_spool),
		cmocka_unit_test(root_first_run),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
