#!/usr/bin/env python3
"""Write tests/data/pastes/: catalog texts (tests/data/messages.tsv) in the
shapes reports from the field take: quoted, re-wrapped, indented, time stamps
stripped, WARN blocks without their markers, and combinations; plus
expected.tsv, what `scan` must report for each file.

The files are test data, checked in; run this only to change them:
    python3 tests/tools/mkpastes.py
tests/integration/pastes.sh reads the files, never this script."""
import os
import textwrap

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OUT = os.path.join(TOP, "tests", "data", "pastes")


def unescape(s):
    return s.encode().decode("unicode_escape")


def messages():
    m = {}
    with open(os.path.join(TOP, "tests", "data", "messages.tsv")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            variant, ids, level, block, fields, text = line.rstrip("\n").split("\t")
            m[variant] = (ids, unescape(text))
    return m


# Plain records: the variant of messages.tsv, and the fields to check.
PLAIN = [
    ("S2.comm-pid", "comm=sbatchd pid=31337"),
    ("C1.docker-runc", "comm=docker-runc pid=4918 controller=memory"),
    ("C2.period", "controller=memory"),
    ("C3", "-"),
    ("C4", "-"),
    ("M1a", "-"),
    ("M1b", "-"),
    ("M2", "-"),
    ("M3", "-"),
    ("M4.6.12", "-"),
    ("M6.6.14", "-"),
    ("M7", "-"),
    ("M8", "-"),
    ("M9a", "-"),
    ("M9b", "-"),
    ("M10", "-"),
    ("V1.sched_load_balance", "-"),
    ("V3", "-"),
    ("V4.info", "-"),
]


def stamp(i):
    return "[%5d.%06d] " % (4455 + i, 4106 + 1000 * i)


def quote(lines, mark):
    return [mark + l if l else mark.rstrip() for l in lines]


def wrap(lines, width):
    """A mail client's re-wrap: at spaces, long words kept whole."""
    out = []
    for l in lines:
        out += textwrap.wrap(l, width, break_long_words=False, break_on_hyphens=False) or [""]
    return out


def cut(lines, width):
    """A terminal's or a form's: every width columns, inside words too."""
    out = []
    for l in lines:
        while len(l) > width:
            out.append(l[:width])
            l = l[width:]
        out.append(l)
    return out


def indent(lines, pad):
    return [pad + l for l in lines]


# shape name -> (time stamps?, transform of the lines)
SHAPES = {
    "quoted": (True, lambda ls: quote(ls, "> ")),
    "quoted2": (True, lambda ls: quote(ls, ">> ")),
    "quoted-nested": (True, lambda ls: quote(ls, "> > ")),
    "wrap72": (True, lambda ls: wrap(ls, 72)),
    "wrap80": (True, lambda ls: wrap(ls, 80)),
    "cut80": (True, lambda ls: cut(ls, 80)),
    "indent-spaces": (True, lambda ls: indent(ls, "    ")),
    "indent-tab": (True, lambda ls: indent(ls, "\t")),
    "nostamp": (False, lambda ls: ls),
    "nostamp-wrap72": (False, lambda ls: wrap(ls, 72)),
    "nostamp-cut72": (False, lambda ls: cut(ls, 72)),
    "quoted-wrap72": (True, lambda ls: quote(wrap(ls, 70), "> ")),
    "wrap72-quoted2": (True, lambda ls: quote(quote(wrap(ls, 68), "> "), ">")),
    "indent-wrap80": (True, lambda ls: indent(wrap(ls, 76), "  ")),
    "syslog-wrap80": ("syslog", lambda ls: wrap(ls, 80)),
    "syslog-quoted-wrap72": ("syslog", lambda ls: quote(wrap(ls, 70), "> ")),
}

INTRO = ["Hi,", "", "after the upgrade our nodes log this:", ""]
OUTRO = ["", "Is this something we should worry about?", "", "Thanks,", "Jo"]

# WARN blocks: a 3.10+ block and a 3.0 SUSE block around S1 / P1 texts.
WARN_310 = [
    "------------[ cut here ]------------",
    "WARNING: CPU: 3 PID: 4242 at mm/memcontrol.c:5007 mem_cgroup_css_alloc+0x3ac/0x510",
    "Modules linked in: af_packet bridge stp llc",
    "CPU: 3 PID: 4242 Comm: libvirtd Not tainted 4.4.121-92-default #1",
    "Hardware name: HP ProLiant DL380 Gen9, BIOS P89 10/21/2019",
    "Call Trace:",
    " dump_stack+0x63/0x8e",
    " __warn+0xd1/0xf0",
    " warn_slowpath_fmt+0x4f/0x60",
    "---[ end trace 6e2bc1d3a4f5b6c7 ]---",
]
WARN_30 = [
    "------------[ cut here ]------------",
    "WARNING: at /usr/src/packages/BUILD/kernel-default-3.0.101/linux-3.0/mm/memcontrol.c:5007 mem_cgroup_create+0x3ac/0x510()",
    "Hardware name: ProLiant DL380 G7",
    None,  # the message
    "Modules linked in: af_packet bridge stp llc",
    "Supported: Yes, External",
    "Pid: 4321, comm: java Tainted: G          X 3.0.101-84-default #1",
    "Call Trace:",
    " [<ffffffff81004935>] dump_trace+0x75/0x310",
    "---[ end trace a6c54db610fd5bb5 ]---",
]


def warn_block(kind, text):
    if kind == "310":
        b = WARN_310[:2] + [text] + WARN_310[2:]
        return b, "comm=libvirtd pid=4242 kernel_file=mm/memcontrol.c"
    b = [text if l is None else l for l in WARN_30]
    return b, "comm=java pid=4321 kernel_file=mm/memcontrol.c"


WARN_SHAPES = {
    "warn-nocut": lambda b: b[1:],
    "warn-noend": lambda b: b[:-1],
    "warn-nomarkers": lambda b: b[1:-1],
    "warn-nomarkers-nostamp": lambda b: b[1:-1],
    "warn-nocut-quoted-wrap72": lambda b: b[1:],
    "warn-nomarkers-wrap80": lambda b: b[1:-1],
}


def stamped(lines, how):
    if how == "syslog":
        return ["Aug 10 18:00:%02d node07 kernel: %s%s" % (i, stamp(i), l)
                for i, l in enumerate(lines)]
    if how:
        return [stamp(i) + l for i, l in enumerate(lines)]
    return list(lines)


def write(name, lines, ids, fields, rows, note):
    with open(os.path.join(OUT, name), "w") as f:
        f.write("\n".join(lines) + "\n")
    rows.append((name, ids, fields, note))


def main():
    m = messages()
    rows = []
    for shape, (stamps, tf) in SHAPES.items():
        for variant, fields in PLAIN:
            ids, text = m[variant]
            body = tf(stamped([text], stamps))
            name = "%s-%s.txt" % (shape, variant)
            lines = INTRO + body + OUTRO if shape.startswith("quoted") else body
            write(name, lines, ids, fields, rows, "%s, %d lines" % (shape, len(body)))
    for shape, cutf in WARN_SHAPES.items():
        for kind, variant in (("310", "S1"), ("30", "S1.period"), ("310", "P1")):
            ids, text = m[variant]
            block, fields = warn_block(kind, text)
            block = cutf(block)
            if "nostamp" in shape:
                lines = block
            else:
                lines = stamped(block, True)
            if "wrap72" in shape:
                lines = quote(wrap(lines, 70), "> ")
            elif "wrap80" in shape:
                lines = wrap(lines, 80)
            if "wrap" in shape:
                # The banner's location may be cut off to a line of its own.
                fields = " ".join(f for f in fields.split() if not f.startswith("kernel_file"))
            name = "%s-%s-%s.txt" % (shape, kind, variant)
            write(name, lines, ids, fields, rows, "%s, a %s block" % (shape, kind))
    # Combinations of records: each complete record stays one detection.
    two = [m["M3"][1], m["M4.6.12"][1]]
    write("two-complete-nostamp.txt", two, "M3,M4", "-", rows,
          "two complete records, no time stamps: never joined")
    write("two-complete-indent.txt", indent(two, "  "), "M3,M4", "-", rows,
          "two complete records, indented")
    same = [m["M4.6.14"][1], m["M4.6.14"][1]]
    write("same-twice-nostamp.txt", same, "M4,M5", "-", rows,
          "the same complete record twice: two detections (the second site)")
    write("complete-then-line-nostamp.txt",
          [m["V4.info"][1], "if you depend on this functionality."], "V4", "-", rows,
          "a complete record, then a line that would extend it: not joined")
    write("complete-then-g1-nostamp.txt",
          [m["M3"][1], "Please report your usecase to linux-mm@kvack.org if you depend on this functionality."],
          "M3,G1", "-", rows,
          "a complete record, then a line that alone is G1: two detections")
    write("wrapped-pair-nostamp-wrap72.txt", wrap(two, 72), "M3,M4", "-", rows,
          "two records re-wrapped one after the other")
    write("wrapped-pair-wrap72.txt", wrap(stamped(two, True), 72), "M3,M4", "-", rows,
          "two stamped records re-wrapped one after the other")
    write("head-lost-wrap72.txt", wrap(stamped([m["M3"][1]], True), 72)[1:], "G1", "-",
          rows, "the first line of a wrapped record cut from the paste: only G1 is left")
    with open(os.path.join(OUT, "expected.tsv"), "w") as f:
        f.write("# Generated by tests/tools/mkpastes.py; read by tests/integration/pastes.sh.\n"
                "# file\tids (in order, comma separated)\tfields of the first detection"
                " (name=value, space separated, - none)\tshape\n")
        for r in rows:
            f.write("\t".join(r) + "\n")


main()
