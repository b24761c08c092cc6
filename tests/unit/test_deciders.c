/* The deciders (client/readiness/decide.c), a case per rule of each, on
 * environments made here: what systemd, the kernel, the kubelet and LXC
 * decide, as their sources say (docs/READINESS.md). Each case names the
 * source line its expectation comes from. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>

#include "readiness/advice.h"
#include "readiness/check.h"
#include "readiness/cmdline.h"
#include "readiness/decide.h"
#include "readiness/output.h"
#include "readiness/rules.h"
#include "readiness/version.h"
#include "snapshot/attrs.h"

static struct cgfb_rules rules;

static int load(void **state)
{
	char err[256] = "";

	if (cgfb_rules_load_builtin(&rules, err, sizeof(err)))
		fail_msg("%s", err);
	return 0;
}

static int unload(void **state)
{
	cgfb_rules_free(&rules);
	return 0;
}

static const struct cgfb_rule *rule(const char *id)
{
	for (size_t i = 0; i < rules.n; i++)
		if (strcmp(rules.r[i].id, id) == 0)
			return &rules.r[i];
	fail_msg("no rule %s", id);
	return NULL;
}

/* A live host: PID 1 systemd, mode m, the command line cmd, systemd sd
 * installed, Debian 12 unless said otherwise. */
static struct cgfb_check *host(enum cgfb_cgroup_mode m, const char *cmd, const char *sd)
{
	struct cgfb_check *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	assert_non_null(c->env = calloc(1, sizeof(*c->env)));
	c->env->mode = m;
	snprintf(c->env->mode_why, sizeof(c->env->mode_why), "test");
	snprintf(c->env->pid1, sizeof(c->env->pid1), "systemd");
	c->env->systemd_init = true;
	snprintf(c->env->distro_id, sizeof(c->env->distro_id), "debian");
	snprintf(c->env->distro_version, sizeof(c->env->distro_version), "12");
	c->env->cmdlines.n = 1;
	snprintf(c->env->cmdlines.l[0].from, sizeof(c->env->cmdlines.l[0].from), "/proc/cmdline");
	snprintf(c->env->cmdlines.l[0].text, sizeof(c->env->cmdlines.l[0].text), "%s", cmd);
	cgfb_switches_read(cmd, &c->env->sw);
	snprintf(c->env->sw_from, sizeof(c->env->sw_from), "/proc/cmdline");
	snprintf(c->env->systemd, sizeof(c->env->systemd), "%s", sd);
	c->env->kubelet.fail_v1 = -1;
	c->sources = 1;
	c->decided = m != CGFB_MODE_NONE;
	return c;
}

static void done(struct cgfb_check *c)
{
	cgfb_check_free(c);
	free(c);
}

static struct cgfb_finding *find(struct cgfb_check *c, const char *id, uint32_t ctl)
{
	assert_int_equal(cgfb_check_found_ctl(c, rule(id), ctl, "test place"), 0);
	return &c->f[c->n - 1];
}

static void decide(struct cgfb_check *c, const char *target)
{
	static struct cgfb_target t;
	char err[256];

	memset(&t, 0, sizeof(t));
	if (target && cgfb_target_parse(target, &t, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(cgfb_decide(c, target ? &t : NULL), 0);
}

static const struct cgfb_decision *dec(const struct cgfb_finding *f, enum cgfb_decider who, unsigned nth)
{
	for (unsigned i = 0; i < f->n_dec; i++)
		if (f->dec[i].who == who && nth-- == 0)
			return &f->dec[i];
	fail_msg("%s: no %s decision", f->rule->id, cgfb_decider_name(who));
	return NULL;
}

#define assert_outcome(d, o, at_) do { \
	const struct cgfb_decision *d_ = (d); \
	if (d_->out != (o) || strcmp(d_->at, (at_)) != 0) \
		fail_msg("%s at '%s' (%s), want %s at '%s'", cgfb_outcome_name(d_->out), d_->at, d_->why, \
			 cgfb_outcome_name(o), (at_)); \
} while (0)
#define assert_why(d, text) do { \
	if (!strstr((d)->why, (text))) \
		fail_msg("'%s' does not say '%s'", (d)->why, (text)); \
} while (0)

