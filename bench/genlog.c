/* genlog: write a big, realistic kernel log for the benchmark, and the list
 * of catalog detections a correct detector must report for it.
 *
 *   genlog dmesg|kmsg MIB LOG EXPECTED [BOOT_LINES]
 *
 * LOG gets about MIB MiB of `[ 1234.567890] text` lines (dmesg) or
 * `6,seq,usec,-;text` records (kmsg). EXPECTED gets one "ID LINE" per
 * detection, in line order: LINE is the 1-based line of the record that
 * carries the message. The seed is fixed, so the same arguments always give
 * the same bytes.
 *
 * The log is a series of boots. Each boot prints a boot preamble ("Linux
 * version" first: the detector resets its once-per-boot counts there), then
 * ordinary traffic (firewall, audit, network, storage, USB, systemd, OOM
 * reports, WARN blocks that are not deprecations, lines that contain a
 * needle such as " is deprecated" but are not catalog messages), with
 * catalog messages sprinkled in every ~100k lines. Which messages a boot may
 * print depends on its kernel, and each is printed at most once per boot, as
 * pr_warn_once / WARN_ONCE do; the M4 text may appear twice (M4, then M5,
 * its second call site).
 *
 * BOOT_LINES (bench/journal.sh: a journal of a few boots in 200,000
 * entries) makes the boots about that long (0.5x to 1.5x) and spaces the
 * catalog messages to match; without it the output is what it always was. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "splitmix.h"

#define MAX_EXPECT 100000

enum fmt { FMT_DMESG, FMT_KMSG };

struct gen {
	enum fmt fmt;
	FILE *out;
	uint64_t rng;
	uint64_t usec;           /* since boot */
	uint64_t seq;            /* kmsg sequence number, per boot */
	unsigned long line;      /* last physical line written */
	unsigned long first;     /* first physical line of the last record */
	uint64_t bytes;
	uint64_t target;
	const struct kernel *k;
	int oom_control_seen;    /* M4 printed this boot: the next one is M5 */
	size_t n_expect;
	struct expect {
		unsigned long line;
		const char *id;
	} *expect;
	char text[4096];
};

static uint64_t next64(struct gen *g)
{
	return splitmix64(&g->rng);
}

static unsigned rnd(struct gen *g, unsigned n)
{
	return (unsigned)(next64(g) % n);
}

#define PICK(g, arr) ((arr)[rnd(g, sizeof(arr) / sizeof((arr)[0]))])

static void expect(struct gen *g, const char *id, unsigned long line)
{
	if (g->n_expect == MAX_EXPECT) {
		fprintf(stderr, "genlog: too many expected detections\n");
		exit(2);
	}
	g->expect[g->n_expect].line = line;
	g->expect[g->n_expect].id = id;
	g->n_expect++;
}

static void put(struct gen *g, const char *s, size_t n)
{
	fwrite(s, 1, n, g->out);
	g->bytes += n;
}

/* One record. A '\n' inside the text is a printk with an embedded newline:
 * dmesg shows each part as a line with the same time stamp, /dev/kmsg
 * escapes it. facility is 0 for the kernel; systemd writes with 3. */
static void record(struct gen *g, int facility, int level, const char *text)
{
	char hdr[64];
	int n;

	g->usec += g->usec < 5000000 ? 1 + rnd(g, 300) : 1 + rnd(g, 40000);
	g->first = g->line + 1;
	if (g->fmt == FMT_KMSG) {
		n = snprintf(hdr, sizeof(hdr), "%d,%llu,%llu,-;", facility * 8 + level,
			     (unsigned long long)g->seq++, (unsigned long long)g->usec);
		put(g, hdr, (size_t)n);
		for (const char *p = text; *p; p++) {
			if (*p == '\n')
				put(g, "\\x0a", 4);
			else
				put(g, p, 1);
		}
		put(g, "\n", 1);
		g->line++;
		return;
	}
	n = snprintf(hdr, sizeof(hdr), "[%5llu.%06llu] ", (unsigned long long)(g->usec / 1000000),
		     (unsigned long long)(g->usec % 1000000));
	for (const char *p = text;;) {
		const char *nl = strchr(p, '\n');
		const size_t len = nl ? (size_t)(nl - p) : strlen(p);

		put(g, hdr, (size_t)n);
		put(g, p, len);
		put(g, "\n", 1);
		g->line++;
		if (!nl)
			break;
		p = nl + 1;
	}
}

static void __attribute__((format(printf, 3, 4))) emit(struct gen *g, int level,
						       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(g->text, sizeof(g->text), fmt, ap);
	va_end(ap);
	record(g, 0, level, g->text);
}

/* Device properties that /dev/kmsg adds after some driver records. */
static void props(struct gen *g, const char *subsystem, const char *device)
{
	char buf[128];
	int n;

	if (g->fmt != FMT_KMSG)
		return;
	n = snprintf(buf, sizeof(buf), " SUBSYSTEM=%s\n DEVICE=%s\n", subsystem, device);
	put(g, buf, (size_t)n);
	g->line += 2;
}

/* ---- vocabulary ---- */

static const char *const comms[] = {
	"java", "python3", "nginx", "postgres", "containerd", "dockerd", "kubelet", "sshd",
	"chrome", "node", "bash", "rsyslogd", "snapd", "Xorg", "firefox", "mysqld",
	"redis-server", "php-fpm7.4", "kworker/u8:2", "runc:[2:INIT]", "gnome-shell",
	"Web Content", "systemd-udevd", "containerd-shim",
};
static const char *const ifaces[] = {
	"eth0", "ens3", "enp0s31f6", "wlp2s0", "eno1", "ens192", "bond0",
};
static const char *const units[] = {
	"apt-daily.service", "logrotate.service", "man-db.service", "snapd.service",
	"fwupd-refresh.service", "systemd-tmpfiles-clean.service", "phpsessionclean.service",
	"certbot.service", "motd-news.service", "sysstat-collect.service", "anacron.service",
	"unattended-upgrades.service", "e2scrub_all.service", "fstrim.service",
};
static const char *const profiles[] = {
	"snap.firefox.firefox", "/usr/sbin/cupsd", "docker-default", "/usr/bin/man",
	"lsb_release", "libreoffice-soffice", "/snap/snapd/20290/usr/lib/snapd/snap-confine",
	"/usr/sbin/mysqld", "nvidia_modprobe", "snap-update-ns.lxd",
};
static const char *const aa_ops[] = {
	"open", "file_mmap", "capable", "mknod", "exec", "ptrace", "signal", "file_lock",
};
static const char *const aa_names[] = {
	"/proc/%u/mounts", "/etc/ssl/openssl.cnf", "/proc/cgroups", "/sys/fs/cgroup/cpu.max",
	"/run/systemd/userdb/", "/dev/tty", "/usr/share/zoneinfo/UTC", "/proc/%u/cmdline",
	"/sys/fs/cgroup/memory/memory.limit_in_bytes", "/home/user/.cache/fontconfig/",
};

