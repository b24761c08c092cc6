/* The small pieces of lib/ both sides share: the file reader, write_all,
 * path joining, the report id, SHA-256, the pasteable hints. */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgfb/atomic.h"
#include "base/hint.h"
#include "base/path.h"
#include "cgfb/readfile.h"
#include "cgfb/report_id.h"
#include "cgfb/sha256.h"
#include "cgfb/wire.h"

static char dir[] = "/tmp/cgfb-lib.XXXXXX";

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

static void put(const char *name, const char *text)
{
	char p[PATH_MAX];
	FILE *f;

	assert_int_equal(cgfb_path_join(p, sizeof(p), dir, name, NULL), 0);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void reads_files(void **state)
{
	struct cgfb_buf b = { 0 };
	char p[PATH_MAX], l[PATH_MAX];

	put("a", "hello\n");
	cgfb_path_join(p, sizeof(p), dir, "a", NULL);
	assert_int_equal(cgfb_read_file(p, 100, 0, &b), 0);
	assert_string_equal(b.data, "hello\n");
	/* Appending keeps what was there; replacing does not. */
	assert_int_equal(cgfb_read_file(p, 100, CGFB_RF_APPEND, &b), 0);
	assert_string_equal(b.data, "hello\nhello\n");
	put("empty", "");
	cgfb_path_join(p, sizeof(p), dir, "empty", NULL);
	assert_int_equal(cgfb_read_file(p, 100, 0, &b), 0);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.data, "");
	/* /proc says 0 bytes and has more. */
	assert_int_equal(cgfb_read_file("/proc/self/status", 1 << 20, 0, &b), 0);
	assert_non_null(strstr(b.data, "Name:"));
	/* Over the limit: -EFBIG, and b as it was (empty here). */
	cgfb_path_join(p, sizeof(p), dir, "a", NULL);
	assert_int_equal(cgfb_read_file(p, 3, 0, &b), -EFBIG);
	assert_int_equal(b.len, 0);
	cgfb_path_join(p, sizeof(p), dir, "missing", NULL);
	assert_int_equal(cgfb_read_file(p, 100, 0, &b), -ENOENT);
	/* The spool's flags: no link, no FIFO. */
	cgfb_path_join(p, sizeof(p), dir, "a", NULL);
	cgfb_path_join(l, sizeof(l), dir, "link", NULL);
	assert_int_equal(symlink(p, l), 0);
	assert_int_equal(cgfb_read_file(l, 100, CGFB_RF_NOFOLLOW, &b), -ELOOP);
	assert_int_equal(cgfb_read_file(l, 100, 0, &b), 0);
	cgfb_path_join(p, sizeof(p), dir, "fifo", NULL);
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(cgfb_read_file(p, 100, CGFB_RF_REGULAR, &b), -EINVAL);
	/* Without the flag a planted FIFO reads as empty, never blocks. */
	assert_int_equal(cgfb_read_file(p, 100, 0, &b), 0);
	assert_int_equal(b.len, 0);
	cgfb_buf_free(&b);
}

