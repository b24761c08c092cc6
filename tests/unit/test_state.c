#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgfb/atomic.h"
#include "base/bootid.h"
#include "watch/state.h"

static char dir[64];
static struct cgfb_statedir sd = { .fd = -1 };

static int mkdir_tmp(void **state)
{
	char err[256];

	snprintf(dir, sizeof(dir), "/tmp/cgfb-state.XXXXXX");
	return mkdtemp(dir) && cgfb_statedir_open(&sd, dir, 0, err, sizeof(err)) == 0 ? 0 : -1;
}

static int rm_tmp(void **state)
{
	char cmd[128];

	cgfb_statedir_close(&sd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void slurp(const char *path, char *buf, size_t sz)
{
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sz - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static void round_trip(void **state)
{
	struct cgfb_state a = { 0 }, b;
	char path[128];
	struct stat st;

	snprintf(a.boot_id, sizeof(a.boot_id), "0f4e5b6a-1111-2222-3333-444455556666");
	a.has_pos = true;
	a.pos = 18446744073709551000ull;
	a.lost = 7;
	assert_int_equal(cgfb_state_set_count(&a, "M8", 1), 0);
	assert_int_equal(cgfb_state_set_count(&a, "M4", 3), 0);
	assert_int_equal(cgfb_state_set_count(&a, "M4", 4), 0);
	assert_int_equal(cgfb_state_save(sd.fd, &a), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, CGFB_STATE_FILE);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(cgfb_state_load(sd.fd, &b), 0);
	assert_string_equal(b.boot_id, a.boot_id);
	assert_true(b.has_pos);
	assert_true(b.pos == a.pos);
	assert_int_equal(b.lost, 7);
	assert_int_equal(cgfb_state_count(&b, "M8"), 1);
	assert_int_equal(cgfb_state_count(&b, "M4"), 4);
	assert_int_equal(cgfb_state_count(&b, "S1"), 0);
	assert_false(b.has_handoff);
}

/* A report being written survives a restart with its id and record. */
static void handoff_round_trip(void **state)
{
	struct cgfb_state a = { 0 }, b;

	snprintf(a.boot_id, sizeof(a.boot_id), "0f4e5b6a-1111-2222-3333-444455556666");
	a.has_pos = true;
	a.pos = 41;
	a.has_handoff = true;
	a.handoff_pos = 41;
	snprintf(a.handoff_entry, sizeof(a.handoff_entry), "M8");
	snprintf(a.handoff_id, sizeof(a.handoff_id), "0b0e0000-1111-4222-8333-000000000042");
	assert_int_equal(cgfb_state_save(sd.fd, &a), 0);
	assert_int_equal(cgfb_state_load(sd.fd, &b), 0);
	assert_true(b.has_handoff);
	assert_true(b.handoff_pos == 41);
	assert_string_equal(b.handoff_entry, "M8");
	assert_string_equal(b.handoff_id, a.handoff_id);
}

static void missing_and_corrupt(void **state)
{
	struct cgfb_state s;
	char path[128], bad[160], buf[64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, CGFB_STATE_FILE);
	unlink(path);
	assert_int_equal(cgfb_state_load(sd.fd, &s), 0);
	assert_false(s.has_pos);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"boot_id\": \"x\", \"next\": \"not a number\"", f);
	fclose(f);
	assert_int_equal(cgfb_state_load(sd.fd, &s), -EBADMSG);
	assert_false(s.has_pos);
	/* Moved aside, not deleted: the evidence is kept. */
	assert_int_equal(access(path, F_OK), -1);
	snprintf(bad, sizeof(bad), "%s.corrupt", path);
	slurp(bad, buf, sizeof(buf));
	assert_non_null(strstr(buf, "not a number"));
}

static void boot_id(void **state)
{
	char path[128], id[40];
	FILE *f;

	snprintf(path, sizeof(path), "%s/boot_id", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("5f3c0000-aaaa-bbbb-cccc-000000000001\n", f);
	fclose(f);
	assert_int_equal(cgfb_read_boot_id(path, id, sizeof(id)), 0);
	assert_string_equal(id, "5f3c0000-aaaa-bbbb-cccc-000000000001");
	assert_int_equal(cgfb_read_boot_id("/nonexistent", id, sizeof(id)), -ENOENT);
}

/* A real full file system: a 64 KiB tmpfs (needs root; skipped otherwise).
 * The write must fail with ENOSPC, leave the old file intact and leave no
 * temporary file behind. */
static void full_disk(void **state)
{
	char mnt[96], path[160], buf[64], big[8192];
	int rc;

	snprintf(mnt, sizeof(mnt), "%s/full", dir);
	assert_int_equal(mkdir(mnt, 0700), 0);
	if (mount("tmpfs", mnt, "tmpfs", 0, "size=64k") < 0) {
		rmdir(mnt);
		skip();
	}
	assert_int_equal(cgfb_atomic_write(mnt, "state", "old", 3, 0600), 0);
	memset(big, 'x', sizeof(big));
	/* Fill the file system up with a file of its own. */
	snprintf(path, sizeof(path), "%s/filler", mnt);
	int fd = open(path, O_WRONLY | O_CREAT, 0600);

	assert_true(fd >= 0);
	while (write(fd, big, sizeof(big)) > 0)
		;
	close(fd);
	rc = cgfb_atomic_write(mnt, "state", big, sizeof(big), 0600);
	assert_int_equal(rc, -ENOSPC);
	snprintf(path, sizeof(path), "%s/state", mnt);
	slurp(path, buf, sizeof(buf));
	assert_string_equal(buf, "old");
	snprintf(path, sizeof(path), "ls -A '%s' | grep -q '^\\.state\\.tmp\\.'", mnt);
	assert_int_not_equal(system(path), 0);      /* no temporary left */
	umount(mnt);
	rmdir(mnt);
}

/* Root writing into a directory the service user owns leaves files and
 * directories that user can read (needs root; skipped otherwise). */
static void files_belong_to_the_dir_owner(void **state)
{
	char sub[96], nested[128], path[160];
	struct stat st;

	if (geteuid() != 0)
		skip();
	snprintf(sub, sizeof(sub), "%s/owned", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	assert_int_equal(chown(sub, 65534, 65534), 0);
	assert_int_equal(cgfb_atomic_write(sub, "f", "x", 1, 0600), 0);
	snprintf(path, sizeof(path), "%s/f", sub);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_uid, 65534);
	assert_int_equal(st.st_gid, 65534);
	snprintf(nested, sizeof(nested), "%s/reports", sub);
	assert_int_equal(cgfb_mkdir_p(nested, 0700), 0);
	assert_int_equal(stat(nested, &st), 0);
	assert_int_equal(st.st_uid, 65534);
	/* In a root-owned directory, files stay root's. */
	assert_int_equal(cgfb_atomic_write(dir, "g", "x", 1, 0600), 0);
	snprintf(path, sizeof(path), "%s/g", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_uid, 0);
}

static void mkdir_p(void **state)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "%s/a/b/c", dir);
	assert_int_equal(cgfb_mkdir_p(path, 0700), 0);
	assert_int_equal(cgfb_mkdir_p(path, 0700), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
}

/* A FIFO planted at the temporary name the writer used to pick
 * (".NAME.tmp.PID") hung it in open(2) forever; names are now random and
 * made O_EXCL. alarm: a hang fails the test instead of the suite. */
static void fifo_at_a_temporary_name(void **state)
{
	char path[160], buf[16], tmp[NAME_MAX + 1], tmp2[NAME_MAX + 1];
	int fd, fd2;

	snprintf(path, sizeof(path), "%s/.planted.tmp.%ld", dir, (long)getpid());
	assert_int_equal(mkfifo(path, 0666), 0);
	alarm(10);
	assert_int_equal(cgfb_atomic_write(dir, "planted", "new", 3, 0600), 0);
	alarm(0);
	snprintf(path, sizeof(path), "%s/planted", dir);
	slurp(path, buf, sizeof(buf));
	assert_string_equal(buf, "new");
	/* Two temporaries of one name differ, and keep the infix the spool
	 * sweeps a killed writer's leftovers by. */
	fd = cgfb_create_tmp_at(sd.fd, "n", 0600, tmp, sizeof(tmp));
	fd2 = cgfb_create_tmp_at(sd.fd, "n", 0600, tmp2, sizeof(tmp2));
	assert_true(fd >= 0 && fd2 >= 0);
	assert_string_not_equal(tmp, tmp2);
	assert_int_equal(strncmp(tmp, ".n" CGFB_TMP_INFIX, 7), 0);
	assert_int_equal(strlen(tmp), 7 + 16);
	close(fd);
	close(fd2);
	/* An existing name is never opened: not a file, not a FIFO. */
	assert_int_equal(cgfb_create_at(sd.fd, tmp, 0600), -EEXIST);
	snprintf(path, sizeof(path), "%s/.planted.tmp.%ld", dir, (long)getpid());
	assert_int_equal(cgfb_create_at(AT_FDCWD, path, 0600), -EEXIST);
}

/* The walk to a directory root makes or writes in follows no link another
 * user could have planted: one in a directory of theirs gives -ELOOP and
 * nothing is made where it points; one root made in a directory only root
 * writes is followed (/var/run -> /run); the directory itself is never a
 * link. What is made in another user's directory is theirs, with the mode
 * asked whatever the umask. Needs root for the owners. */
static void walk_refuses_planted_links(void **state)
{
	char theirs[96], target[96], link[128], path[160];
	struct stat st;
	mode_t old;
	int fd;

	if (geteuid() != 0)
		skip();
	snprintf(theirs, sizeof(theirs), "%s/theirs", dir);
	snprintf(target, sizeof(target), "%s/target", dir);
	assert_int_equal(mkdir(theirs, 0755), 0);
	assert_int_equal(chown(theirs, 65534, 65534), 0);
	assert_int_equal(mkdir(target, 0700), 0);
	snprintf(link, sizeof(link), "%s/l", theirs);
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(lchown(link, 65534, 65534), 0);
	snprintf(path, sizeof(path), "%s/sub", link);
	assert_int_equal(cgfb_mkdir_p(path, 0700), -ELOOP);
	snprintf(path, sizeof(path), "%s/sub", target);
	assert_int_equal(access(path, F_OK), -1);
	/* root's link in root's directory: followed. */
	snprintf(link, sizeof(link), "%s/rootlink", dir);
	assert_int_equal(symlink(target, link), 0);
	snprintf(path, sizeof(path), "%s/sub", link);
	fd = cgfb_open_dir_path(path, 0700, CGFB_DIR_CREATE);
	assert_true(fd >= 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/sub", target);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(cgfb_open_dir_path(link, 0700, 0), -ELOOP);
	/* Made in another user's directory: theirs, 0750 under umask 077. */
	snprintf(path, sizeof(path), "%s/made/deeper", theirs);
	old = umask(077);
	fd = cgfb_open_dir_path(path, 0750, CGFB_DIR_CREATE);
	umask(old);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	close(fd);
	assert_int_equal(st.st_uid, 65534);
	assert_int_equal(st.st_mode & 07777, 0750);
	snprintf(path, sizeof(path), "%s/made", theirs);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_uid, 65534);
	assert_int_equal(st.st_mode & 07777, 0755);
	/* cgfb_dir_shared: theirs is, root's 0700 is not, a sticky 1777 is not. */
	fd = open(theirs, O_RDONLY | O_DIRECTORY);
	assert_int_equal(cgfb_dir_shared(fd), 1);
	close(fd);
	assert_int_equal(cgfb_dir_shared(sd.fd), 0);
	assert_int_equal(chmod(target, 0775), 0);
	fd = open(target, O_RDONLY | O_DIRECTORY);
	assert_int_equal(cgfb_dir_shared(fd), 1);
	assert_int_equal(fchmod(fd, 01777), 0);
	assert_int_equal(cgfb_dir_shared(fd), 0);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(handoff_round_trip),
		cmocka_unit_test(missing_and_corrupt),
		cmocka_unit_test(boot_id),
		cmocka_unit_test(full_disk),
		cmocka_unit_test(mkdir_p),
		cmocka_unit_test(files_belong_to_the_dir_owner),
		cmocka_unit_test(fifo_at_a_temporary_name),
		cmocka_unit_test(walk_refuses_planted_links),
	};

	return cmocka_run_group_tests_name("state", tests, mkdir_tmp, rm_tmp);
}
