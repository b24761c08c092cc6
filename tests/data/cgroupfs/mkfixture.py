#!/usr/bin/env python3
"""Build a cgroupfs-shaped fixture tree and its mountinfo from a compact description.

usage: mkfixture.py DESC OUTDIR
Creates OUTDIR/root/<mount point>/... (use as --cgroup-root OUTDIR/root) and
OUTDIR/mountinfo (use as --mountinfo), then prints one line per cgroup mount:
"mount <mount point> <cgroups>".

Every cgroup gets the files the kernel gives a cgroup of that hierarchy, with the
contents the kernel prints: memory.limit_in_bytes holds 9223372036854771712 when
unlimited (9223372036854775807 on 3.0 kernels), memory.oom_control its two or
three lines, memory.max "max", cgroup.procs one pid per line. Children inherit
use_hierarchy and swappiness from their parent, as mem_cgroup_css_alloc() does.

Description lines ('#' starts a comment):
  kernel 6.1 | 5.4 | 3.0            file set and formats of that era (default 6.1)
  mount TYPE MOUNTPOINT [OPTIONS]   TYPE cgroup or cgroup2; OPTIONS are the super
                                    options after "rw," (cgroup: the controllers,
                                    name=..., noprefix; cgroup2: nsdelegate ...);
                                    other types (tmpfs, proc) only go to mountinfo
  bind MOUNTPOINT NEWPOINT          the same hierarchy mounted a second time
  cg PATH [KEY=VALUE ...]           a cgroup (and any missing parents)
  gen PATH LEVEL/LEVEL/... [varied] a generated subtree; LEVEL is KIND:COUNT with
                                    KIND n (cgN), svc (svcN.service), qos
                                    (besteffort, burstable), pod (pod<uuid>),
                                    ctr (64 hex digits); "varied" gives every
                                    generated memory cgroup limits, soft limits,
                                    swappiness and tasks from a seeded generator
In PATH and NEWPOINT, %XX is the byte XX (%20 a space, %0a a newline, %ff a
non-UTF-8 byte). KEYs:
  procs=N            N pids in cgroup.procs (and tasks)
  limit= memsw= soft= kmem= tcp=   memory v1 limits: a number, 64M/1G, or max
  use_hierarchy= swappiness= move_charge= oom_kill_disable=
  max= high= low= min=             cgroup v2 memory limits
  subtree=a,b        cgroup.subtree_control (v2); children get those files
  controllers=a,b    cgroup.controllers of a v2 root
  cpuset.NAME=V      a cpuset file;  freezer=STATE  freezer.state
  file:NAME=V        any file (in V, \\n is a newline, %20 a space)
  chmod:NAME=OCTAL   chmod a file ("." the directory)
"""
import os
import random
import sys
import uuid

UNLIMITED = {"3.0": "9223372036854775807"}
PAGE_COUNTER_MAX = "9223372036854771712"
SUFFIX = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
V2_CONTROLLERS = ["cpuset", "cpu", "io", "memory", "hugetlb", "pids", "rdma", "misc"]

MEMORY_STAT_KEYS = (
    "cache rss rss_huge shmem mapped_file dirty writeback swap pgpgin pgpgout pgfault "
    "pgmajfault inactive_anon active_anon inactive_file active_file unevictable "
    "hierarchical_memory_limit hierarchical_memsw_limit total_cache total_rss "
    "total_rss_huge total_shmem total_mapped_file total_dirty total_writeback total_swap "
    "total_pgpgin total_pgpgout total_pgfault total_pgmajfault total_inactive_anon "
    "total_active_anon total_inactive_file total_active_file total_unevictable").split()


def unescape(s):
    """%XX -> byte XX; returns bytes."""
    out = bytearray()
    b = s.encode()
    i = 0
    while i < len(b):
        if b[i:i + 1] == b"%" and len(b[i + 1:i + 3]) == 2:
            out.append(int(b[i + 1:i + 3], 16))
            i += 3
        else:
            out.append(b[i])
            i += 1
    return bytes(out)


