/* Versions as the rules and --target write them ("6.12", "258", "1.35"),
 * and as programs report them ("6.12.48+deb13-amd64", "252.39-1~deb12u2"):
 * only the leading dotted numbers count. */
#ifndef CGFB_VERSION_H
#define CGFB_VERSION_H

#include <stdbool.h>
#include <stddef.h>

#include "readiness/rules.h"

/* <0, 0, >0 as a is older, the same or newer than b; a missing component
 * is 0 ("6.12" == "6.12.0"). A string without a leading number is older
 * than every version. */
int cgfb_version_cmp(const char *a, const char *b);
/* The leading dotted numbers of s into buf ("" when none). */
void cgfb_version_prefix(const char *s, char *buf, size_t sz);

struct cgfb_release;

/* --target kernel=6.12,systemd=258,kubelet=1.35,debian=13: any subset,
 * each once; a distribution release (debian=, ubuntu=, rhel= and RHEL's
 * rebuilds) stands for its kernel, systemd and default hierarchy, which
 * kernel= and systemd= override. */
struct cgfb_target {
	bool any;                         /* a target was given */
	char kernel[32], systemd[32], kubelet[32];
	const struct cgfb_release *release;
};

/* 0, or -EINVAL with err naming the part that is wrong. */
int cgfb_target_parse(const char *spec, struct cgfb_target *t, char *err, size_t errsz);
/* The target as the user wrote it ("debian=13,kernel=6.12"). */
void cgfb_target_text(const struct cgfb_target *t, char *buf, size_t sz);

#endif
