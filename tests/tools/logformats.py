#!/usr/bin/env python3
"""Renders every catalog message variant of tests/data/messages.tsv into every
log format the scanner reads, runs `cgroup-feedback scan --json` on each, and
compares ids, fields, level, seq/usec, line numbers and text with what the
variant says; then checks the whole logs of tests/data/logs/ against their
.expect files. Used by tests/integration/formats.sh (which explains the
formats and eras covered).

  logformats.py CGROUP_FEEDBACK DATA_DIR TMP_DIR

Writes TMP_DIR/results: "PASS<TAB>name" / "FAIL<TAB>name" lines, with
"#<TAB>diagnostic" lines after a failure. Exit 0 when it ran (whatever the
verdicts), non-zero when it could not.
"""
import json, os, re, subprocess, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from noraw import escape  # noqa: E402  (the product's escape, in Python)

CGFB, DATA, TMP = sys.argv[1], sys.argv[2], sys.argv[3]
results = []          # (passed, name, [diagnostics])


def unescape(s):
    out = bytearray()
    i = 0
    b = s.encode("utf-8")
    while i < len(b):
        c = b[i]
        if c == 0x5C and i + 1 < len(b):
            n = b[i + 1]
            if n == ord("n"):
                out.append(10); i += 2; continue
            if n == ord("t"):
                out.append(9); i += 2; continue
            if n == 0x5C:
                out.append(0x5C); i += 2; continue
            if n == ord("x") and i + 3 < len(b):
                out.append(int(b[i + 2:i + 4], 16)); i += 4; continue
        out.append(c)
        i += 1
    return bytes(out)


def parse_fields(s):
    if s == "-":
        return [{}]
    dets = []
    for part in s.split("|"):
        d = {}
        for kv in part.split():
            k, v = kv.split("=", 1)
            d[k] = unescape(v).decode("utf-8")
        dets.append(d)
    return dets


variants = []
with open(os.path.join(DATA, "messages.tsv"), encoding="utf-8") as f:
    for ln in f:
        ln = ln.rstrip("\n")
        if not ln or ln.startswith("#"):
            continue
        name, ids, level, block, fields, text = ln.split("\t")
        ids = ids.split(",")
        fl = parse_fields(fields)
        if len(fl) == 1 and len(ids) > 1:
            fl = fl * len(ids)
        variants.append(dict(name=name, ids=ids, level=int(level),
                             block=None if block == "-" else block.split(","),
                             fields=fl, text=unescape(text)))

# ---------------------------------------------------------------- records
# A record: text (bytes), level, fac (0 kernel), ident (syslog tag of a
# userspace record), flag (kmsg '-', 'c', '+'), expect (index into the
# expected detections or None).

def krec(text, level=6, **kw):
    r = dict(text=text if isinstance(text, bytes) else text.encode(), level=level, fac=0,
             ident="kernel", flag="-", expect=None)
    r.update(kw)
    return r


def urec(ident, text, level=6, fac=3):
    return krec(text, level, fac=fac, ident=ident)


BEFORE = [
    krec("Linux version 6.12.12-amd64 (debian-kernel@lists.debian.org) (x86_64-linux-gnu-gcc-14 (Debian 14.2.0-16) 14.2.0, GNU ld (GNU Binutils for Debian) 2.43.90.20250122) #1 SMP PREEMPT_DYNAMIC Debian 6.12.12-1 (2025-02-02)", 5),
    krec("x86/fpu: Supporting XSAVE feature 0x001: 'x87 floating point registers'"),
    urec("systemd[1]", "systemd[1]: Started systemd-journald.service - Journal Service."),
]
AFTER = [
    krec("IPv6: ADDRCONF(NETDEV_CHANGE): eth0: link becomes ready"),
    urec("systemd[1]", "systemd[1]: Reached target multi-user.target - Multi-User System."),
]

MODULES = "Modules linked in: bridge stp llc xt_conntrack nf_nat nf_conntrack ext4 mbcache jbd2 sd_mod ahci libahci"


