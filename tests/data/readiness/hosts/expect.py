#!/usr/bin/env python3
"""Check a host fixture's expectations against `cgroup-feedback check --json`.

usage: expect.py HOSTDIR CGFB SCRATCH

HOSTDIR (tests/data/readiness/hosts/NAME) holds:
  cgroups.desc  optional: the host's cgroup layout for ../../cgroupfs/mkfixture.py
                (its mounts, its cgroups); without it the host is a copy of a
                machine (an image: no /proc, no mount table)
  files/        files copied over the root, byte for byte (NUL bytes and
                symbolic links kept)
  expect        the expected verdicts, one statement a line, '#' comments:
    run [ARGS...]                 check --json ARGS on this host (--root and,
                                  with a mount table, --mountinfo added); the
                                  statements after it are about that run
    exit N
    verdict ready|not_ready|cannot_tell|not_checked
    mode legacy|hybrid|unified|none           system.cgroup_mode
    container NAME|none                       system.environment.container
    finding RULE [as=breaks|deprecated|info] [breaks=yes|no] [target=yes|no]
    no-finding RULE
    decision RULE DECIDER OUTCOME [at=X] [target=yes|no]
    advice RULE TEXT...                       the finding's advice contains TEXT
    owned OWNER RULE COUNT
  Every verdict and decision line comes right after a comment line that
  cites the decider's source which gives it; one without is a failure.

The root is built in SCRATCH/NAME (removed first), each run's JSON kept there
as runN.json. Prints one line per failed statement (host, line, statement,
the run it is about, what was found) and exits 1 on any failure (an expect
file with an error, or a host that cannot be built, is one), 0 otherwise.
"""
import contextlib
import importlib.util
import io
import json
import os
import shlex
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MKFIXTURE = os.path.join(HERE, "..", "..", "cgroupfs", "mkfixture.py")

VERDICTS = ("ready", "not_ready", "cannot_tell", "not_checked")
MODES = ("legacy", "hybrid", "unified", "none")
SHOWN = ("breaks", "deprecated", "info")
DECIDERS = ("kernel", "systemd", "kubelet", "lxc", "distro")
OUTCOMES = ("not_here", "keeps", "breaks", "broken", "unknown")
YESNO = {"yes": True, "no": False}


class ExpectError(Exception):
    pass


def options(words, allowed):
    """KEY=VALUE words into a dict, each KEY one of allowed."""
    out = {}
    for w in words:
        k, sep, v = w.partition("=")
        if not sep or k not in allowed:
            raise ExpectError("unknown option %r (want %s)" % (w, ", ".join(k + "=" for k in allowed)))
        if allowed[k] is not None and v not in allowed[k]:
            raise ExpectError("%s=%s: not one of %s" % (k, v, "|".join(allowed[k])))
        out[k] = YESNO[v] if allowed[k] is YESNO else v
    return out


def parse(path):
    """The expect file: a list of (lineno, text, op, words), syntax checked."""
    stmts = []
    prev_comment = False
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.strip()
            if not line:
                prev_comment = False
                continue
            if line.startswith("#"):
                prev_comment = True
                continue
            try:
                # at="RHEL 9": quotes group words; advice TEXT is taken as written.
                words = line.split() if line.startswith("advice ") else shlex.split(line)
                op, args = words[0], words[1:]
                check_syntax(op, args, stmts)
                if op in ("verdict", "decision") and not prev_comment:
                    raise ExpectError("no comment line citing the decider's source right before it")
            except (ExpectError, ValueError) as e:
                raise ExpectError("%s:%d: %s: %s" % (path, n, line, e))
            stmts.append((n, line, op, args))
            prev_comment = False
    if not any(s[2] == "run" for s in stmts):
        raise ExpectError("%s: no run statement" % path)
    return stmts