/* The names above with "%u" get a pid. */
static void aa_name(struct gen *g, char *buf, size_t size)
{
	const char *f = PICK(g, aa_names);
	const char *pct = strstr(f, "%u");

	if (!pct)
		snprintf(buf, size, "%s", f);
	else
		snprintf(buf, size, "%.*s%u%s", (int)(pct - f), f, 1 + rnd(g, 99999), pct + 2);
}
static const char *const disks[] = { "sda", "sdb", "nvme0n1", "vda", "sdc", "xvda" };
static const char *const parts[] = { "sda1", "sda2", "nvme0n1p2", "vda1", "dm-0", "md0" };
static const char *const funcs[] = {
	"dump_stack_lvl+0x48/0x70", "warn_slowpath_fmt+0x9b/0x140", "__warn+0x81/0x130",
	"report_bug+0x171/0x1a0", "handle_bug+0x3c/0x80", "exc_invalid_op+0x17/0x70",
	"asm_exc_invalid_op+0x1a/0x20", "call_timer_fn+0x29/0x120", "run_timer_softirq+0x1f1/0x430",
	"__do_softirq+0xd9/0x2b1", "irq_exit_rcu+0x75/0xa0", "sysvec_apic_timer_interrupt+0x4f/0x70",
	"asm_sysvec_apic_timer_interrupt+0x1b/0x20", "default_idle+0xe/0x20", "do_idle+0x1ee/0x280",
	"cpu_startup_entry+0x1d/0x20", "secondary_startup_64_no_verify+0xc2/0xcb",
	"__alloc_pages_slowpath.constprop.0+0xc2e/0xd20", "out_of_memory+0x106/0x2e0",
	"mem_cgroup_out_of_memory+0x13f/0x160", "try_charge_memcg+0x687/0x740",
	"charge_memcg+0x45/0xb0", "__mem_cgroup_charge+0x2d/0x90", "do_anonymous_page+0x112/0x3b0",
	"__handle_mm_fault+0x7e8/0xc90", "handle_mm_fault+0xd8/0x2c0", "do_user_addr_fault+0x1c9/0x640",
	"exc_page_fault+0x77/0x170", "asm_exc_page_fault+0x26/0x30", "xfs_inode_item_push+0x6e/0x1f0 [xfs]",
	"process_one_work+0x228/0x3d0", "worker_thread+0x53/0x420", "kthread+0x127/0x150",
	"ret_from_fork+0x1f/0x30", "ext4_journal_check_start+0x8b/0xd0",
	"__ext4_journal_start_sb+0x3e/0x120", "i915_gem_do_execbuffer+0x14b1/0x2570 [i915]",
};
static const char *const modules =
	"veth xt_conntrack xt_MASQUERADE nf_conntrack_netlink nfnetlink xfrm_user xfrm_algo "
	"xt_addrtype iptable_filter iptable_nat nf_nat nf_conntrack nf_defrag_ipv6 nf_defrag_ipv4 "
	"libcrc32c bpfilter br_netfilter bridge stp llc overlay intel_rapl_msr intel_rapl_common "
	"kvm_amd ccp kvm irqbypass crct10dif_pclmul crc32_pclmul ghash_clmulni_intel aesni_intel "
	"crypto_simd cryptd rapl i2c_piix4 joydev input_leds serio_raw mac_hid sch_fq_codel msr "
	"ip_tables x_tables autofs4 virtio_net net_failover failover virtio_blk";
static const char *const hardware[] = {
	"QEMU Standard PC (i440FX + PIIX, 1996), BIOS 1.16.2-debian-1.16.2-1 04/01/2014",
	"Dell Inc. PowerEdge R640/0W23H8, BIOS 2.11.2 004/21/2021",
	"HP ProLiant DL380 Gen9/ProLiant DL380 Gen9, BIOS P89 10/21/2019",
	"LENOVO 20QDS3E200/20QDS3E200, BIOS N2HET72W (1.55 ) 10/25/2022",
	"Supermicro SYS-2029U-TR4/X11DPU, BIOS 3.4 11/20/2020",
};

/* ---- kernels: what a boot may print ---- */

enum ev {
	EV_NONE, EV_S1, EV_S2, EV_P1, EV_P2, EV_C1_MEMORY, EV_C1_BLKIO, EV_C1_DEVICES,
	EV_C1_FREEZER, EV_C3, EV_C4, EV_M1A, EV_M1B, EV_M2, EV_M3, EV_OOM_CONTROL_A,
	EV_OOM_CONTROL_B, EV_M6, EV_M7, EV_M8, EV_M10, EV_V1_SLB, EV_V1_SLAB, EV_V2, EV_V3,
	EV_V4, EV_G1,
};

#define EV_MAX 16

struct kernel {
	const char *release;
	const char *build;
	int major, minor;
	const char *cmdline_extra;
	const char *boot_msg;         /* printed while booting, or NULL */
	const char *boot_id;
	enum ev ev[EV_MAX];
};

