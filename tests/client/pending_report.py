#!/usr/bin/env python3
"""Write a pending report (use case, consent and deletion still empty) into a
spool, as canonical JSON, the way watch leaves one: <dir>/reports/<id>.json.
Used until tests can make reports with watch itself on a fixture tree.

  pending_report.py STATE_DIR CATALOG_ID [SEED]   -> prints the report id
"""
import json
import os
import random
import sys

MESSAGES = {
    "M8": "Non-hierarchical mode is deprecated. Please report your usecase to linux-mm@kvack.org if you depend on this functionality.",
    "C1": "cgroup: libvirtd (4242) created nested cgroup for controller \"memory\" which has incomplete hierarchy support. Nested cgroups may change behavior in the future.",
    # The G1 safety net's shape: only the catalog's words survive.
    "G1": "memcg _ _ _ deprecated, please tell linux-mm@kvack.org",
    "M3": "soft_limit_in_bytes is deprecated and will be removed. Please report your usecase to linux-mm@kvack.org if you depend on this functionality.",
}


def main():
    state_dir, cid = sys.argv[1], sys.argv[2]
    rng = random.Random(sys.argv[3] if len(sys.argv) > 3 else "1")
    h = "%032x" % rng.getrandbits(128)
    rid = "%s-%s-4%s-%s%s-%s" % (h[0:8], h[8:12], h[13:16], "89ab"[int(h[16], 16) & 3],
                                 h[17:20], h[20:32])
    nodes = [{"id": 0, "parent": None, "name": "/", "depth": 0, "children": 1, "tasks": "8-15",
              "memory": {"use_hierarchy": 1, "limit": "max"}},
             {"id": 1, "parent": 0, "name": "h:0a1b2c3d4e5f", "depth": 1, "children": 2,
              "tasks": "1", "memory": {"use_hierarchy": 0, "limit": "1G"}},
             {"id": 2, "parent": 1, "name": "h:111111111111", "depth": 2, "children": 0,
              "tasks": "2-3", "memory": {"use_hierarchy": 0, "limit": "512M"}},
             {"id": 3, "parent": 1, "name": "h:222222222222", "depth": 2, "children": 0,
              "tasks": "2-3", "memory": {"use_hierarchy": 0, "limit": "512M"}}]
    rep = {
        "schema": "cgroup-feedback/report", "schema_version": 1, "report_id": rid,
        "created": "2026-12-03T01:02:03Z",
        "client": {"name": "cgroup-feedback", "version": "0.1.0"},
        "detection": {"catalog_id": cid, "title": "test",
                      "contact": None if cid.startswith("C") else "linux-mm@kvack.org",
                      "message": MESSAGES[cid], "level": 4, "count": 1, "source": "kmsg",
                      "warn_block": False, "fields": {"knob": "memory.use_hierarchy"}},
        "system": {"kernel": {"release": "6.1.0-13-amd64", "series": "6.1", "arch": "x86_64"},
                   "distribution": {"id": "debian", "version_id": "12"}, "cpus": "2-3",
                   "numa_nodes": 1, "memory": "32G", "virtualization": "kvm",
                   "cgroup_mode": "hybrid", "init": "systemd", "cmdline": {}},
        "topology": {"max_nodes": 50000, "max_bytes": 262144, "hierarchies": [{
            "id": 0, "version": 1, "controllers": ["memory"], "name": None, "nodes_total": 4,
            "nodes_listed": 4, "max_depth": 2, "cut": None, "nodes": nodes}]},
        "analysis": {"flat_subtrees": [{
            "hierarchy": 0, "node": 1, "children": [2, 3], "verdict": "affected",
            "reasons": ["parent_has_tasks", "parent_has_limit"],
            "reorganisation": {"new_parent": {"use_hierarchy": 1, "limit": "max", "tasks": "0"},
                               "move_under_new_parent": [1, 2, 3]}}],
            "knob_users": []},
        "use_case": None, "consent": None, "deletion": None,
    }
    d = os.path.join(state_dir, "reports")
    os.makedirs(d, mode=0o700, exist_ok=True)
    with open(os.path.join(d, rid + ".json"), "wb") as f:
        f.write(json.dumps(rep, sort_keys=True, separators=(",", ":"),
                           ensure_ascii=False).encode())
    print(rid)


if __name__ == "__main__":
    main()