def check_syntax(op, args, stmts):
    def want(lo, hi=None):
        if len(args) < lo or (hi is not None and len(args) > hi):
            raise ExpectError("wrong number of words")
    if op != "run" and not any(s[2] == "run" for s in stmts):
        raise ExpectError("a statement before the first run")
    if op == "run":
        return
    if op == "exit":
        want(1, 1)
        if not args[0].isdigit():
            raise ExpectError("not a number")
    elif op == "verdict":
        want(1, 1)
        if args[0] not in VERDICTS:
            raise ExpectError("not one of " + "|".join(VERDICTS))
    elif op == "mode":
        want(1, 1)
        if args[0] not in MODES:
            raise ExpectError("not one of " + "|".join(MODES))
    elif op == "container":
        want(1, 1)
    elif op == "finding":
        want(1, 4)
        options(args[1:], {"as": SHOWN, "breaks": YESNO, "target": YESNO})
    elif op == "no-finding":
        want(1, 1)
    elif op == "decision":
        want(3, 5)
        if args[1] not in DECIDERS:
            raise ExpectError("decider not one of " + "|".join(DECIDERS))
        if args[2] not in OUTCOMES:
            raise ExpectError("outcome not one of " + "|".join(OUTCOMES))
        options(args[3:], {"at": None, "target": YESNO})
    elif op == "advice":
        want(2)
    elif op == "owned":
        want(3, 3)
        if not args[2].isdigit():
            raise ExpectError("count not a number")
    else:
        raise ExpectError("unknown statement %r" % op)


def copy_files(src, dst):
    """files/ over the root: bytes as they are, links as links."""
    for top, dirs, files in os.walk(src):
        rel = os.path.relpath(top, src)
        out = os.path.normpath(os.path.join(dst, rel))
        os.makedirs(out, exist_ok=True)
        for name in dirs + files:
            s, d = os.path.join(top, name), os.path.join(out, name)
            if os.path.islink(s):
                if os.path.lexists(d):
                    os.unlink(d)
                os.symlink(os.readlink(s), d)
            elif os.path.isfile(s):
                shutil.copyfile(s, d)


