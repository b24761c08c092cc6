/* The watcher: follow the live kernel log, remember progress, hand each new
 * detection to the report writer. */
#ifndef CGFB_WATCH_H
#define CGFB_WATCH_H

#include <stdbool.h>

#include "cgfb/catalog.h"

/* Where the report writer's snapshot comes from (its options of the same
 * names; NULL: the live system). */
struct cgfb_watch_sources {
	const char *cgroup_root;
	const char *mountinfo;
	const char *os_release;
	const char *cmdline;
};

struct cgfb_watch_opts {
	/* Not const: at rest the watcher gives back what matching grew in it
	 * (cgfb_catalog_shrink). */
	struct cgfb_catalog *cat;
	const char *state_dir;
	const char *kmsg_path;     /* NULL: /dev/kmsg */
	const char *boot_id_path;  /* NULL: /proc/sys/kernel/random/boot_id */
	/* Where records the ring buffer lost are looked up (by the report
	 * writer: this process links no journal code); NULL: the system's. */
	const char *journal_dir;
	bool json;
	bool once;                 /* stop when the backlog is read */
	/* Where a report's snapshot comes from; NULL writes no reports. The
	 * report writer also tells the administrators (and keeps the login
	 * banner): the watcher has none of that code. */
	const struct cgfb_watch_sources *sources;
	/* --prompt: run the review for a new report right here, in a child
	 * process: the watcher itself never opens a network connection. */
	bool prompt;
	const char *config_path;   /* passed on to that review */
	const char *catalog_path;
};

/* Returns the process exit status: 0, or 2 after an error it reported. */
int cgfb_watch(const struct cgfb_watch_opts *o);

#endif
