/* The deciders (decide.h). Each is a function of the environment facts and
 * of the component at a version ("at"): the versions of a target, of a
 * distribution release, or the versions where the decider's behaviour
 * changes (its milestones). The sources named are the lines read; the
 * research behind them is summed up in docs/READINESS.md. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "readiness/check.h"
#include "readiness/decide.h"
#include "readiness/version.h"
#include "snapshot/attrs.h"

/* --- sources --------------------------------------------------------------- */

#define SRC_SD255 "systemd v255 src/shared/cgroup-setup.c cg_is_unified_wanted() 82-114 and " \
	"cg_is_hybrid_wanted() 132-155 (the command line, then the build's default-hierarchy)"
#define SRC_SD256 "systemd v256 src/shared/mount-setup.c mount_cgroup_legacy_controllers() 515-519, " \
	"src/core/main.c 3100-3114 ('Refusing to run under cgroup v1, SYSTEMD_CGROUP_ENABLE_LEGACY_FORCE=1 " \
	"not specified on kernel command line'; with it, 'Will proceed anyway after 30s')"
#define SRC_SD257 "systemd 257 src/shared/mount-setup.c mount_cgroup_legacy_controllers() 518-532 " \
	"('Will proceed with cgroup v2 after 30 s'), src/shared/cgroup-setup.c cg_is_legacy_force_enabled() " \
	"163-177 (both systemd.unified_cgroup_hierarchy=0 and SYSTEMD_CGROUP_ENABLE_LEGACY_FORCE=1)"
#define SRC_SD258 "systemd NEWS for 258 (cgroup v1 removed; cgroup v2 always mounted); 259.5 " \
	"src/core/main.c 3297-3311 cg_has_legacy() ('Detected unsupported legacy cgroup hierarchy, " \
	"refusing execution'), no container exemption"
#define SRC_SD_CONTAINER "systemd 257 src/shared/mount-setup.c 518 ('If in container, we have to " \
	"follow host's cgroup hierarchy'); v256 cg_is_legacy_force_enabled() 161; 259.5 main.c 3297 " \
	"refuses a tmpfs /sys/fs/cgroup in a container too"
#define SRC_SD_MODE "systemd src/basic/cgroup-util.c cg_unified_cached() (v256 2203-2262): statfs of " \
	"/sys/fs/cgroup, then /sys/fs/cgroup/unified"
/* Arrays, not macros: a kernel decision names its option by which of
 * these two it cites (cgfb_decision_config()). */
static const char SRC_MEMCG[] = "init/Kconfig MEMCG_V1 (e93d4166b40a, v6.11, default n); "
	"kernel/cgroup/cgroup-v1.c cgroup1_parse_param() 'Unknown subsys name' (3c41382e920f, v6.12)";
static const char SRC_CPUSETS[] = "init/Kconfig CPUSETS_V1 (1abab1ba0775, v6.12, default n); "
	"kernel/cgroup/cgroup-v1.c cgroup1_parse_param() (3c41382e920f, v6.12)";
#define SRC_KUBELET "kubernetes pkg/kubelet/apis/config/validation/validation_linux.go " \
	"validateKubeletOSConfiguration() ('kubelet is configured to not run on a host using cgroup v1'); " \
	"IsCgroup2UnifiedMode() of opencontainers/cgroups utils.go 35-51 (statfs of /sys/fs/cgroup); " \
	"KubeletConfiguration failCgroupV1 'Default: true' from 1.35 (kubernetes/kubelet v0.35.0 " \
	"config/v1beta1/types.go 917-923, KEP-5573), 'Default: false' 1.31-1.34"
#define SRC_PFLAG "spf13/pflag v1.0.6 bool.go 54-57 (NoOptDefVal \"true\") and flag.go parseLongArg() " \
	"990-1000; kubernetes cmd/kubelet/app/server.go ('unknown command')"
#define SRC_LXC "lxc src/lxc/cgroups/cgfsng.c cgfsng_setup_limits_legacy() ('Ignoring legacy cgroup " \
	"limits on pure cgroup2 system', lxc-4.0.2 to v6.0.6 L3461); v7.0.0 confile.c drops lxc.cgroup.* " \
	"(f29c3a3a6e4b: 'Unsupported config key')"

/* --- names ----------------------------------------------------------------- */

static const char *const decider_names[CGFB_DEC_N] = { "kernel", "systemd", "kubelet", "lxc", "distro" };
static const char *const outcome_names[CGFB_OUT_N] = {
	"not_here", "keeps", "breaks", "broken", "unknown",
};
static const struct { int who; const char *name; } questions[CGFB_Q_N] = {
	[CGFB_Q_NONE] = { -1, "" }, [CGFB_Q_VERSION] = { CGFB_DEC_KERNEL, "" },
	[CGFB_Q_MEMCG_V1] = { CGFB_DEC_KERNEL, "memcg_v1" },
	[CGFB_Q_CPUSETS_V1] = { CGFB_DEC_KERNEL, "cpusets_v1" },
	[CGFB_Q_CONTROLLERS] = { CGFB_DEC_KERNEL, "controllers" },
	[CGFB_Q_INSTALLED] = { CGFB_DEC_KERNEL, "installed" },
	[CGFB_Q_V1_HOST] = { -1, "v1_host" },
	[CGFB_Q_SWITCH] = { CGFB_DEC_SYSTEMD, "switch" },
	[CGFB_Q_OPT_OUT] = { CGFB_DEC_KUBELET, "opt_out" },
	[CGFB_Q_FLAG] = { CGFB_DEC_KUBELET, "flag" },
	[CGFB_Q_V1_KEYS] = { CGFB_DEC_LXC, "v1_keys" },
};

