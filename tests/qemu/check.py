#!/usr/bin/env python3
"""Check the serial console log of a tests/qemu guest run (see run.sh, guest-init.sh).

usage: check.py CONSOLE_LOG INJECT_TXT
Prints one line per check in TAP form, which tests/run.sh counts:
"ok N - PASS: ..." or "not ok N - FAIL: ... -- why"; other output is "# " comments.
Exits 0 only if every check passed.
"""
import json
import os
import re
import sys

# What the guest kernel (Debian 6.1) prints, by catalog id: the fixed start of each text,
# enough to tell it from the other ids. "in" rather than startswith: other kernels put
# "cgroup: " before C4.
REAL = {
    "M9b": "The swapaccount=0 commandline option is deprecated in favor of configuring swap control via cgroupfs.",
    "M8": "Non-hierarchical mode is deprecated.",
    "M1b": "kmem.limit_in_bytes is deprecated and will be removed. Writing any value to this file has no effect.",
    "M7": "Cgroup memory moving (move_charge_at_immigrate) is deprecated.",
    "C4": "option changes via remount are deprecated (pid=",
}
# Ids whose texts exist in the guest only as userspace copies (inject.txt).
INJECTED_ONLY = ("S1", "P1", "M3")
KEYS = ("id", "title", "text", "source", "level", "fields")
# busybox `dmesg -r`: "<prio>[ seconds] text"; prio = facility << 3 | level.
DMESG_RE = re.compile(r"^<(\d+)>\[ *\d+\.\d+\] ?(.*)$")
# A kernel console message that landed between our marker lines (loglevel=4 lets
# only err and worse through, but they can interleave with the detector's output).
KCONSOLE_RE = re.compile(r"^\[ *\d+\.\d+\] ")

checks = 0
failures = 0


def check(ok, what, why=""):
    """Print one TAP line; WHY explains a failure."""
    global checks, failures
    checks += 1
    if ok:
        print("ok %d - PASS: %s" % (checks, what))
    else:
        failures += 1
        print("not ok %d - FAIL: %s%s" % (checks, what, " -- " + why if why else ""))
    return ok


def comment(text):
    for line in text.split("\n"):
        print("# " + line)


def section(lines, begin, end_re):
    """Lines between the last BEGIN marker and the END marker after it, and the END match."""
    starts = [i for i, line in enumerate(lines) if line == begin]
    if not starts:
        return None, None
    for i in range(starts[-1] + 1, len(lines)):
        m = re.fullmatch(end_re, lines[i])
        if m:
            return lines[starts[-1] + 1:i], m
    return lines[starts[-1] + 1:], None


def main():
    log_path, inject_path = sys.argv[1], sys.argv[2]
    with open(log_path, "rb") as f:
        # The serial line turns \n into \r\n; kernel texts are ASCII.
        lines = [line.rstrip("\r") for line in f.read().decode("utf-8", "replace").split("\n")]
    with open(inject_path, encoding="utf-8") as f:
        injected = [line.rstrip("\n") for line in f if line.strip() and not line.startswith("#")]

    for line in lines:
        if line.startswith("@@STEP ") or line.startswith("@@GUEST-START"):
            comment("guest: " + line.strip("@"))

    out, end = section(lines, "@@CGFB-BEGIN@@", r"@@CGFB-END rc=(\d+)@@")
    if not check(end is not None, "guest ran the detector to the end",
                 "no @@CGFB-END@@ marker in the console log"):
        comment("last console lines:\n" + "\n".join(lines[-40:]))
        return
    err, _ = section(lines, "@@CGFB-STDERR-BEGIN@@", r"@@CGFB-STDERR-END@@")
    dmesg, _ = section(lines, "@@DMESG-BEGIN@@", r"@@DMESG-END@@")
    records = []  # (facility, level, text)
    for line in dmesg or []:
        m = DMESG_RE.match(line)
        if m:
            prio = int(m.group(1))
            records.append((prio >> 3, prio & 7, m.group(2)))
    kernel = [text for fac, _, text in records if fac == 0]
    user = [text for fac, _, text in records if fac == 1]

    rc = int(end.group(1))
    if not check(rc == 0, "detector exit status 0 (something found)", "status %d" % rc):
        comment("detector stderr:\n" + "\n".join(err or []))

    detections, bad = [], []
    for line in out:
        if not line.strip() or KCONSOLE_RE.match(line):
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            bad.append(line)
            continue
        if isinstance(obj, dict) and all(k in obj for k in KEYS):
            detections.append(obj)
        else:
            bad.append(line)
    check(not bad, "detector output is one JSON object per line with keys " + ",".join(KEYS),
          "bad lines: %r" % bad[:5])
    comment("detections: " + " ".join(str(d.get("id")) for d in detections))

    # The negative checks are only meaningful if the copies really reached the log as
    # single userspace records.
    missing = [t for t in injected if t not in user]
    check(not missing, "%d injected lines are in the kernel log as userspace (facility 1) records"
          % len(injected), "missing or split: %r" % missing[:3])

    # "kernel printed" failing means the guest trigger broke, not the detector.
    for cid, start in REAL.items():
        seen = [t for t in kernel if start in t]
        check(len(seen) == 1, "kernel printed %s once%s" % (cid, ": " + seen[0] if seen else ""),
              "%d facility-0 records containing %r: %r" % (len(seen), start, seen))
        got = [d for d in detections if d["id"] == cid]
        check(len(got) == 1, "detector reported %s exactly once" % cid,
              "%d detections: %r" % (len(got), [d.get("text") for d in got]))

    for cid in INJECTED_ONLY:
        got = [d for d in detections if d["id"] == cid]
        check(not got, "detector ignored the injected %s copy" % cid,
              "reported %d times: %r" % (len(got), [d.get("text") for d in got]))

    check_reports(lines)
    check_maps(lines)


