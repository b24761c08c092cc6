/* Numbers as a report shows them: never exact, so that a count or a limit
 * cannot single out a machine. */
#ifndef CGFB_BUCKET_H
#define CGFB_BUCKET_H

#include <stdint.h>

#define CGFB_BUCKET_MAX 24

/* A size that means "no limit": v1 prints PAGE_COUNTER_MAX pages in bytes
 * (9223372036854771712 on 4 KiB pages) or RESOURCE_MAX on 2.6/3.x kernels,
 * v2 prints "max". Anything from 2^62 up is treated as unlimited. */
#define CGFB_UNLIMITED UINT64_MAX

/* Bytes rounded up to a power of two with an IEC suffix: "0", "512", "1K",
 * "64M", "16G"; CGFB_UNLIMITED is "max". */
const char *cgfb_bucket_size(uint64_t bytes, char buf[CGFB_BUCKET_MAX]);

/* A count in a power-of-two range: "0", "1", "2-3", "4-7", ... and from
 * 524288 on "524288+" (the schema's ranges hold at most six digits). */
const char *cgfb_bucket_count(uint64_t n, char buf[CGFB_BUCKET_MAX]);

#endif
