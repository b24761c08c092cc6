#!/usr/bin/env python3
"""Write hostile variants of one valid report for the collector's tests.

  hostile.py BASE.json DIR

For each case DIR/<name>.json holds the body and DIR/cases.tsv a line
"<name> <expected status> <expected field, or - >". Every case must be
refused and nothing stored.
"""
import json
import os
import sys


def canonical(o):
    return json.dumps(o, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def main():
    base_bytes = open(sys.argv[1], "rb").read()
    base = json.loads(base_bytes)
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    cases = []

    def case(name, body, status, field="-"):
        with open(os.path.join(out, name + ".json"), "wb") as f:
            f.write(body)
        cases.append("%s\t%d\t%s\n" % (name, status, field))

    def variant(change):
        o = json.loads(base_bytes)
        change(o)
        return canonical(o)

    case("malformed", base_bytes[:-40], 400, "/")
    case("empty", b"", 400, "/")
    case("not_object", b"[1,2,3]", 400, "/")
    case("wrong_type", variant(lambda o: o.__setitem__("schema_version", "1")), 400,
         "/schema_version")
    case("wrong_nested_type", variant(lambda o: o["system"].__setitem__("numa_nodes", "1")),
         400, "/system/numa_nodes")
    case("bad_pattern", variant(lambda o: o.__setitem__("report_id", "../../etc/passwd")), 400,
         "/report_id")
    case("unknown_field", variant(lambda o: o.__setitem__("hostname", "db1")), 400, "/hostname")
    case("missing_field", variant(lambda o: o.pop("detection")), 400, "/detection")
    case("deep_nesting", b'{"a":' * 5000 + b"1" + b"}" * 5000, 400, "/")
    # 100,001 values: over the bound of values (issue 41), refused before
    # any parse; deep_nesting keeps the depth's 400.
    case("deep_array", b"[" * 100000 + b"]" * 100000, 413)
    case("huge_string", variant(lambda o: o["detection"].__setitem__("message", "x" * 200000)),
         400, "/detection/message")
    # Duplicate keys: the same member twice, otherwise canonical.
    s = base_bytes.decode()
    i = s.index('"created":')
    j = s.index(",", i)
    case("duplicate_key", (s[:j + 1] + s[i:j + 1] + s[j + 1:]).encode(), 400, "/")
    case("float", base_bytes.replace(b'"level":4', b'"level":4.0', 1), 400, "/")
    case("pretty", json.dumps(base, sort_keys=True, indent=1, ensure_ascii=False).encode(),
         400, "/")
    rev = dict(reversed(list(base.items())))
    case("unsorted", json.dumps(rev, ensure_ascii=False, separators=(",", ":")).encode(), 400,
         "/")
    case("bad_utf8", base_bytes.replace(b'"title":"', b'"title":"\xff\xfe', 1), 400, "/")
    case("nul_byte", base_bytes.replace(b'"title":"', b'"title":"\x00', 1), 400, "/")
    case("too_large", b" " * (300 * 1024), 413)
    # Control characters other than newline and tab in free text (issue 15,
    # defect 6): a NUL hid the rest of a use case from maintainers, ESC and a
    # lone CR rewrite a terminal, DEL erases.
    def use_case(text, answer="yes"):
        return lambda o: o.__setitem__("use_case", {"text": text, "answers": {"q": answer}})

    for cname, ch in (("nul", "\u0000"), ("esc", "\u001b"), ("cr", "\r"), ("del", "\u007f"),
                      ("bel", "\u0007"), ("vt", "\u000b")):
        case("use_case_" + cname, variant(use_case("before" + ch + "after<script>")), 400,
             "/use_case/text")
    case("answer_nul", variant(use_case("fine", "yes\u0000no")), 400, "/use_case/answers/q")
    case("title_esc", variant(lambda o: o["detection"].__setitem__("title", "t\u001b[2J")), 400,
         "/detection/title")
    case("message_cr", variant(lambda o: o["detection"].__setitem__("message", "m\rfake")), 400,
         "/detection/message")
    with open(os.path.join(out, "cases.tsv"), "w") as f:
        f.writelines(cases)


if __name__ == "__main__":
    main()
