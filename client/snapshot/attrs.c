#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot/attrs.h"
#include "privacy/bucket.h"

#define UNLIMITED_FROM (UINT64_C(1) << 62)

static const char *const ctrl_names[CGFB_C_N] = {
	"cpuset", "cpu", "cpuacct", "io", "blkio", "memory", "devices", "freezer", "net_cls",
	"perf_event", "net_prio", "hugetlb", "pids", "rdma", "misc", "debug",
};

static const struct cgfb_attr_def defs[CGFB_A_N] = {
	[CGFB_A_USE_HIERARCHY] = { "memory.use_hierarchy", "memory", "use_hierarchy", CGFB_K_INT,
		CGFB_S_MEMORY_V1, 1, true, 1, "none needed: cgroup v2 is always hierarchical" },
	[CGFB_A_LIMIT] = { "memory.limit_in_bytes", "memory", "limit", CGFB_K_SIZE,
		CGFB_S_MEMORY_V1, 0, true, CGFB_UNLIMITED, NULL },
	[CGFB_A_MEMSW_LIMIT] = { "memory.memsw.limit_in_bytes", "memory", "memsw_limit",
		CGFB_K_SIZE, CGFB_S_MEMORY_V1, 0, false, CGFB_UNLIMITED,
		"memory.swap.max (limits swap alone, not memory plus swap)" },
	[CGFB_A_SOFT_LIMIT] = { "memory.soft_limit_in_bytes", "memory", "soft_limit", CGFB_K_SIZE,
		CGFB_S_MEMORY_V1, 0, false, CGFB_UNLIMITED,
		"memory.low (protection) or memory.high (throttling)" },
	[CGFB_A_KMEM_LIMIT] = { "memory.kmem.limit_in_bytes", "memory", "kmem_limit", CGFB_K_SIZE,
		CGFB_S_MEMORY_V1, 0, false, CGFB_UNLIMITED,
		"memory.max: cgroup v2 charges kernel memory to the same limit" },
	[CGFB_A_KMEM_TCP_LIMIT] = { "memory.kmem.tcp.limit_in_bytes", "memory", "kmem_tcp_limit",
		CGFB_K_SIZE, CGFB_S_MEMORY_V1, 0, false, CGFB_UNLIMITED,
		"memory.max: cgroup v2 charges socket memory to the same limit" },
	[CGFB_A_OOM_KILL_DISABLE] = { "memory.oom_control", "memory", "oom_kill_disable",
		CGFB_K_OOM, CGFB_S_MEMORY_V1, 1, false, 0,
		"no v2 equivalent of oom_kill_disable; memory.oom.group and memory.events for notification" },
	[CGFB_A_MOVE_CHARGE] = { "memory.move_charge_at_immigrate", "memory",
		"move_charge_at_immigrate", CGFB_K_INT, CGFB_S_MEMORY_V1, 3, false, 0,
		"none: cgroup v2 leaves memory charged where it was allocated" },
	[CGFB_A_SWAPPINESS] = { "memory.swappiness", "memory", "swappiness", CGFB_K_INT,
		CGFB_S_MEMORY_V1, 200, false, 60,
		"memory.reclaim or memory.swap.max; vm.swappiness is global in v2" },
	[CGFB_A_V2_MAX] = { "memory.max", "memory_v2", "max", CGFB_K_SIZE_V2, CGFB_S_V2, 0, false,
		CGFB_UNLIMITED, NULL },
	[CGFB_A_V2_HIGH] = { "memory.high", "memory_v2", "high", CGFB_K_SIZE_V2, CGFB_S_V2, 0,
		false, CGFB_UNLIMITED, NULL },
	[CGFB_A_V2_LOW] = { "memory.low", "memory_v2", "low", CGFB_K_SIZE_V2, CGFB_S_V2, 0, false,
		0, NULL },
	[CGFB_A_V2_MIN] = { "memory.min", "memory_v2", "min", CGFB_K_SIZE_V2, CGFB_S_V2, 0, false,
		0, NULL },
	[CGFB_A_V2_SUBTREE] = { "cgroup.subtree_control", "memory_v2", "subtree_control",
		CGFB_K_CTRL_LIST, CGFB_S_V2, 0, false, 0, NULL },
	[CGFB_A_SCHED_LOAD_BALANCE] = { "cpuset.sched_load_balance", "cpuset",
		"sched_load_balance", CGFB_K_INT, CGFB_S_CPUSET, 1, false, 1,
		"cpuset.cpus.partition" },
	[CGFB_A_MEM_EXCLUSIVE] = { "cpuset.mem_exclusive", "cpuset", "mem_exclusive", CGFB_K_INT,
		CGFB_S_CPUSET, 1, false, 0, "none in cgroup v2", true },
	[CGFB_A_MEM_HARDWALL] = { "cpuset.mem_hardwall", "cpuset", "mem_hardwall", CGFB_K_INT,
		CGFB_S_CPUSET, 1, false, 0, "none in cgroup v2" },
	[CGFB_A_MEMORY_MIGRATE] = { "cpuset.memory_migrate", "cpuset", "memory_migrate",
		CGFB_K_INT, CGFB_S_CPUSET, 1, false, 0,
		"none: cgroup v2 always migrates memory with cpuset.mems" },
	[CGFB_A_MEMORY_SPREAD_PAGE] = { "cpuset.memory_spread_page", "cpuset",
		"memory_spread_page", CGFB_K_INT, CGFB_S_CPUSET, 1, false, 0, "none in cgroup v2" },
	[CGFB_A_MEMORY_SPREAD_SLAB] = { "cpuset.memory_spread_slab", "cpuset",
		"memory_spread_slab", CGFB_K_INT, CGFB_S_CPUSET, 1, false, 0, "none in cgroup v2" },
	[CGFB_A_MEMORY_PRESSURE_ENABLED] = { "cpuset.memory_pressure_enabled", "cpuset",
		"memory_pressure_enabled", CGFB_K_INT, CGFB_S_CPUSET, 1, false, 0,
		"memory.pressure (PSI)" },
	[CGFB_A_FREEZER_STATE] = { "freezer.state", "freezer", "state", CGFB_K_FREEZER,
		CGFB_S_FREEZER, 0, false, 0, "cgroup.freeze" },
};

