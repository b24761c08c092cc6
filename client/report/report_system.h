/* The system member of a report, from the profile and the cgroup mode. */
#ifndef CGFB_REPORT_SYSTEM_H
#define CGFB_REPORT_SYSTEM_H

#include <json-c/json.h>

#include "snapshot/mountinfo.h"
#include "snapshot/profile.h"

json_object *cgfb_report_system(const struct cgfb_profile *p, enum cgfb_cgroup_mode mode);

#endif
