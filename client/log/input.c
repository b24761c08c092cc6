#include <bzlib.h>
#include <errno.h>
#include <lz4frame.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "log/input.h"

/* Compressed bytes are read in pieces of this size: the decompressors keep
 * their own window (xz's default 8 MiB dictionary is the largest), so the
 * whole input costs this, their state and the caller's buffer. */
#define IN_CAP (256u << 10)

struct cgfb_input {
	int fd;
	enum cgfb_compression fmt;
	unsigned char *buf;          /* compressed bytes read and not yet used */
	size_t len, pos;
	bool eof;                    /* fd is read to its end */
	bool open;                   /* inside a member or frame not yet ended */
	bool done;                   /* the data ended where its format says it may */
	bool between;                /* gzip: a member ended; another may follow */
	unsigned long long used;     /* compressed bytes consumed, for messages */
	union {
		z_stream z;
		lzma_stream x;
		ZSTD_DStream *zs;
		bz_stream b;
		LZ4F_dctx *l;
	} u;
	char err[200];
};

static const struct {
	enum cgfb_compression c;
	const char *name;
	unsigned char magic[6];
	size_t n;
} magics[] = {
	{ CGFB_COMP_GZIP, "gzip", { 0x1f, 0x8b }, 2 },
	{ CGFB_COMP_XZ, "xz", { 0xfd, '7', 'z', 'X', 'Z', 0x00 }, 6 },
	{ CGFB_COMP_ZSTD, "zstd", { 0x28, 0xb5, 0x2f, 0xfd }, 4 },
	{ CGFB_COMP_BZIP2, "bzip2", { 'B', 'Z', 'h' }, 3 },
	{ CGFB_COMP_LZ4, "lz4", { 0x04, 0x22, 0x4d, 0x18 }, 4 },
};

enum cgfb_compression cgfb_compression_sniff(const void *head, size_t n)
{
	const unsigned char *h = head;

	for (size_t i = 0; i < sizeof(magics) / sizeof(magics[0]); i++) {
		if (n < magics[i].n || memcmp(h, magics[i].magic, magics[i].n) != 0)
			continue;
		/* "BZh" is also how a line of text may start: the block size
		 * digit must follow. */
		if (magics[i].c == CGFB_COMP_BZIP2 && (n < 4 || h[3] < '1' || h[3] > '9'))
			continue;
		return magics[i].c;
	}
	return CGFB_COMP_NONE;
}

const char *cgfb_compression_name(enum cgfb_compression c)
{
	for (size_t i = 0; i < sizeof(magics) / sizeof(magics[0]); i++)
		if (magics[i].c == c)
			return magics[i].name;
	return "plain";
}

static ssize_t read_fd(int fd, void *buf, size_t len)
{
	ssize_t r;

	do
		r = read(fd, buf, len);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r;
}

/* More compressed bytes, after the unused ones. */
static int refill(struct cgfb_input *in)
{
	ssize_t r;

	if (in->pos > 0) {
		memmove(in->buf, in->buf + in->pos, in->len - in->pos);
		in->len -= in->pos;
		in->pos = 0;
	}
	r = read_fd(in->fd, in->buf + in->len, IN_CAP - in->len);
	if (r < 0)
		return (int)r;
	in->eof = r == 0;
	in->len += (size_t)r;
	return 0;
}

static ssize_t damaged(struct cgfb_input *in, const char *what)
{
	snprintf(in->err, sizeof(in->err), "the %s data is damaged after %llu compressed bytes: %s",
		 cgfb_compression_name(in->fmt), in->used, what);
	return -EBADMSG;
}

/* Each step decompresses from in->buf into out and returns what it made
 * (0 is fine: it may have consumed input only), setting in->open while a
 * member or frame is unfinished; a negative errno on damage. */

/* gzip -c a b > c makes members one after another; what follows the
 * last one (zero padding of tapes) is not data, as for gzip -d. */
static void gz_between(struct cgfb_input *in)
{
	if (in->len - in->pos >= 2) {
		in->between = false;
		if (in->buf[in->pos] == 0x1f && in->buf[in->pos + 1] == 0x8b)
			inflateReset(&in->u.z);
		else
			in->done = true;
	} else if (in->eof) {
		in->done = true;
	}
}