def warn_block(era, v):
    """Records of a WARN block around v's message (None = bare message)."""
    kfile, func, comm, pid = v["block"]
    msg = [krec(v["text"], v["level"], expect=0)]
    exp = {"comm": comm, "pid": pid, "function": func}
    if era == "bare":
        return msg, {}
    W = lambda t: krec(t, 4)
    cut = W("------------[ cut here ]------------")
    r = []
    if era in ("2.6.32", "rhel6"):
        tail = "() (Not tainted)" if era == "rhel6" else "()"
        sym = func + ("+0x3ac/0x510" if era == "rhel6" else "")
        release = "2.6.32-431.el6.x86_64" if era == "rhel6" else "2.6.32-5-amd64"
        r = [cut, W("WARNING: at %s:4810 %s%s" % (kfile, sym, tail)),
             W("Hardware name: ProLiant DL380 G7")] + msg + [
             W(MODULES), W("Pid: %s, comm: %s Not tainted %s #1" % (pid, comm, release)),
             W("Call Trace:"),
             W(" [<ffffffff81071e27>] ? warn_slowpath_common+0x87/0xc0"),
             W(" [<ffffffff81071f16>] ? warn_slowpath_fmt+0x46/0x50"),
             W(" [<ffffffff8117a3ac>] ? %s+0x3ac/0x510" % func),
             W(" [<ffffffff810c3a7e>] ? cgroup_mkdir+0x15e/0x4b0"),
             W(" [<ffffffff81196a07>] ? vfs_mkdir+0xa7/0x100"),
             W(" [<ffffffff8100b072>] ? system_call_fastpath+0x16/0x1b"),
             W("---[ end trace a6c54db610fd5bb5 ]---")]
        exp.update(kernel_file=kfile, kernel_line="4810", release=release, taint="none")
    elif era in ("sles11-3.0", "opensuse-3.4"):
        if era == "sles11-3.0":
            path = "/usr/src/packages/BUILD/kernel-default-3.0.101/linux-3.0/" + kfile
            release, taint, sup = "3.0.101-84-default", "G           X", "Supported: Yes, External"
        else:
            path = "/home/abuild/rpmbuild/BUILD/kernel-default-3.4.28/linux-3.4/" + kfile
            release, taint, sup = "3.4.28-2.20-default", "G        W   ", "Supported: Yes"
        if v["text"].endswith(b"know"):
            msg[0]["flag"] = "c"         # no newline: 3.x kmsg marks a fragment
        r = [cut, W("WARNING: at %s:5007 %s+0x3ac/0x510()" % (path, func)),
             W("Hardware name: PowerEdge R710")] + msg + [
             W(MODULES), W(sup),
             W("Pid: %s, comm: %s Tainted: %s %s #1" % (pid, comm, taint, release)),
             W("Call Trace:"),
             W(" [<ffffffff810044a9>] dump_trace+0x79/0x340"),
             W(" [<ffffffff8146a0c3>] dump_stack+0x69/0x6f"),
             W(" [<ffffffff8104b6e7>] warn_slowpath_common+0x87/0xc0"),
             W(" [<ffffffff8104b7e6>] warn_slowpath_fmt+0x46/0x50"),
             W(" [<ffffffff81146b1c>] %s+0x3ac/0x510" % func),
             W(" [<ffffffff810a39a5>] cgroup_mkdir+0x2a5/0x4f0"),
             W(" [<ffffffff8116bd57>] vfs_mkdir+0xa7/0x100"),
             W(" [<ffffffff8116fef1>] sys_mkdirat+0x111/0x120"),
             W(" [<ffffffff81474ef2>] system_call_fastpath+0x16/0x1b"),
             W(" [<00007f4a3a9e3f77>] 0x7f4a3a9e3f76"),
             W("---[ end trace 9b3c0f0dd7e6c2ab ]---")]
        exp.update(kernel_file=kfile, kernel_line="5007", release=release,
                   taint=taint.replace(" ", ""))
    elif era == "3.10":
        release = "3.10.0-1160.el7.x86_64"
        r = [cut, W("WARNING: CPU: 3 PID: %s at %s:5018 %s+0x3ac/0x510()" % (pid, kfile, func))] + msg + [
             W(MODULES),
             W("CPU: 3 PID: %s Comm: %s Not tainted %s #1" % (pid, comm, release)),
             W("Hardware name: Dell Inc. PowerEdge R730/072T6D, BIOS 2.4.3 01/17/2017"),
             W(" ffff88017a2a7c30 00000000f1d7bd53 ffff88017a2a7be8 ffffffff81689aa2"),
             W("Call Trace:"),
             W(" [<ffffffff81689aa2>] dump_stack+0x19/0x1b"),
             W(" [<ffffffff81085c28>] __warn+0xd8/0x100"),
             W(" [<ffffffff81085caf>] warn_slowpath_fmt+0x5f/0x80"),
             W(" [<ffffffff811f14ac>] %s+0x3ac/0x510" % func),
             W("---[ end trace 7cbd8ab4e3c8a1f0 ]---")]
        exp.update(kernel_file=kfile, kernel_line="5018", release=release, taint="none", cpu="3")
    elif era in ("5.x", "6.13-uid", "6.19", "6.19-nofile", "arm64-6.12"):
        # Since 4.19 the architectures with __WARN_FLAGS (x86, arm64, ...)
        # print WARN(fmt) via __warn_printk(): "cut here", then the message,
        # then the banner of __warn() -- the message comes first.
        if era == "5.x":
            banner = "WARNING: CPU: 3 PID: %s at %s:5018 %s+0x3ac/0x510" % (pid, kfile, func)
            release, cpuline = "5.10.0-28-amd64", "CPU: 3 PID: %s Comm: %s Tainted: G        W         %s #1 Debian 5.10.209-2"
            exp.update(taint="GW")
            end = "---[ end trace 5e1c37e4b0d6a7f2 ]---"
        elif era == "arm64-6.12":
            banner = "WARNING: CPU: 3 PID: %s at %s:5018 %s+0x3ac/0x510" % (pid, kfile, func)
            release, cpuline = "6.12.12-arm64", "CPU: 3 UID: 0 PID: %s Comm: %s Not tainted %s #1  Debian 6.12.12-1"
            exp.update(taint="none")
            end = "---[ end trace 0000000000000000 ]---"
        else:
            release = "6.14.0-rc1" if era == "6.13-uid" else "6.19.0-rc1"
            cpuline = "CPU: 3 UID: 0 PID: %s Comm: %s Not tainted %s #1 PREEMPT(voluntary)"
            exp.update(taint="none")
            end = "---[ end trace 0000000000000000 ]---"
            if era == "6.13-uid":
                banner = "WARNING: CPU: 3 PID: %s at %s:5018 %s+0x3ac/0x510" % (pid, kfile, func)
            elif era == "6.19":
                banner = "WARNING: %s:5018 at %s+0x3ac/0x510, CPU#3: %s/%s" % (kfile, func, comm, pid)
            else:
                banner = "WARNING: at %s+0x3ac/0x510, CPU#3: %s/%s" % (func, comm, pid)
        if era == "arm64-6.12":
            regs = [W("Hardware name: Raspberry Pi 4 Model B Rev 1.4 (DT)"),
                    W("pstate: 60400005 (nZCv daif +PAN -UAO -TCO -DIT -SSBS BTYPE=--)"),
                    W("pc : %s+0x3ac/0x510" % func),
                    W("lr : %s+0x3a8/0x510" % func),
                    W("sp : ffff800082f3bc60"),
                    W("x29: ffff800082f3bc60 x28: ffff0000c2a1c000 x27: 0000000000000000"),
                    W("x2 : 0000000000000000 x1 : 0000000000000000 x0 : 0000000000000000"),
                    W("Call trace:"),
                    W(" %s+0x3ac/0x510" % func),
                    W(" cgroup_mkdir+0x2a5/0x4f0"),
                    W(" kernfs_iop_mkdir+0x5c/0x90"),
                    W(" vfs_mkdir+0x1a0/0x250"),
                    W(" __arm64_sys_mkdirat+0x4c/0x70"),
                    W(" el0t_64_sync+0x190/0x198")]
        else:
            regs = [W("Hardware name: QEMU Standard PC (i440FX + PIIX, 1996), BIOS 1.16.2-debian-1.16.2-1 04/01/2014"),
                    W("RIP: 0010:%s+0x3ac/0x510" % func),
                    W("Code: 48 8b 45 00 48 85 c0 74 0e 48 c7 c7 10 2f 6a 82 e8 aa bb cc dd <0f> 0b 31 c0 5b 5d c3"),
                    W("RSP: 0018:ffffc90000d3fd98 EFLAGS: 00010286"),
                    W("RAX: 0000000000000000 RBX: ffff888104a3c000 RCX: 0000000000000027"),
                    W("Call Trace:"), W(" <TASK>"),
                    W(" ? __warn+0x81/0x130"),
                    W(" ? %s+0x3ac/0x510" % func),
                    W(" cgroup_mkdir+0x2a5/0x4f0"),
                    W(" kernfs_iop_mkdir+0x5b/0x90"),
                    W(" vfs_mkdir+0x19a/0x230"),
                    W(" do_mkdirat+0x10c/0x160"),
                    W(" __x64_sys_mkdir+0x4b/0x70"),
                    W(" do_syscall_64+0x82/0x170"),
                    W(" entry_SYSCALL_64_after_hwframe+0x76/0x7e"),
                    W(" </TASK>")]
        r = [cut] + msg + [W(banner), W(MODULES), W(cpuline % (pid, comm, release))] + regs + [W(end)]
        exp.update(release=release, cpu="3")
        if era != "6.19-nofile":
            exp.update(kernel_file=kfile, kernel_line="5018")
    else:
        raise ValueError(era)
    return r, exp