static const struct kernel kernels[] = {
	{ "3.0.101-63-default", "(geeko@buildhost) (gcc version 4.3.4 [gcc-4_3-branch revision 152973] (SUSE Linux) ) #1 SMP Tue Jun 23 16:02:31 UTC 2015 (4b89d0c)",
	  3, 0, "", NULL, NULL, { EV_S1, EV_S2 } },
	{ "3.10.0-1160.105.1.el7.x86_64", "(mockbuild@kbuilder.bsys.centos.org) (gcc version 4.8.5 20150623 (Red Hat 4.8.5-44) (GCC) ) #1 SMP Thu Dec 7 15:39:45 UTC 2023",
	  3, 10, " crashkernel=auto rhgb", NULL, NULL,
	  { EV_C1_MEMORY, EV_C1_BLKIO, EV_C1_DEVICES, EV_C3, EV_C4 } },
	{ "5.15.0-91-generic", "(buildd@lcy02-amd64-045) (gcc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0, GNU ld (GNU Binutils for Ubuntu) 2.38) #101-Ubuntu SMP Tue Nov 14 13:30:08 UTC 2023",
	  5, 15, " quiet splash", NULL, NULL, { EV_M1A, EV_M7, EV_M8, EV_C4 } },
	{ "6.12.12-amd64", "(debian-kernel@lists.debian.org) (x86_64-linux-gnu-gcc-14 (Debian 14.2.0-16) 14.2.0, GNU ld (GNU Binutils for Debian) 2.44) #1 SMP PREEMPT_DYNAMIC Debian 6.12.12-1 (2025-02-02)",
	  6, 12, " swapaccount=0 systemd.unified_cgroup_hierarchy=0",
	  "The swapaccount=0 commandline option is deprecated in favor of configuring swap control via cgroupfs. Please report your usecase to linux-mm@kvack.org if you depend on this functionality.",
	  "M9b",
	  { EV_M1B, EV_M2, EV_M3, EV_OOM_CONTROL_A, EV_OOM_CONTROL_B, EV_M6, EV_M7, EV_M8, EV_C4, EV_G1 } },
	{ "3.4.28-2.20-desktop", "(geeko@buildhost) (gcc version 4.7.1 20120723 [gcc-4_7-branch revision 189773] (SUSE Linux) ) #1 SMP PREEMPT Tue Feb 12 08:24:37 UTC 2013 (c1cf4d5)",
	  3, 4, " resume=/dev/sda1 splash=silent quiet showopts", NULL, NULL, { EV_S1 } },
	{ "4.15.0-213-generic", "(buildd@lcy02-amd64-079) (gcc version 7.5.0 (Ubuntu 7.5.0-3ubuntu1~18.04)) #224-Ubuntu SMP Mon Jun 19 13:30:12 UTC 2023",
	  4, 15, " quiet", NULL, NULL, { EV_C1_MEMORY, EV_C1_FREEZER, EV_C4 } },
	{ "6.1.0-18-amd64", "(debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)",
	  6, 1, " swapaccount=1 cgroup_enable=memory",
	  "The swapaccount= commandline option is deprecated. Please report your usecase to linux-mm@kvack.org if you depend on this functionality.",
	  "M9a", { EV_M1B, EV_M7, EV_M8, EV_C4 } },
	{ "3.6.0-rc3-memcg+", "(glauber@localhost) (gcc version 4.7.0 20120507 (Red Hat 4.7.0-5) (GCC) ) #12 SMP Mon Sep 3 10:12:45 MSK 2012",
	  3, 6, "", NULL, NULL, { EV_P2 } },
	{ "6.15.2-arch1-1", "(linux@archlinux) (gcc (GCC) 15.1.1 20250425, GNU ld (GNU Binutils) 2.44.0) #1 SMP PREEMPT_DYNAMIC Tue, 10 Jun 2025 21:32:33 +0000",
	  6, 15, " rw loglevel=3",
	  NULL, NULL,
	  { EV_M10, EV_V1_SLB, EV_V1_SLAB, EV_V2, EV_V3, EV_V4, EV_M1B, EV_M3, EV_OOM_CONTROL_A,
	    EV_OOM_CONTROL_B, EV_M7, EV_M8 } },
	{ "3.5.0-rc4-glommer+", "(glauber@localhost) (gcc version 4.7.0 20120507 (Red Hat 4.7.0-5) (GCC) ) #3 SMP Tue Jun 26 09:41:02 MSK 2012",
	  3, 5, "", NULL, NULL, { EV_P1 } },
};

#define N_KERNELS (sizeof(kernels) / sizeof(kernels[0]))

static int at_least(const struct kernel *k, int major, int minor)
{
	return k->major > major || (k->major == major && k->minor >= minor);
}

/* ---- ordinary traffic ---- */

static void t_ufw(struct gen *g)
{
	emit(g, 4, "[UFW BLOCK] IN=%s OUT= MAC=52:54:00:%02x:%02x:%02x:fe:ff:ff:ff:ff:ff:08:00 "
	     "SRC=%u.%u.%u.%u DST=10.0.%u.%u LEN=%u TOS=0x00 PREC=0x00 TTL=%u ID=%u %sPROTO=TCP "
	     "SPT=%u DPT=%u WINDOW=%u RES=0x00 SYN URGP=0",
	     PICK(g, ifaces), rnd(g, 256), rnd(g, 256), rnd(g, 256), 1 + rnd(g, 223),
	     rnd(g, 256), rnd(g, 256), 1 + rnd(g, 254), rnd(g, 4), 1 + rnd(g, 254), 40 + rnd(g, 60),
	     32 + rnd(g, 224), rnd(g, 65536), rnd(g, 2) ? "DF " : "", 1024 + rnd(g, 64000),
	     PICK(g, ((const unsigned[]){ 22, 23, 80, 443, 445, 3389, 5900, 8080, 6379 })),
	     1024 + rnd(g, 64000));
}

static void t_audit(struct gen *g)
{
	char name[128];
	const char *comm = PICK(g, comms);

	aa_name(g, name, sizeof(name));
	if (rnd(g, 4) == 0) {
		emit(g, 5, "audit: type=1326 audit(%u.%03u:%u): auid=4294967295 uid=%u gid=%u "
		     "ses=4294967295 subj=unconfined pid=%u comm=\"%s\" exe=\"/usr/bin/%s\" sig=0 "
		     "arch=c000003e syscall=%u compat=0 ip=0x7f%010x code=0x7ffc0000",
		     1700000000 + rnd(g, 50000000), rnd(g, 1000), rnd(g, 100000), rnd(g, 2) * 1000,
		     rnd(g, 2) * 1000, 1 + rnd(g, 99999), comm, comm, rnd(g, 450), rnd(g, 1u << 30));
		return;
	}
	emit(g, 5, "audit: type=1400 audit(%u.%03u:%u): apparmor=\"DENIED\" operation=\"%s\" "
	     "class=\"file\" profile=\"%s\" name=\"%s\" pid=%u comm=\"%s\" requested_mask=\"%s\" "
	     "denied_mask=\"%s\" fsuid=%u ouid=0",
	     1700000000 + rnd(g, 50000000), rnd(g, 1000), rnd(g, 100000), PICK(g, aa_ops),
	     PICK(g, profiles), name, 1 + rnd(g, 99999), comm,
	     PICK(g, ((const char *const[]){ "r", "w", "rw", "wc", "x" })), "r", rnd(g, 2) * 1000);
}