static ssize_t gz_step(struct cgfb_input *in, char *out, size_t len)
{
	z_stream *z = &in->u.z;
	int rc;

	if (in->between) {
		gz_between(in);
		if (in->between || in->done)
			return 0;
	}
	z->next_in = in->buf + in->pos;
	z->avail_in = (uInt)(in->len - in->pos);
	z->next_out = (Bytef *)out;
	z->avail_out = (uInt)len;
	rc = inflate(z, Z_NO_FLUSH);
	in->used += in->len - in->pos - z->avail_in;
	in->pos = in->len - z->avail_in;
	if (rc == Z_STREAM_END) {
		in->open = false;
		in->between = true;
	} else if (rc == Z_OK || rc == Z_BUF_ERROR) {
		in->open = true;
	} else {
		return damaged(in, z->msg ? z->msg : "inflate failed");
	}
	return (ssize_t)(len - z->avail_out);
}

static ssize_t xz_step(struct cgfb_input *in, char *out, size_t len)
{
	lzma_stream *x = &in->u.x;
	lzma_ret rc;

	x->next_in = in->buf + in->pos;
	x->avail_in = in->len - in->pos;
	x->next_out = (uint8_t *)out;
	x->avail_out = len;
	/* LZMA_CONCATENATED wants to be told where the input ends. */
	rc = lzma_code(x, in->eof && x->avail_in == 0 ? LZMA_FINISH : LZMA_RUN);
	in->used += in->len - in->pos - x->avail_in;
	in->pos = in->len - x->avail_in;
	if (rc == LZMA_STREAM_END) {
		in->open = false;
		in->done = true;
	} else if (rc == LZMA_OK || rc == LZMA_BUF_ERROR) {
		/* LZMA_BUF_ERROR at the end: the input ended inside a stream. */
		in->open = true;
	} else {
		return damaged(in, rc == LZMA_MEM_ERROR ? "out of memory" :
			       rc == LZMA_FORMAT_ERROR ? "not xz after all" : "corrupt stream");
	}
	return (ssize_t)(len - x->avail_out);
}

static ssize_t zstd_step(struct cgfb_input *in, char *out, size_t len)
{
	ZSTD_inBuffer src = { in->buf + in->pos, in->len - in->pos, 0 };
	ZSTD_outBuffer dst = { out, len, 0 };
	const size_t rc = ZSTD_decompressStream(in->u.zs, &dst, &src);

	if (ZSTD_isError(rc))
		return damaged(in, ZSTD_getErrorName(rc));
	in->used += src.pos;
	in->pos += src.pos;
	/* 0: a frame ended and all of it is out. Frames may follow: a hint
	 * given without a byte taken asks for the next frame's header. */
	in->open = rc != 0 && (in->open || src.pos > 0 || dst.pos > 0);
	return (ssize_t)dst.pos;
}

static ssize_t bz_step(struct cgfb_input *in, char *out, size_t len)
{
	bz_stream *b = &in->u.b;
	size_t made, took;
	int rc;

	b->next_in = (char *)in->buf + in->pos;
	b->avail_in = (unsigned)(in->len - in->pos);
	b->next_out = out;
	b->avail_out = (unsigned)len;
	rc = BZ2_bzDecompress(b);
	made = len - b->avail_out;
	took = in->len - in->pos - b->avail_in;
	in->used += took;
	in->pos += took;
	if (rc == BZ_STREAM_END) {
		/* pbzip2 and bzip2 -c a b write streams one after another. */
		in->open = false;
		BZ2_bzDecompressEnd(b);
		memset(b, 0, sizeof(*b));
		if (BZ2_bzDecompressInit(b, 0, 0) != BZ_OK)
			return damaged(in, "out of memory");
	} else if (rc == BZ_OK) {
		in->open = in->open || took > 0 || made > 0;
	} else {
		return damaged(in, rc == BZ_MEM_ERROR ? "out of memory" : "corrupt stream");
	}
	return (ssize_t)made;
}

static ssize_t lz4_step(struct cgfb_input *in, char *out, size_t len)
{
	size_t dst = len, src = in->len - in->pos;
	const size_t rc = LZ4F_decompress(in->u.l, out, &dst, in->buf + in->pos, &src, NULL);

	if (LZ4F_isError(rc))
		return damaged(in, LZ4F_getErrorName(rc));
	in->used += src;
	in->pos += src;
	in->open = rc != 0 && (in->open || src > 0 || dst > 0);
	return (ssize_t)dst;
}

