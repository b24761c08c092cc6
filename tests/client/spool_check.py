#!/usr/bin/env python3
"""The spool's promises after a kill, checked against what a collector
double (collector_double.py --script api) saw. Run after every round;
MEMORY carries what earlier rounds saw.

  spool_check.py REPORTS_DIR DOUBLE_DIR MEMORY

1. every report is whole: canonical JSON, valid against the schema, named
   by its own report_id; every state file parses and names a report;
   nothing quarantined, nothing foreign (temporaries of an interrupted
   atomic write, ".NAME.tmp.PID", are counted, never read);
2. a consent record is for bytes that were shown: a sent report's state
   names the SHA-256 of its bytes, and the collector's receipt for it;
3. whatever reached the collector in this round was consented to: its
   SHA-256 is the one the state file recorded;
4. nothing acknowledged is sent twice or forgotten: a report sent stays
   sent, gets no further POST, and the collector never saw other bytes
   under an id it had acknowledged (409).
Prints one line per problem; exit status 1 when there is any.

  spool_check.py --serve IN OUT

does the same for each request: a line "REPORTS_DIR DOUBLE_DIR MEMORY"
written to the FIFO IN, answered on the FIFO OUT with the problems and a
last line "== N" (N of them), until it is killed. One process for
the hundreds of rounds of sigkill-loop.sh, which paid an interpreter and
the schema's compilation twice a round. A report whose bytes were valid
once is not validated again.
"""
import hashlib
import json
import os
import sys

import jsonschema

STATES = ("pending", "declined", "consented", "sent", "withdrawn")


def canon(o):
    return json.dumps(o, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def lines(path, skip):
    try:
        with open(path) as f:
            all_ = f.read().splitlines()
    except FileNotFoundError:
        all_ = []
    return all_[skip:], len(all_)


def check(d, dd, mem_path, v, valid):
    try:
        mem = json.load(open(mem_path))
    except FileNotFoundError:
        mem = {"states": {}, "acks": 0, "temporaries": 0}
    bad = []
    reports, states, temps, seen = {}, {}, 0, set()
    for f in sorted(os.listdir(d)):
        p = os.path.join(d, f)
        if f == "quarantine":
            if os.listdir(p):
                bad.append("quarantined: %s" % os.listdir(p))
            continue
        if f.startswith("."):
            temps += ".tmp." in f
            # The senders' lock (client/report/spool.h): empty, always.
            if f == ".send-lock":
                if os.path.getsize(p):
                    bad.append(".send-lock holds bytes")
                continue
            if ".tmp." not in f:
                bad.append("stray hidden file " + f)
            continue
        data = open(p, "rb").read()
        rid, _, ext = f.partition(".")
        try:
            if ext == "json":
                o = json.loads(data)
                if canon(o) != data:
                    bad.append("%s: not canonical (truncated?)" % f)
                if data not in valid:
                    v.validate(o)
                    valid.add(data)
                if o["report_id"] != rid:
                    bad.append("%s: names report %s" % (f, o["report_id"]))
                reports[rid] = (data, o)
            elif ext == "draft":
                json.loads(data)
            elif ext == "state":
                s = json.loads(data)
                if s["state"] not in STATES:
                    bad.append("%s: state %r" % (f, s["state"]))
                states[rid] = s
            elif ext == "seen":
                # Where and when the message was seen (docs/REPEATS.md).
                s = json.loads(data)
                if s["boots"] < 1 or s["first_seen"] > s["last_seen"]:
                    bad.append("%s: boots %r, seen %r..%r" % (f, s["boots"], s["first_seen"],
                                                              s["last_seen"]))
                seen.add(rid)
            else:
                bad.append("stray file " + f)
        except (ValueError, KeyError, jsonschema.ValidationError) as e:
            bad.append("%s: %s" % (f, str(e).splitlines()[0][:200]))
    for rid in seen - set(reports):
        bad.append("%s.seen without its report" % rid)
    for rid, s in states.items():
        if rid not in reports:
            bad.append("%s.state without its report" % rid)
            continue
        sha = hashlib.sha256(reports[rid][0]).hexdigest()
        if s["state"] == "sent":
            if s["sha256"] != sha:
                bad.append("%s: sent, but its consent names other bytes" % rid)
            if s.get("receipt", {}).get("sha256") != sha:
                bad.append("%s: sent without the receipt for its bytes" % rid)
        if s["state"] in ("consented", "sent") and reports[rid][1]["consent"] is None:
            bad.append("%s: %s, but the report holds no consent" % (rid, s["state"]))
    # Every POST the double answered, in order (it logs before answering).
    acks, mem["acks"] = lines(os.path.join(dd, "acks.log"), mem["acks"])
    for line in acks:
        rid, sha, code = line.split(" ")
        s = states.get(rid)
        if not s or s["sha256"] != sha:
            bad.append("%s: POSTed bytes %s that its state does not record consent to" %
                       (rid, sha[:12]))
        if mem["states"].get(rid) == "sent":
            bad.append("%s: POSTed again after it was sent" % rid)
        if code == "409":
            bad.append("%s: other bytes under an id the collector had acknowledged" % rid)
    for rid, old in mem["states"].items():
        now = states.get(rid, {}).get("state")
        if old == "sent" and now not in ("sent", "withdrawn", None):
            bad.append("%s: was sent, is now %s" % (rid, now))
    mem["states"] = {rid: s["state"] for rid, s in states.items()}
    mem["temporaries"] = temps
    with open(mem_path + ".tmp", "w") as f:
        json.dump(mem, f)
    os.rename(mem_path + ".tmp", mem_path)
    return bad


def main():
    v = jsonschema.Draft202012Validator(json.load(open("docs/report.schema.json")))
    valid = set()
    if sys.argv[1] != "--serve":
        bad = check(*sys.argv[1:4], v, valid)
        for b in bad:
            print(b)
        return 1 if bad else 0
    # FIFOs opened per request, so that no program of a round inherits them.
    while True:
        with open(sys.argv[2]) as f:
            line = f.read().strip()
        try:
            bad = check(*line.split(), v, valid)
        except Exception as e:  # a problem to report, not a reason to stop serving
            bad = ["checker: %r" % e]
        with open(sys.argv[3], "w") as f:
            f.write("".join(b + "\n" for b in bad) + "== %d\n" % len(bad))


if __name__ == "__main__":
    sys.exit(main())