static void t_net(struct gen *g)
{
	const unsigned veth = (unsigned)next64(g) & 0xfffffff;
	const unsigned port = 1 + rnd(g, 12);

	switch (rnd(g, 10)) {
	case 0:
		emit(g, 6, "docker0: port %u(veth%07x) entered blocking state", port, veth);
		break;
	case 1:
		emit(g, 6, "docker0: port %u(veth%07x) entered %s state", port, veth,
		     rnd(g, 2) ? "forwarding" : "disabled");
		break;
	case 2:
		emit(g, 6, "device veth%07x %s promiscuous mode", veth,
		     rnd(g, 2) ? "entered" : "left");
		break;
	case 3:
		emit(g, 6, "IPv6: ADDRCONF(NETDEV_CHANGE): veth%07x: link becomes ready", veth);
		break;
	case 4:
		emit(g, 6, "eth0: renamed from veth%07x", veth);
		break;
	case 5:
		emit(g, 6, "e1000e 0000:00:1f.6 %s: NIC Link is %s", PICK(g, ifaces),
		     rnd(g, 3) ? "Up 1000 Mbps Full Duplex, Flow Control: Rx/Tx" : "Down");
		break;
	case 6:
		emit(g, 6, "TCP: request_sock_TCP: Possible SYN flooding on port %u. Sending "
		     "cookies.  Check SNMP counters.", PICK(g, ((const unsigned[]){ 80, 443, 8443 })));
		break;
	case 7:
		emit(g, 4, "net_ratelimit: %u callbacks suppressed", 1 + rnd(g, 400));
		break;
	case 8:
		emit(g, 4, "nf_conntrack: nf_conntrack: table full, dropping packet");
		break;
	default:
		emit(g, 6, "br-%012llx: port %u(veth%07x) entered blocking state",
		     (unsigned long long)(next64(g) & 0xffffffffffffull), port, veth);
		break;
	}
}

static void t_storage(struct gen *g)
{
	const char *part = PICK(g, parts);
	const char *disk = PICK(g, disks);

	switch (rnd(g, 8)) {
	case 0:
		emit(g, 6, "EXT4-fs (%s): mounted filesystem %08x-%04x-%04x-%04x-%012llx r/w with "
		     "ordered data mode. Quota mode: none.", part, (unsigned)next64(g), rnd(g, 65536),
		     rnd(g, 65536), rnd(g, 65536),
		     (unsigned long long)(next64(g) & 0xffffffffffffull));
		break;
	case 1:
		emit(g, 3, "I/O error, dev %s, sector %llu op 0x0:(READ) flags 0x80700 phys_seg %u "
		     "prio class 2", disk, (unsigned long long)(next64(g) % 1000000000ull),
		     1 + rnd(g, 32));
		break;
	case 2:
		emit(g, 6, "sd %u:0:0:0: [%s] tag#%u FAILED Result: hostbyte=DID_OK "
		     "driverbyte=DRIVER_OK cmd_age=%us", rnd(g, 4), disk, rnd(g, 32), rnd(g, 30));
		props(g, "scsi", "+scsi:2:0:0:0");
		break;
	case 3:
		emit(g, 5, "XFS (%s): Mounting V5 Filesystem %08x-%04x-%04x-%04x-%012llx", part,
		     (unsigned)next64(g), rnd(g, 65536), rnd(g, 65536), rnd(g, 65536),
		     (unsigned long long)(next64(g) & 0xffffffffffffull));
		break;
	case 4:
		emit(g, 4, "nvme nvme0: I/O %u QID %u timeout, completion polled", rnd(g, 1024),
		     1 + rnd(g, 8));
		break;
	case 5:
		emit(g, 6, "EXT4-fs (%s): re-mounted %08x-%04x. Quota mode: none.", part,
		     (unsigned)next64(g), rnd(g, 65536));
		break;
	case 6:
		emit(g, 3, "Buffer I/O error on dev %s, logical block %u, async page read", part,
		     rnd(g, 100000000));
		break;
	default:
		emit(g, 4, "EXT4-fs warning (device %s): ext4_dx_add_entry:2592: Directory (ino: "
		     "%u) index full, reach max htree level :2", part, rnd(g, 10000000));
		break;
	}
}

static void t_usb(struct gen *g)
{
	const unsigned bus = 1 + rnd(g, 4), port = 1 + rnd(g, 6), dev = 2 + rnd(g, 120);
	char device[32];

	snprintf(device, sizeof(device), "c189:%u", (bus - 1) * 128 + dev - 1);
	switch (rnd(g, 5)) {
	case 0:
		emit(g, 6, "usb %u-%u: new high-speed USB device number %u using xhci_hcd", bus,
		     port, dev);
		break;
	case 1:
		emit(g, 6, "usb %u-%u: New USB device found, idVendor=%04x, idProduct=%04x, "
		     "bcdDevice= %u.%02u", bus, port, rnd(g, 65536), rnd(g, 65536), rnd(g, 10),
		     rnd(g, 100));
		break;
	case 2:
		emit(g, 6, "usb %u-%u: USB disconnect, device number %u", bus, port, dev);
		break;
	case 3:
		emit(g, 6, "usb-storage %u-%u:1.0: USB Mass Storage device detected", bus, port);
		break;
	default:
		emit(g, 6, "hid-generic 0003:%04X:%04X.%04X: input,hidraw%u: USB HID v1.11 "
		     "Keyboard [Logitech USB Receiver] on usb-0000:00:14.0-%u/input0",
		     rnd(g, 65536), rnd(g, 65536), rnd(g, 65536), rnd(g, 8), port);
		break;
	}
	props(g, "usb", device);
}

static void t_systemd(struct gen *g)
{
	const char *u = PICK(g, units);
	const int fac = g->fmt == FMT_KMSG ? 3 : 0;

	switch (rnd(g, 7)) {
	case 0:
		snprintf(g->text, sizeof(g->text), "systemd[1]: Started %s.", u);
		break;
	case 1:
		snprintf(g->text, sizeof(g->text), "systemd[1]: %s: Deactivated successfully.", u);
		break;
	case 2:
		snprintf(g->text, sizeof(g->text),
			 "systemd[1]: %s: Main process exited, code=killed, status=9/KILL", u);
		break;
	case 3:
		snprintf(g->text, sizeof(g->text),
			 "systemd[1]: Started Session %u of User root.", 1 + rnd(g, 9999));
		break;
	case 4:
		snprintf(g->text, sizeof(g->text),
			 "systemd[1]: Created slice libcontainer_%u_systemd_test_default.slice.",
			 1 + rnd(g, 99999));
		break;
	case 5:
		snprintf(g->text, sizeof(g->text),
			 "systemd[1]: docker-%016llx%016llx.scope: Consumed %u.%03us CPU time.",
			 (unsigned long long)next64(g), (unsigned long long)next64(g), rnd(g, 100),
			 rnd(g, 1000));
		break;
	default:
		snprintf(g->text, sizeof(g->text), "systemd-journald[%u]: Data hash table of "
			 "/var/log/journal/%016llx/system.journal has a fill level at 75.0 (%u of "
			 "%u items, 25165824 file size, 193 bytes per hash table item), suggesting "
			 "rotation.", 300 + rnd(g, 200), (unsigned long long)next64(g),
			 rnd(g, 200000), 233016);
		break;
	}
	record(g, fac, 6, g->text);
}

