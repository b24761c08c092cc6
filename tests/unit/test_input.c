/* Compressed logs (log/input.c): every format, made here by its own
 * library, read back through a pipe in small pieces to the exact bytes;
 * members and frames one after another; damage and truncation anywhere
 * give a clear error and keep what came before; the format is told by
 * the bytes, never by a name. */
#include "testutil.h"

#include <bzlib.h>
#include <errno.h>
#include <lz4frame.h>
#include <lzma.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "cgfb/buf.h"
#include "log/input.h"

static char text[200000];
static size_t text_len;

static int setup(void **state)
{
	/* A log of ordinary records with a catalog message in the middle. */
	for (unsigned i = 0; text_len + 200 < sizeof(text); i++)
		text_len += (size_t)snprintf(text + text_len, sizeof(text) - text_len,
			"<6>[%8u.%06u] eth0: link up, record %u of an ordinary boot\n", i / 1000,
			i % 1000 * 997, i);
	memcpy(text + text_len / 2, "memory.use_hierarchy", 20);
	return 0;
}

static void compress_gzip(const char *in, size_t n, struct cgfb_buf *out)
{
	z_stream z = { 0 };
	char chunk[65536];
	int rc;

	assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	do {
		z.next_out = (Bytef *)chunk;
		z.avail_out = sizeof(chunk);
		rc = deflate(&z, Z_FINISH);
		assert_int_equal(cgfb_buf_add(out, chunk, sizeof(chunk) - z.avail_out), 0);
	} while (rc == Z_OK);
	assert_int_equal(rc, Z_STREAM_END);
	deflateEnd(&z);
}

static void compress_xz(const char *in, size_t n, struct cgfb_buf *out)
{
	const size_t cap = lzma_stream_buffer_bound(n);
	uint8_t *b = malloc(cap);
	size_t pos = 0;

	assert_int_equal(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, (const uint8_t *)in, n,
						 b, &pos, cap), LZMA_OK);
	assert_int_equal(cgfb_buf_add(out, (char *)b, pos), 0);
	free(b);
}

static void compress_zstd(const char *in, size_t n, struct cgfb_buf *out)
{
	const size_t cap = ZSTD_compressBound(n);
	char *b = malloc(cap);
	const size_t r = ZSTD_compress(b, cap, in, n, 3);

	assert_false(ZSTD_isError(r));
	assert_int_equal(cgfb_buf_add(out, b, r), 0);
	free(b);
}

static void compress_bzip2(const char *in, size_t n, struct cgfb_buf *out)
{
	unsigned cap = (unsigned)(n + n / 100 + 600);
	char *b = malloc(cap);

	assert_int_equal(BZ2_bzBuffToBuffCompress(b, &cap, (char *)in, (unsigned)n, 9, 0, 0), BZ_OK);
	assert_int_equal(cgfb_buf_add(out, b, cap), 0);
	free(b);
}

static void compress_lz4(const char *in, size_t n, struct cgfb_buf *out)
{
	const size_t cap = LZ4F_compressFrameBound(n, NULL);
	char *b = malloc(cap);
	const size_t r = LZ4F_compressFrame(b, cap, in, n, NULL);

	assert_false(LZ4F_isError(r));
	assert_int_equal(cgfb_buf_add(out, b, r), 0);
	free(b);
}

static const struct format {
	enum cgfb_compression c;
	const char *name;
	void (*compress)(const char *in, size_t n, struct cgfb_buf *out);
} formats[] = {
	{ CGFB_COMP_GZIP, "gzip", compress_gzip },
	{ CGFB_COMP_XZ, "xz", compress_xz },
	{ CGFB_COMP_ZSTD, "zstd", compress_zstd },
	{ CGFB_COMP_BZIP2, "bzip2", compress_bzip2 },
	{ CGFB_COMP_LZ4, "lz4", compress_lz4 },
};

struct feeder {
	int fd;
	const char *data;
	size_t len;
};

