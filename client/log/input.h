/* The bytes of a saved log, whatever compresses them: rotated logs are
 * mostly gzip (logrotate's default), xz, zstd, bzip2 or lz4. The format is
 * told by the first bytes, never by the file's name, and the plain bytes
 * are handed out through a bounded buffer, so that a log of any size is
 * read in constant memory. */
#ifndef CGFB_INPUT_H
#define CGFB_INPUT_H

#include <stddef.h>
#include <sys/types.h>

enum cgfb_compression {
	CGFB_COMP_NONE,
	CGFB_COMP_GZIP,
	CGFB_COMP_XZ,
	CGFB_COMP_ZSTD,
	CGFB_COMP_BZIP2,
	CGFB_COMP_LZ4,
};

/* What the first n bytes of a file are compressed with; NONE when no
 * magic matches (which does not make them text). */
enum cgfb_compression cgfb_compression_sniff(const void *head, size_t n);
const char *cgfb_compression_name(enum cgfb_compression c);

struct cgfb_input;

/* Read fd (not owned: the caller closes it) from where it is, and
 * decompress it when its first bytes say so. 0 or -ENOMEM, -errno of the
 * first read. */
int cgfb_input_open(int fd, struct cgfb_input **out);
/* Up to len plain bytes: their count, 0 at the end, or a negative errno:
 * -EBADMSG for damaged or truncated compressed data (cgfb_input_error
 * says what and where); what was returned before stays good. */
ssize_t cgfb_input_read(struct cgfb_input *in, char *buf, size_t len);
enum cgfb_compression cgfb_input_compression(const struct cgfb_input *in);
/* Why the last read failed, "" when none did. */
const char *cgfb_input_error(const struct cgfb_input *in);
void cgfb_input_close(struct cgfb_input *in);

#endif