const char *cgfb_decider_name(enum cgfb_decider d)
{
	return (unsigned)d < CGFB_DEC_N ? decider_names[d] : "?";
}

const char *cgfb_outcome_name(enum cgfb_outcome o)
{
	return (unsigned)o < CGFB_OUT_N ? outcome_names[o] : "?";
}

const char *cgfb_decision_config(const struct cgfb_decision *d)
{
	if (d->who != CGFB_DEC_KERNEL)
		return NULL;
	return d->source == SRC_MEMCG ? "CONFIG_MEMCG_V1" : d->source == SRC_CPUSETS ? "CONFIG_CPUSETS_V1" : NULL;
}

int cgfb_decider_index(const char *name)
{
	for (int i = 0; i < CGFB_DEC_N; i++)
		if (strcmp(decider_names[i], name) == 0)
			return i;
	return -1;
}

int cgfb_question_index(enum cgfb_decider d, const char *name)
{
	for (int i = 1; i < CGFB_Q_N; i++) {
		if (!questions[i].name[0] || strcmp(questions[i].name, name) != 0)
			continue;
		if (questions[i].who == (int)d ||
		    (i == CGFB_Q_V1_HOST && (d == CGFB_DEC_SYSTEMD || d == CGFB_DEC_KUBELET)))
			return i;
	}
	return -1;
}

/* --- the point a decider is asked about --------------------------------------- */

/* A component's version, and what a release says of it; NULL: not asked. */
struct at {
	const char *kernel;
	char memcg_v1, cpusets_v1;           /* 0: look at the installed kernels */
	const char *systemd;
	enum cgfb_cgroup_mode hierarchy;     /* the build default; NONE: the host's */
	bool no_v1;                          /* systemd without v1 support (RHEL 10) */
	const char *kubelet;
	const struct cgfb_release *release;
};

struct ctx {
	const struct cgfb_check *c;
	const struct cgfb_env *e;
	const struct cgfb_finding *f;
	const struct cgfb_target *t;
};