/* The writing end of a pipe, in pieces of 1000 bytes: the reader sees a
 * stream, not a file, and magics may arrive split. */
static void *feed(void *arg)
{
	struct feeder *f = arg;

	for (size_t off = 0; off < f->len; off += 1000) {
		const size_t n = f->len - off < 1000 ? f->len - off : 1000;

		if (write(f->fd, f->data + off, n) != (ssize_t)n)
			break;
	}
	close(f->fd);
	return NULL;
}

/* All the plain bytes of data, read in pieces of step; the last read's
 * result (0 or a negative errno) into *end and its reason into why. */
static void read_all(const char *data, size_t len, size_t step, struct cgfb_buf *out,
		     ssize_t *end, enum cgfb_compression *c, char *why, size_t whysz)
{
	struct feeder f = { -1, data, len };
	struct cgfb_input *in;
	pthread_t t;
	int p[2];
	char *buf = malloc(step);
	ssize_t r;

	assert_int_equal(pipe(p), 0);
	f.fd = p[1];
	assert_int_equal(pthread_create(&t, NULL, feed, &f), 0);
	assert_int_equal(cgfb_input_open(p[0], &in), 0);
	*c = cgfb_input_compression(in);
	while ((r = cgfb_input_read(in, buf, step)) > 0)
		assert_int_equal(cgfb_buf_add(out, buf, (size_t)r), 0);
	*end = r;
	snprintf(why, whysz, "%s", cgfb_input_error(in));
	cgfb_input_close(in);
	/* The feeder may still be writing a damaged file's rest. */
	close(p[0]);
	pthread_join(t, NULL);
	free(buf);
}

static void every_format_round_trips(void **state)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		struct cgfb_buf z = { 0 }, out = { 0 };
		enum cgfb_compression c;
		char why[256];
		ssize_t end;

		formats[i].compress(text, text_len, &z);
		for (size_t step = 1; step <= 65536; step *= 64) {
			out.len = 0;
			read_all(z.data, z.len, step, &out, &end, &c, why, sizeof(why));
			if (end != 0 || out.len != text_len || memcmp(out.data, text, text_len) != 0)
				fail_msg("%s, reads of %zu: %zd, %zu of %zu bytes (%s)", formats[i].name,
					 step, end, out.len, text_len, why);
			assert_int_equal(c, formats[i].c);
			assert_string_equal(cgfb_compression_name(c), formats[i].name);
		}
		cgfb_buf_free(&z);
		cgfb_buf_free(&out);
	}
}

/* logrotate's copies, gzip -c a b, pbzip2, zstd of two files: one after
 * another, read as one log. */
static void members_one_after_another(void **state)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		struct cgfb_buf z = { 0 }, out = { 0 };
		enum cgfb_compression c;
		char why[256];
		ssize_t end;

		formats[i].compress(text, text_len / 3, &z);
		formats[i].compress(text + text_len / 3, text_len - text_len / 3, &z);
		read_all(z.data, z.len, 4096, &out, &end, &c, why, sizeof(why));
		if (end != 0 || out.len != text_len || memcmp(out.data, text, text_len) != 0)
			fail_msg("%s, two members: %zd, %zu of %zu bytes (%s)", formats[i].name, end,
				 out.len, text_len, why);
		cgfb_buf_free(&z);
		cgfb_buf_free(&out);
	}
}

/* Cut anywhere after the header: an error that says truncated, and every
 * byte handed out before it is the log's own. */
static void truncated_anywhere(void **state)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		struct cgfb_buf z = { 0 }, out = { 0 };
		enum cgfb_compression c;
		char why[256];
		ssize_t end;

		formats[i].compress(text, text_len, &z);
		for (size_t cut = 16; cut < z.len; cut += z.len / 7 + 1) {
			out.len = 0;
			read_all(z.data, cut, 4096, &out, &end, &c, why, sizeof(why));
			if (end != -EBADMSG || !strstr(why, formats[i].name))
				fail_msg("%s cut at %zu of %zu: %zd (%s)", formats[i].name, cut, z.len,
					 end, why);
			assert_true(out.len < text_len);
			assert_memory_equal(out.data ? out.data : "", text, out.len);
		}
		cgfb_buf_free(&z);
		cgfb_buf_free(&out);
	}
}

