/* The system member of a report, from the profile and the cgroup mode.
 * Every value is one the schema's vocabularies accept (kernel_release,
 * distro_id, distro_version, cmdline): a kernel with a local version
 * suffix is "<upstream>-custom", anything else unknown "other"; a build
 * number data/kernels.json does not list as published is "N" (release.c). */
#ifndef CGFB_REPORT_SYSTEM_H
#define CGFB_REPORT_SYSTEM_H

#include <json-c/json.h>

#include "cgfb/schema.h"
#include "snapshot/mountinfo.h"
#include "snapshot/profile.h"

json_object *cgfb_report_system(const struct cgfb_schema *schema, const struct cgfb_profile *p,
				enum cgfb_cgroup_mode mode);

/* uname -r as a report shows it, into out. */
void cgfb_report_release(const struct cgfb_schema *schema, const char *release, char out[65]);

#endif