/* --- systemd ----------------------------------------------------------------- */

/* systemd v256 src/core/main.c 3100-3114, mount-setup.c 515-519: a v1
 * boot without SYSTEMD_CGROUP_ENABLE_LEGACY_FORCE=1 is refused. */
static void systemd_256_refuses_without_force(void **state)
{
	struct cgfb_check *c = host(CGFB_MODE_HYBRID, "ro systemd.unified_cgroup_hierarchy=0", "252.39");
	struct cgfb_finding *f = find(c, "cgroup-mode-hybrid", 0);

	decide(c, NULL);
	assert_outcome(dec(f, CGFB_DEC_SYSTEMD, 0), CGFB_OUT_BREAKS, "256");
	assert_why(dec(f, CGFB_DEC_SYSTEMD, 0), "refuses to boot a v1 host without SYSTEMD_CGROUP_ENABLE_LEGACY_FORCE=1");
	assert_true(f->breaks && f->on_target);
	decide(c, "systemd=255");
	assert_false(f->on_target);
	done(c);
}

/* v256 cg_is_legacy_force_enabled() 154-168; 257 163-177 wants =0 and the
 * switch together; NEWS 258: no v1. The force switch moves the break from
 * 256 to 258. */
static void systemd_force_keeps_256_and_257(void **state)
{
	struct cgfb_check *c = host(CGFB_MODE_LEGACY, "systemd.unified_cgroup_hierarchy=0 "
				    "systemd.legacy_systemd_cgroup_controller=1 SYSTEMD_CGROUP_ENABLE_LEGACY_FORCE=1",
				    "256.7");
	struct cgfb_finding *f = find(c, "cgroup-mode-legacy", 0);

	decide(c, NULL);
	assert_outcome(dec(f, CGFB_DEC_SYSTEMD, 0), CGFB_OUT_BREAKS, "258");
	decide(c, "systemd=257");
	assert_false(f->on_target);
	assert_why(dec(f, CGFB_DEC_SYSTEMD, 0), "keeps v1 with systemd.unified_cgroup_hierarchy=0 and SYSTEMD_CGROUP_ENABLE_LEGACY_FORCE=1");
	decide(c, "systemd=258");
	assert_true(f->on_target);
	done(c);
}

/* 257 mount-setup.c 518-532: =0 without the force switch waits 30 s and
 * boots v2; the switch alone selects nothing (cg_is_legacy_force_enabled()
 * wants =0 too). */
static void systemd_257_overrides_a_lone_switch(void **state)
{
	struct cgfb_check *c = host(CGFB_MODE_HYBRID, "systemd.unified-cgroup-hierarchy=no", "255.4");
	struct cgfb_finding *f = find(c, "cmdline-legacy", 0);

	decide(c, "systemd=257");
	assert_true(f->on_target);
	assert_why(dec(f, CGFB_DEC_SYSTEMD, 0), "waits 30 s, then boots cgroup v2");
	done(c);
	/* The force switch alone on a host v1 by its build default: 256 has
	 * no build default any more and boots v2 (cg_is_unified_wanted() 109). */
	c = host(CGFB_MODE_HYBRID, "SYSTEMD_CGROUP_ENABLE_LEGACY_FORCE=1", "241");
	f = find(c, "cgroup-mode-hybrid", 0);
	decide(c, NULL);
	assert_outcome(dec(f, CGFB_DEC_SYSTEMD, 0), CGFB_OUT_BREAKS, "256");
	assert_why(dec(f, CGFB_DEC_SYSTEMD, 0), "no v1 build default any more");
	done(c);
}

/* The installed systemd decides the next boot: 256 installed on a v1 host
 * without the switch is broken now, not at a future version. */
static void systemd_installed_breaks_at_next_boot(void **state)
{
	struct cgfb_check *c = host(CGFB_MODE_LEGACY, "systemd.unified_cgroup_hierarchy=0", "256.7");
	struct cgfb_finding *f = find(c, "systemd-refuses-v1", 0);

	decide(c, "systemd=255");
	assert_outcome(dec(f, CGFB_DEC_SYSTEMD, 0), CGFB_OUT_BROKEN, "256.7");
	assert_true(f->on_target);                  /* broken whatever the target */
	done(c);
}

