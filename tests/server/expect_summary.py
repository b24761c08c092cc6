#!/usr/bin/env python3
"""Recompute the collector's public summary from report files, independently
of the server's code, and compare it with a summary the server returned.

  expect_summary.py SUMMARY.json REPORT.json...

Exit 0 when they agree; otherwise print the differences and exit 1.
Installs are distinct consent.install pseudonyms; groups under 5 installs are
hidden; process names that are tokens (h:...) form no group. Findings of
cgroup-feedback check (detection.source "check") count in check_catalog_id and
total.check, not in catalog_id, which counts what the kernel printed.
A catalog id data/catalog.json does not list, and a process name the
allowlist (data/allowlist.json) neither keeps nor generalises to, form no
group and are not counted as suppressed either (the public view shows only
what the collector knows). Exact counts: the server runs with
--summary-epsilon 0 (tests/server/lib.sh).
"""
import json
import os
import sys

MIN = 5
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data")
CATALOG = {e["id"] for e in json.load(open(os.path.join(DATA, "catalog.json")))["entries"]}
_allow = json.load(open(os.path.join(DATA, "allowlist.json")))
SOFTWARE = set(_allow["comms"]) | {g["as"] for g in _allow["generalise"]}


def known(key, vocab):
    return key if key in vocab else None


def answer(rep):
    uc = rep.get("use_case") or {}
    v = (uc.get("answers") or {}).get("reorganisation")
    if v is None:
        return "unanswered"
    v = v.lstrip(" ")
    for k in ("yes", "no", "unsure"):
        if v[:len(k)].lower() == k and (len(v) == len(k) or v[len(k)] in " .,;:!"):
            return k
    return "other"


def verdict(rep):
    subs = rep["analysis"]["flat_subtrees"]
    if not subs:
        return "none"
    return "affected" if any(s["verdict"] == "affected" for s in subs) else "unaffected"


def from_check(r):
    return r["detection"]["source"] == "check"


KEYS = {
    "catalog_id": lambda r: None if from_check(r) else known(r["detection"]["catalog_id"], CATALOG),
    "check_catalog_id": lambda r: known(r["detection"]["catalog_id"], CATALOG) if from_check(r) else None,
    "kernel_series": lambda r: r["system"]["kernel"]["series"],
    "distribution": lambda r: "%s %s" % (r["system"]["distribution"]["id"],
                                         r["system"]["distribution"]["version_id"]),
    "cgroup_mode": lambda r: r["system"]["cgroup_mode"],
    "software": lambda r: known(r["detection"]["fields"].get("comm"), SOFTWARE),
    "verdict": verdict,
    "reorganisation": answer,
    "month": lambda r: r["created"][:7],
}


def total_of(reports):
    installs = len({r["consent"]["install"] for r in reports})
    return (len(reports), installs) if installs >= MIN else None


def expected(reports):
    out = {}
    for dim, key in KEYS.items():
        groups = {}
        for r in reports:
            k = key(r)
            if k is None:
                continue
            g = groups.setdefault(k, [0, set()])
            g[0] += 1
            g[1].add(r["consent"]["install"])
        shown = {k: (n, len(s)) for k, (n, s) in groups.items() if len(s) >= MIN}
        out[dim] = (shown, len(groups) - len(shown))
    return out, total_of(reports), total_of([r for r in reports if from_check(r)])


def main():
    got = json.load(open(sys.argv[1]))
    reports = [json.load(open(f)) for f in sys.argv[2:]]
    want, total, check = expected(reports)
    bad = []
    for name, t, w in (("total", got["total"], total), ("total.check", got["total"]["check"], check)):
        if (None if t["suppressed"] else (t["reports"], t["installs"])) != w:
            bad.append("%s: got %r want %r" % (name, t, w))
    for dim, (shown, suppressed) in want.items():
        d = got["dimensions"][dim]
        g = {x["key"]: (x["reports"], x["installs"]) for x in d["groups"]}
        if g != shown:
            bad.append("%s groups: got %r want %r" % (dim, g, shown))
        if d["suppressed_groups"] != suppressed:
            bad.append("%s suppressed: got %d want %d" % (dim, d["suppressed_groups"], suppressed))
    for b in bad:
        print("# " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
