/* The live kernel log's reader (log/klog.c) going back to the oldest
 * record on its open descriptor, and the watcher giving up CAP_SYSLOG
 * (watch/privilege.c): a held record is read again without opening
 * /dev/kmsg again, which the privilege given up would be needed for. */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log/klog.h"
#include "watch/privilege.h"

#define CAP_SYSLOG_BIT 34

static uint64_t next_seq(struct cgfb_klog *k)
{
	struct cgfb_record r;

	assert_int_equal(cgfb_klog_next(k, &r), 1);
	assert_true(r.has_seq);
	return r.seq;
}

/* A file of kmsg records, as tests and saved logs give: back to its start,
 * the records again, and no gap counted for the jump back. */
static void rewinds_a_file(void **state)
{
	char path[] = "/tmp/cgfb-klog.XXXXXX", err[256];
	struct cgfb_klog k;
	const int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	assert_non_null(f);
	fputs("6,10,100,-;first\n6,11,200,-;second\n6,12,300,-;third\n", f);
	fclose(f);
	assert_int_equal(cgfb_klog_open(&k, path, err, sizeof(err)), 0);
	assert_true(k.settled);
	assert_int_equal(next_seq(&k), 10);
	assert_int_equal(next_seq(&k), 11);
	assert_int_equal(next_seq(&k), 12);
	assert_int_equal(cgfb_klog_rewind(&k), 0);
	assert_int_equal(next_seq(&k), 10);
	assert_int_equal(next_seq(&k), 11);
	assert_int_equal(k.lost, 0);
	cgfb_klog_close(&k);
	unlink(path);
}

/* A file whose sequence numbers repeat or go back (the kernel's never
 * do): passed on and counted; a line longer than the buffer is skipped
 * whole, its tail no record even when it looks like one. A regular file
 * is a recording: the numbers it skips are records it does not hold, not
 * records a ring buffer lost (a FIFO's are: a_fifo_says_espipe). */
static void odd_files(void **state)
{
	char path[] = "/tmp/cgfb-klog.XXXXXX", err[256];
	struct cgfb_klog k;
	struct cgfb_record r;
	const int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	assert_non_null(f);
	fputs("6,10,100,-;first\n6,11,200,-;second\n6,11,200,-;again\n6,9,90,-;back\n"
	      "6,14,400,-;after a gap of two\n", f);
	for (int i = 0; i < (64 << 10); i++)
		fputc('A', f);
	fputs("4,15,500,-;FORGED in the tail of an overlong line\n6,16,600,-;last\n", f);
	fclose(f);
	assert_int_equal(cgfb_klog_open(&k, path, err, sizeof(err)), 0);
	assert_false(k.live);
	assert_int_equal(next_seq(&k), 10);
	assert_int_equal(next_seq(&k), 11);
	assert_int_equal(next_seq(&k), 11);
	assert_int_equal(next_seq(&k), 9);
	assert_int_equal(k.backwards, 2);
	assert_int_equal(next_seq(&k), 14);
	assert_int_equal(k.lost, 0);             /* 12 and 13 are not in it */
	assert_int_equal(cgfb_klog_next(&k, &r), 1);
	assert_int_equal(r.seq, 16);
	assert_int_equal(k.overlong, 1);
	assert_int_equal(k.lost, 0);             /* nor 15: what looked like it was no record */
	cgfb_klog_close(&k);
	unlink(path);
}

/* A FIFO stands for the live log (tests, a relay): a gap in its sequence
 * numbers is records the ring lost, counted from the last new one. It
 * cannot go back: the caller is told so, and opens it again. */
static void a_fifo_says_espipe(void **state)
{
	char dir[] = "/tmp/cgfb-klog.XXXXXX", path[64], err[256];
	struct cgfb_klog k;
	int w;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	w = open(path, O_RDWR);
	assert_true(w >= 0);
	assert_int_equal(cgfb_klog_open(&k, path, err, sizeof(err)), 0);
	assert_true(k.live);
	assert_int_equal(write(w, "6,10,100,-;first\n6,11,200,-;again\n6,14,400,-;after a gap of two\n", 64),
			 64);
	assert_int_equal(next_seq(&k), 10);
	assert_int_equal(next_seq(&k), 11);
	assert_int_equal(next_seq(&k), 14);
	assert_int_equal(k.lost, 2);             /* 12 and 13 */
	assert_int_equal(cgfb_klog_rewind(&k), -ESPIPE);
	cgfb_klog_close(&k);
	close(w);
	unlink(path);
	rmdir(dir);
}

/* /dev/kmsg itself: after some records, lseek goes back to the oldest one
 * the ring still holds. Other work may log meanwhile and push the oldest
 * on, so the check is that the reader went back, not to which record. */
static void rewinds_dev_kmsg(void **state)
{
	struct cgfb_klog k;
	uint64_t first, last = 0, again;
	char err[256];

	if (cgfb_klog_open(&k, "/dev/kmsg", err, sizeof(err)) < 0 || !k.device) {
		cgfb_klog_close(&k);
		skip();   /* no readable /dev/kmsg here (not root, or a container) */
	}
	first = next_seq(&k);
	assert_true(k.settled);
	for (int i = 0; i < 3; i++) {
		struct cgfb_record r;

		if (cgfb_klog_next(&k, &r) == 1)
			last = r.seq;
	}
	assert_int_equal(cgfb_klog_rewind(&k), 0);
	again = next_seq(&k);
	assert_true(again <= (last ? last : first));
	cgfb_klog_close(&k);
}

/* A bit of a capability set in /proc/self/status ("CapEff:\t..."). */
static int cap_bit(const char *set, int bit)
{
	char line[256];
	unsigned long long v = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, set, strlen(set)) == 0)
			v = strtoull(line + strlen(set) + 1, NULL, 16);
	fclose(f);
	return (int)((v >> bit) & 1);
}

/* In a child (the test runner keeps its own): every set loses CAP_SYSLOG,
 * the bounding set too when the process may change it (as root here). */
static void drops_cap_syslog(void **state)
{
	int status;
	const pid_t pid = fork();

	if (pid == 0) {
		if (cgfb_drop_syslog() < 0)
			_exit(10);
		if (cap_bit("CapEff:", CAP_SYSLOG_BIT) != 0 || cap_bit("CapPrm:", CAP_SYSLOG_BIT) != 0 ||
		    cap_bit("CapInh:", CAP_SYSLOG_BIT) != 0 || cap_bit("CapAmb:", CAP_SYSLOG_BIT) != 0)
			_exit(11);
		if (geteuid() == 0 && cap_bit("CapBnd:", CAP_SYSLOG_BIT) != 0)
			_exit(12);
		_exit(0);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rewinds_a_file),
		cmocka_unit_test(odd_files),
		cmocka_unit_test(a_fifo_says_espipe),
		cmocka_unit_test(rewinds_dev_kmsg),
		cmocka_unit_test(drops_cap_syslog),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
