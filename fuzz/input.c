/* A saved log read as `cgroup-feedback scan FILE` reads it
 * (client/log/input.c, client/detect/scan.c): the format of compression
 * told by the first bytes, gzip, xz, zstd, bzip2 or lz4 decompressed in
 * bounded pieces, the plain bytes scanned. The input is a file (a memfd)
 * that claims any of them, damaged or truncated anywhere.
 *
 * Properties: reading never hands out more than the buffer asked for and
 * ends in 0 or -EBADMSG with a reason that names the format; input no
 * magic matches comes out exactly as it went in; the scan of the file
 * ends in 0, -EBADMSG (damage, said in st.error) or -EMEDIUMTYPE (a
 * journal file) and counts no more detections than lines. */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "detect/scan.h"
#include "fuzz.h"
#include "log/input.h"

static struct cgfb_catalog *cat;

FUZZ_INIT_BUILTIN(cgfb_catalog_load_builtin, cat, "built-in catalog")

static int memfd_of(const uint8_t *data, size_t size)
{
	const int fd = memfd_create("fuzz-input", MFD_CLOEXEC);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0)
		abort();
	return fd;
}

/* Every plain byte, in pieces of an odd size, up to a bomb's limit. */
static void read_through(const uint8_t *data, size_t size)
{
	static char piece[4093];
	const int fd = memfd_of(data, size);
	struct cgfb_input *in;
	size_t total = 0;
	ssize_t r;

	PROPERTY(cgfb_input_open(fd, &in) == 0, "open failed");
	while ((r = cgfb_input_read(in, piece, sizeof(piece))) > 0 && total < (64u << 20)) {
		PROPERTY((size_t)r <= sizeof(piece), "%zd bytes for a piece of %zu", r, sizeof(piece));
		if (cgfb_input_compression(in) == CGFB_COMP_NONE)
			PROPERTY(total + (size_t)r <= size && memcmp(piece, data + total, (size_t)r) == 0,
				 "plain bytes changed at %zu", total);
		total += (size_t)r;
	}
	PROPERTY(r >= 0 || r == -EBADMSG, "read ended in %zd", r);
	if (r == -EBADMSG)
		PROPERTY(strstr(cgfb_input_error(in), cgfb_compression_name(cgfb_input_compression(in))),
			 "damage said without the format: %s", cgfb_input_error(in));
	if (cgfb_input_compression(in) == CGFB_COMP_NONE)
		PROPERTY(r == 0 && total == size, "plain input: %zu of %zu bytes", total, size);
	cgfb_input_close(in);
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cgfb_scan_stats st;
	int fd, rc;

	read_through(data, size);
	fd = memfd_of(data, size);
	rc = cgfb_scan_fd(fd, cat, NULL, NULL, &st);
	close(fd);
	PROPERTY(rc == 0 || rc == -EBADMSG || rc == -EMEDIUMTYPE, "scan ended in %d (%s)", rc,
		 st.error);
	PROPERTY(rc != -EBADMSG || st.error[0], "damage without a reason");
	PROPERTY(st.detections <= st.lines + 1, "%lu detections in %lu lines", st.detections,
		 st.lines);
	return 0;
}
