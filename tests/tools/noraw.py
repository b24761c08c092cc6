#!/usr/bin/env python3
"""What a program printed, as root's terminal would get it: no byte of a
hostile name may arrive raw (issue 39, class 1).

  noraw.py [--json] [--hostile] [--expect TEXT]... FILE...

Each FILE must be strict UTF-8 holding no C0 control but newline and tab,
no DEL, no C1 control (U+0080-U+009F: U+009B is CSI), no raw byte
0x80-0x9f and none of the bidi and invisible format controls the escape
shows escaped (lib/utf8.c). --json: each FILE is also JSON (one document,
or one per line), read strictly. --expect: TEXT, literally (e.g. \x1b]0;x),
must occur in at least one FILE (in a JSON FILE: in one of its strings, as
a JSON reader gets them): the escape is shown, not the name dropped.
--hostile: expect the escape of every part of tests/lib.sh's $HOSTILE.
Prints what is wrong, exits 1 if anything.
"""
import json
import sys

HIDDEN = [(0x00, 0x08), (0x0b, 0x1f), (0x7f, 0x9f), (0xad, 0xad), (0x61c, 0x61c),
          (0x180e, 0x180e), (0x200b, 0x200f), (0x2028, 0x202e), (0x2060, 0x206f),
          (0xfeff, 0xfeff), (0xfff9, 0xfffb), (0xe0000, 0xe007f)]

# How each part of $HOSTILE (tests/lib.sh) is shown: an OSC title, an OSC 52
# clipboard write, a screen clear, DEL, CSI as UTF-8 and as a raw byte, a
# right-to-left override, SOH and a backslash.
HOSTILE_SHOWN = ["\\x1b]0;x\\x07", "\\x1b]52;c;Y2htb2QK\\x07", "\\x1b[2J", "\\x7f\\u009b\\x9b\\u202e\\x01\\\\"]


def escape(b, text=False):
    """bytes b as lib/utf8.c's escape shows them (CGFB_ESC_LINE, or
    CGFB_ESC_TEXT with text): for tests that predict a program's output."""
    out = []
    i = 0
    while i < len(b):
        for n in (1, 2, 3, 4):
            try:
                ch = b[i:i + n].decode("utf-8", "strict")
                break
            except UnicodeDecodeError:
                ch = None
        if ch is None or len(ch) != 1 or (ord(ch) >= 0xd800 and ord(ch) < 0xe000):
            out.append("\\x%02x" % b[i])
            i += 1
            continue
        c = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif c < 0x80 and (c < 0x20 or c == 0x7f) and not (text and ch in "\n\t"):
            out.append("\\x%02x" % c)
        elif c >= 0x80 and any(lo <= c <= hi for lo, hi in HIDDEN):
            out.append("\\U%08x" % c if c > 0xffff else "\\u%04x" % c)
        else:
            out.append(ch)
        i += len(ch.encode())
    return "".join(out)


def strings(o):
    if isinstance(o, str):
        return o + "\n"
    if isinstance(o, dict):
        return "".join(strings(k) + strings(v) for k, v in o.items())
    if isinstance(o, list):
        return "".join(strings(v) for v in o)
    return ""


def main():
    args = sys.argv[1:]
    as_json = False
    expect = []
    files = []
    while args:
        a = args.pop(0)
        if a == "--json":
            as_json = True
        elif a == "--hostile":
            expect.extend(HOSTILE_SHOWN)
        elif a == "--expect":
            expect.append(args.pop(0))
        else:
            files.append(a)
    bad = []
    texts = []
    for f in files:
        data = open(f, "rb").read()
        try:
            text = data.decode("utf-8", "strict")
        except UnicodeDecodeError as e:
            bad.append("%s: not UTF-8 at byte %d: %r" % (f, e.start, data[max(0, e.start - 20):e.start + 8]))
            continue
        texts.append(text)
        for i, ch in enumerate(text):
            c = ord(ch)
            if any(lo <= c <= hi for lo, hi in HIDDEN):
                bad.append("%s: U+%04X raw at character %d: %r" % (f, c, i, text[max(0, i - 30):i + 5]))
                break
        if as_json:
            try:
                docs = [json.loads(text)]
            except ValueError:
                try:
                    docs = [json.loads(line) for line in text.splitlines() if line.strip()]
                except ValueError as e:
                    bad.append("%s: not JSON: %s" % (f, e))
                    docs = []
            # --expect looks in the strings as a JSON reader gets them.
            texts.extend(strings(d) for d in docs)
    for e in expect:
        if not any(e in t for t in texts):
            bad.append("the escape %r is shown nowhere" % e)
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
