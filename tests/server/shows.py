#!/usr/bin/env python3
"""Reports for what the collector shows (issue 30): variants of one valid
report (genreport.py's), each with a report id of its own.

  shows.py BASE.json DIR

writes DIR/<name>.json (canonical bytes) for
  uc-0 .. uc-2      a use case each
  plain-0 .. plain-54  no use case: one default burst from one address
  long              a 2,048-character answer and use case of 2- and
                    3-byte characters, its last character at byte 8,190
  unknown-0 .. -5   catalog id Zz9, which no catalog knows, and process name
                    Buy-pills-at-evil.example, which no allowlist does, 6 installs
  check-0 .. -5     findings of cgroup-feedback check --report (source
                    "check", no message): V1 from 6 installs
  check-m3          the same for M3 from one install (a group too small)
  check-late        V1 again, a 7th install (sent after the schema migration)
and DIR/refused.tsv, "<name> <field>" per report the schema must refuse:
C1 controls and bidi controls in free text, "consent": null, created
dates that are no dates.
"""
import hashlib
import json
import os
import random
import sys


def canonical(o):
    return json.dumps(o, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def main():
    base = json.load(open(sys.argv[1], "rb"))
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(30)
    refused = []

    def write(name, change):
        o = json.loads(json.dumps(base))
        h = "%032x" % rng.getrandbits(128)
        o["report_id"] = "%s-%s-4%s-a%s-%s" % (h[0:8], h[8:12], h[13:16], h[17:20], h[20:32])
        change(o)
        with open(os.path.join(out, name + ".json"), "wb") as f:
            f.write(canonical(o))

    def use_case(text, answer="yes"):
        return lambda o: o.__setitem__("use_case", {"text": text,
                                                    "answers": {"reorganisation": answer}})

    for i in range(3):
        write("uc-%d" % i, use_case("visible use case %d" % i))
    for i in range(55):
        write("plain-%d" % i, lambda o: o.__setitem__("use_case", None))
    # 2,048 characters, 2- and 3-byte ones: a fixed buffer cuts one in two.
    write("long", use_case("ü" + "€" * 2047, "ä" + "€" * 2047))

    def unknown(i):
        def change(o):
            o["detection"]["catalog_id"] = "Zz9"
            o["detection"]["fields"]["comm"] = "Buy-pills-at-evil.example"
            o["use_case"] = None
            o["consent"]["install"] = hashlib.sha256(b"forged %d" % i).hexdigest()[:32]
        return change
    for i in range(6):
        write("unknown-%d" % i, unknown(i))

    def check(cid, install):
        def change(o):
            o["detection"].update(catalog_id=cid, source="check", message="")
            o["use_case"] = None
            o["consent"]["install"] = hashlib.sha256(b"check %d" % install).hexdigest()[:32]
        return change
    for i in range(6):
        write("check-%d" % i, check("V1", i))
    write("check-m3", check("M3", 6))
    write("check-late", check("V1", 7))

    def bad(name, field, change):
        write(name, change)
        refused.append("%s\t%s\n" % (name, field))

    for cname, ch in (("csi", "\u009b"), ("nel", "\u0085"), ("c1_first", "\u0080"),
                      ("c1_last", "\u009f"), ("lre", "\u202a"), ("rlo", "\u202e"),
                      ("lri", "\u2066"), ("pdi", "\u2069"), ("alm", "\u061c"),
                      ("lrm", "\u200e"), ("rlm", "\u200f")):
        bad("text_" + cname, "/use_case/text", use_case("before" + ch + "2Jafter"))
        bad("answer_" + cname, "/use_case/answers/reorganisation",
            use_case("fine", "yes" + ch + "no"))
    bad("title_csi", "/detection/title",
        lambda o: o["detection"].__setitem__("title", "t\u009b2J"))
    bad("message_rlo", "/detection/message",
        lambda o: o["detection"].__setitem__("message", "m\u202efake"))
    bad("consent_null", "/consent", lambda o: o.__setitem__("consent", None))
    for name, when in (("created_99", "9999-99-99T99:99:99Z"),
                       ("created_month13", "2025-13-01T00:00:00Z"),
                       ("created_feb30", "2025-02-30T00:00:00Z"),
                       ("created_feb29", "2025-02-29T00:00:00Z"),
                       ("created_hour24", "2025-01-01T24:00:00Z"),
                       ("created_day0", "2025-01-00T00:00:00Z")):
        bad(name, "/created", lambda o, w=when: o.__setitem__("created", w))
    bad("consent_time_99", "/consent/time",
        lambda o: o["consent"].__setitem__("time", "2025-99-01T00:00:00Z"))
    # What must still pass: a leap day, a leap second, the end of a year.
    for name, when in (("created_leap", "2024-02-29T23:59:60Z"),
                       ("created_eoy", "2025-12-31T23:59:59Z")):
        write(name, lambda o, w=when: o.update(created=w, use_case=None))
    with open(os.path.join(out, "refused.tsv"), "w") as f:
        f.writelines(refused)


if __name__ == "__main__":
    main()