/* Catalog knobs that are not a file of their own. swapaccount=0 turns off
 * what memory.memsw.limit_in_bytes needs, so its users are those of memsw. */
static const struct {
	const char *knob;
	enum cgfb_attr attr;
} knob_alias[] = {
	{ "swapaccount=", CGFB_A_MEMSW_LIMIT },
	{ "swapaccount=0", CGFB_A_MEMSW_LIMIT },
};

static const char *const freezer_states[] = { "THAWED", "FREEZING", "FROZEN" };

int cgfb_ctrl_index(const char *name, size_t len)
{
	for (unsigned i = 0; i < CGFB_C_N; i++)
		if (strlen(ctrl_names[i]) == len && memcmp(ctrl_names[i], name, len) == 0)
			return (int)i;
	return -1;
}

const char *cgfb_ctrl_name(unsigned i)
{
	return i < CGFB_C_N ? ctrl_names[i] : NULL;
}

uint32_t cgfb_ctrl_parse_list(const char *s, size_t len)
{
	const char *end = s + len;
	uint32_t bits = 0;

	while (s < end) {
		const char *w;
		int i;

		while (s < end && (*s == ' ' || *s == '\n' || *s == '\t'))
			s++;
		w = s;
		while (s < end && *s != ' ' && *s != '\n' && *s != '\t')
			s++;
		i = cgfb_ctrl_index(w, (size_t)(s - w));
		if (i >= 0)
			bits |= UINT32_C(1) << i;
	}
	return bits;
}

const struct cgfb_attr_def *cgfb_attr(enum cgfb_attr a)
{
	return &defs[a];
}

bool cgfb_attr_is_default(enum cgfb_attr a, uint64_t v, uint32_t depth)
{
	return v == defs[a].dflt || (depth == 0 && defs[a].root_fixed);
}

