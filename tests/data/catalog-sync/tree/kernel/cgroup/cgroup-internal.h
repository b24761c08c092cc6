/* catalog-sync fixture: the pr_fmt of the files that include this header. */
#ifndef __CGROUP_INTERNAL_H
#define __CGROUP_INTERNAL_H
#define pr_fmt(fmt) "cgroup: " fmt
#endif