def size(v, unlimited):
    if v == "max":
        return unlimited
    if v[-1] in SUFFIX:
        return str(int(v[:-1]) * SUFFIX[v[-1]])
    return v


class Mount:
    def __init__(self, mid, fstype, point, opts, minor):
        # point: bytes, as the path of a cgroup
        self.id, self.type, self.point, self.opts, self.minor = mid, fstype, point, opts, minor
        words = opts.split(",") if opts else []
        self.controllers = [w for w in words if "=" not in w and w not in
                            ("noprefix", "xattr", "nsdelegate", "memory_recursiveprot",
                             "clone_children", "cpuset_v2_mode")]
        self.noprefix = "noprefix" in words
        self.cgroups = 0


class Fixture:
    def __init__(self, out):
        self.out = out
        self.root = os.path.join(out, "root").encode()
        self.kernel = "6.1"
        self.mounts = []          # cgroup mounts (and others) in mountinfo order
        self.binds = []
        self.nodes = {}           # path bytes -> dict of inherited values
        self.pid = 1000
        self.rng = random.Random(20121004)

    # ---------------------------------------------------------------- values
    @property
    def unlimited(self):
        return UNLIMITED.get(self.kernel, PAGE_COUNTER_MAX)

    def old(self):
        return self.kernel == "3.0"

    def mount_of(self, path):
        best = None
        for m in self.mounts:
            if m.type not in ("cgroup", "cgroup2"):
                continue
            p = m.point
            if path == p or path.startswith(p.rstrip(b"/") + b"/"):
                if best is None or len(p) > len(best.point):
                    best = m
        if best is None:
            sys.exit("mkfixture: %r is below no cgroup mount" % path)
        return best

    def write(self, path, name, content, mode=0o644):
        f = os.path.join(self.root + path, name.encode() if isinstance(name, str) else name)
        # os.open/os.write: a 10,000-cgroup tree is 300,000 files.
        fd = os.open(f, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        try:
            os.write(fd, content.encode())
        finally:
            os.close(fd)
        if mode != 0o644:
            os.chmod(f, mode)

    def oom_control(self, disable):
        """Two lines before 4.13, three since (oom_kill)."""
        return "oom_kill_disable %s\nunder_oom 0\n%s" % (disable, "" if self.old() else "oom_kill 0\n")

    def pids(self, n):
        out = "".join("%d\n" % (self.pid + i) for i in range(n))
        self.pid += n
        return out

    # ---------------------------------------------------------------- files
    def pre(self, m, name):
        """cpuset.cpus becomes cpus under noprefix."""
        if m.noprefix and "." in name and not name.startswith("cgroup."):
            return name.split(".", 1)[1]
        return name

    def memory_v1(self, m, path, is_root, st):
        u = self.unlimited
        files = {
            "memory.limit_in_bytes": u, "memory.soft_limit_in_bytes": u,
            "memory.memsw.limit_in_bytes": u,
            "memory.usage_in_bytes": str(self.rng.randrange(1 << 20, 1 << 30)),
            "memory.max_usage_in_bytes": str(self.rng.randrange(1 << 30, 1 << 31)),
            "memory.memsw.usage_in_bytes": "0", "memory.memsw.max_usage_in_bytes": "0",
            "memory.failcnt": "0", "memory.memsw.failcnt": "0",
            "memory.use_hierarchy": st["use_hierarchy"], "memory.swappiness": st["swappiness"],
            "memory.move_charge_at_immigrate": "0",
            "memory.oom_control": self.oom_control("0"),
            "memory.stat": "".join("%s %d\n" % (k, self.rng.randrange(0, 1 << 28))
                                   for k in MEMORY_STAT_KEYS),
            "memory.numa_stat": "total=0 N0=0\nfile=0 N0=0\nanon=0 N0=0\nunevictable=0 N0=0\n",
        }
        if not self.old():
            files.update({
                "memory.kmem.limit_in_bytes": u, "memory.kmem.usage_in_bytes": "0",
                "memory.kmem.max_usage_in_bytes": "0", "memory.kmem.failcnt": "0",
                "memory.kmem.tcp.limit_in_bytes": u, "memory.kmem.tcp.usage_in_bytes": "0",
                "memory.kmem.tcp.max_usage_in_bytes": "0", "memory.kmem.tcp.failcnt": "0",
                "memory.kmem.slabinfo": "slabinfo - version: 2.1\n",
            })
        for name, content in files.items():
            self.write(path, self.pre(m, name), content + ("" if content.endswith("\n") else "\n"))
        # Write-only knobs: mode 0200 as in cgroupfs.
        for name in ("memory.force_empty", "memory.pressure_level", "cgroup.event_control"):
            self.write(path, self.pre(m, name), "", 0o200)

    def cpuset(self, m, path, is_root):
        files = {"cpuset.cpus": "0-3", "cpuset.mems": "0", "cpuset.effective_cpus": "0-3",
                 "cpuset.effective_mems": "0", "cpuset.cpu_exclusive": "1" if is_root else "0",
                 "cpuset.mem_exclusive": "1" if is_root else "0", "cpuset.mem_hardwall": "0",
                 "cpuset.memory_migrate": "0", "cpuset.memory_pressure": "0",
                 "cpuset.memory_spread_page": "0", "cpuset.memory_spread_slab": "0",
                 "cpuset.sched_load_balance": "1", "cpuset.sched_relax_domain_level": "-1"}
        if is_root:
            files["cpuset.memory_pressure_enabled"] = "0"
        for name, content in files.items():
            self.write(path, self.pre(m, name), content + "\n")

    def other_v1(self, m, path, is_root):
        c = set(m.controllers)
        files = {}
        if "cpu" in c:
            files.update({"cpu.shares": "1024", "cpu.cfs_period_us": "100000",
                          "cpu.cfs_quota_us": "-1",
                          "cpu.stat": "nr_periods 0\nnr_throttled 0\nthrottled_time 0"})
        if "cpuacct" in c:
            files.update({"cpuacct.usage": "123456789", "cpuacct.stat": "user 10\nsystem 5"})
        if "freezer" in c and not is_root:
            files.update({"freezer.state": "THAWED", "freezer.self_freezing": "0",
                          "freezer.parent_freezing": "0"})
        if "devices" in c:
            files["devices.list"] = "a *:* rwm"
        if "pids" in c:
            files.update({"pids.max": "max", "pids.current": "1"})
        if "blkio" in c:
            files["blkio.throttle.io_service_bytes"] = "Total 0"
        if "net_cls" in c:
            files["net_cls.classid"] = "0"
        for name, content in files.items():
            self.write(path, self.pre(m, name), content + "\n")
        for name in [n for n in ("devices.allow", "devices.deny") if "devices" in c] + \
                [n for n in ("blkio.reset_stats",) if "blkio" in c]:
            self.write(path, self.pre(m, name), "", 0o200)

    def v2(self, path, is_root, st):
        files = {"cgroup.procs": "", "cgroup.threads": "", "cgroup.subtree_control": "\n",
                 "cgroup.controllers": " ".join(st["available"]) + "\n",
                 "cgroup.max.depth": "max\n", "cgroup.max.descendants": "max\n",
                 "cgroup.stat": "nr_descendants 0\nnr_dying_descendants 0\n",
                 "cpu.stat": "usage_usec 0\nuser_usec 0\nsystem_usec 0\n",
                 "memory.pressure": "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"}
        if not is_root:
            files.update({"cgroup.type": "domain\n", "cgroup.events": "populated 0\nfrozen 0\n",
                          "cgroup.freeze": "0\n"})
            if "memory" in st["available"]:
                files.update({"memory.current": "%d\n" % self.rng.randrange(1 << 20, 1 << 30),
                              "memory.min": "0\n", "memory.low": "0\n", "memory.high": "max\n",
                              "memory.max": "max\n", "memory.swap.max": "max\n",
                              "memory.oom.group": "0\n",
                              "memory.events": "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n",
                              "memory.stat": "anon 0\nfile 0\nkernel 0\n"})
        for name, content in files.items():
            self.write(path, name, content)

    # ---------------------------------------------------------------- cgroups
    def create(self, path):
        """Create path (bytes, absolute in the fixture) with default files."""
        if path in self.nodes:
            return self.nodes[path]
        m = self.mount_of(path)
        is_root = path == m.point
        parent = None if is_root else self.create(path.rsplit(b"/", 1)[0])
        os.makedirs(self.root + path, exist_ok=True)
        st = {"use_hierarchy": parent["use_hierarchy"] if parent else
              ("0" if self.old() else "1"),
              "swappiness": parent["swappiness"] if parent else "60",
              "available": (parent["subtree"] if parent else V2_CONTROLLERS),
              "subtree": []}
        self.nodes[path] = st
        m.cgroups += 1
        if m.type == "cgroup2":
            self.v2(path, is_root, st)
        else:
            common = {"cgroup.procs": "", "tasks": "", "cgroup.clone_children": "0\n",
                      "notify_on_release": "0\n"}
            if is_root:
                common.update({"release_agent": "\n", "cgroup.sane_behavior": "0\n"})
            for name, content in common.items():
                self.write(path, name, content)
            if "memory" in m.controllers:
                self.memory_v1(m, path, is_root, st)
            if "cpuset" in m.controllers:
                self.cpuset(m, path, is_root)
            self.other_v1(m, path, is_root)
        return st

    def apply(self, path, kv):
        st = self.create(path)
        m = self.mount_of(path)
        u = self.unlimited
        v1 = {"limit": "memory.limit_in_bytes", "memsw": "memory.memsw.limit_in_bytes",
              "soft": "memory.soft_limit_in_bytes", "kmem": "memory.kmem.limit_in_bytes",
              "tcp": "memory.kmem.tcp.limit_in_bytes",
              "move_charge": "memory.move_charge_at_immigrate"}
        v2 = {"max": "memory.max", "high": "memory.high", "low": "memory.low", "min": "memory.min"}
        for k, v in kv:
            if k == "procs":
                p = self.pids(int(v))
                self.write(path, "cgroup.procs", p)
                if m.type == "cgroup":
                    self.write(path, "tasks", p)
            elif k in v1:
                self.write(path, self.pre(m, v1[k]), size(v, u) + "\n")
            elif k in v2:
                self.write(path, v2[k], (v if v == "max" else size(v, u)) + "\n")
            elif k in ("use_hierarchy", "swappiness"):
                st[k] = v
                self.write(path, self.pre(m, "memory." + k), v + "\n")
            elif k == "oom_kill_disable":
                self.write(path, self.pre(m, "memory.oom_control"), self.oom_control(v))
            elif k == "subtree":
                st["subtree"] = v.split(",")
                self.write(path, "cgroup.subtree_control", " ".join(st["subtree"]) + "\n")
            elif k == "controllers":
                st["available"] = v.split(",")
                self.write(path, "cgroup.controllers", " ".join(st["available"]) + "\n")
            elif k.startswith("cpuset."):
                self.write(path, self.pre(m, k), v + "\n")
            elif k == "freezer":
                self.write(path, self.pre(m, "freezer.state"), v + "\n")
            elif k.startswith("file:"):
                self.write(path, k[5:], v.replace("\\n", "\n").replace("%20", " "))
            elif k.startswith("chmod:"):
                f = self.root + path if k[6:] == "." else os.path.join(self.root + path, k[6:].encode())
                os.chmod(f, int(v, 8))
            else:
                sys.exit("mkfixture: unknown key %r" % k)

    # ---------------------------------------------------------------- generated trees
    def level_names(self, kind, count):
        if kind == "n":
            return ["cg%d" % i for i in range(count)]
        if kind == "svc":
            return ["svc%d.service" % i for i in range(count)]
        if kind == "qos":
            return ["besteffort", "burstable"][:count]
        if kind == "pod":
            return ["pod" + str(uuid.UUID(int=self.rng.getrandbits(128), version=4))
                    for _ in range(count)]
        if kind == "ctr":
            return ["%064x" % self.rng.getrandbits(256) for _ in range(count)]
        sys.exit("mkfixture: unknown level kind %r" % kind)

    def varied(self):
        r = self.rng
        kv = [("procs", str(r.choice([0, 0, 1, 2, 3, 5, 9, 17])))]
        if r.random() < 0.8:
            kv.append(("limit", "%dM" % r.choice([64, 128, 256, 512, 1024, 3072])))
        if r.random() < 0.4:
            kv.append(("soft", "%dM" % r.choice([32, 64, 128])))
        if r.random() < 0.3:
            kv.append(("kmem", "%dM" % r.choice([16, 32])))
        if r.random() < 0.3:
            kv.append(("memsw", "%dM" % r.choice([128, 512, 2048])))
        if r.random() < 0.2:
            kv.append(("swappiness", str(r.choice([0, 10, 30]))))
        if r.random() < 0.05:
            kv.append(("oom_kill_disable", "1"))
        if r.random() < 0.05:
            kv.append(("move_charge", "3"))
        return kv

    def gen(self, path, spec, varied):
        levels = [(k, int(c)) for k, c in (lv.split(":") for lv in spec.split("/"))]
        self.apply(path, [])
        frontier = [path]
        for kind, count in levels:
            nxt = []
            for parent in frontier:
                for name in self.level_names(kind, count):
                    child = parent + b"/" + name.encode()
                    is_mem = "memory" in self.mount_of(child).controllers
                    self.apply(child, self.varied() if varied and is_mem else [])
                    nxt.append(child)
            frontier = nxt

    # ---------------------------------------------------------------- mountinfo
    def mountinfo(self):
        def esc(p):
            return "".join("\\%03o" % c if c in b" \t\n\\" else chr(c) for c in p)
        lines = ["21 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw",
                 "22 21 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw",
                 "23 21 0:22 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw"]
        for m in self.mounts:
            if m.type in ("cgroup", "cgroup2"):
                so = "rw" + ("," + m.opts if m.opts else "")
                lines.append("%d 23 0:%d / %s rw,nosuid,nodev,noexec,relatime shared:%d - %s %s %s"
                             % (m.id, m.minor, esc(m.point), m.id, m.type, m.type, so))
            else:
                lines.append("%d 23 0:%d / %s rw,nosuid,nodev,noexec shared:%d - %s %s rw,mode=755"
                             % (m.id, m.minor, esc(m.point), m.id, m.type, m.type))
        for m, point in self.binds:
            lines.append("%d 21 0:%d / %s rw,relatime - %s %s rw%s"
                         % (m.id + 100, m.minor, esc(point), m.type, m.type,
                            "," + m.opts if m.opts else ""))
        with open(os.path.join(self.out, "mountinfo"), "w", encoding="latin-1") as f:
            f.write("\n".join(lines) + "\n")


def main():
    desc, out = sys.argv[1], sys.argv[2]
    fx = Fixture(out)
    os.makedirs(fx.root, exist_ok=True)
    # Whole-line comments only: a cgroup name may hold '#'.
    with open(desc) as f:
        lines = [ln.split() for ln in f if not ln.lstrip().startswith("#")]
    for words in lines:
        if not words:
            continue
        op, args = words[0], words[1:]
        if op == "kernel":
            fx.kernel = args[0]
        elif op == "mount":
            mid = 30 + len(fx.mounts)
            fx.mounts.append(Mount(mid, args[0], unescape(args[1]),
                                   args[2] if len(args) > 2 else "", 30 + len(fx.mounts)))
        elif op == "bind":
            m = fx.mount_of(unescape(args[0]))
            fx.binds.append((m, unescape(args[1])))
        elif op == "cg":
            fx.apply(unescape(args[0]), [tuple(a.split("=", 1)) for a in args[1:]])
        elif op == "gen":
            fx.gen(unescape(args[0]), args[1], "varied" in args[2:])
        else:
            sys.exit("mkfixture: unknown directive %r" % op)
    for m in fx.mounts:
        if m.type in ("cgroup", "cgroup2") and m.point not in fx.nodes:
            fx.create(m.point)
    fx.mountinfo()
    for m in fx.mounts:
        if m.type in ("cgroup", "cgroup2"):
            print("mount %s %d" % (m.point.decode("utf-8", "replace"), m.cgroups))


if __name__ == "__main__":
    main()