static void t_misc(struct gen *g)
{
	const char *comm = PICK(g, comms);

	switch (rnd(g, 9)) {
	case 0:
		emit(g, 6, "%s[%u]: segfault at %llx ip %016llx sp %016llx error 4 in "
		     "libc.so.6[7f%07x+195000] likely on CPU %u (core %u, socket 0)", comm,
		     1 + rnd(g, 99999), (unsigned long long)(next64(g) & 0xffffff),
		     (unsigned long long)(0x7f0000000000ull | (next64(g) & 0xffffffffffull)),
		     (unsigned long long)(0x7ff000000000ull | (next64(g) & 0xfffffffffull)),
		     rnd(g, 1u << 28), rnd(g, 8), rnd(g, 8));
		break;
	case 1:
		emit(g, 4, "perf: interrupt took too long (%u > %u), lowering "
		     "kernel.perf_event_max_sample_rate to %u", 2500 + rnd(g, 5000),
		     2500 + rnd(g, 2000), 25000 + rnd(g, 50000));
		break;
	case 2:
		emit(g, 4, "kvm [%u]: vcpu%u, guest rIP: 0xffffffff%08x ignored rdmsr: 0x%x data "
		     "0x0", 1000 + rnd(g, 90000), rnd(g, 8), (unsigned)next64(g), 0xc0010000 + rnd(g, 64));
		break;
	case 3:
		emit(g, 6, "cgroup: fork rejected by pids controller in /system.slice/%s", PICK(g, units));
		break;
	case 4:
		emit(g, 4, "hrtimer: interrupt took %u ns", 100000 + rnd(g, 9000000));
		break;
	case 5:
		emit(g, 3, "mce: [Hardware Error]: Machine check events logged");
		break;
	case 6:
		emit(g, 6, "Memory cgroup out of memory: Killed process %u (%s) total-vm:%ukB, "
		     "anon-rss:%ukB, file-rss:%ukB, shmem-rss:0kB, UID:%u pgtables:%ukB "
		     "oom_score_adj:0", 1 + rnd(g, 99999), comm, rnd(g, 9000000), rnd(g, 4000000),
		     rnd(g, 90000), rnd(g, 2) * 1000, rnd(g, 20000));
		break;
	case 7:
		emit(g, 4, "process '%s' started with executable stack", comm);
		break;
	default:
		emit(g, 6, "overlayfs: upperdir is in-use as upperdir/workdir of another mount, "
		     "accessing files from both mounts will result in undefined behavior.");
		break;
	}
}

/* Records with a needle that are not catalog messages: they cost the
 * detector a parse but must not be reported. */
static void t_near_miss(struct gen *g)
{
	switch (rnd(g, 5)) {
	case 0:
		emit(g, 4, "xt_CT: netfilter: the --notrack option is deprecated, use the "
		     "NOTRACK target");
		break;
	case 1:
		emit(g, 4, "ipvs: sysctl net.ipv4.vs.%s is deprecated",
		     PICK(g, ((const char *const[]){ "drop_packet", "amemthresh", "secure_tcp" })));
		break;
	case 2:
		emit(g, 4, "cgroup: cgroup: disabling cgroup2 socket matching due to net_prio or "
		     "net_cls activation");
		break;
	case 3:
		emit(g, 4, "md: md%u: the 'raid_disks' sysfs knob is deprecated", rnd(g, 4));
		break;
	default:
		emit(g, 4, "%s (%u): drop_caches: %u", PICK(g, comms), 1 + rnd(g, 99999),
		     1 + rnd(g, 3));
		break;
	}
}

static void call_trace(struct gen *g, unsigned n, int old_style)
{
	emit(g, 4, "Call Trace:");
	if (!old_style)
		emit(g, 4, " <TASK>");
	for (unsigned i = 0; i < n; i++) {
		if (old_style)
			emit(g, 4, " [<ffffffff81%06x>] %s", rnd(g, 1u << 24), PICK(g, funcs));
		else
			emit(g, 4, " %s%s", rnd(g, 4) ? "" : "? ", PICK(g, funcs));
	}
	if (!old_style)
		emit(g, 4, " </TASK>");
}

static void regs(struct gen *g)
{
	emit(g, 4, "RSP: 0018:ffffb1e2c0%06x EFLAGS: 00010282", rnd(g, 1u << 24));
	emit(g, 4, "RAX: 0000000000000000 RBX: ffff9c1a%08x RCX: 0000000000000027",
	     (unsigned)next64(g));
	emit(g, 4, "RDX: 0000000000000000 RSI: 0000000000000001 RDI: ffff9c1d3f%06x",
	     rnd(g, 1u << 24));
	emit(g, 4, "RBP: ffffb1e2c0%06x R08: 0000000000000000 R09: ffffb1e2c0%06x",
	     rnd(g, 1u << 24), rnd(g, 1u << 24));
	emit(g, 4, "R10: 0000000000000001 R11: 0000000000000001 R12: ffff9c1a0b7c%04x",
	     rnd(g, 65536));
	emit(g, 4, "R13: 0000000000000000 R14: ffff9c1a0b7c8480 R15: 0000000000000001");
	emit(g, 4, "FS:  0000000000000000(0000) GS:ffff9c1d3f%06x(0000) knlGS:0000000000000000",
	     rnd(g, 1u << 24));
	emit(g, 4, "CS:  0010 DS: 0000 ES: 0000 CR0: 0000000080050033");
	emit(g, 4, "CR2: 00007f3a%08x CR3: 000000010a40a000 CR4: 00000000003706e0",
	     (unsigned)next64(g));
}

