#!/usr/bin/env python3
"""Make reports that validate against docs/report.schema.json, as canonical
JSON (the bytes the client sends), until the real snapshot/report builder of
issue 3 can make them. Deterministic for a given --seed.

  genreport.py --count N --seed S --dir DIR [--systems K] [--check] [--from-check K]

writes DIR/<n>.json (canonical bytes, no newline) and DIR/<n>.token (the
deletion token whose SHA-256 is in the report), and DIR/index.tsv with
"<n> <report id> <sha256> <catalog id> <kernel series> <distro> <mode>
<system key>" per line. --systems K cycles through K distinct system
profiles (the collector counts installs by profile). --check validates every
report with python3-jsonschema too. --from-check K makes every K-th report
(0, K, 2K ...) a finding of cgroup-feedback check --report: detection.source
"check" and an empty message, since the kernel printed none. --bound makes
each report's id bound to its deletion token's hash, as the client does
(lib/report_id.c): the collector then stores it only with the token in
X-Deletion-Token. --id ID gives every report that id (a squatter's copy).
"""
import argparse
import hashlib
import json
import os
import random
import sys

CATALOG = [
    ("M8", "Non-hierarchical mode (memory.use_hierarchy=0) is deprecated",
     "Non-hierarchical mode is deprecated. Please report your usecase to linux-mm@kvack.org if you depend on this functionality."),
    ("S1", "Flat memory cgroup hierarchy (use_hierarchy==0)",
     "Creating hierarchies with use_hierarchy==0 (flat hierarchy) is considered deprecated. If you believe that your setup is correct, we kindly ask you to contact linux-mm@kvack.org and let us know"),
    ("M7", "Cgroup memory moving (move_charge_at_immigrate) is deprecated",
     "Cgroup memory moving (move_charge_at_immigrate) is deprecated. Please report your usecase to linux-mm@kvack.org if you depend on this functionality."),
    ("M1b", "kmem.limit_in_bytes is deprecated",
     "kmem.limit_in_bytes is deprecated and will be removed. Writing any value to this file has no effect. Please report your usecase to linux-mm@kvack.org if you depend on this functionality."),
]
KERNELS = [("6.1.0-13-amd64", "6.1"), ("5.10.0-26-amd64", "5.10"), ("6.6.15-2-default", "6.6"),
           ("4.19.0-25-amd64", "4.19")]
DISTROS = [("debian", "12"), ("ubuntu", "22.04"), ("sles", "15.5"), ("rhel", "9.3")]
MODES = ["legacy", "hybrid", "legacy", "unified"]
SOFTWARE = ["libvirtd", "containerd", "h:0123456789ab", "slurmstepd"]
ANSWERS = ["yes", "no", "unsure", "yes"]
USE_CASES = [
    "We run one VM per cgroup under libvirt; siblings must not share reclaim.",
    "Batch jobs.\nFrom the scheduler's view each job is isolated.\n>From quoting must survive.",
    "Grüße aus Köln: containers with memory.use_hierarchy=0 since 2013 — \"legacy\".",
    "-----END CGROUP-FEEDBACK REPORT-----\n(a hostile line that looks like a marker)",
    "<script>alert('x')</script><img src=x onerror=alert(1)> & <b>not bold</b>",
]


def uuid4(rng):
    h = "%032x" % rng.getrandbits(128)
    return "%s-%s-4%s-%s%s-%s" % (h[0:8], h[8:12], h[13:16], "89ab"[int(h[16], 16) & 3],
                                  h[17:20], h[20:32])


def bound_id(nonce_id, token_sha256):
    """The id lib/report_id.c makes: nonce_id's first 8 bytes (version 4),
    then SHA-256("cgroup-feedback report id\\0" h)'s first 8 (variant 10)."""
    u = bytearray.fromhex(nonce_id.replace("-", ""))
    d = hashlib.sha256(b"cgroup-feedback report id\0" + token_sha256.encode()).digest()
    u[8:16] = d[:8]
    u[6] = (u[6] & 0x0f) | 0x40
    u[8] = (u[8] & 0x3f) | 0x80
    h = u.hex()
    return "%s-%s-%s-%s-%s" % (h[0:8], h[8:12], h[12:16], h[16:20], h[20:32])


