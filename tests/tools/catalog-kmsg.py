#!/usr/bin/env python3
"""One genuine message of every catalog entry as /dev/kmsg records.

  catalog-kmsg.py CATALOG MESSAGES_TSV FIRST_SEQ > records

For each id of CATALOG (data/catalog.json) but its userspace entries, the first variant of
MESSAGES_TSV (tests/data/messages.tsv) whose last id it is, as the kernel
logs it: "PRI,SEQ,USEC,-;text" with kmsg's escapes, the WARN_ONCE messages
inside a WARN block (cut here, WARNING line, message, end trace). A text
that two ids share (M4, then M5 from the second call site) is logged once
per id, never more: what one boot can print. Prints the number of ids
covered on stderr ("ids N"); exits 1 naming any catalog id that no variant
gives, so that a new entry without a test message is noticed here.

Used by tests/integration/watcher-memory.sh and bench/watcher.sh."""
import json
import sys


def unescape(s):
    out, b, i = bytearray(), s.encode("utf-8"), 0
    esc = {ord("n"): 10, ord("t"): 9, 0x5C: 0x5C}
    while i < len(b):
        if b[i] == 0x5C and i + 1 < len(b) and b[i + 1] in esc:
            out.append(esc[b[i + 1]]); i += 2
        elif b[i] == 0x5C and i + 3 < len(b) and b[i + 1] == ord("x"):
            out.append(int(b[i + 2:i + 4], 16)); i += 4
        else:
            out.append(b[i]); i += 1
    return bytes(out)


def kmsg_escape(b):
    return b"".join(b"\\x%02x" % c if c < 0x20 or c >= 0x7F or c == 0x5C else bytes([c])
                    for c in b)


def variants(path):
    with open(path, encoding="utf-8") as f:
        for ln in f:
            ln = ln.rstrip("\n")
            if ln and not ln.startswith("#"):
                name, ids, level, block, _fields, text = ln.split("\t")
                yield ids.split(","), int(level), None if block == "-" else block.split(","), \
                    unescape(text)


def main():
    catalog, tsv, seq = sys.argv[1], sys.argv[2], int(sys.argv[3])
    # A program's line (B2a, B2b, B3) is never the kernel's: /dev/kmsg
    # cannot carry one the catalog hears (only the journal can).
    want = [e["id"] for e in json.load(open(catalog, encoding="utf-8"))["entries"]
            if "userspace" not in e]
    chosen, logged = {}, {}
    for ids, level, block, text in variants(tsv):
        if ids[-1] in want and ids[-1] not in chosen:
            chosen[ids[-1]] = (ids, level, block, text)
    missing = [i for i in want if i not in chosen]
    if missing:
        sys.stderr.write("catalog-kmsg.py: no message in %s for %s\n" % (tsv, " ".join(missing)))
        return 1
    out = []

    def rec(level, text):
        nonlocal seq
        out.append(b"%d,%d,%d,-;%s\n" % (level, seq, 5000000 + seq * 1000, kmsg_escape(text)))
        seq += 1

    for cid in want:
        ids, level, block, text = chosen[cid]
        # A shared text: as many times as it takes to reach this id.
        times = len(ids) - logged.get(ids[0], 0)
        for _ in range(max(times, 1)):
            if block:
                kfile, func, comm, pid = block
                rec(4, b"------------[ cut here ]------------")
                rec(4, b"WARNING: CPU: 1 PID: %s at %s:4810 %s+0x3ac/0x510" %
                    (pid.encode(), kfile.encode(), func.encode()))
            rec(level, text)
            if block:
                rec(4, b"CPU: 1 PID: %s Comm: %s Not tainted 6.1.0-13-amd64 #1" %
                    (pid.encode(), comm.encode()))
                rec(4, b"---[ end trace 0000000000000000 ]---")
        logged[ids[0]] = logged.get(ids[0], 0) + max(times, 1)
    sys.stdout.buffer.write(b"".join(out))
    sys.stderr.write("ids %d\n" % len(want))
    return 0


if __name__ == "__main__":
    sys.exit(main())