/* A WARN that is not a deprecation: everything in it gets parsed. */
static void t_warn(struct gen *g)
{
	const struct kernel *k = g->k;
	const unsigned cpu = rnd(g, 8);

	emit(g, 4, "------------[ cut here ]------------");
	if (!at_least(k, 3, 10)) {
		emit(g, 4, "WARNING: at net/sched/sch_generic.c:255 dev_watchdog+0x23f/0x250()");
		emit(g, 4, "Hardware name: %s", PICK(g, hardware));
		emit(g, 4, "NETDEV WATCHDOG: %s (e1000e): transmit queue 0 timed out", PICK(g, ifaces));
		emit(g, 4, "Modules linked in: %s", modules);
		emit(g, 4, "Pid: 0, comm: swapper Not tainted %s #1", k->release);
		call_trace(g, 12, 1);
	} else {
		emit(g, 4, "NETDEV WATCHDOG: %s (e1000e): transmit queue 0 timed out", PICK(g, ifaces));
		emit(g, 4, "WARNING: CPU: %u PID: 0 at net/sched/sch_generic.c:525 "
		     "dev_watchdog+0x21f/0x230", cpu);
		emit(g, 4, "Modules linked in: %s", modules);
		emit(g, 4, "CPU: %u PID: 0 Comm: swapper/%u Not tainted %s #1", cpu, cpu, k->release);
		emit(g, 4, "Hardware name: %s", PICK(g, hardware));
		emit(g, 4, "RIP: 0010:dev_watchdog+0x21f/0x230");
		emit(g, 4, "Code: 00 e9 2d ff ff ff 48 8b 5d 00 c6 05 d5 6c 3e 01 01 48 89 df e8 "
		     "a8 d4 f8 ff 44 89 e1 48 89 de 48 c7 c7 38 36 a7 a5 48 89 c2 e8 <0f> 0b eb 88 "
		     "0f 1f 44 00 00 e9 00 ff ff ff 0f 1f 40 00");
		regs(g);
		call_trace(g, 14, 0);
	}
	emit(g, 4, "---[ end trace %016llx ]---",
	     at_least(k, 6, 1) ? 0ull : (unsigned long long)next64(g));
}

static void t_oom(struct gen *g)
{
	const char *comm = PICK(g, comms);
	const unsigned pid = 1 + rnd(g, 99999), cpu = rnd(g, 8);
	const unsigned long long cg = (unsigned long long)next64(g);

	emit(g, 4, "%s invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0",
	     comm);
	emit(g, 4, "CPU: %u PID: %u Comm: %s Not tainted %s #1", cpu, pid, comm, g->k->release);
	emit(g, 4, "Hardware name: %s", PICK(g, hardware));
	call_trace(g, 16, !at_least(g->k, 4, 0));
	emit(g, 6, "memory: usage %ukB, limit %ukB, failcnt %u", 1048576, 1048576, rnd(g, 10000));
	emit(g, 6, "swap: usage 0kB, limit 9007199254740988kB, failcnt 0");
	emit(g, 6, "Memory cgroup stats for /docker/%016llx:", cg);
	emit(g, 6, "anon %u\nfile %u\nkernel %u\nkernel_stack 147456\npagetables %u\nsock 0\n"
	     "shmem 0\nfile_mapped %u\nfile_dirty 0\nfile_writeback 0", rnd(g, 1u << 30),
	     rnd(g, 1u << 24), rnd(g, 1u << 24), rnd(g, 1u << 22), rnd(g, 1u << 20));
	emit(g, 6, "Tasks state (memory values in pages):");
	emit(g, 6, "[  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name");
	for (unsigned i = 0, n = 2 + rnd(g, 10); i < n; i++)
		emit(g, 6, "[%7u] %5u %5u %8u %8u %14u %8u %13d %s", pid + i, 0, pid + i,
		     rnd(g, 3000000), rnd(g, 300000), rnd(g, 3000000), 0, 0, PICK(g, comms));
	emit(g, 6, "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=%016llx,"
	     "mems_allowed=0,oom_memcg=/docker/%016llx,task_memcg=/docker/%016llx,task=%s,"
	     "pid=%u,uid=0", cg, cg, cg, comm, pid);
	emit(g, 3, "Memory cgroup out of memory: Killed process %u (%s) total-vm:%ukB, "
	     "anon-rss:%ukB, file-rss:%ukB, shmem-rss:0kB, UID:0 pgtables:%ukB oom_score_adj:0",
	     pid, comm, rnd(g, 9000000), rnd(g, 1048576), rnd(g, 90000), rnd(g, 20000));
}

static void ordinary(struct gen *g)
{
	const unsigned r = rnd(g, 1000000);

	if (r < 220000)
		t_ufw(g);
	else if (r < 400000)
		t_audit(g);
	else if (r < 620000)
		t_net(g);
	else if (r < 720000)
		t_storage(g);
	else if (r < 790000)
		t_usb(g);
	else if (r < 920000)
		t_systemd(g);
	else if (r < 999900)
		t_misc(g);
	else if (r < 999960)
		t_near_miss(g);
	else if (r < 999985)
		t_oom(g);
	else
		t_warn(g);
}

/* ---- boots ---- */

static void boot(struct gen *g, const struct kernel *k)
{
	const unsigned mem = 4u << rnd(g, 4);

	g->k = k;
	g->usec = 0;
	g->seq = 0;
	g->oom_control_seen = 0;
	emit(g, 5, "Linux version %s %s", k->release, k->build);
	emit(g, 6, "Command line: BOOT_IMAGE=/boot/vmlinuz-%s root=UUID=%08x-%04x-%04x-%04x-"
	     "%012llx ro%s", k->release, (unsigned)next64(g), rnd(g, 65536), rnd(g, 65536),
	     rnd(g, 65536), (unsigned long long)(next64(g) & 0xffffffffffffull), k->cmdline_extra);
	emit(g, 6, "KERNEL supported cpus:");
	emit(g, 6, "  Intel GenuineIntel");
	emit(g, 6, "  AMD AuthenticAMD");
	emit(g, 6, "x86/fpu: Supporting XSAVE feature 0x001: 'x87 floating point registers'");
	emit(g, 6, "x86/fpu: Supporting XSAVE feature 0x002: 'SSE registers'");
	emit(g, 6, "x86/fpu: Supporting XSAVE feature 0x004: 'AVX registers'");
	emit(g, 6, "BIOS-provided physical RAM map:");
	emit(g, 6, "BIOS-e820: [mem 0x0000000000000000-0x000000000009fbff] usable");
	emit(g, 6, "BIOS-e820: [mem 0x000000000009fc00-0x000000000009ffff] reserved");
	emit(g, 6, "BIOS-e820: [mem 0x00000000000f0000-0x00000000000fffff] reserved");
	emit(g, 6, "BIOS-e820: [mem 0x0000000000100000-0x00000000bffdafff] usable");
	emit(g, 6, "BIOS-e820: [mem 0x0000000100000000-0x%016llx] usable",
	     0x100000000ull + ((unsigned long long)mem << 30) - 1);
	emit(g, 6, "NX (Execute Disable) protection: active");
	emit(g, 6, "DMI: %s", PICK(g, hardware));
	emit(g, 6, "tsc: Detected %u.%03u MHz processor", 2000 + rnd(g, 1500), rnd(g, 1000));
	if (k->boot_msg) {
		emit(g, 4, "%s", k->boot_msg);
		expect(g, k->boot_id, g->first);
	}
	emit(g, 6, "Memory: %uK/%uK available (16384K kernel code, 4096K rwdata, 8192K rodata, "
	     "3072K init, 4096K bss, %uK reserved, 0K cma-reserved)", mem * 1000000,
	     mem * 1048576, 100000 + rnd(g, 200000));
	emit(g, 6, "SLUB: HWalign=64, Order=0-3, MinObjects=0, CPUs=%u, Nodes=1", 2 << rnd(g, 4));
	emit(g, 6, "rcu: Hierarchical RCU implementation.");
	emit(g, 6, "Dentry cache hash table entries: 2097152 (order: 12, 16777216 bytes, linear)");
	emit(g, 6, "Mount-cache hash table entries: 32768 (order: 6, 262144 bytes, linear)");
	emit(g, 6, "smpboot: Total of %u processors activated (%u.%02u BogoMIPS)", 2 << rnd(g, 4),
	     rnd(g, 100000), rnd(g, 100));
	emit(g, 6, "clocksource: Switched to clocksource tsc");
	emit(g, 6, "NET: Registered PF_INET6 protocol family");
	emit(g, 6, "Freeing unused kernel image (initmem) memory: %uK", 2000 + rnd(g, 2000));
	emit(g, 6, "Run /init as init process");
	emit(g, 6, "EXT4-fs (%s): mounted filesystem with ordered data mode. Opts: (null)",
	     PICK(g, parts));
}