ERAS = ["bare", "2.6.32", "rhel6", "sles11-3.0", "opensuse-3.4", "3.10", "5.x", "6.13-uid",
        "arm64-6.12", "6.19", "6.19-nofile"]


def cases():
    for v in variants:
        if v["block"]:
            for era in ERAS:
                recs, blockexp = warn_block(era, v)
                yield "%s@%s" % (v["name"], era), v, BEFORE + recs + AFTER, blockexp, era != "bare"
        else:
            msg = [krec(v["text"], v["level"], expect=i) for i in range(len(v["ids"]))]
            yield v["name"], v, BEFORE + msg + AFTER, {}, False

# ---------------------------------------------------------------- formats
USEC0 = 3018562
SEQ0 = 1000
CALLER = "T4918"


def kmsg_escape(b):
    out = bytearray()
    for c in b:
        if c < 0x20 or c >= 0x7F or c == 0x5C:
            out += b"\\x%02x" % c
        else:
            out.append(c)
    return bytes(out)


def stamp(i):
    return USEC0 + i * 123


def dmesg_ts(i):
    u = stamp(i)
    return b"[%5d.%06d] " % (u // 1000000, u % 1000000)


LEVELS = ["emerg", "alert", "crit", "err", "warn", "notice", "info", "debug"]
FACS = ["kern", "user", "mail", "daemon"]


def prefixes(fmt, i, r):
    """Prefix of every line of record i (first line, continuation lines)."""
    tag = r["ident"] if r["fac"] else "kernel"
    mono = dmesg_ts(i)
    if fmt == "dmesg":
        p = mono
    elif fmt == "dmesg-caller":
        # console / syslog(2) / syzbot logs: "[    3.018562][ T4918] text"
        p = mono[:-1] + b"[%6s] " % CALLER.encode()
    elif fmt == "dmesg-caller-ul":
        # util-linux dmesg with a caller column: "[    3.018562] [  T4918] text"
        p = mono + b"[%7s] " % CALLER.encode()
    elif fmt == "dmesg-T":
        p = b"[Tue Feb  3 13:45:%02d 2026] " % (33 + i % 20)
    elif fmt == "dmesg-H":
        p = b"[Feb 3 13:45] " if i == 0 else b"[  +0,000123] "
    elif fmt == "dmesg-reltime":
        p = b"[  +0,000000] "
    elif fmt == "dmesg-r":
        p = b"<%d>" % (r["fac"] << 3 | r["level"]) + mono
    elif fmt == "dmesg-x":
        p = b"%-6s:%-6s: " % (FACS[r["fac"]].encode(), LEVELS[r["level"]].encode()) + mono
    elif fmt == "notime":
        p = b""
    elif fmt in ("syslog", "syslog-notime"):
        p = b"Aug 10 18:00:%02d myhost %s: " % (7 + i % 50, tag.encode())
        if fmt == "syslog" and not r["fac"]:
            u = 721581397 + i * 1000
            p += b"[%5d.%06d] " % (u // 1000000, u % 1000000)
    elif fmt == "rsyslog-rfc3339":
        p = b"2026-02-03T13:45:%02d.%06d+01:00 myhost %s: " % (33 + i % 20, i * 7, tag.encode())
    elif fmt == "journal-short":
        p = b"Feb 03 13:45:%02d myhost %s: " % (33 + i % 20, tag.encode())
    elif fmt == "journal-short-precise":
        p = b"Feb 03 13:45:%02d.%06d myhost %s: " % (33 + i % 20, i * 7, tag.encode())
    elif fmt == "journal-short-iso":
        p = b"2026-02-03T13:45:%02d+0100 myhost %s: " % (33 + i % 20, tag.encode())
    elif fmt == "journal-short-iso-precise":
        p = b"2026-02-03T13:45:%02d.%06d+01:00 myhost %s: " % (33 + i % 20, i * 7, tag.encode())
    elif fmt == "journal-short-monotonic":
        p = mono + b"myhost %s: " % tag.encode()
    else:
        raise ValueError(fmt)
    if r["fac"]:
        # userspace records keep their own "ident: " in the text; the
        # syslog-style formats carry it as the tag instead
        pass
    if fmt.startswith("journal-short"):
        cont = b" " * len(p)          # journalctl indents continuation lines
    elif fmt in ("notime",):
        cont = b""
    else:
        cont = p                      # syslog(2) prefixes every line
    return p, cont


def text_of(fmt, r):
    t = r["text"]
    if r["fac"] and fmt.split("-")[0] in ("syslog", "rsyslog", "journal"):
        t = t.split(b": ", 1)[1]      # "systemd[1]: x" -> tag systemd[1], text x
    return t


def render_lines(fmt, recs):
    """Line-based text formats. Returns bytes, per-record (first line, expected text)."""
    out, where = [], []
    extra_user = fmt in ("syslog", "syslog-notime", "rsyslog-rfc3339")
    if fmt.startswith("journal-short"):
        out.append(b"-- Logs begin at Tue 2026-02-03 13:40:01 CET, end at Tue 2026-02-03 14:00:00 CET. --")
    for i, r in enumerate(recs):
        if extra_user and i % 2 == 1:
            out.append(b"Aug 10 18:00:07 myhost sshd[1234]: Accepted publickey for root from 192.0.2.7 port 50522 ssh2"
                       if fmt != "rsyslog-rfc3339" else
                       b"2026-02-03T13:45:33.000001+01:00 myhost dockerd[812]: time=\"2026-02-03T13:45:33\" level=info msg=\"starting container\"")
        p, cont = prefixes(fmt, i, r)
        t = text_of(fmt, r)
        if fmt == "rsyslog-rfc3339":
            t = t.replace(b"\n", b"#012")
        lines = t.split(b"\n")
        where.append((len(out) + 1, lines[0]))
        out.append(p + lines[0])
        for more in lines[1:]:
            out.append(cont + more)
    return b"\n".join(out) + b"\n", where


def render_kmsg(fmt, recs):
    out, where = [], []
    seq = SEQ0
    for i, r in enumerate(recs):
        prio = r["fac"] << 3 | r["level"]
        extra = b",caller=" + CALLER.encode() if fmt == "kmsg-caller" else b""
        if fmt == "kmsg" and r["text"].startswith(b"Modules linked in:") and recs[i - 1]["flag"] == "c":
            # 3.x: the pr_cont pieces of print_modules() as fragments
            where.append((len(out) + 1, r["text"], seq))
            words = r["text"].split(b" ")
            pieces = [b"Modules linked in:"] + [b" " + w for w in words[3:]]
            for k, piece in enumerate(pieces):
                out.append(b"%d,%d,%d,%s;%s" % (prio, seq, stamp(i), b"c" if k == 0 else b"+",
                                                 kmsg_escape(piece)))
                seq += 1
            continue
        where.append((len(out) + 1, r["text"], seq))
        flag = r["flag"].encode() if fmt == "kmsg" else b"-"
        out.append(b"%d,%d,%d,%s%s;%s" % (prio, seq, stamp(i), flag, extra, kmsg_escape(r["text"])))
        seq += 1
        if fmt == "kmsg-caller":
            out.append(b" SUBSYSTEM=cgroup")
            out.append(b" DEVICE=+cgroup:memory")
    return b"\n".join(out) + b"\n", where


def render_export(fmt, recs):
    out, where = bytearray(), []
    line = 1
    for i, r in enumerate(recs):
        fields = [
            b"__CURSOR=s=6f5e3b0c0b3a4f6e8e0d3a9b6c2d1e0f;i=%x;b=2f7c1c0d5e4b4a3c9d8e7f6a5b4c3d2e;m=%x;t=62d1c9e0a1b2c;x=%x" % (0x1000 + i, stamp(i), 0xabc0 + i),
            b"__REALTIME_TIMESTAMP=%d" % (1770122733000000 + stamp(i)),
            b"__MONOTONIC_TIMESTAMP=%d" % stamp(i),
            b"_BOOT_ID=2f7c1c0d5e4b4a3c9d8e7f6a5b4c3d2e",
            b"_SOURCE_MONOTONIC_TIMESTAMP=%d" % (stamp(i) - 5),
            b"PRIORITY=%d" % r["level"],
            b"SYSLOG_FACILITY=%d" % r["fac"],
        ]
        t = r["text"]
        if r["fac"]:
            ident, t = t.split(b": ", 1)
            fields.append(b"SYSLOG_IDENTIFIER=" + ident.split(b"[")[0])
        else:
            fields.append(b"SYSLOG_IDENTIFIER=kernel")
        binary = any(c < 0x20 and c != 9 for c in t)
        if binary:
            fields.append(b"MESSAGE\n" + len(t).to_bytes(8, "little") + t)
        else:
            fields.append(b"MESSAGE=" + t)
        fields += [b"_TRANSPORT=kernel", b"_MACHINE_ID=8d1e0c7c2b3a4f5e6d7c8b9a0f1e2d3c",
                   b"_HOSTNAME=myhost", b"_RUNTIME_SCOPE=system"]
        where.append((line, t))
        for fld in fields:
            out += fld + b"\n"
            line += 1 + fld.count(b"\n")
        out += b"\n"
        line += 1
    return bytes(out), where


LINE_FORMATS = ["dmesg", "dmesg-caller", "dmesg-caller-ul", "dmesg-T", "dmesg-H", "dmesg-reltime", "dmesg-r", "dmesg-x",
                "notime", "syslog", "syslog-notime", "rsyslog-rfc3339", "journal-short",
                "journal-short-precise", "journal-short-iso", "journal-short-iso-precise",
                "journal-short-monotonic"]
FORMATS = ["kmsg", "kmsg-caller"] + LINE_FORMATS + ["journal-export"]
HAS_LEVEL = {"kmsg", "kmsg-caller", "dmesg-r", "dmesg-x", "journal-export"}
HAS_USEC = {"kmsg", "kmsg-caller", "dmesg", "dmesg-caller", "dmesg-caller-ul", "dmesg-r", "dmesg-x", "journal-export"}
HAS_SEQ = {"kmsg", "kmsg-caller"}


def render(fmt, recs):
    if fmt.startswith("kmsg"):
        return render_kmsg(fmt, recs)
    if fmt == "journal-export":
        return render_export(fmt, recs)
    return render_lines(fmt, recs)

# ---------------------------------------------------------------- run
jobs = {}
for fmt in FORMATS:
    d = os.path.join(TMP, "fmt", fmt)
    os.makedirs(d)
    for case, v, recs, blockexp, inblock in cases():
        data, where = render(fmt, recs)
        path = os.path.join(d, case.replace("/", "_") + ".log")
        with open(path, "wb") as f:
            f.write(data)
        exp = []
        for i, r in enumerate(recs):
            if r["expect"] is None:
                continue
            k = r["expect"]
            fields = dict(v["fields"][k])
            fields.update(blockexp)
            if fmt == "kmsg-caller":
                fields["caller"] = CALLER
            elif fmt.startswith("dmesg-caller"):
                fields["caller"] = CALLER
            line, text = where[i][:2]
            seq = where[i][2] if len(where[i]) > 2 else None
            if fmt == "journal-export" or fmt.startswith("kmsg"):
                text = r["text"]
            exp.append(dict(id=v["ids"][k], fields=fields, line=line, text=text,
                            level=r["level"], seq=seq, usec=stamp(i), warn_block=inblock))
        jobs.setdefault(fmt, []).append((case, path, exp))


# Known detector bugs: a failing test that matches one gets a "# TODO" note
# (it still fails; see the final report of the test author).
KNOWN_BUGS = [
    (lambda case, fmt, d: fmt.startswith("dmesg-caller") and "field caller" in d,
     "TODO detector bug: parse_dmesg() takes the caller bracket after the time stamp "
     "('[ T4918]') for a second, dmesg -H style time stamp and drops it, so "
     "parse_caller() never sees it and fields.caller is missing"),
    (lambda case, fmt, d: case.startswith("P2@") and "want ['P2'], got ['P2', 'G1']" in d,
     "TODO detector bug: the second line of P2's two-line record (printed with a "
     "time stamp / syslog header of its own) is reported as an extra G1"),
]


def check(fmt, case, path, exp, got, rc):
    name = "%s in %s" % (case, fmt)
    diag = []
    ids = [g.get("id") for g in got]
    want = [e["id"] for e in exp]
    if ids != want:
        diag.append("ids: want %s, got %s" % (want, ids))
    for e, g in zip(exp, got):
        if g.get("id") != e["id"]:
            continue
        fl = g.get("fields", {})
        for k, val in e["fields"].items():
            # a field's value as scan shows it: escaped (lib/utf8.c)
            val = escape(val.encode() if isinstance(val, str) else val)
            if fl.get(k) != val:
                diag.append("%s: field %s: want %r, got %r" % (e["id"], k, val, fl.get(k)))
        src = "%s:%d" % (path, e["line"])
        if g.get("source") != src:
            diag.append("%s: source: want %s, got %s" % (e["id"], src, g.get("source")))
        if g.get("warn_block") is not e["warn_block"]:
            diag.append("%s: warn_block: want %s, got %s" % (e["id"], e["warn_block"], g.get("warn_block")))
        if fmt in HAS_LEVEL and g.get("level") != e["level"]:
            diag.append("%s: level: want %d, got %s" % (e["id"], e["level"], g.get("level")))
        if fmt in HAS_SEQ and g.get("seq") != e["seq"]:
            diag.append("%s: seq: want %d, got %s" % (e["id"], e["seq"], g.get("seq")))
        if fmt in HAS_USEC and g.get("usec") != e["usec"]:
            diag.append("%s: usec: want %d, got %s" % (e["id"], e["usec"], g.get("usec")))
        t = g.get("text", "")
        if fmt in ("journal-export",) or fmt.startswith("kmsg"):
            # the JSON text is the record's bytes escaped (lib/utf8.c)
            ok = t == escape(e["text"])
        else:
            ok = t.rstrip() == escape(e["text"].rstrip())
        if not ok:
            diag.append("%s: text: want %r, got %r" % (e["id"], e["text"], t))
    bugs = [why for pred, why in KNOWN_BUGS if any(pred(case, fmt, d) for d in diag)]
    if diag and all(any(pred(case, fmt, d) for pred, _ in KNOWN_BUGS) for d in diag):
        name += " # " + "; ".join(bugs)
    results.append((not diag, name, diag))


for fmt in FORMATS:
    paths = [p for _, p, _ in jobs[fmt]]
    pr = subprocess.run([CGFB, "scan", "--json"] + paths, stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE)
    by_src = {}
    bad = []
    for ln in pr.stdout.split(b"\n"):
        if not ln:
            continue
        try:
            o = json.loads(ln.decode("utf-8", "strict"))
        except ValueError as ex:
            bad.append("%r: %s" % (ln[:120], ex))
            continue
        by_src.setdefault(o.get("source", "").rsplit(":", 1)[0], []).append(o)
    diag = bad[:]
    if pr.returncode != 0:
        diag.append("exit status %d (want 0); stderr: %s" % (pr.returncode, pr.stderr.decode("utf-8", "replace")[:600]))
    results.append((not diag, "scan --json of all %d %s files: exit 0, valid JSON" % (len(paths), fmt), diag))
    for case, path, exp in jobs[fmt]:
        check(fmt, case, path, exp, by_src.get(path, []), pr.returncode)

# ---------------------------------------------------------------- whole logs
# LOG.expect: one line per detection, in order: "id comm [line=N] [key=value]..."
# ("-" for no comm; key is a top-level JSON key such as seq or occurrence, or
# else a field). A comment line "# TODO ..." names a known detector bug;
# the test still fails while the bug is there, and says why.
logdir = os.path.join(DATA, "logs")
for ex in sorted(os.listdir(logdir)):
    if not ex.endswith(".expect"):
        continue
    log = os.path.join(logdir, ex[:-len(".expect")])
    want, todo = [], []
    with open(os.path.join(logdir, ex), encoding="utf-8") as f:
        for ln in f:
            if ln.startswith("# TODO") or (todo and ln.startswith("# ") and not want):
                todo.append(ln[2:].strip())
            ln = ln.split("#", 1)[0].split()
            if ln:
                extra = dict(t.split("=", 1) for t in ln[2:])
                want.append((ln[0] + " " + ln[1], extra))
    pr = subprocess.run([CGFB, "scan", "--json", log], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    got, diag = [], []
    for ln in pr.stdout.decode("utf-8", "strict").splitlines():
        got.append(json.loads(ln))
    got_ids = ["%s %s" % (o["id"], o["fields"].get("comm", "-")) for o in got]
    if got_ids != [w for w, _ in want]:
        diag.append("want: %s" % [w for w, _ in want])
        diag.append("got:  %s" % got_ids)
    else:
        for (w, extra), o in zip(want, got):
            for k, v in extra.items():
                if k == "line":
                    have = o["source"].rsplit(":", 1)[1]
                elif k in o and k != "fields":
                    have = str(o[k])
                else:
                    have = o["fields"].get(k)
                if have != v:
                    diag.append("%s: %s: want %r, got %r" % (w, k, v, have))
    if pr.returncode != (0 if want else 1):
        diag.append("exit status %d; stderr: %s" % (pr.returncode, pr.stderr.decode("utf-8", "replace")[:400]))
    name = "whole log %s: %s" % (os.path.basename(log), ", ".join(w for w, _ in want) or "nothing")
    if diag and todo:
        name += " # " + " ".join(todo)
    results.append((not diag, name, diag))

with open(os.path.join(TMP, "results"), "w", encoding="utf-8") as f:
    for passed, name, diag in results:
        f.write("%s\t%s\n" % ("PASS" if passed else "FAIL", name))
        for d in diag:
            f.write("#\t%s\n" % d.replace("\n", " "))