/* A switch on a host already on cgroup v2 has no effect (cg_unified_cached()
 * follows the mounted hierarchy; 257 boots v2 after its 30 s; 258 does not
 * read it): no break, shown as information. legacy_systemd_cgroup_controller
 * alone has no effect (cg_is_hybrid_wanted() only after =0). */
static void systemd_stale_switches_on_v2(void **state)
{
	struct cgfb_check *c = host(CGFB_MODE_UNIFIED, "systemd.unified_cgroup_hierarchy=0 "
				    "systemd.legacy_systemd_cgroup_controller", "257.9");
	struct cgfb_finding *a = find(c, "cmdline-legacy", 0), *b = find(c, "cmdline-legacy-controller", 0);
	char buf[8192];
	FILE *mem;

	decide(c, NULL);
	assert_outcome(dec(a, CGFB_DEC_SYSTEMD, 0), CGFB_OUT_KEEPS, "");
	assert_why(dec(a, CGFB_DEC_SYSTEMD, 0), "systemd 257 waits 30 s at every boot because of it");
	assert_false(a->breaks);
	assert_outcome(dec(b, CGFB_DEC_SYSTEMD, 0), CGFB_OUT_KEEPS, "");
	assert_int_equal(cgfb_check_breaking(c, NULL), 0);
	assert_int_equal(cgfb_check_verdict(c, NULL), CGFB_READY);
	assert_non_null(mem = fmemopen(buf, sizeof(buf), "w"));
	assert_int_equal(cgfb_check_print(mem, c, &(struct cgfb_target){ 0 }, NULL), 0);
	fclose(mem);
	assert_non_null(strstr(buf, "Information:\n  [cmdline-legacy]"));
	done(c);
}

/* systemd in a container follows its host's hierarchy (257 mount-setup.c
 * 518) until 258, which refuses a tmpfs /sys/fs/cgroup there too (259.5
 * main.c 3297); the advice points at the host. */
static void systemd_in_a_container(void **state)
{
	struct cgfb_check *c = host(CGFB_MODE_LEGACY, "", "257.9");
	struct cgfb_finding *f;
	char advice[1024];

	snprintf(c->env->container, sizeof(c->env->container), "lxc");
	f = find(c, "cgroup-mode-legacy", 0);
	decide(c, NULL);
	assert_outcome(dec(f, CGFB_DEC_SYSTEMD, 0), CGFB_OUT_BREAKS, "258");
	assert_why(dec(f, CGFB_DEC_SYSTEMD, 0), "refuses a tmpfs /sys/fs/cgroup, in a container too");
	cgfb_advice(c->env, f, advice, sizeof(advice));
	assert_non_null(strstr(advice, "move the host to cgroup v2"));
	decide(c, "systemd=257");
	assert_false(f->on_target);
	done(c);
	/* PID 1 is not systemd (an application container): not its business. */
	c = host(CGFB_MODE_LEGACY, "", "");
	snprintf(c->env->container, sizeof(c->env->container), "docker");
	snprintf(c->env->pid1, sizeof(c->env->pid1), "java");
	c->env->systemd_init = false;
	f = find(c, "cgroup-mode-legacy", 0);
	decide(c, NULL);
	assert_outcome(dec(f, CGFB_DEC_SYSTEMD, 0), CGFB_OUT_NOT_HERE, "");
	assert_false(f->breaks);
	done(c);
}

/* A copy boots what its systemd and boot configuration say: v255
 * cg_is_hybrid_wanted() gives hybrid for =0 alone, legacy with
 * legacy_systemd_cgroup_controller=1; RHEL 8's build default is legacy. */