def steps_ok(lines):
    """Guest steps that succeeded: {"M7": True, ...} from "@@STEP name rc=N@@"."""
    out = {}
    for line in lines:
        m = re.fullmatch(r"@@STEP (\S+) rc=(\d+)@@", line)
        if m:
            out[m.group(1)] = m.group(2) == "0"
    return out


def memory_hierarchy(rep):
    hs = [h for h in rep["topology"]["hierarchies"] if h["controllers"] == ["memory"]]
    return hs[0] if hs else None


def knob_users(rep, knob):
    return [k for k in rep["analysis"]["knob_users"] if k["knob"] == knob]


NETWORK_LIBS = ("libcurl", "libssl", "libnghttp2", "libssh2", "libldap", "liblber", "libgssapi",
                "libkrb5", "librtmp", "libgnutls", "libpsl", "libidn2")


def check_maps(lines):
    """The running watcher in the guest maps no network library (issue 14)."""
    raw, end = section(lines, "@@MAPS-BEGIN@@", r"@@MAPS-END@@")
    if not check(end is not None, "the guest printed the running watcher's maps"):
        return
    exe = [l[4:] for l in raw if l.startswith("exe ")]
    sos = [l[3:] for l in raw if l.startswith("so ")]
    wakes = [l.split()[1] for l in raw if l.startswith("wakeups ")]
    check(exe == ["/usr/bin/cgroup-feedback-watch"],
          "cgroup-feedback watch runs as cgroup-feedback-watch in the guest", "got %r" % exe)
    net = [so for so in sos if os.path.basename(so).startswith(NETWORK_LIBS)]
    check(sos and not net, "the watcher in the guest maps no network library (%d shared objects)"
          % len(sos), "maps %r" % net)
    check(not [so for so in sos if "libcrypto" in so],
          "...nor libcrypto: the report writer has it", "maps %r" % sos)
    if any("libasan" in so for so in sos):
        # The sanitizer runtime wakes on its own; the normal build is the measure.
        comment("ASan build: wake-ups not counted (%r)" % wakes)
    else:
        check(wakes == ["0"], "the watcher in the guest wakes 0 times in 3 idle seconds",
              "got %r" % wakes)