static void say(char *why, size_t sz, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void say(char *why, size_t sz, const char *fmt, ...)
{
	va_list ap;

	if (!why || !sz)
		return;
	va_start(ap, fmt);
	vsnprintf(why, sz, fmt, ap);
	va_end(ap);
}

static int vcmp(const char *a, const char *b)
{
	return cgfb_version_cmp(a, b);
}

/* v compared with t at t's precision: 6.12.48 is 6.12, and past 6.11. */
static int cmp_at(const char *t, const char *v)
{
	char cut[64];
	unsigned dots = 0, want = 0;
	size_t n = 0;

	for (const char *p = t; *p; p++)
		want += *p == '.';
	while (v[n] && n < sizeof(cut) - 1 && !(v[n] == '.' && dots++ == want))
		n++;
	snprintf(cut, sizeof(cut), "%.*s", (int)n, v);
	return vcmp(t, cut);
}

/* a is in the series t names. */
static bool in_series(const char *t, const char *a)
{
	return cmp_at(t, a) == 0;
}

/* The target t is at or past version v. */
static bool at_or_past(const char *t, const char *v)
{
	return t && v && cmp_at(t, v) >= 0;
}

static bool mode_v1(enum cgfb_cgroup_mode m)
{
	return m == CGFB_MODE_LEGACY || m == CGFB_MODE_HYBRID;
}

/* --- the kernel -------------------------------------------------------------- */

/* How the kernel of a sets the option: a release's word, else the newest
 * installed kernel of that series whose configuration was read. */
static char kconfig_at(const struct ctx *x, const struct at *a, bool memcg, const char **from)
{
	char v = memcg ? a->memcg_v1 : a->cpusets_v1;

	*from = NULL;
	if (v) {
		*from = a->release ? a->release->name : NULL;
		return v;
	}
	/* Of the installed kernels of that series, one that keeps it will do:
	 * the administrator boots that one (the others have findings of their
	 * own). */
	for (unsigned i = 0; i < x->e->n_kernels; i++) {
		const struct cgfb_kernel *k = &x->e->kernels[i];
		char kv = memcg ? k->memcg_v1 : k->cpusets_v1;

		if (kv == '?' || !in_series(a->kernel, k->release) || (*from && v != 'y' && kv != 'y'))
			continue;
		if (!*from || kv == 'y') {
			*from = k->config;
			v = kv;
		}
	}
	if (*from)
		return v;
	/* The running kernel mounts it: it is built in. */
	if (x->e->running[0] && in_series(a->kernel, x->e->running) &&
	    (memcg ? x->e->v1_memory : x->e->v1_cpuset)) {
		*from = "the running kernel, which has it mounted,";
		return 'y';
	}
	return '?';
}

static enum cgfb_outcome kernel_v1(const struct ctx *x, const struct at *a, bool memcg, char *why,
				   size_t sz)
{
	const char *since = memcg ? "6.11" : "6.12", *opt = memcg ? "CONFIG_MEMCG_V1" : "CONFIG_CPUSETS_V1";
	const char *ctl = memcg ? "memory" : "cpuset", *from;
	char v;

	if (!a->kernel)
		return CGFB_OUT_NOT_HERE;
	if (!at_or_past(a->kernel, since)) {
		say(why, sz, "kernel %s has %s v1 whatever its configuration", a->kernel, ctl);
		return CGFB_OUT_KEEPS;
	}
	v = kconfig_at(x, a, memcg, &from);
	if (v == 'y') {
		say(why, sz, "kernel %s keeps %s v1: %s sets %s=y", a->kernel, ctl, from, opt);
		return CGFB_OUT_KEEPS;
	}
	if (v == 'n')
		say(why, sz, "kernel %s has no %s v1: %s does not set %s (from 6.12 the v1 mount fails: "
		    "'Unknown subsys name %s')", a->kernel, ctl, from, opt, ctl);
	else
		say(why, sz, "kernels from %s have %s v1 only when built with %s=y (default n; no "
		    "configuration of a %s kernel was found, so the default is assumed); from 6.12 the "
		    "v1 mount fails ('Unknown subsys name %s'), on 6.11 it mounts without %s files",
		    since, ctl, opt, a->kernel, ctl, ctl);
	return CGFB_OUT_BREAKS;
}

static enum cgfb_outcome kernel_at(const struct ctx *x, const struct cgfb_ask *q, const struct at *a,
				   char *why, size_t sz, const char **src)
{
	const struct cgfb_finding *f = x->f;
	enum cgfb_outcome m, c;

	if (!a->kernel)
		return CGFB_OUT_NOT_HERE;
	switch (q->q) {
	case CGFB_Q_VERSION:
		*src = f->rule->source;
		if (!at_or_past(a->kernel, q->version)) {
			say(why, sz, "kernel %s is before %s", a->kernel, q->version);
			return CGFB_OUT_KEEPS;
		}
		say(why, sz, "from kernel %s: %s", q->version, f->rule->effect);
		return CGFB_OUT_BREAKS;
	case CGFB_Q_MEMCG_V1:
		*src = SRC_MEMCG;
		return kernel_v1(x, a, true, why, sz);
	case CGFB_Q_CPUSETS_V1:
		*src = SRC_CPUSETS;
		return kernel_v1(x, a, false, why, sz);
	case CGFB_Q_CONTROLLERS:
		m = f->controllers & (1u << CGFB_C_MEMORY) ? kernel_v1(x, a, true, why, sz) : CGFB_OUT_NOT_HERE;
		*src = SRC_MEMCG;
		if (m == CGFB_OUT_BREAKS)
			return m;
		c = f->controllers & (1u << CGFB_C_CPUSET) ? kernel_v1(x, a, false, why, sz) : CGFB_OUT_NOT_HERE;
		if (c != CGFB_OUT_NOT_HERE)
			*src = SRC_CPUSETS;
		if (c == CGFB_OUT_BREAKS || m == CGFB_OUT_KEEPS || c == CGFB_OUT_KEEPS)
			return c == CGFB_OUT_NOT_HERE ? m : c;
		say(why, sz, "no kernel option removes the other v1 controllers");
		return CGFB_OUT_NOT_HERE;
	case CGFB_Q_INSTALLED:
		*src = f->rule->option && strcmp(f->rule->option, "CONFIG_CPUSETS_V1") == 0 ? SRC_CPUSETS : SRC_MEMCG;
		if (!f->kernel || !at_or_past(a->kernel, f->kernel))
			return CGFB_OUT_KEEPS;
		say(why, sz, "booted into kernel %s, which is built without %s, the v1 hierarchy "
		    "cannot be mounted", f->kernel, f->rule->option ? f->rule->option : "it");
		return CGFB_OUT_BREAKS;
	default:
		return CGFB_OUT_NOT_HERE;
	}
}

/* --- systemd -------------------------------------------------------------------- */

enum sd { SD_V1, SD_V2, SD_REFUSES, SD_UNKNOWN };

static bool in_container(const struct cgfb_env *e)
{
	return e->container[0] && !e->copy;
}

/* The hierarchy the host's own build of systemd sets up when the command
 * line asks nothing: seen on a running v1 host that asked nothing, else
 * the distribution release's. */
static enum cgfb_cgroup_mode host_default(const struct cgfb_env *e)
{
	const struct cgfb_release *r;

	if (!e->copy && e->sw.unified < 0 && !e->sw.no_v1_all && mode_v1(e->mode))
		return e->mode;
	r = cgfb_release_find(cgfb_env_family(e), e->distro_version);
	return r ? r->hierarchy : CGFB_MODE_NONE;
}

/* What systemd of version v sets up at the host's next boot. */
static enum sd systemd_boot(const struct cgfb_env *e, const struct at *a, char *why, size_t sz,
			    const char **src)
{
	const struct cgfb_switches *s = &e->sw;
	const char *v = a->systemd;
	enum cgfb_cgroup_mode dflt = a->hierarchy != CGFB_MODE_NONE ? a->hierarchy : host_default(e);
	bool want_v1, removed = a->no_v1 || vcmp(v, "258") >= 0;

	if (in_container(e)) {
		*src = SRC_SD_CONTAINER;
		if (e->mode == CGFB_MODE_UNIFIED) {
			say(why, sz, "the container manager gave it cgroup v2");
			return SD_V2;
		}
		if (!mode_v1(e->mode))
			return SD_UNKNOWN;
		if (removed) {
			*src = SRC_SD258;
			say(why, sz, "systemd %s refuses a tmpfs /sys/fs/cgroup, in a container too "
			    "('Detected unsupported legacy cgroup hierarchy, refusing execution'): the "
			    "container does not start while its host is on v1", v);
			return SD_REFUSES;
		}
		say(why, sz, "in a container systemd %s follows the host's v1 hierarchy%s", v,
		    vcmp(v, "256") == 0 ? " (after a 30 s wait at each start)" : "");
		return SD_V1;
	}
	if (removed) {
		*src = SRC_SD258;
		say(why, sz, "systemd %s%s has no cgroup v1: it always mounts cgroup v2 and ignores "
		    "systemd.unified_cgroup_hierarchy=0 and the force switch", v, a->no_v1 ? " of this release" : "");
		return SD_V2;
	}
	if (e->copy && !e->cmdlines.n) {
		*src = SRC_SD255;
		say(why, sz, "systemd %s reads the kernel command line first, and the copy holds none "
		    "(no /etc/kernel/cmdline, boot entry or /etc/default/grub)", v);
		return SD_UNKNOWN;
	}
	if (s->unified >= 0)
		want_v1 = s->unified == 0;
	else if (s->no_v1_all)
		want_v1 = false;
	else if (vcmp(v, "256") >= 0)
		want_v1 = false;          /* 256: the build default is gone, unified */
	else if (dflt == CGFB_MODE_NONE) {
		*src = SRC_SD255;
		say(why, sz, "nothing on the command line and the build default of systemd %s here "
		    "is unknown", v);
		return SD_UNKNOWN;
	} else
		want_v1 = dflt != CGFB_MODE_UNIFIED;
	if (!want_v1) {
		*src = vcmp(v, "256") >= 0 ? SRC_SD256 : SRC_SD255;
		say(why, sz, s->unified < 0 && vcmp(v, "256") >= 0 && mode_v1(e->mode)
		    ? "systemd %s has no v1 build default any more: with nothing on the command line "
		      "it boots cgroup v2" : "systemd %s boots cgroup v2 here", v);
		return SD_V2;
	}
	if (vcmp(v, "256") < 0) {
		*src = SRC_SD255;
		say(why, sz, "systemd %s boots cgroup v1", v);
		return SD_V1;
	}
	if (vcmp(v, "257") < 0) {
		*src = SRC_SD256;
		if (s->force == 1) {
			say(why, sz, "systemd %s keeps v1 with SYSTEMD_CGROUP_ENABLE_LEGACY_FORCE=1, after "
			    "a 30 s wait at each boot", v);
			return SD_V1;
		}
		say(why, sz, "systemd %s refuses to boot a v1 host without "
		    "SYSTEMD_CGROUP_ENABLE_LEGACY_FORCE=1 on the kernel command line", v);
		return SD_REFUSES;
	}
	*src = SRC_SD257;
	if (s->force == 1 && s->unified == 0) {
		say(why, sz, "systemd %s keeps v1 with systemd.unified_cgroup_hierarchy=0 and "
		    "SYSTEMD_CGROUP_ENABLE_LEGACY_FORCE=1", v);
		return SD_V1;
	}
	say(why, sz, "systemd %s overrides systemd.unified_cgroup_hierarchy=0 without "
	    "SYSTEMD_CGROUP_ENABLE_LEGACY_FORCE=1: it waits 30 s, then boots cgroup v2", v);
	return SD_V2;
}

/* Whether the host is on v1 now (a copy: at its next boot with its own
 * systemd). -1: cannot tell. */
static int host_v1(const struct cgfb_env *e, char *why, size_t sz)
{
	const char *src;
	struct at a = { .systemd = e->systemd };

	if (!e->copy)
		return mode_v1(e->mode) ? 1 : e->mode == CGFB_MODE_UNIFIED ? 0 : -1;
	if (!e->systemd[0])
		return -1;
	/* Refused is asked for: the copy's configuration wants v1. */
	switch (systemd_boot(e, &a, why, sz, &src)) {
	case SD_V1: case SD_REFUSES: return 1;
	case SD_UNKNOWN: return -1;
	default: return 0;
	}
}

static enum cgfb_outcome systemd_at(const struct ctx *x, const struct cgfb_ask *q, const struct at *a,
				    char *why, size_t sz, const char **src)
{
	const struct cgfb_env *e = x->e;
	const struct cgfb_rule *r = x->f->rule;
	int v1;

	*src = SRC_SD_MODE;
	if (!e->copy && e->pid1[0] && !e->systemd_init) {
		say(why, sz, "PID 1 is %s, not systemd%s", e->pid1,
		    in_container(e) ? ": the host's hierarchy is the container's" : "");
		return CGFB_OUT_NOT_HERE;
	}
	if (e->copy && !e->systemd_init && !e->systemd[0]) {
		say(why, sz, "no systemd in this copy");
		return CGFB_OUT_NOT_HERE;
	}
	v1 = host_v1(e, why, sz);
	if (q->q == CGFB_Q_SWITCH && r->param && v1 != 1) {
		/* A switch on a host already on v2: no effect, so no break. */
		if (strstr(r->param, "unified_cgroup_hierarchy"))
			say(why, sz, "it has no effect: the host is on cgroup v2%s",
			    e->systemd[0] && vcmp(e->systemd, "257") >= 0 && vcmp(e->systemd, "258") < 0
			    ? " (systemd 257 waits 30 s at every boot because of it)" : "");
		else
			say(why, sz, "it has no effect without systemd.unified_cgroup_hierarchy=0, "
			    "on a host on cgroup v2");
		return v1 < 0 ? CGFB_OUT_UNKNOWN : CGFB_OUT_KEEPS;
	}
	if (v1 == 0) {
		say(why, sz, "the host is on cgroup v2 (%s)", e->mode_why);
		return CGFB_OUT_NOT_HERE;
	}
	if (v1 < 0) {
		if (!why[0])
			say(why, sz, "the cgroup mode could not be told (%s)", e->mode_why);
		return CGFB_OUT_UNKNOWN;
	}
	if (!a->systemd)
		return CGFB_OUT_NOT_HERE;
	switch (systemd_boot(e, a, why, sz, src)) {
	case SD_V1: return CGFB_OUT_KEEPS;
	case SD_UNKNOWN: return CGFB_OUT_UNKNOWN;
	default: return CGFB_OUT_BREAKS;
	}
}

/* --- the kubelet ------------------------------------------------------------------ */

static enum cgfb_outcome kubelet_at(const struct ctx *x, const struct cgfb_ask *q, const struct at *a,
				    char *why, size_t sz, const char **src)
{
	const struct cgfb_kubelet *k = &x->e->kubelet;
	const char *from;
	int v1;

	*src = SRC_KUBELET;
	if (q->q == CGFB_Q_FLAG) {
		*src = SRC_PFLAG;
		if (k->bad_flag_unknown)
			say(why, sz, "'%s' is no flag of the kubelet (only --fail-cgroupv1, or "
			    "--fail_cgroupv1): the kubelet does not start ('unknown flag')", k->bad_flag);
		else if (k->bad_flag[0])
			say(why, sz, "a bool flag takes its value after '=' only: '%s' sets failCgroupV1 "
			    "to true and gives the kubelet the argument '%s', and the kubelet does not start "
			    "('unknown command')", k->bad_flag, strrchr(k->bad_flag, ' ') + 1);
		return k->bad_flag[0] ? CGFB_OUT_BROKEN : CGFB_OUT_NOT_HERE;
	}
	if (!k->present && !(x->t && x->t->kubelet[0])) {
		say(why, sz, "no kubelet here (no package, program or configuration of one)");
		return CGFB_OUT_NOT_HERE;
	}
	v1 = host_v1(x->e, why, sz);
	if (v1 == 0) {
		say(why, sz, "the kubelet decides by statfs of /sys/fs/cgroup, and that is cgroup2");
		return q->q == CGFB_Q_OPT_OUT ? CGFB_OUT_KEEPS : CGFB_OUT_NOT_HERE;
	}
	if (v1 < 0)
		return CGFB_OUT_UNKNOWN;
	if (k->fail_v1 == 0) {
		say(why, sz, "failCgroupV1 is false (%s): the kubelet warns (a CgroupV1 event) and runs "
		    "on v1; v1 support is deprecated and will be removed", k->fail_v1_where);
		return CGFB_OUT_KEEPS;
	}
	if (q->q == CGFB_Q_OPT_OUT)
		return CGFB_OUT_NOT_HERE;
	if (!a->kubelet)
		return CGFB_OUT_NOT_HERE;
	from = k->fail_v1 == 1 ? "1.31" : "1.35";
	if (!at_or_past(a->kubelet, from)) {
		say(why, sz, "kubelet %s starts on a v1 host", a->kubelet);
		return CGFB_OUT_KEEPS;
	}
	if (k->fail_v1 == 1)
		say(why, sz, "failCgroupV1 is true (%s): the kubelet refuses to start on a v1 host "
		    "('kubelet is configured to not run on a host using cgroup v1')", k->fail_v1_where);
	else
		say(why, sz, "from 1.35 failCgroupV1 is true by default: the kubelet refuses to start on a "
		    "v1 host unless failCgroupV1: false is set");
	return CGFB_OUT_BREAKS;
}

/* --- LXC -------------------------------------------------------------------------- */

static enum cgfb_outcome lxc_now(const struct ctx *x, char *why, size_t sz, const char **src)
{
	*src = SRC_LXC;
	if (x->e->mode == CGFB_MODE_UNIFIED) {
		say(why, sz, "LXC 4.0.2 to 6.0 ignores lxc.cgroup.* keys on a host with only cgroup v2 "
		    "('Ignoring legacy cgroup limits on pure cgroup2 system'): the container runs "
		    "without these limits now, and LXC 7.0 refuses the keys");
		return CGFB_OUT_BROKEN;
	}
	say(why, sz, "LXC applies lxc.cgroup.* keys while the controller is on a v1 hierarchy; "
	    "LXC 7.0 no longer knows them ('Unsupported config key') and the container does not start");
	return CGFB_OUT_BREAKS;
}

/* --- one question at one point -------------------------------------------------- */

static enum cgfb_outcome ask_at(const struct ctx *x, const struct cgfb_ask *q, const struct at *a,
				char *why, size_t sz, const char **src)
{
	if (why && sz)
		why[0] = '\0';
	switch (q->who) {
	case CGFB_DEC_KERNEL: return kernel_at(x, q, a, why, sz, src);
	case CGFB_DEC_SYSTEMD: return systemd_at(x, q, a, why, sz, src);
	case CGFB_DEC_KUBELET: return kubelet_at(x, q, a, why, sz, src);
	default: return CGFB_OUT_NOT_HERE;
	}
}

/* The versions where a decider's behaviour changes, oldest first. */
static unsigned milestones(const struct ctx *x, const struct cgfb_ask *q, struct at *out)
{
	static const char *const sd[] = { "256", "257", "258" };
	unsigned n = 0;

	memset(out, 0, 4 * sizeof(*out));
	switch (q->who) {
	case CGFB_DEC_KERNEL:
		if (q->q == CGFB_Q_VERSION)
			out[n++].kernel = q->version;
		else if (q->q == CGFB_Q_INSTALLED)
			out[n++].kernel = x->f->kernel;
		else {
			if (q->q != CGFB_Q_CPUSETS_V1)
				out[n++].kernel = "6.11";
			if (q->q != CGFB_Q_MEMCG_V1)
				out[n++].kernel = "6.12";
		}
		break;
	case CGFB_DEC_SYSTEMD:
		for (unsigned i = 0; i < 3; i++)
			out[n++].systemd = sd[i];
		break;
	case CGFB_DEC_KUBELET:
		out[n++].kubelet = "1.31";
		out[n++].kubelet = "1.35";
		break;
	}
	return n;
}

/* The point of a target: what it names, and a release's components. */
static bool target_at(const struct cgfb_target *t, struct at *a)
{
	memset(a, 0, sizeof(*a));
	if (!t || !t->any)
		return false;
	if (t->release) {
		a->release = t->release;
		a->kernel = t->release->kernel;
		a->memcg_v1 = t->release->memcg_v1;
		a->cpusets_v1 = t->release->cpusets_v1;
		a->systemd = t->release->systemd;
		a->hierarchy = t->release->hierarchy;
		a->no_v1 = !t->release->v1;
	}
	if (t->kernel[0]) {
		a->kernel = t->kernel;
		a->memcg_v1 = a->cpusets_v1 = 0;
	}
	if (t->systemd[0])
		a->systemd = t->systemd;
	if (t->kubelet[0])
		a->kubelet = t->kubelet;
	return true;
}

/* The installed versions: what the host runs at its next start. */
static void now_at(const struct cgfb_env *e, struct at *a)
{
	memset(a, 0, sizeof(*a));
	a->kernel = e->running[0] ? e->running : NULL;
	a->systemd = e->systemd[0] ? e->systemd : NULL;
	a->kubelet = e->kubelet.version[0] ? e->kubelet.version : NULL;
}

static const char *at_name(const struct cgfb_ask *q, const struct at *a, char *buf, size_t sz)
{
	const char *v = q->who == CGFB_DEC_KERNEL ? a->kernel : q->who == CGFB_DEC_SYSTEMD ? a->systemd
										       : a->kubelet;

	if (a->release)
		return a->release->name;
	snprintf(buf, sz, "%s", v ? v : "");
	return buf;
}

/* This host's own kernel past the option's version keeps the controller's
 * v1 (built with it, or running with it mounted): the option, not the
 * version, is what breaks it, and a kernel built as this host's are keeps
 * it. Only a target kernel without the option breaks it. */
static bool kernel_kept_one(const struct cgfb_env *e, bool memcg, char *why, size_t sz)
{
	const char *since = memcg ? "6.11" : "6.12", *opt = memcg ? "CONFIG_MEMCG_V1" : "CONFIG_CPUSETS_V1";

	if (e->running[0] && vcmp(e->running, since) >= 0 && (memcg ? e->v1_memory : e->v1_cpuset)) {
		say(why, sz, "the running kernel %s has %s v1 mounted, so it is built with %s=y; only a "
		    "kernel built without it (the default, as distributions build theirs from %s) breaks it",
		    e->running, memcg ? "memory" : "cpuset", opt, since);
		return true;
	}
	for (unsigned i = 0; i < e->n_kernels; i++) {
		const struct cgfb_kernel *k = &e->kernels[i];

		if (vcmp(k->release, since) >= 0 && (memcg ? k->memcg_v1 : k->cpusets_v1) == 'y') {
			say(why, sz, "the installed kernel %s keeps %s v1: %s sets %s=y; only a kernel built "
			    "without it (the default, as distributions build theirs from %s) breaks it",
			    k->release, memcg ? "memory" : "cpuset", k->config, opt, since);
			return true;
		}
	}
	return false;
}

static bool kernel_kept(const struct ctx *x, const struct cgfb_ask *q, char *why, size_t sz,
			const char **src)
{
	bool mem = q->q == CGFB_Q_MEMCG_V1 || (q->q == CGFB_Q_CONTROLLERS && (x->f->controllers & (1u << CGFB_C_MEMORY)));
	bool cpu = q->q == CGFB_Q_CPUSETS_V1 || (q->q == CGFB_Q_CONTROLLERS && (x->f->controllers & (1u << CGFB_C_CPUSET)));
	char w2[sizeof(((struct cgfb_decision *)0)->why)];

	if (q->who != CGFB_DEC_KERNEL || (!mem && !cpu))
		return false;
	if ((mem && !kernel_kept_one(x->e, true, why, sz)) || (cpu && !kernel_kept_one(x->e, false, w2, sizeof(w2))))
		return false;
	if (!mem)
		snprintf(why, sz, "%s", w2);
	*src = mem ? SRC_MEMCG : SRC_CPUSETS;
	return true;
}

static void decide_ask(const struct ctx *x, const struct cgfb_ask *q, struct cgfb_decision *d)
{
	struct at ms[4], now, tgt;
	const char *src = NULL;
	char why[sizeof(d->why) - 64], name[128];
	unsigned n = milestones(x, q, ms);
	enum cgfb_outcome o, first = CGFB_OUT_NOT_HERE;

	memset(d, 0, sizeof(*d));
	d->who = q->who;
	if (q->who == CGFB_DEC_LXC) {
		d->out = lxc_now(x, d->why, sizeof(d->why), &d->source);
		snprintf(d->at, sizeof(d->at), "%s", d->out == CGFB_OUT_BREAKS ? "7.0" : "");
		d->on_target = d->out == CGFB_OUT_BROKEN;
		return;
	}
	/* Now: the installed versions decide at the next start. */
	now_at(x->e, &now);
	o = ask_at(x, q, &now, why, sizeof(why), &src);
	if (o == CGFB_OUT_BROKEN || o == CGFB_OUT_UNKNOWN ||
	    (o == CGFB_OUT_BREAKS && (q->who != CGFB_DEC_KERNEL || q->q == CGFB_Q_VERSION))) {
		d->out = o == CGFB_OUT_BREAKS ? CGFB_OUT_BROKEN : o;
		snprintf(d->at, sizeof(d->at), "%s", o == CGFB_OUT_UNKNOWN ? "" : at_name(q, &now, name, sizeof(name)));
		snprintf(d->why, sizeof(d->why), "%s%s", why,
			 o == CGFB_OUT_BREAKS && q->who != CGFB_DEC_KERNEL ? " (the installed version, at its next start)" :
			 o == CGFB_OUT_BREAKS ? " (the running kernel)" : "");
		d->source = src;
	}
	if (d->out == CGFB_OUT_NOT_HERE && kernel_kept(x, q, d->why, sizeof(d->why), &d->source))
		d->out = CGFB_OUT_KEEPS;
	for (unsigned i = 0; i < n && d->out == CGFB_OUT_NOT_HERE; i++) {
		o = ask_at(x, q, &ms[i], why, sizeof(why), &src);
		if (o == CGFB_OUT_BREAKS) {
			d->out = o;
			snprintf(d->at, sizeof(d->at), "%s", at_name(q, &ms[i], name, sizeof(name)));
			snprintf(d->why, sizeof(d->why), "%s", why);
			d->source = src;
		} else if (first == CGFB_OUT_NOT_HERE || o == CGFB_OUT_UNKNOWN) {
			first = o;
			snprintf(d->why, sizeof(d->why), "%s", why);
			d->source = src;
		}
	}
	if (d->out == CGFB_OUT_NOT_HERE)
		d->out = first;
	if (target_at(x->t, &tgt) && d->out != CGFB_OUT_BROKEN) {
		o = ask_at(x, q, &tgt, why, sizeof(why), &src);
		d->on_target = o == CGFB_OUT_BREAKS || o == CGFB_OUT_BROKEN;
		/* The decision stays where it breaks first; what the target's
		 * version does is what it says. */
		if (d->on_target || o == CGFB_OUT_KEEPS) {
			snprintf(d->why, sizeof(d->why), "%s", why);
			d->source = src;
		}
	} else {
		d->on_target = d->out == CGFB_OUT_BROKEN || (!(x->t && x->t->any) && d->out == CGFB_OUT_BREAKS);
	}
}

/* The first later release of the host's distribution where a question of
 * the finding breaks. */
static void decide_distro(const struct ctx *x, struct cgfb_decision *d)
{
	const char *family = cgfb_env_family(x->e), *src;
	const struct cgfb_release *host = cgfb_release_find(family, x->e->distro_version), *r;
	char why[sizeof(d->why) - 160];

	memset(d, 0, sizeof(*d));
	d->who = CGFB_DEC_DISTRO;
	d->out = CGFB_OUT_NOT_HERE;
	if (!host)
		return;
	for (r = cgfb_release_next(family, host); r; r = cgfb_release_next(family, r)) {
		struct cgfb_target t = { .any = true, .release = r };
		struct at a;

		target_at(&t, &a);
		for (unsigned i = 0; i < x->f->rule->n_asks; i++) {
			const struct cgfb_ask *q = &x->f->rule->asks[i];

			/* A container's kernel is its host's: an upgrade inside
			 * it does not change it. */
			if (q->who == CGFB_DEC_LXC || q->who == CGFB_DEC_KUBELET ||
			    (q->who == CGFB_DEC_KERNEL && in_container(x->e)) ||
			    ask_at(x, q, &a, why, sizeof(why), &src) != CGFB_OUT_BREAKS)
				continue;
			d->out = CGFB_OUT_BREAKS;
			/* A later release of the family as the target is past it. */
			d->on_target = x->t && x->t->release && strcmp(x->t->release->family, family) == 0 &&
				       x->t->release >= r;
			snprintf(d->at, sizeof(d->at), "%s", r->name);
			snprintf(d->why, sizeof(d->why), "the upgrade to %s (kernel %s, systemd %s, %s by "
				 "default): %s", r->name, r->kernel, r->systemd,
				 cgfb_cgroup_mode_name(r->hierarchy), why);
			d->source = r->source;
			return;
		}
	}
}

int cgfb_decide(struct cgfb_check *c, const struct cgfb_target *t)
{
	for (size_t i = 0; i < c->n; i++) {
		struct cgfb_finding *f = &c->f[i];
		const struct ctx x = { .c = c, .e = c->env, .f = f, .t = t };

		f->n_dec = 0;
		for (unsigned k = 0; k < f->rule->n_asks && f->n_dec < CGFB_DECISIONS_MAX - 1; k++)
			decide_ask(&x, &f->rule->asks[k], &f->dec[f->n_dec++]);
		if (f->n_dec && !f->kernel) {
			decide_distro(&x, &f->dec[f->n_dec]);
			if (f->dec[f->n_dec].out != CGFB_OUT_NOT_HERE)
				f->n_dec++;
		}
		f->breaks = f->unknown = f->on_target = false;
		for (unsigned k = 0; k < f->n_dec; k++) {
			const struct cgfb_decision *d = &f->dec[k];

			f->breaks |= d->out == CGFB_OUT_BREAKS || d->out == CGFB_OUT_BROKEN;
			f->unknown |= d->out == CGFB_OUT_UNKNOWN;
			f->on_target |= d->on_target;
		}
	}
	return 0;
}

enum cgfb_cgroup_mode cgfb_predict_mode(const struct cgfb_env *e, char *why, size_t sz)
{
	struct at a = { .systemd = e->systemd };
	const char *src;

	if (!e->systemd[0]) {
		say(why, sz, "no systemd version found in the copy");
		return CGFB_MODE_NONE;
	}
	switch (systemd_boot(e, &a, why, sz, &src)) {
	case SD_V1:
	case SD_REFUSES:                    /* what it asks for, refused or not */
		/* cg_is_hybrid_wanted(): the switch, else (255) the build
		 * default, (256, 257) hybrid. */
		return e->sw.legacy_controller == 1 ||
		       (e->sw.legacy_controller < 0 && vcmp(e->systemd, "256") < 0 &&
			host_default(e) == CGFB_MODE_LEGACY) ? CGFB_MODE_LEGACY : CGFB_MODE_HYBRID;
	case SD_V2:
		return CGFB_MODE_UNIFIED;
	default:
		return CGFB_MODE_NONE;
	}
}