static void systemd_predicts_a_copy(void **state)
{
	struct cgfb_check *c = host(CGFB_MODE_NONE, "systemd.unified_cgroup_hierarchy=0", "252");
	char why[256];

	c->env->copy = true;
	assert_int_equal(cgfb_predict_mode(c->env, why, sizeof(why)), CGFB_MODE_HYBRID);
	cgfb_switches_read("systemd.unified_cgroup_hierarchy=0 systemd.legacy_systemd_cgroup_controller=1",
			   &c->env->sw);
	assert_int_equal(cgfb_predict_mode(c->env, why, sizeof(why)), CGFB_MODE_LEGACY);
	cgfb_switches_read("quiet", &c->env->sw);
	assert_int_equal(cgfb_predict_mode(c->env, why, sizeof(why)), CGFB_MODE_UNIFIED);
	snprintf(c->env->distro_id, sizeof(c->env->distro_id), "rocky");
	snprintf(c->env->distro_version, sizeof(c->env->distro_version), "8.10");
	snprintf(c->env->systemd, sizeof(c->env->systemd), "239");
	assert_int_equal(cgfb_predict_mode(c->env, why, sizeof(why)), CGFB_MODE_LEGACY);
	/* systemd 256 in a copy asking for v1 without the force switch: the
	 * copy uses v1 (hybrid: from 256 cg_is_hybrid_wanted() has no build
	 * default, v256 cgroup-setup.c 151), and its systemd refuses it at its
	 * first boot. */
	snprintf(c->env->systemd, sizeof(c->env->systemd), "256.5");
	cgfb_switches_read("systemd.unified_cgroup_hierarchy=0", &c->env->sw);
	assert_int_equal(cgfb_predict_mode(c->env, why, sizeof(why)), CGFB_MODE_HYBRID);
	{
		struct cgfb_finding *f = find(c, "cmdline-legacy", 0);

		decide(c, NULL);
		assert_outcome(dec(f, CGFB_DEC_SYSTEMD, 0), CGFB_OUT_BROKEN, "256.5");
	}
	snprintf(c->env->systemd, sizeof(c->env->systemd), "239");
	cgfb_switches_read("quiet", &c->env->sw);
	/* A copy without any boot command line: systemd reads it first
	 * (cg_is_unified_wanted() 99-101), so the mode cannot be told, and a
	 * finding systemd decides is undecided, never ready. */
	c->env->cmdlines.n = 0;
	assert_int_equal(cgfb_predict_mode(c->env, why, sizeof(why)), CGFB_MODE_NONE);
	assert_non_null(strstr(why, "the copy holds none"));
	c->env->cmdlines.n = 1;
	/* An unknown distribution's systemd 245 with nothing on its command
	 * line: its build default cannot be told. */
	snprintf(c->env->distro_id, sizeof(c->env->distro_id), "gentoo");
	snprintf(c->env->systemd, sizeof(c->env->systemd), "245");
	assert_int_equal(cgfb_predict_mode(c->env, why, sizeof(why)), CGFB_MODE_NONE);
	done(c);
}

/* --- the kernel --------------------------------------------------------------- */

/* init/Kconfig MEMCG_V1 (v6.11, default n): a kernel of the target's series
 * built with =y keeps memory v1; without a configuration the default is
 * assumed and said. */
static void kernel_honours_its_configuration(void **state)
{
	struct cgfb_check *c = host(CGFB_MODE_LEGACY, "", "252");
	struct cgfb_finding *f = find(c, "v1-memory-mounted", 1u << CGFB_C_MEMORY);
	struct cgfb_kernel *k = &c->env->kernels[c->env->n_kernels++];

	snprintf(k->release, sizeof(k->release), "6.12.9-custom");
	snprintf(k->config, sizeof(k->config), "/boot/config-6.12.9-custom");
	k->memcg_v1 = 'y';
	k->cpusets_v1 = 'n';
	decide(c, "kernel=6.12");
	assert_false(f->on_target);
	assert_why(dec(f, CGFB_DEC_KERNEL, 0), "config-6.12.9-custom sets CONFIG_MEMCG_V1=y");
	decide(c, "kernel=6.13");
	assert_true(f->on_target);
	assert_why(dec(f, CGFB_DEC_KERNEL, 0), "so the default is assumed");
	decide(c, "debian=13");                     /* its kernels: MEMCG_V1 not set */
	assert_true(f->on_target);
	/* RHEL 9: its kernel 5.14 keeps memory v1, but its systemd 252 boots
	 * v2 when the command line asks nothing (unified build default). */
	decide(c, "rhel=9");
	assert_false(dec(f, CGFB_DEC_KERNEL, 0)->on_target);
	assert_true(dec(f, CGFB_DEC_SYSTEMD, 0)->on_target);
	done(c);
}