def check_reports(lines):
    """watch --once in the guest wrote one report per detection (acceptance point 3)."""
    _, end = section(lines, "@@WATCH-BEGIN@@", r"@@WATCH-END rc=(\d+)@@")
    err, _ = section(lines, "@@WATCH-STDERR-BEGIN@@", r"@@WATCH-STDERR-END@@")
    raw, rend = section(lines, "@@REPORTS-BEGIN@@", r"@@REPORTS-END@@")
    if not check(end is not None and end.group(1) == "0" and rend is not None,
                 "watcher ran to the end with status 0 and its reports were printed",
                 "status %s" % (end.group(1) if end else "missing")):
        comment("watcher stderr:\n" + "\n".join(err or []))
        return
    reports = []
    for line in raw:
        if line.startswith("{"):
            try:
                reports.append(json.loads(line))
            except ValueError:
                check(False, "report is JSON", line[:200])
    ids = sorted(r["detection"]["catalog_id"] for r in reports)
    check(ids == sorted(REAL), "one report per real detection (%s)" % " ".join(ids),
          "want %s" % " ".join(sorted(REAL)))
    try:
        import jsonschema
        schema_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                                   "report.schema.json")
        with open(schema_path, encoding="utf-8") as f:
            validator = jsonschema.Draft202012Validator(json.load(f))
        bad = ["%s: /%s: %s" % (r["detection"]["catalog_id"], "/".join(map(str, e.absolute_path)),
                                e.message) for r in reports for e in validator.iter_errors(r)]
        check(not bad, "every report valid for python3-jsonschema (Draft 2020-12)", "; ".join(bad[:5]))
    except ImportError:
        check(False, "python3-jsonschema is installed (make deps)")
    by_id = {r["detection"]["catalog_id"]: r for r in reports}
    steps = steps_ok(lines)

    m8 = by_id.get("M8")
    if check(m8 is not None, "a report for M8"):
        h = memory_hierarchy(m8)
        shape = h and [(n["depth"], n["children"]) for n in h["nodes"]]
        check(h is not None and shape == [(0, 1), (1, 1), (2, 0)] and h["nodes_total"] == 3,
              "M8 report: the memory hierarchy root -> job -> job/task", "got %r" % shape)
        uh = h and [n.get("memory", {}).get("use_hierarchy") for n in h["nodes"]]
        # The kernel refused the write of 0 (EINVAL) after warning: still 1 everywhere.
        check(uh == [1, 1, 1], "M8 report: use_hierarchy of every memory cgroup (1: the 0 was refused)",
              "got %r" % uh)
        d = m8["detection"]
        check(d["fields"].get("knob") == "memory.use_hierarchy" and d["source"] == "kmsg",
              "M8 report: the knob written, memory.use_hierarchy, from kmsg", "got %r" % d)
        users = knob_users(m8, "memory.use_hierarchy")
        check(len(users) == 1 and users[0]["count"] == 0,
              "M8 report: no cgroup runs with use_hierarchy=0", "got %r" % users)
        check(m8["system"]["cgroup_mode"] == "legacy" and m8["system"]["virtualization"] == "kvm"
              and m8["system"]["cmdline"].get("swapaccount") == "0",
              "M8 report: legacy mode, kvm (QEMU's DMI), swapaccount=0 from the command line",
              "got %r" % m8["system"])
        cpu = [h2 for h2 in m8["topology"]["hierarchies"] if "cpu" in h2["controllers"]]
        check(len(cpu) == 1 and cpu[0]["controllers"] == ["cpu", "cpuacct"],
              "reports see the remount: the cpu hierarchy now carries cpuacct too",
              "got %r" % [h2["controllers"] for h2 in m8["topology"]["hierarchies"]])
    m7 = by_id.get("M7")
    if check(m7 is not None, "a report for M7"):
        h = memory_hierarchy(m7)
        job = [n for n in h["nodes"] if n["depth"] == 1] if h else []
        moved = job and job[0].get("memory", {}).get("move_charge_at_immigrate")
        users = knob_users(m7, "memory.move_charge_at_immigrate")
        if steps.get("M7"):
            check(moved == 1 and users and users[0]["count"] == 1 and users[0]["values"] == {"1": 1},
                  "M7 report: job has move_charge_at_immigrate=1, the value written, and is its user",
                  "got %r / %r" % (moved, users))
        else:
            check(moved is None and users and users[0]["count"] == 0,
                  "M7 report: the write failed, nobody moves charges", "got %r / %r" % (moved, users))
    m1b = by_id.get("M1b")
    if check(m1b is not None, "a report for M1b"):
        users = knob_users(m1b, "memory.kmem.limit_in_bytes")
        check(users and users[0]["count"] == 0,
              "M1b report: the kmem limit written has no effect, no cgroup has one", "got %r" % users)
    c4 = by_id.get("C4")
    if check(c4 is not None, "a report for C4"):
        msg = c4["detection"]["message"]
        check(re.search(r"\(pid=N comm=(mount|h:[0-9a-f]{12})\)$", msg) is not None,
              "C4 report: the pid is N, the process a known name or a token", msg)


if __name__ == "__main__":
    main()
    print("1..%d" % checks)
    comment("FAIL: %d of %d checks failed" % (failures, checks) if failures
            else "PASS: all %d checks passed" % checks)
    sys.exit(1 if failures else 0)