def canonical(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def system(k, systems):
    rel, series = KERNELS[k % len(KERNELS)]
    if systems >= 10 and k == systems - 1:
        # one rare profile: its groups stay under the summary's threshold
        rel, series = "3.10.0-1160.el7.x86_64", "3.10"
    dist, ver = DISTROS[(k // 2) % len(DISTROS)]
    return {
        "kernel": {"release": rel, "series": series, "arch": "x86_64"},
        "distribution": {"id": dist, "version_id": ver},
        "cpus": ["1", "2-3", "4-7", "8-15"][k % 4], "numa_nodes": 1 + k % 2,
        # the memory bucket makes each of the K profiles distinct
        "memory": "%dG" % (1 + k), "virtualization": ["none", "kvm"][k % 2],
        "cgroup_mode": MODES[k % len(MODES)], "init": "systemd",
        "cmdline": {"swapaccount": "1"},
    }


def topology():
    nodes = [{"id": 0, "parent": None, "name": "/", "depth": 0, "children": 2, "tasks": "4-7",
              "memory": {"use_hierarchy": 0, "limit": "max"}},
             {"id": 1, "parent": 0, "name": "machine.slice", "depth": 1, "children": 0,
              "tasks": "2-3", "memory": {"use_hierarchy": 0, "limit": "4G"}},
             {"id": 2, "parent": 0, "name": "h:abcdefabcdef", "depth": 1, "children": 0,
              "tasks": "1", "memory": {"use_hierarchy": 0, "limit": "2G"}}]
    return {"max_nodes": 5000, "max_bytes": 262144, "hierarchies": [{
        "id": 4, "version": 1, "controllers": ["memory"], "name": None, "nodes_total": 3,
        "nodes_listed": 3, "max_depth": 1, "cut": None, "nodes": nodes}]}


def report(n, rng, systems, from_check=0, bound=False, force_id=None):
    cid, title, msg = CATALOG[n % len(CATALOG)]
    token = "%064x" % rng.getrandbits(256)
    affected = n % 3 != 0
    use_case = None
    if n % 2 == 0:
        # Each entry's own questions (data/catalog.json's question sets):
        # M7 is a knob, M8 and S1 are flat hierarchies.
        if cid == "M7":
            answers = {"purpose": "move charges with migrated tasks",
                       "software": SOFTWARE[n % len(SOFTWARE)],
                       "v2_replacement": ANSWERS[(n // 2) % len(ANSWERS)]}
        else:
            answers = {"reorganisation": ANSWERS[(n // 2) % len(ANSWERS)],
                       "software": SOFTWARE[n % len(SOFTWARE)]}
        use_case = {"text": USE_CASES[(n // 2) % len(USE_CASES)], "answers": answers}
    rep = {
        "schema": "cgroup-feedback/report", "schema_version": 1, "report_id": uuid4(rng),
        "created": "2025-%02d-%02dT%02d:%02d:%02dZ" % (1 + n % 3, 1 + n % 28, n % 24, n % 60, n % 60),
        "client": {"name": "cgroup-feedback", "version": "0.1.0"},
        "detection": {"catalog_id": cid, "title": title, "contact": "linux-mm@kvack.org",
                      "message": msg, "level": 4, "count": 1 + n % 3, "source": "kmsg",
                      "warn_block": cid == "S1",
                      "fields": {"comm": SOFTWARE[n % len(SOFTWARE)]}},
        "system": system(n % systems, systems),
        "topology": topology(),
        "analysis": {"flat_subtrees": [{
            "hierarchy": 4, "node": 0, "children": [1, 2],
            "verdict": "affected" if affected else "unaffected",
            "reasons": ["parent_has_tasks"] if affected else [],
            "reorganisation": {"new_parent": {"use_hierarchy": 1, "limit": "max", "tasks": "0"},
                               "move_under_new_parent": [1, 2]} if affected else None}],
            "knob_users": []},
        "use_case": use_case,
        "consent": {"given": True, "time": "2025-01-01T00:00:00Z",
                    "endpoint": "https://127.0.0.1/api/v1/reports", "schema_sha256": "0" * 64,
                    # one pseudonym per machine: the same install on every kernel it runs
                    "install": hashlib.sha256(b"install %d" % (n % systems)).hexdigest()[:32]},
        "deletion": {"token_sha256": hashlib.sha256(token.encode()).hexdigest()},
    }
    if bound:
        rep["report_id"] = bound_id(rep["report_id"], rep["deletion"]["token_sha256"])
    if force_id:
        rep["report_id"] = force_id
    if from_check and n % from_check == 0:
        rep["detection"].update(source="check", message="")
    return rep, token


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--systems", type=int, default=7)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--from-check", type=int, default=0)
    ap.add_argument("--bound", action="store_true")
    ap.add_argument("--id")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    validator = None
    if a.check:
        import jsonschema
        here = os.path.dirname(os.path.abspath(__file__))
        with open(os.path.join(here, "..", "..", "docs", "report.schema.json")) as f:
            validator = jsonschema.Draft202012Validator(json.load(f))
    os.makedirs(a.dir, exist_ok=True)
    with open(os.path.join(a.dir, "index.tsv"), "w") as idx:
        for n in range(a.count):
            rep, token = report(n, rng, a.systems, a.from_check, a.bound, a.id)
            if validator:
                validator.validate(rep)
            body = canonical(rep)
            with open(os.path.join(a.dir, "%d.json" % n), "wb") as f:
                f.write(body)
            with open(os.path.join(a.dir, "%d.token" % n), "w") as f:
                f.write(token)
            s = rep["system"]
            idx.write("%d\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n" % (
                n, rep["report_id"], hashlib.sha256(body).hexdigest(),
                rep["detection"]["catalog_id"], s["kernel"]["series"],
                s["distribution"]["id"], s["cgroup_mode"], n % a.systems))
    return 0


if __name__ == "__main__":
    sys.exit(main())