/* The running kernel mounting memory v1 has it built in, whatever its
 * version (cgroup1_parse_param() refuses it otherwise from 6.12): the
 * option, not the version, breaks it, so the kernel keeps it here; only a
 * target kernel without the option breaks it. */
static void kernel_running_has_it(void **state)
{
	struct cgfb_check *c = host(CGFB_MODE_LEGACY, "", "252");
	struct cgfb_finding *f = find(c, "v1-memory-mounted", 1u << CGFB_C_MEMORY);

	snprintf(c->env->running, sizeof(c->env->running), "6.18.44-custom");
	c->env->v1_memory = true;
	decide(c, NULL);
	assert_outcome(dec(f, CGFB_DEC_KERNEL, 0), CGFB_OUT_KEEPS, "");
	assert_why(dec(f, CGFB_DEC_KERNEL, 0), "built with CONFIG_MEMCG_V1=y");
	decide(c, "kernel=6.18");
	assert_false(f->on_target);
	decide(c, "kernel=6.19");
	assert_true(f->on_target);
	done(c);
}

/* A behaviour the kernel changes at a version: from then on, and already
 * now when the running kernel is past it. */
static void kernel_version_changes(void **state)
{
	struct cgfb_check *c = host(CGFB_MODE_LEGACY, "", "252");
	struct cgfb_finding *f = find(c, "knob-kmem-limit", 1u << CGFB_C_MEMORY);

	snprintf(c->env->running, sizeof(c->env->running), "5.10.0-30-amd64");
	decide(c, NULL);
	assert_outcome(dec(f, CGFB_DEC_KERNEL, 0), CGFB_OUT_BREAKS, "5.16");
	decide(c, "kernel=5.15");
	assert_false(f->on_target);
	done(c);
	c = host(CGFB_MODE_LEGACY, "", "252");
	f = find(c, "knob-kmem-limit", 1u << CGFB_C_MEMORY);
	snprintf(c->env->running, sizeof(c->env->running), "6.1.0-18-amd64");
	decide(c, "kernel=5.10");
	assert_outcome(dec(f, CGFB_DEC_KERNEL, 0), CGFB_OUT_BROKEN, "6.1.0-18-amd64");
	assert_true(f->on_target);
	done(c);
}

/* An installed kernel without the option breaks when booted: at the
 * target's precision 6.12 includes 6.12.48, 6.11 does not. */
static void kernel_installed_without_the_option(void **state)
{
	struct cgfb_check *c = host(CGFB_MODE_LEGACY, "", "252");

	assert_int_equal(cgfb_check_found_kernel(c, rule("kernel-no-memcg-v1"), "6.12.48+deb13-amd64",
						 "/boot/config-6.12.48+deb13-amd64"), 0);
	decide(c, "kernel=6.12");
	assert_true(c->f[0].on_target);
	assert_outcome(dec(&c->f[0], CGFB_DEC_KERNEL, 0), CGFB_OUT_BREAKS, "6.12.48+deb13-amd64");
	decide(c, "kernel=6.11");
	assert_false(c->f[0].on_target);
	done(c);
}

/* --- the kubelet --------------------------------------------------------------- */

/* validation_linux.go validateKubeletOSConfiguration(): refuses a v1 host
 * (statfs of /sys/fs/cgroup) when failCgroupV1 is true, the default from
 * 1.35 (kubelet v0.35.0 types.go 917-923). */
static void kubelet_default_from_135(void **state)
{
	struct cgfb_check *c = host(CGFB_MODE_HYBRID, "", "252");
	struct cgfb_finding *f = find(c, "cgroup-mode-hybrid", 0);

	decide(c, NULL);                            /* no kubelet here */
	assert_outcome(dec(f, CGFB_DEC_KUBELET, 0), CGFB_OUT_NOT_HERE, "");
	decide(c, "kubelet=1.35");                  /* asked about one: as it would be */
	assert_true(dec(f, CGFB_DEC_KUBELET, 0)->on_target);
	c->env->kubelet.present = true;
	snprintf(c->env->kubelet.version, sizeof(c->env->kubelet.version), "1.34.2");
	decide(c, NULL);
	assert_outcome(dec(f, CGFB_DEC_KUBELET, 0), CGFB_OUT_BREAKS, "1.35");
	snprintf(c->env->kubelet.version, sizeof(c->env->kubelet.version), "1.35.0");
	decide(c, NULL);
	assert_outcome(dec(f, CGFB_DEC_KUBELET, 0), CGFB_OUT_BROKEN, "1.35.0");
	done(c);
}

