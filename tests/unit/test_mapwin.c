/* A saved log that is a regular file is read through a mapped window
 * (client/log/mapwin.c), the rest through read(2) (a pipe, compressed
 * data): both must give the same detections, line numbers and counts; a
 * file that shrinks under the window (logrotate's copytruncate) must end
 * the scan with an error, not a SIGBUS. */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "detect/scan.h"

#define M8 "Non-hierarchical mode is deprecated. Please report your usecase to " \
	"linux-mm@kvack.org if you depend on this functionality."
#define MIB (1u << 20)

struct seen {
	unsigned long n;
	unsigned long lines[16];
	char ids[16][8];
	int truncate_fd;        /* >= 0: cut the file short at the first detection */
};

static void take(const struct cgfb_detection *d, void *arg)
{
	struct seen *s = arg;

	if (s->n < 16) {
		s->lines[s->n] = d->line;
		snprintf(s->ids[s->n], sizeof(s->ids[0]), "%s", d->entry->id);
	}
	s->n++;
	if (s->truncate_fd >= 0) {
		assert_int_equal(ftruncate(s->truncate_fd, 4096), 0);
		s->truncate_fd = -1;
	}
}

/* A dmesg log of about 7 MiB (enough for the windows to be mapped by a
 * thread of their own, log/mapahead.c): lines of every length, the
 * catalog's M8 on lines that straddle the first window's end (1 MiB) and
 * the second's (5 MiB), one at the very end without a newline; NULs; and
 * one line of 5 MiB, longer than a window, whose needle is near its end. */
static char *make_log(size_t *len, unsigned long *planted)
{
	const size_t cap = 12 * MIB;
	char *log = malloc(cap);
	size_t n = 0;
	unsigned seed = 99;

	assert_non_null(log);
	while (n < 7 * MIB) {
		const size_t before = n;

		if ((n < MIB && n + 300 > MIB) || (n < 5 * MIB && n + 300 > 5 * MIB)) {
			n += (size_t)sprintf(log + n, "[ %7zu.000000] " M8 "\n", n);
			++*planted;
		}
		else if (n > 3 * MIB && n < 3 * MIB + 200) {
			n += (size_t)sprintf(log + n, "[ %7zu.000000] long: ", n);
			memset(log + n, 'x', 5 * MIB);
			n += 5 * MIB;
			n += (size_t)sprintf(log + n, " " M8 "\n");
		} else {
			n += (size_t)sprintf(log + n, "[ %7zu.000000] eth0: link up %u", n,
					     (unsigned)rand_r(&seed));
			for (unsigned k = (unsigned)rand_r(&seed) % 120; k; k--)
				log[n++] = (char)('a' + rand_r(&seed) % 26);
			if (rand_r(&seed) % 1000 == 0)
				log[n++] = '\0';
			log[n++] = '\n';
		}
		assert_true(n > before);
	}
	n += (size_t)sprintf(log + n, "[ 9999.000000] " M8);
	++*planted;
	*len = n;
	return log;
}