static void warn_head(struct gen *g, const char *file, const char *sym)
{
	emit(g, 4, "------------[ cut here ]------------");
	emit(g, 4, "WARNING: at %s %s()", file, sym);
	emit(g, 4, "Hardware name: %s", PICK(g, hardware));
}

static void warn_tail(struct gen *g, const char *comm, int suse)
{
	emit(g, 4, "Modules linked in: %s", modules);
	if (suse)
		emit(g, 4, "Supported: Yes");
	emit(g, 4, "Pid: %u, comm: %s %s %s #1", 1 + rnd(g, 99999), comm,
	     suse ? "Tainted: G           X" : "Not tainted", g->k->release);
	call_trace(g, 10, 1);
	emit(g, 4, "---[ end trace %016llx ]---", (unsigned long long)next64(g));
}

/* One catalog message (or the M4/M5 text, or a C1/C2 pair). */
static void event(struct gen *g, enum ev ev)
{
	const struct kernel *k = g->k;
	const char *comm = PICK(g, ((const char *const[]){ "libvirtd", "java", "docker-runc",
							       "runc:[2:INIT]", "kubelet", "systemd" }));
	const char *pfx = at_least(k, 6, 0) ? "" : "cgroup: ";
	/* 6.12 to ~6.14 print a space before the newline and "linux-mm-@". */
	const char *tail = at_least(k, 6, 15) ? "" : " ";
	const char *ctrl = NULL;

	switch (ev) {
	case EV_NONE:
		return;
	case EV_S1: {
		const int v30 = k->minor == 0;

		warn_head(g, v30 ? "/usr/src/packages/BUILD/kernel-default-3.0.101/linux-3.0/"
				   "mm/memcontrol.c:5007"
				 : "/home/abuild/rpmbuild/BUILD/kernel-desktop-3.4.28/linux-3.4/"
				   "mm/memcontrol.c:4996",
			  "mem_cgroup_create+0x3ac/0x510");
		emit(g, 4, "Creating hierarchies with use_hierarchy==0 (flat hierarchy) is "
		     "considered deprecated. If you believe that your setup is correct, we kindly "
		     "ask you to contact linux-mm@kvack.org and let us know");
		expect(g, "S1", g->first);
		warn_tail(g, comm, 1);
		return;
	}
	case EV_S2:
		emit(g, 6, "%s (%u): memory.force_empty is deprecated and will be removed.  Let us "
		     "know if it is needed in your usecase at linux-mm@kvack.org",
		     PICK(g, ((const char *const[]){ "sbatchd", "res", "lsf_daemons", "bash" })),
		     1 + rnd(g, 99999));
		expect(g, "S2", g->first);
		return;
	case EV_P1:
		warn_head(g, "mm/memcontrol.c:3961", "mem_cgroup_hierarchy_write+0x9e/0xc0");
		emit(g, 4, "Non-hierarchical memcg is considered for deprecation");
		expect(g, "P1", g->first);
		warn_tail(g, "bash", 0);
		return;
	case EV_P2:
		warn_head(g, "mm/memcontrol.c:4963", "mem_cgroup_hierarchy_write+0xa4/0xd0");
		emit(g, 4, "Setting this file to 0 (flat hierarchy) is considered deprecated.\nIf "
		     "you believe you have a valid use case for that, we kindly ask you to contact "
		     "linux-mm@kvack.org and let us know");
		/* dmesg splits the record; the second line, which names linux-mm
		 * on its own, is part of P2 and not reported again. */
		expect(g, "P2", g->first);
		warn_tail(g, "bash", 0);
		return;
	case EV_C1_MEMORY:
		ctrl = "memory";
		break;
	case EV_C1_BLKIO:
		ctrl = "blkio";
		break;
	case EV_C1_DEVICES:
		ctrl = "devices";
		break;
	case EV_C1_FREEZER:
		ctrl = "freezer";
		break;
	case EV_C3:
		emit(g, 4, "cgroup: sane_behavior: this is still under development and its "
		     "behaviors will change, proceed at your own risk");
		expect(g, "C3", g->first);
		return;
	case EV_C4:
		emit(g, 4, "%soption changes via remount are deprecated (pid=%u comm=mount)", pfx,
		     1 + rnd(g, 99999));
		expect(g, "C4", g->first);
		return;
	case EV_M1A:
		emit(g, 4, "kmem.limit_in_bytes is deprecated and will be removed. Please report "
		     "your usecase to linux-mm@kvack.org if you depend on this functionality.");
		expect(g, "M1a", g->first);
		return;
	case EV_M1B:
		emit(g, 4, "kmem.limit_in_bytes is deprecated and will be removed. Writing any "
		     "value to this file has no effect. Please report your usecase to "
		     "linux-mm@kvack.org if you depend on this functionality.");
		expect(g, "M1b", g->first);
		return;
	case EV_M2:
		emit(g, 4, "kmem.tcp.limit_in_bytes is deprecated and will be removed. Please "
		     "report your usecase to linux-mm@kvack.org if you depend on this functionality.");
		expect(g, "M2", g->first);
		return;
	case EV_M3:
		emit(g, 4, "soft_limit_in_bytes is deprecated and will be removed. Please report "
		     "your usecase to linux-mm@kvack.org if you depend on this functionality.");
		expect(g, "M3", g->first);
		return;
	case EV_OOM_CONTROL_A:
	case EV_OOM_CONTROL_B:
		emit(g, 4, "oom_control is deprecated and will be removed. Please report your "
		     "usecase to linux-mm-@kvack.org if you depend on this functionality.%s", tail);
		expect(g, g->oom_control_seen ? "M5" : "M4", g->first);
		g->oom_control_seen = 1;
		return;
	case EV_M6:
		emit(g, 4, "pressure_level is deprecated and will be removed. Please report your "
		     "usecase to linux-mm-@kvack.org if you depend on this functionality.%s", tail);
		expect(g, "M6", g->first);
		return;
	case EV_M7:
		emit(g, 4, "Cgroup memory moving (move_charge_at_immigrate) is deprecated. Please "
		     "report your usecase to linux-mm@kvack.org if you depend on this functionality.");
		expect(g, "M7", g->first);
		return;
	case EV_M8:
		emit(g, 4, "Non-hierarchical mode is deprecated. Please report your usecase to "
		     "linux-mm@kvack.org if you depend on this functionality.");
		expect(g, "M8", g->first);
		return;
	case EV_M10:
		emit(g, 6, "Per memcg swappiness does not exist in cgroup v2. See memory.reclaim or "
		     "memory.swap.max there\n ");
		expect(g, "M10", g->first);
		return;
	case EV_V1_SLB:
		emit(g, 6, "cpuset.sched_load_balance is deprecated, use cpuset.cpus.partition instead");
		expect(g, "V1", g->first);
		return;
	case EV_V1_SLAB:
		emit(g, 4, "cpuset.memory_spread_slab is deprecated");
		expect(g, "V1", g->first);
		return;
	case EV_V2:
		emit(g, 6, "blkio.reset_stats is deprecated");
		expect(g, "V2", g->first);
		return;
	case EV_V3:
		emit(g, 6, "Freezing with imperfect legacy cgroup freezer. See cgroup.freeze of "
		     "cgroup v2");
		expect(g, "V3", g->first);
		return;
	case EV_V4:
		emit(g, 6, "/proc/cgroups lists only v1 controllers, use cgroup.controllers of root "
		     "cgroup for v2 info");
		expect(g, "V4", g->first);
		return;
	case EV_G1:
		/* Synthetic: a message no specific entry describes. */
		emit(g, 4, "memcg: unexpected css refcount underflow on /kubepods.slice, please "
		     "report to cgroups@vger.kernel.org");
		expect(g, "G1", g->first);
		return;
	}
	/* C1, and C2 after it for memory; 3.16+ dropped the period of C2. */
	emit(g, 4, "cgroup: %s (%u) created nested cgroup for controller \"%s\" which has "
	     "incomplete hierarchy support. Nested cgroups may change behavior in the future.",
	     comm, 1 + rnd(g, 99999), ctrl);
	expect(g, "C1", g->first);
	if (strcmp(ctrl, "memory") == 0) {
		emit(g, 4, "cgroup: \"memory\" requires setting use_hierarchy to 1 on the root%s",
		     at_least(k, 3, 16) ? "" : ".");
		expect(g, "C2", g->first);
	}
}