/* failCgroupV1: false keeps it running (a warning event); true refuses
 * from 1.31, where the option came; on a v2 host it has nothing to say. */
static void kubelet_opt_out_and_in(void **state)
{
	struct cgfb_check *c = host(CGFB_MODE_LEGACY, "", "252");
	struct cgfb_finding *f = find(c, "cgroup-mode-legacy", 0);

	c->env->kubelet.present = true;
	c->env->kubelet.fail_v1 = 0;
	snprintf(c->env->kubelet.fail_v1_where, sizeof(c->env->kubelet.fail_v1_where),
		 "/var/lib/kubelet/config.yaml:4: failCgroupV1: false");
	decide(c, "kubelet=1.36");
	assert_false(dec(f, CGFB_DEC_KUBELET, 0)->on_target);
	assert_outcome(dec(f, CGFB_DEC_KUBELET, 0), CGFB_OUT_KEEPS, "");
	c->env->kubelet.fail_v1 = 1;
	decide(c, NULL);
	assert_outcome(dec(f, CGFB_DEC_KUBELET, 0), CGFB_OUT_BREAKS, "1.31");
	c->env->mode = CGFB_MODE_UNIFIED;
	decide(c, NULL);
	assert_outcome(dec(f, CGFB_DEC_KUBELET, 0), CGFB_OUT_NOT_HERE, "");
	done(c);
}

/* pflag's bool flag takes no next word (bool.go 54-57, flag.go 990-1000):
 * the kubelet does not start at all. */
static void kubelet_flag_misread(void **state)
{
	struct cgfb_check *c = host(CGFB_MODE_LEGACY, "", "252");
	struct cgfb_finding *f;

	c->env->kubelet.present = true;
	snprintf(c->env->kubelet.bad_flag, sizeof(c->env->kubelet.bad_flag),
		 "/etc/default/kubelet:1: --fail-cgroupv1 false");
	f = find(c, "runtime-kubelet-flag-misread", 0);
	decide(c, "kubelet=1.30");
	assert_outcome(dec(f, CGFB_DEC_KUBELET, 0), CGFB_OUT_BROKEN, "");
	assert_true(f->on_target);
	assert_why(dec(f, CGFB_DEC_KUBELET, 0), "the argument 'false'");
	done(c);
}

/* --- LXC ------------------------------------------------------------------------ */

/* cgfsng_setup_limits_legacy(): 'Ignoring legacy cgroup limits on pure
 * cgroup2 system' (lxc-4.0.2 to 6.0): broken now on v2; on a v1 host LXC 7.0
 * (f29c3a3a6e4b) refuses the keys. */
static void lxc_keys(void **state)
{
	struct cgfb_check *c = host(CGFB_MODE_UNIFIED, "", "252");
	struct cgfb_finding *f = find(c, "runtime-lxc-v1-keys", 0);

	decide(c, "kernel=5.10");
	assert_outcome(dec(f, CGFB_DEC_LXC, 0), CGFB_OUT_BROKEN, "");
	assert_true(f->on_target);
	done(c);
	c = host(CGFB_MODE_HYBRID, "", "252");
	f = find(c, "runtime-lxc-v1-keys", 0);
	decide(c, NULL);
	assert_outcome(dec(f, CGFB_DEC_LXC, 0), CGFB_OUT_BREAKS, "7.0");
	done(c);
}

/* --- distributions ------------------------------------------------------------ */

/* RHEL 8 is legacy by its build default (systemd.spec
 * -Ddefault-hierarchy=legacy); RHEL 9's systemd 252 is unified by default,
 * so the upgrade is the break, one release before a forced host's; RHEL 10
 * has no v1 at all (leapp's inhibitcgroupsv1). */