static int file_of(const char *log, size_t len)
{
	char path[] = "/tmp/cgfb-mapwin.XXXXXX";
	const int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(write(fd, log, len), (ssize_t)len);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

/* The read end of a pipe a child fills with log. */
static int pipe_of(const char *log, size_t len, pid_t *child)
{
	int p[2];

	assert_int_equal(pipe(p), 0);
	*child = fork();
	assert_true(*child >= 0);
	if (*child == 0) {
		size_t off = 0;

		close(p[0]);
		while (off < len) {
			const ssize_t w = write(p[1], log + off, len - off);

			if (w <= 0)
				_exit(1);
			off += (size_t)w;
		}
		_exit(0);
	}
	close(p[1]);
	return p[0];
}

static void same_stats(const struct cgfb_scan_stats *a, const struct cgfb_scan_stats *b)
{
	assert_int_equal(a->fmt, b->fmt);
	assert_int_equal(a->lines, b->lines);
	assert_int_equal(a->detections, b->detections);
	assert_int_equal(a->long_lines, b->long_lines);
	assert_int_equal(a->bytes, b->bytes);
	assert_int_equal(a->nul_bytes, b->nul_bytes);
	assert_int_equal(a->malformed, b->malformed);
	assert_int_equal(a->binary, b->binary);
}

static void mapped_reads_as_the_stream_does(void **state)
{
	struct cgfb_catalog *cat = test_catalog();
	struct cgfb_scan_stats st_map, st_pipe, st_mem;
	struct seen map = { .truncate_fd = -1 }, pip = { .truncate_fd = -1 },
		    mem = { .truncate_fd = -1 };
	size_t len;
	unsigned long planted = 0;
	char *log = make_log(&len, &planted);
	const int fd = file_of(log, len);
	pid_t child;
	int status;

	assert_int_equal(cgfb_scan_fd(fd, cat, take, &map, &st_map), 0);
	close(fd);
	const int rd = pipe_of(log, len, &child);

	assert_int_equal(cgfb_scan_fd(rd, cat, take, &pip, &st_pipe), 0);
	close(rd);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_int_equal(cgfb_scan_buffer(log, len, cat, take, &mem, &st_mem), 0);
	/* Those on the windows' ends and the one at the end; the one at the
	 * end of the long line is past what a record holds (and no kernel
	 * prints such a line), in every way of reading. */
	assert_true(planted >= 3);
	assert_int_equal(st_map.detections, planted);
	assert_int_equal(map.n, planted);
	assert_int_equal(st_map.long_lines, 0);
	same_stats(&st_map, &st_pipe);
	same_stats(&st_map, &st_mem);
	assert_true(st_map.nul_bytes > 0);
	assert_memory_equal(map.lines, pip.lines, sizeof(map.lines));
	assert_memory_equal(map.lines, mem.lines, sizeof(map.lines));
	free(log);
	cgfb_catalog_free(cat);
}

/* The file is cut to 4 KiB when the first message is found, as
 * copytruncate does: the window's pages past the new end are gone. The
 * scan says so and ends; the process lives. */
static void a_file_that_shrinks_is_an_error(void **state)
{
	struct cgfb_catalog *cat = test_catalog();
	struct cgfb_scan_stats st;
	size_t len;
	unsigned long planted = 0;
	char *log = make_log(&len, &planted);
	const int fd = file_of(log, len);
	struct seen s = { .truncate_fd = fd };
	struct sigaction before, after;

	assert_int_equal(sigaction(SIGBUS, NULL, &before), 0);
	assert_int_equal(cgfb_scan_fd(fd, cat, take, &s, &st), -ESTALE);
	assert_non_null(strstr(st.error, "shrank"));
	assert_int_equal(s.n, 1);
	close(fd);
	/* The handler before the scan is back (cmocka's, here). */
	assert_int_equal(sigaction(SIGBUS, NULL, &after), 0);
	assert_true(after.sa_handler == before.sa_handler);
	free(log);
	cgfb_catalog_free(cat);
}

/* A log saved with its colours is read as a stream (the colours are
 * stripped in a buffer); its messages are found as in the plain one. */
static void a_coloured_file_is_read_as_a_stream(void **state)
{
	static const char coloured[] = "\x1b[32m[    1.000000] \x1b[0mhello\n"
				       "\x1b[32m[    2.000000] \x1b[0m" M8 "\n";
	struct cgfb_catalog *cat = test_catalog();
	struct cgfb_scan_stats st;
	struct seen s = { .truncate_fd = -1 };
	const int fd = file_of(S(coloured));

	assert_int_equal(cgfb_scan_fd(fd, cat, take, &s, &st), 0);
	assert_int_equal(st.detections, 1);
	assert_int_equal(s.lines[0], 2);
	close(fd);
	cgfb_catalog_free(cat);
}

/* A kmsg log is read from needle to needle too. A message a 3.x kernel
 * printed in pieces ('c' then '+' records, with property lines between)
 * whose needle lies in the last piece is still found whole: the scan
 * goes back to the piece that began it, here also when the pieces lie on
 * both sides of a window's end (5 MiB); pieces after the needle's are
 * read too. A needle in a property line is no message. The pieces come
 * after the first MiB (a log with pieces in it is read record by record
 * throughout); from memory the whole log is that first buffer, so the
 * memory scan reads it record by record: the two ways agree. */
static void kmsg_pieces_are_joined(void **state)
{
	struct cgfb_catalog *cat = test_catalog();
	struct cgfb_scan_stats st_map, st_pipe, st_mem;
	struct seen map = { .truncate_fd = -1 }, pip = { .truncate_fd = -1 },
		    mem = { .truncate_fd = -1 };
	char *log = malloc(7 * MIB);
	size_t n = 0;
	unsigned long seq = 0, line = 1, want[3];
	int k = 0;
	pid_t child;
	int status;

	assert_non_null(log);
	while (n < 6 * MIB) {
		if (k == 2 && n > 3 * MIB) {
			/* The last piece has no needle: read all the same. */
			want[k++] = line;
			n += (size_t)sprintf(log + n, "4,%lu,%lu,c;Non-hierarchical mode is deprecated. "
					     "Please report your usecase to linux-mm@kvack.org\n", seq, seq);
			n += (size_t)sprintf(log + n, "4,%lu,%lu,+; if you depend on this "
					     "functionality.\n", seq + 1, seq + 1);
			seq += 2;
			line += 2;
			continue;
		}
		if ((k == 0 && n > MIB + MIB / 2) || (k == 1 && n + 150 > 5 * MIB)) {
			want[k++] = line;
			/* No needle in the first piece. */
			n += (size_t)sprintf(log + n, "4,%lu,%lu,c;Non-hierarchical mode\n"
					     " SUBSYSTEM=memory\n", seq, seq);
			n += (size_t)sprintf(log + n, "4,%lu,%lu,+; is deprecated. Please report your "
					     "usecase to linux-mm@kvack.org if you depend on this "
					     "functionality.\n", seq + 1, seq + 1);
			seq += 2;
			line += 3;
			continue;
		}
		n += (size_t)sprintf(log + n, "6,%lu,%lu,-;eth0: link is up at %lu Mbps\n"
				     " DEVICE=+net:eth0 NOTE=mail@kvack.org\n", seq, seq * 7, seq);
		seq++;
		line += 2;
	}
	const int fd = file_of(log, n);

	assert_int_equal(cgfb_scan_fd(fd, cat, take, &map, &st_map), 0);
	close(fd);
	const int rd = pipe_of(log, n, &child);

	assert_int_equal(cgfb_scan_fd(rd, cat, take, &pip, &st_pipe), 0);
	close(rd);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_int_equal(cgfb_scan_buffer(log, n, cat, take, &mem, &st_mem), 0);
	assert_int_equal(st_map.fmt, CGFB_FMT_KMSG);
	assert_int_equal(st_map.detections, 3);
	assert_int_equal(map.lines[0], want[0]);
	assert_int_equal(map.lines[1], want[1]);
	assert_int_equal(map.lines[2], want[2]);
	for (int i = 0; i < 3; i++)
		assert_string_equal(map.ids[i], "M8");
	assert_int_equal(st_map.lines, line - 1);
	same_stats(&st_map, &st_pipe);
	same_stats(&st_map, &st_mem);
	assert_memory_equal(map.lines, pip.lines, sizeof(map.lines));
	assert_memory_equal(map.lines, mem.lines, sizeof(map.lines));
	assert_memory_equal(map.ids, mem.ids, sizeof(map.ids));
	free(log);
	cgfb_catalog_free(cat);
}

/* Pieces in the first MiB: the log is read record by record, so a message
 * whose needles only the joined pieces hold (" is deprecated" and
 * "@kvack.org" each split in two; no piece holds any needle) is found as
 * line by line reading finds it. */
static void kmsg_needle_across_pieces(void **state)
{
	static const char log[] = "6,1,100,-;eth0: link up\n"
				  "4,2,200,c;Non-hierarchical mode is depre\n"
				  "4,3,300,+;cated. Please report your usecase to linux-mm@kva\n"
				  "4,4,300,+;ck.org if you depend on this functionality.\n"
				  "6,5,400,-;eth0: link down\n";
	struct cgfb_catalog *cat = test_catalog();
	struct cgfb_scan_stats st;
	struct seen s = { .truncate_fd = -1 };
	const int fd = file_of(S(log));

	assert_int_equal(cgfb_scan_fd(fd, cat, take, &s, &st), 0);
	assert_int_equal(st.detections, 1);
	assert_string_equal(s.ids[0], "M8");
	assert_int_equal(s.lines[0], 2);
	close(fd);
	cgfb_catalog_free(cat);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mapped_reads_as_the_stream_does),
		cmocka_unit_test(a_file_that_shrinks_is_an_error),
		cmocka_unit_test(a_coloured_file_is_read_as_a_stream),
		cmocka_unit_test(kmsg_pieces_are_joined),
		cmocka_unit_test(kmsg_needle_across_pieces),
	};

	return cmocka_run_group_tests_name("mapwin", tests, NULL, NULL);
}
