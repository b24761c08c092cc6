/* Text a local user can make the kernel print. Any user can have a
 * facility-0 record logged with words of their choosing: the parameter
 * parsers quote what they were given (`unshare -rm mount -t tmpfs -o
 * 'TEXT' none /mnt` logs "tmpfs: Unknown parameter 'TEXT'"), and the OOM
 * killer and others print cgroup paths a delegated user named. Only the
 * generic entry (an address anywhere in a record) can be steered so; the
 * specific entries match whole records of the kernel's own wording. */
#ifndef CGFB_DETECT_ECHO_H
#define CGFB_DETECT_ECHO_H

#include <stdbool.h>
#include <stddef.h>

/* Whether the n bytes at text + at, in a record of len bytes, are echoed
 * user text rather than the kernel's own words: quoted (a quote character
 * before them and the same one after, anywhere in the record), or glued
 * to a path, an assignment or a word before them. The kernel writes its
 * contact addresses after a space or an opening bracket. */
bool cgfb_echo_of_user(const char *text, size_t len, size_t at, size_t n);

#endif