static int start(struct cgfb_input *in)
{
	switch (in->fmt) {
	case CGFB_COMP_GZIP:
		/* 15 + 16: a gzip header, not zlib's. */
		return inflateInit2(&in->u.z, 15 + 16) == Z_OK ? 0 : -ENOMEM;
	case CGFB_COMP_XZ:
		in->u.x = (lzma_stream)LZMA_STREAM_INIT;
		return lzma_stream_decoder(&in->u.x, UINT64_MAX, LZMA_CONCATENATED) == LZMA_OK ?
		       0 : -ENOMEM;
	case CGFB_COMP_ZSTD:
		in->u.zs = ZSTD_createDStream();
		return in->u.zs ? 0 : -ENOMEM;
	case CGFB_COMP_BZIP2:
		return BZ2_bzDecompressInit(&in->u.b, 0, 0) == BZ_OK ? 0 : -ENOMEM;
	case CGFB_COMP_LZ4:
		return LZ4F_isError(LZ4F_createDecompressionContext(&in->u.l, LZ4F_VERSION)) ?
		       -ENOMEM : 0;
	case CGFB_COMP_NONE:
		break;
	}
	return 0;
}

static void stop(struct cgfb_input *in)
{
	switch (in->fmt) {
	case CGFB_COMP_GZIP: inflateEnd(&in->u.z); break;
	case CGFB_COMP_XZ: lzma_end(&in->u.x); break;
	case CGFB_COMP_ZSTD: ZSTD_freeDStream(in->u.zs); break;
	case CGFB_COMP_BZIP2: BZ2_bzDecompressEnd(&in->u.b); break;
	case CGFB_COMP_LZ4: LZ4F_freeDecompressionContext(in->u.l); break;
	case CGFB_COMP_NONE: break;
	}
}

int cgfb_input_open(int fd, struct cgfb_input **out)
{
	struct cgfb_input *in = calloc(1, sizeof(*in));
	int rc = -ENOMEM;

	*out = NULL;
	if (!in || !(in->buf = malloc(IN_CAP)))
		goto fail;
	in->fd = fd;
	/* A pipe may hand out fewer bytes than a magic: read until there
	 * are enough to tell, or the end. */
	do
		rc = refill(in);
	while (rc == 0 && !in->eof && in->len < 8);
	if (rc < 0)
		goto fail;
	in->fmt = cgfb_compression_sniff(in->buf, in->len);
	rc = start(in);
	if (rc < 0)
		goto fail;
	*out = in;
	return 0;
fail:
	if (in)
		free(in->buf);
	free(in);
	return rc;
}

static ssize_t plain_read(struct cgfb_input *in, char *buf, size_t len)
{
	size_t n = in->len - in->pos;

	if (n == 0)
		return in->eof ? 0 : read_fd(in->fd, buf, len);
	n = n < len ? n : len;
	memcpy(buf, in->buf + in->pos, n);
	in->pos += n;
	return (ssize_t)n;
}

static ssize_t step(struct cgfb_input *in, char *buf, size_t len)
{
	switch (in->fmt) {
	case CGFB_COMP_GZIP: return gz_step(in, buf, len);
	case CGFB_COMP_XZ: return xz_step(in, buf, len);
	case CGFB_COMP_ZSTD: return zstd_step(in, buf, len);
	case CGFB_COMP_BZIP2: return bz_step(in, buf, len);
	case CGFB_COMP_LZ4: return lz4_step(in, buf, len);
	case CGFB_COMP_NONE: break;
	}
	return plain_read(in, buf, len);
}

ssize_t cgfb_input_read(struct cgfb_input *in, char *buf, size_t len)
{
	if (in->fmt == CGFB_COMP_NONE)
		return plain_read(in, buf, len);
	while (!in->done && len > 0) {
		const size_t before = in->pos;
		const ssize_t made = step(in, buf, len);
		int rc;

		if (made != 0)
			return made;
		if (in->pos != before || in->done)
			continue;
		/* No progress: the decompressor wants more input. */
		if (in->eof)
			break;
		if (in->pos == 0 && in->len == IN_CAP)
			return damaged(in, "no progress on a full buffer");
		rc = refill(in);
		if (rc < 0)
			return rc;
	}
	if (in->open && !in->done) {
		snprintf(in->err, sizeof(in->err), "the %s data ends inside a %s after %llu compressed "
			 "bytes (a truncated file?)", cgfb_compression_name(in->fmt),
			 in->fmt == CGFB_COMP_GZIP || in->fmt == CGFB_COMP_BZIP2 ? "stream" : "frame",
			 in->used);
		in->done = true;
		return -EBADMSG;
	}
	in->done = true;
	return 0;
}

enum cgfb_compression cgfb_input_compression(const struct cgfb_input *in)
{
	return in->fmt;
}

const char *cgfb_input_error(const struct cgfb_input *in)
{
	return in->err;
}

void cgfb_input_close(struct cgfb_input *in)
{
	if (!in)
		return;
	stop(in);
	free(in->buf);
	free(in);
}