static int by_line(const void *a, const void *b)
{
	const struct expect *x = a, *y = b;

	return x->line < y->line ? -1 : x->line > y->line;
}

int main(int argc, char **argv)
{
	struct gen g = { .rng = 0x6367666230303031ull };
	static char obuf[1 << 20];
	unsigned boot_no = 0;
	unsigned long boot_lines = 0;
	FILE *ex;

	if ((argc != 5 && argc != 6) || (strcmp(argv[1], "dmesg") && strcmp(argv[1], "kmsg"))) {
		fprintf(stderr, "usage: genlog dmesg|kmsg MIB LOG EXPECTED [BOOT_LINES]\n");
		return 2;
	}
	g.fmt = strcmp(argv[1], "kmsg") == 0 ? FMT_KMSG : FMT_DMESG;
	g.target = strtoull(argv[2], NULL, 10) << 20;
	if (argc == 6 && (boot_lines = strtoul(argv[5], NULL, 10)) < 16) {
		fprintf(stderr, "genlog: BOOT_LINES: at least 16\n");
		return 2;
	}
	g.out = fopen(argv[3], "w");
	ex = fopen(argv[4], "w");
	g.expect = calloc(MAX_EXPECT, sizeof(*g.expect));
	if (!g.out || !ex || !g.expect || !g.target) {
		perror("genlog");
		return 2;
	}
	setvbuf(g.out, obuf, _IOFBF, sizeof(obuf));
	while (g.bytes < g.target) {
		/* Boots of 200k to 600k lines; every kernel in turn. */
		const unsigned long boot_end = boot_lines ?
			g.line + boot_lines / 2 + rnd(&g, (unsigned)boot_lines) :
			g.line + 200000 + rnd(&g, 400000);
		enum ev pending[EV_MAX];
		unsigned n = 0;
		unsigned long next_ev;

		boot(&g, &kernels[(boot_no++ * 7 + 3) % N_KERNELS]);
		/* This boot's messages, in random order, each at most once. */
		for (unsigned i = 0; i < EV_MAX && g.k->ev[i] != EV_NONE; i++)
			pending[n++] = g.k->ev[i];
		for (unsigned i = n; i > 1; i--) {
			const unsigned j = rnd(&g, i);
			const enum ev t = pending[i - 1];

			pending[i - 1] = pending[j];
			pending[j] = t;
		}
		next_ev = boot_lines ? g.line + boot_lines / 64 + rnd(&g, (unsigned)boot_lines / 8) :
			g.line + 1000 + rnd(&g, 30000);
		while (g.line < boot_end && g.bytes < g.target) {
			if (g.line >= next_ev) {
				if (n)
					event(&g, pending[--n]);
				next_ev = boot_lines ?
					g.line + boot_lines / 16 + rnd(&g, (unsigned)boot_lines / 8) :
					g.line + 50000 + rnd(&g, 100000);
			}
			ordinary(&g);
		}
	}
	if (fclose(g.out) != 0) {
		perror(argv[3]);
		return 2;
	}
	qsort(g.expect, g.n_expect, sizeof(*g.expect), by_line);
	for (size_t i = 0; i < g.n_expect; i++)
		fprintf(ex, "%s %lu\n", g.expect[i].id, g.expect[i].line);
	if (fclose(ex) != 0) {
		perror(argv[4]);
		return 2;
	}
	printf("%llu bytes, %lu lines, %zu catalog messages, %u boots\n",
	       (unsigned long long)g.bytes, g.line, g.n_expect, boot_no);
	return 0;
}