static void writes_all(void **state)
{
	static char big[1 << 20];
	int fds[2];
	pid_t pid;
	int status;

	memset(big, 'x', sizeof(big));
	assert_int_equal(pipe(fds), 0);
	/* A pipe holds 64 KiB: a megabyte takes many short writes. */
	pid = fork();
	if (pid == 0) {
		size_t total = 0;
		ssize_t r;
		char buf[4096];

		close(fds[1]);
		while ((r = read(fds[0], buf, sizeof(buf))) > 0)
			total += (size_t)r;
		_exit(total == sizeof(big) ? 0 : 1);
	}
	close(fds[0]);
	assert_int_equal(cgfb_write_all(fds[1], big, sizeof(big)), 0);
	close(fds[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* A closed reader: -EPIPE, not a crash (SIGPIPE ignored here). */
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(pipe(fds), 0);
	close(fds[0]);
	assert_int_equal(cgfb_write_all(fds[1], "x", 1), -EPIPE);
	close(fds[1]);
}

static void joins_paths(void **state)
{
	char out[16];

	assert_int_equal(cgfb_path_join(out, sizeof(out), "/a/b", "c", ".json"), 0);
	assert_string_equal(out, "/a/b/c.json");
	/* Exactly fits: 15 characters and the NUL. */
	assert_int_equal(cgfb_path_join(out, sizeof(out), "/abcdefghi", "jkl", NULL), 0);
	assert_string_equal(out, "/abcdefghi/jkl");
	assert_int_equal(cgfb_path_join(out, sizeof(out), "/abcdefghi", "jklm", NULL), 0);
	/* One more is refused, and nothing half-built is left. */
	assert_int_equal(cgfb_path_join(out, sizeof(out), "/abcdefghi", "jklmn", NULL),
			 -ENAMETOOLONG);
	assert_string_equal(out, "");
}

static void report_ids(void **state)
{
	assert_true(cgfb_report_id_valid("0b0e0000-1111-4222-8333-444455556666"));
	assert_false(cgfb_report_id_valid("0B0E0000-1111-4222-8333-444455556666"));
	assert_false(cgfb_report_id_valid("0b0e0000-1111-4222-8333-44445555666"));
	assert_false(cgfb_report_id_valid("0b0e0000-1111-4222-8333-4444555566667"));
	assert_false(cgfb_report_id_valid("0b0e0000_1111-4222-8333-444455556666"));
	assert_false(cgfb_report_id_valid("../../etc/shadow-aaaa-bbbb-cccccccccc"));
	assert_false(cgfb_report_id_valid(""));
	assert_int_equal(CGFB_REPORT_MAX_BYTES, 256 * 1024);
	assert_string_equal(CGFB_REPORT_TOO_LARGE, "a report is at most 262144 bytes");
}

/* Flip one bit of the hex digit at position i of id. */
static void flip(char *id, int i, int bit)
{
	static const char hex[] = "0123456789abcdef";
	const int v = id[i] <= '9' ? id[i] - '0' : id[i] - 'a' + 10;

	id[i] = hex[v ^ (1 << bit)];
}

static void bound_report_ids(void **state)
{
	/* sha256("token"); the id as tests/server/genreport.py makes it too. */
	const char *h = "3c469e9d6c5875d37a43f353d4f88e61fcf812c66eee3457465a40b0da4153e0";
	const char *want = "01020304-0506-4708-b976-e6d55064a128";
	const uint8_t nonce[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint8_t back[8], rnd[8];
	char id[CGFB_REPORT_ID_LEN + 1], h2[65];

	assert_int_equal(cgfb_report_id_make(nonce, h, id), 0);
	assert_string_equal(id, want);
	assert_true(cgfb_report_id_valid(id));
	assert_true(cgfb_report_id_bound(id, h));
	assert_int_equal(cgfb_report_id_nonce(id, back), 0);
	assert_memory_equal(back, nonce, 8);
	/* Every bit of the binding matters, the variant's two included. */
	for (int i = 19; i < CGFB_REPORT_ID_LEN; i++) {
		if (id[i] == '-')
			continue;
		for (int bit = 0; bit < 4; bit++) {
			flip(id, i, bit);
			assert_false(cgfb_report_id_bound(id, h));
			flip(id, i, bit);
		}
	}
	/* The nonce is no part of the binding; the version nibble is kept. */
	flip(id, 0, 0);
	assert_true(cgfb_report_id_bound(id, h));
	flip(id, 0, 0);
	flip(id, 14, 0);
	assert_false(cgfb_report_id_bound(id, h));
	flip(id, 14, 0);
	/* Every bit of the hash matters. */
	for (int i = 0; i < 64; i++) {
		snprintf(h2, sizeof(h2), "%s", h);
		flip(h2, i, 0);
		assert_false(cgfb_report_id_bound(id, h2));
	}
	assert_false(cgfb_report_id_bound(id, "3C469E9D6C5875D37A43F353D4F88E61FCF812C66EEE3457465A40B0DA4153E0"));
	assert_false(cgfb_report_id_bound(id, ""));
	assert_false(cgfb_report_id_bound(id, NULL));
	assert_false(cgfb_report_id_bound("0b0e0000-1111-4222-8333-444455556666", h));
	assert_int_equal(cgfb_report_id_make(nonce, "abc", id), -EINVAL);
	assert_int_equal(cgfb_report_id_nonce("../x", back), -EINVAL);
	/* A random nonce comes back as it went in; the id has version 4 and
	 * the RFC 4122 variant whatever the nonce's bits. */
	assert_int_equal(cgfb_report_nonce_random(rnd), 0);
	assert_int_equal(rnd[6] >> 4, 0);
	memset(rnd, 0xff, sizeof(rnd));
	rnd[6] = 0x0f;
	assert_int_equal(cgfb_report_id_make(rnd, h, id), 0);
	assert_int_equal(id[14], '4');
	assert_non_null(strchr("89ab", id[19]));
	assert_int_equal(cgfb_report_id_nonce(id, back), 0);
	assert_memory_equal(back, rnd, 8);
}

static void sha256(void **state)
{
	char hex[65];

	cgfb_sha256_hex("", 0, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	cgfb_sha256_hex("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

/* The state directory only when it is not the default, as one shell word;
 * "sudo " first only when the command line program was run through sudo. */
static void hints(void **state)
{
	char buf[256];

	assert_string_equal(cgfb_hint(buf, sizeof(buf), CGFB_DEFAULT_STATE_DIR, "review %s", "ID"),
			    "cgroup-feedback review ID");
	assert_string_equal(cgfb_hint(buf, sizeof(buf), "/srv/my state", "flush"),
			    "cgroup-feedback --state-dir '/srv/my state' flush");
	cgfb_hint_use_sudo(true);
	assert_string_equal(cgfb_hint(buf, sizeof(buf), NULL, "withdraw %s", "ID"),
			    "sudo cgroup-feedback withdraw ID");
	assert_string_equal(cgfb_hint(buf, sizeof(buf), "/srv/st", "status"),
			    "sudo cgroup-feedback --state-dir /srv/st status");
	/* The banner's and the wall's: sudo once, whoever prints them. */
	assert_string_equal(cgfb_sudo_hint(buf, sizeof(buf), NULL, "review"), "sudo cgroup-feedback review");
	cgfb_hint_use_sudo(false);
	assert_string_equal(cgfb_sudo_hint(buf, sizeof(buf), NULL, "review"), "sudo cgroup-feedback review");
	assert_string_equal(cgfb_hint(buf, sizeof(buf), NULL, "status"), "cgroup-feedback status");
	/* Truncated, still a string. */
	assert_string_equal(cgfb_hint(buf, 8, NULL, "status"), "cgroup-");
}

/* The program as it runs (a build tree's, by path) and the configuration
 * it runs with (absolute), each one shell word, before the state
 * directory; the default configuration is left out as the default state
 * directory is. */
static void hints_program_and_config(void **state)
{
	char buf[512], cwd[256], want[512];

	cgfb_hint_use_program("/src/my tree/build/cgroup-feedback");
	cgfb_hint_use_config("/etc/cgfb/test.conf");
	assert_string_equal(cgfb_hint(buf, sizeof(buf), "/srv/st", "list"),
			    "'/src/my tree/build/cgroup-feedback' --config /etc/cgfb/test.conf "
			    "--state-dir /srv/st list");
	assert_string_equal(cgfb_sudo_hint(buf, sizeof(buf), NULL, "review"),
			    "sudo '/src/my tree/build/cgroup-feedback' --config /etc/cgfb/test.conf "
			    "review");
	cgfb_hint_use_program(NULL);
	cgfb_hint_use_config(CGFB_DEFAULT_CONFIG);
	assert_string_equal(cgfb_hint(buf, sizeof(buf), NULL, "status"), "cgroup-feedback status");
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	cgfb_hint_use_config("it's.conf");
	snprintf(want, sizeof(want), "cgroup-feedback --config '%s/it'\\''s.conf' status", cwd);
	assert_string_equal(cgfb_hint(buf, sizeof(buf), NULL, "status"), want);
	cgfb_hint_use_config(NULL);
	assert_string_equal(cgfb_hint(buf, sizeof(buf), NULL, "status"), "cgroup-feedback status");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_files),
		cmocka_unit_test(writes_all),
		cmocka_unit_test(joins_paths),
		cmocka_unit_test(report_ids),
		cmocka_unit_test(bound_report_ids),
		cmocka_unit_test(sha256),
		cmocka_unit_test(hints),
		cmocka_unit_test(hints_program_and_config),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