int cgfb_attr_for_knob(const char *knob)
{
	for (size_t i = 0; i < sizeof(knob_alias) / sizeof(knob_alias[0]); i++)
		if (strcmp(knob_alias[i].knob, knob) == 0)
			return (int)knob_alias[i].attr;
	for (int a = 0; a < CGFB_A_N; a++)
		if (defs[a].replacement && strcmp(defs[a].file, knob) == 0)
			return a;
	return -1;
}

/* A decimal number filling buf up to an optional newline. */
static int parse_u64(const char *buf, size_t len, uint64_t *v)
{
	char tmp[32], *end;

	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	if (len == 0 || len >= sizeof(tmp) || buf[0] < '0' || buf[0] > '9')
		return -EINVAL;
	memcpy(tmp, buf, len);
	tmp[len] = '\0';
	errno = 0;
	*v = strtoull(tmp, &end, 10);
	/* All of it: a NUL byte would end tmp early ("0\0junk" is not 0). */
	if (end != tmp + len || errno)
		return -EINVAL;
	return 0;
}

static int parse_size(const char *buf, size_t len, bool v2, uint64_t *v)
{
	if (v2 && len >= 3 && memcmp(buf, "max", 3) == 0 &&
	    (len == 3 || (len == 4 && buf[3] == '\n'))) {
		*v = CGFB_UNLIMITED;
		return 0;
	}
	if (parse_u64(buf, len, v) < 0)
		return -EINVAL;
	if (*v >= UNLIMITED_FROM)
		*v = CGFB_UNLIMITED;
	return 0;
}

/* memory.oom_control: "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n". */
static int parse_oom(const char *buf, size_t len, uint64_t *v)
{
	static const char key[] = "oom_kill_disable ";
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		if ((size_t)(le - p) > sizeof(key) - 1 && memcmp(p, key, sizeof(key) - 1) == 0)
			return parse_u64(p + sizeof(key) - 1, (size_t)(le - p) - (sizeof(key) - 1), v);
		p = le + 1;
	}
	return -EINVAL;
}

static int parse_freezer(const char *buf, size_t len, uint64_t *v)
{
	while (len && buf[len - 1] == '\n')
		len--;
	for (size_t i = 0; i < sizeof(freezer_states) / sizeof(freezer_states[0]); i++)
		if (strlen(freezer_states[i]) == len && memcmp(freezer_states[i], buf, len) == 0) {
			*v = i;
			return 0;
		}
	return -EINVAL;
}

int cgfb_attr_parse(enum cgfb_attr a, const char *buf, size_t len, uint64_t *value)
{
	const struct cgfb_attr_def *d = &defs[a];
	int rc = -EINVAL;

	switch (d->kind) {
	case CGFB_K_SIZE:
		return parse_size(buf, len, false, value);
	case CGFB_K_SIZE_V2:
		return parse_size(buf, len, true, value);
	case CGFB_K_INT:
		rc = parse_u64(buf, len, value);
		break;
	case CGFB_K_OOM:
		rc = parse_oom(buf, len, value);
		break;
	case CGFB_K_CTRL_LIST:
		*value = cgfb_ctrl_parse_list(buf, len);
		return 0;
	case CGFB_K_FREEZER:
		return parse_freezer(buf, len, value);
	}
	if (rc == 0 && *value > d->max)
		rc = -EINVAL;
	return rc;
}

static const char *cgfb_freezer_state_name(uint64_t v)
{
	return v < sizeof(freezer_states) / sizeof(freezer_states[0]) ? freezer_states[v] : "?";
}

const char *cgfb_attr_text(enum cgfb_attr a, uint64_t v, char *buf)
{
	switch (defs[a].kind) {
	case CGFB_K_SIZE:
	case CGFB_K_SIZE_V2:
		return cgfb_bucket_size(v, buf);
	case CGFB_K_FREEZER:
		return cgfb_freezer_state_name(v);
	default:
		snprintf(buf, CGFB_ATTR_TEXT_MAX, "%" PRIu64, v);
		return buf;
	}
}
