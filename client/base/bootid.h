/* The kernel's id of this boot: the watcher's "once per boot" and a
 * report's count of boots both hang on it. */
#ifndef CGFB_BOOTID_H
#define CGFB_BOOTID_H

#include <stddef.h>

#define CGFB_BOOT_ID_PATH "/proc/sys/kernel/random/boot_id"
/* 36 characters of a UUID and its end. */
#define CGFB_BOOT_ID_MAX 40

/* The id in path (CGFB_BOOT_ID_PATH, or a test's file), trailing white
 * space removed. 0, -EBADMSG for an empty file, or the read's -errno. */
int cgfb_read_boot_id(const char *path, char *buf, size_t bufsz);

/* 32 hex digits (the journal's _BOOT_ID, or any 128 bits in hex) in the
 * form of CGFB_BOOT_ID_PATH: 8-4-4-4-12. */
void cgfb_boot_id_dashed(const char *hex32, char out[CGFB_BOOT_ID_MAX]);

#endif