def mkfixture(desc, out):
    """mkfixture.py DESC OUT, in this process (an interpreter's start-up per
    host is most of the time a host takes)."""
    spec = importlib.util.spec_from_file_location("mkfixture", MKFIXTURE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    argv, sys.argv = sys.argv, [MKFIXTURE, desc, out]
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            mod.main()
    except SystemExit as e:
        raise ExpectError("mkfixture.py %s: %s" % (desc, e))
    finally:
        sys.argv = argv


def build(host, scratch):
    """The host's root (and mount table, or None) in scratch."""
    if os.path.lexists(scratch):
        shutil.rmtree(scratch)
    os.makedirs(scratch)
    root, mountinfo = os.path.join(scratch, "root"), None
    desc = os.path.join(host, "cgroups.desc")
    if os.path.exists(desc):
        mkfixture(desc, scratch)
        mountinfo = os.path.join(scratch, "mountinfo")
    os.makedirs(root, exist_ok=True)
    if os.path.isdir(os.path.join(host, "files")):
        copy_files(os.path.join(host, "files"), root)
    return root, mountinfo


def yn(b):
    return "yes" if b else "no"


def findings_of(doc, rule):
    return [f for f in doc.get("findings", []) if f.get("rule") == rule]


def one_finding(doc, rule):
    fs = findings_of(doc, rule)
    if not fs:
        return None, "no finding %s (findings: %s)" % (
            rule, ", ".join(f.get("rule", "?") for f in doc.get("findings", [])) or "none")
    return fs[0], None


def decision_text(d):
    return "%s %s at=%s target=%s" % (d.get("decider"), d.get("outcome"), d.get("at"),
                                     yn(d.get("on_target")))


def evaluate(op, args, run):
    """None when the statement holds, else what was found."""
    doc, rc = run["doc"], run["rc"]
    if op == "exit":
        return None if rc == int(args[0]) else "exit %d" % rc
    if doc is None:
        return "no JSON document: %s" % run["error"]
    if op == "verdict":
        v = doc.get("verdict")
        return None if v == args[0] else "verdict %s" % v
    if op == "mode":
        v = doc.get("system", {}).get("cgroup_mode")
        return None if v == args[0] else "mode %s (%s)" % (
            v, doc.get("system", {}).get("environment", {}).get("mode_why"))
    if op == "container":
        env = doc.get("system", {}).get("environment", {})
        v = env.get("container")
        want = None if args[0] == "none" else args[0]
        return None if v == want else "container %s (%s)" % (v or "none", env.get("container_why"))
    if op == "no-finding":
        fs = findings_of(doc, args[0])
        return None if not fs else "found: %s" % "; ".join(fs[0].get("where", []))
    if op == "owned":
        got = [o for o in doc.get("owned", []) if o.get("owner") == args[0] and o.get("rule") == args[1]]
        if got and got[0].get("count") == int(args[2]):
            return None
        return "owned: %s" % (", ".join("%s %s %s" % (o.get("owner"), o.get("rule"), o.get("count"))
                                        for o in doc.get("owned", [])) or "none")
    f, err = one_finding(doc, args[0])
    if err:
        return err
    if op == "finding":
        o = options(args[1:], {"as": SHOWN, "breaks": YESNO, "target": YESNO})
        got = {"as": f.get("shown_as"), "breaks": f.get("breaks"), "target": f.get("breaks_on_target")}
        if all(got[k] == v for k, v in o.items()):
            return None
        return "as=%s breaks=%s target=%s" % (got["as"], yn(got["breaks"]), yn(got["target"]))
    if op == "advice":
        text = " ".join(args[1:])
        a = f.get("advice", "")
        return None if text in a else "advice: %s" % a
    if op == "decision":
        o = options(args[3:], {"at": None, "target": YESNO})
        ds = [d for d in f.get("decisions", []) if d.get("decider") == args[1]]
        for d in ds:
            if d.get("outcome") == args[2] and ("at" not in o or (d.get("at") or "") == o["at"]) and \
                    ("target" not in o or d.get("on_target") == o["target"]):
                return None
        if not ds:
            return "no decision by %s (decisions: %s)" % (
                args[1], "; ".join(decision_text(d) for d in f.get("decisions", [])) or "none")
        return "; ".join("%s: %s" % (decision_text(d), d.get("why")) for d in ds)
    raise ExpectError("unknown statement %r" % op)


def do_run(cgfb, root, mountinfo, args, scratch, n):
    cmd = [cgfb, "check", "--json", "--root", root] + \
        (["--mountinfo", mountinfo] if mountinfo else []) + args
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # Kept beside the root for whoever reads a failure.
    with open(os.path.join(scratch, "run%d.json" % n), "wb") as f:
        f.write(p.stdout)
    run = {"rc": p.returncode, "doc": None, "error": None}
    try:
        run["doc"] = json.loads(p.stdout)
    except ValueError as e:
        run["error"] = "%s (stderr: %s)" % (e, p.stderr.decode(errors="replace").strip()[:300])
    return run


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.split("\n\n")[1])
    host, cgfb, scratch = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]
    name = os.path.basename(host)
    try:
        stmts = parse(os.path.join(host, "expect"))
        root, mountinfo = build(host, os.path.join(scratch, name))
    except (ExpectError, OSError) as e:
        print("%s: %s" % (name, e))
        return 1
    failed, run, runs = 0, None, 0
    for n, text, op, args in stmts:
        if op == "run":
            runs += 1
            run = do_run(cgfb, root, mountinfo, args, os.path.join(scratch, name), runs)
            run["line"] = text
            continue
        got = evaluate(op, args, run)
        if got is not None:
            failed += 1
            print("%s:%d: %s  [%s]: found %s" % (name, n, text, run["line"], got))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