static void release_next_and_targets(void **state)
{
	struct cgfb_check *c = host(CGFB_MODE_LEGACY, "ro crashkernel=auto", "239");
	struct cgfb_finding *f;
	char advice[1024];

	snprintf(c->env->distro_id, sizeof(c->env->distro_id), "rhel");
	snprintf(c->env->distro_version, sizeof(c->env->distro_version), "8.10");
	f = find(c, "cgroup-mode-legacy", 0);
	decide(c, NULL);
	assert_outcome(dec(f, CGFB_DEC_DISTRO, 0), CGFB_OUT_BREAKS, "RHEL 9");
	cgfb_advice(c->env, f, advice, sizeof(advice));
	assert_non_null(strstr(advice, "grubby --update-kernel=ALL --args=\"systemd.unified_cgroup_hierarchy=1\""));
	decide(c, "rhel=9");
	assert_true(f->on_target);
	assert_true(dec(f, CGFB_DEC_DISTRO, 0)->on_target);      /* the release where it breaks */
	decide(c, "debian=13");
	assert_false(dec(f, CGFB_DEC_DISTRO, 0)->on_target);     /* another family's */
	done(c);
	/* Asked for v1 on the command line, RHEL 9 keeps it; RHEL 10 not. */
	c = host(CGFB_MODE_LEGACY, "systemd.unified_cgroup_hierarchy=0 systemd.legacy_systemd_cgroup_controller",
		 "239");
	snprintf(c->env->distro_id, sizeof(c->env->distro_id), "rhel");
	snprintf(c->env->distro_version, sizeof(c->env->distro_version), "8.10");
	f = find(c, "cgroup-mode-legacy", 0);
	decide(c, NULL);
	assert_outcome(dec(f, CGFB_DEC_DISTRO, 0), CGFB_OUT_BREAKS, "RHEL 10");
	decide(c, "rhel=9");
	assert_false(f->on_target);
	decide(c, "rhel=10,systemd=257");
	assert_true(f->on_target);
	cgfb_advice(c->env, f, advice, sizeof(advice));
	assert_non_null(strstr(advice, "grubby --update-kernel=ALL --remove-args="));
	done(c);
}

/* --- parsing what the deciders read ------------------------------------------ */

/* proc_cmdline_get_bool(): a bare key is true, the last one counts, '-'
 * and '_' are the same; parse_boolean()'s words; cgroup_no_v1=all. */
static void switches(void **state)
{
	struct cgfb_switches s;

	cgfb_switches_read("systemd.unified_cgroup_hierarchy=0 systemd.unified-cgroup-hierarchy=TRUE", &s);
	assert_int_equal(s.unified, 1);
	cgfb_switches_read("SYSTEMD_CGROUP_ENABLE_LEGACY_FORCE systemd.legacy_systemd_cgroup_controller=maybe", &s);
	assert_int_equal(s.force, 1);
	assert_int_equal(s.legacy_controller, -1);
	cgfb_switches_read("cgroup_no_v1=all -- systemd.unified_cgroup_hierarchy=0", &s);
	assert_true(s.no_v1_all);
	assert_int_equal(s.unified, -1);
	cgfb_switches_read("cgroup_no_v1=memory systemd.unified_cgroup_hierarchy=\"off\"", &s);
	assert_false(s.no_v1_all);
	assert_int_equal(s.unified, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(systemd_256_refuses_without_force),
		cmocka_unit_test(systemd_force_keeps_256_and_257),
		cmocka_unit_test(systemd_257_overrides_a_lone_switch),
		cmocka_unit_test(systemd_installed_breaks_at_next_boot),
		cmocka_unit_test(systemd_stale_switches_on_v2),
		cmocka_unit_test(systemd_in_a_container),
		cmocka_unit_test(systemd_predicts_a_copy),
		cmocka_unit_test(kernel_honours_its_configuration),
		cmocka_unit_test(kernel_running_has_it),
		cmocka_unit_test(kernel_version_changes),
		cmocka_unit_test(kernel_installed_without_the_option),
		cmocka_unit_test(kubelet_default_from_135),
		cmocka_unit_test(kubelet_opt_out_and_in),
		cmocka_unit_test(kubelet_flag_misread),
		cmocka_unit_test(lxc_keys),
		cmocka_unit_test(release_next_and_targets),
		cmocka_unit_test(switches),
	};

	return cmocka_run_group_tests(tests, load, unload);
}