/* 64 bytes damaged in the middle: reported as damage of that format, never
 * passed off as the whole log. What a decompressor made of the damaged
 * block before its checksum failed may still have been handed out (bzip2
 * checks a block's CRC at its end), which is why a scan names the damage
 * and the line it reached. */
static void damaged_in_the_middle(void **state)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		struct cgfb_buf z = { 0 }, out = { 0 };
		enum cgfb_compression c;
		char why[256];
		ssize_t end;

		formats[i].compress(text, text_len, &z);
		for (size_t k = 0; k < 64; k++)
			z.data[z.len / 2 + k] ^= 0x5a;
		read_all(z.data, z.len, 4096, &out, &end, &c, why, sizeof(why));
		if (end == 0 && out.len == text_len && memcmp(out.data, text, text_len) == 0)
			fail_msg("%s: 64 damaged bytes went unnoticed", formats[i].name);
		if (end < 0 && (end != -EBADMSG || !strstr(why, formats[i].name)))
			fail_msg("%s: damage reported as %zd (%s)", formats[i].name, end, why);
		cgfb_buf_free(&z);
		cgfb_buf_free(&out);
	}
}

/* By the bytes, never by a name: text is text, whatever it starts with
 * that merely resembles a magic; a short or empty input is plain. */
static void told_by_the_bytes(void **state)
{
	static const char *const plain[] = {
		"BZh is how this line starts\n", "\x1f", "", "Linux version 6.12\n",
	};
	struct cgfb_buf out = { 0 };
	enum cgfb_compression c;
	char why[256];
	ssize_t end;

	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		out.len = 0;
		read_all(plain[i], strlen(plain[i]), 7, &out, &end, &c, why, sizeof(why));
		assert_int_equal(c, CGFB_COMP_NONE);
		assert_int_equal(end, 0);
		assert_int_equal(out.len, strlen(plain[i]));
	}
	assert_int_equal(cgfb_compression_sniff("BZh9", 4), CGFB_COMP_BZIP2);
	assert_int_equal(cgfb_compression_sniff("\xfd" "7zXZ", 5), CGFB_COMP_NONE);
	assert_string_equal(cgfb_compression_name(CGFB_COMP_NONE), "plain");
	/* The gzip magic before garbage: gzip, and damaged. */
	out.len = 0;
	read_all("\x1f\x8b this is not deflate at all", 30, 4096, &out, &end, &c, why, sizeof(why));
	assert_int_equal(c, CGFB_COMP_GZIP);
	assert_int_equal(end, -EBADMSG);
	assert_non_null(strstr(why, "gzip data is damaged"));
	cgfb_buf_free(&out);
}

/* What follows the last gzip member and is not one (tape padding) is
 * ignored, as gzip -d does. */
static void gzip_padding_ignored(void **state)
{
	struct cgfb_buf z = { 0 }, out = { 0 };
	enum cgfb_compression c;
	char why[256];
	ssize_t end;

	compress_gzip(text, 5000, &z);
	assert_int_equal(cgfb_buf_add(&z, "\0\0\0\0\0\0\0\0", 8), 0);
	read_all(z.data, z.len, 4096, &out, &end, &c, why, sizeof(why));
	assert_int_equal(end, 0);
	assert_int_equal(out.len, 5000);
	cgfb_buf_free(&z);
	cgfb_buf_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_format_round_trips),
		cmocka_unit_test(members_one_after_another),
		cmocka_unit_test(truncated_anywhere),
		cmocka_unit_test(damaged_in_the_middle),
		cmocka_unit_test(told_by_the_bytes),
		cmocka_unit_test(gzip_padding_ignored),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
