/* A detection as the watcher hands it to the report writer
 * (cgroup-feedback-report), which runs as a process of its own: one JSON
 * object on a pipe. The record's bytes (text, field values) are hex, so
 * that a process name cut inside a UTF-8 sequence travels unchanged and
 * the JSON stays valid; the catalog entry travels as its id. */
#ifndef CGFB_HANDOFF_H
#define CGFB_HANDOFF_H

#include <stddef.h>

#include "cgfb/buf.h"
#include "cgfb/catalog.h"
#include "detect/detect.h"

/* The detection as one line of JSON (with its newline) into out. */
int cgfb_handoff_encode(const struct cgfb_detection *d, const char *source, struct cgfb_buf *out);

/* The detection back, its entry looked up in cat; source (at least 16
 * bytes) gets "kmsg", "klogctl", "file", "journal" or "check". -EINVAL with a reason in err for
 * anything malformed (the writer trusts the watcher, but not blindly). */
int cgfb_handoff_decode(const struct cgfb_catalog *cat, const char *json, size_t len,
			struct cgfb_detection *d, char source[16], char *err, size_t errsz);

#endif
