#!/usr/bin/env python3
"""Check from an strace log that every "201 Created" left the server only
after its report was on disk.

  durable_order.py TRACE

TRACE is `strace -f -tt -y -e trace=pwrite64,write,fdatasync,fsync,sendto,
sendmsg,writev` of the server while reports were posted one at a time. For
each 201 sent, an fdatasync or fsync of the database's -wal file must have
begun after the last write to that file before the send, and finished
before the send. Prints the number of 201s checked; exit 1 on a violation
or when there is nothing to check.
"""
import re
import sys

LINE = re.compile(r"^(\d+)\s+\S+\s+(<\.\.\. (\w+) resumed>|(\w+)\()")


def main():
    lines = open(sys.argv[1], errors="replace").read().splitlines()
    last_write = -1
    syncs = []            # (start index, end index)
    pending = {}          # pid -> start index of an unfinished sync
    checked = 0
    for i, line in enumerate(lines):
        m = LINE.match(line)
        if not m:
            continue
        pid, resumed, name = m.group(1), m.group(3), m.group(4)
        call = resumed or name
        wal = "-wal>" in line
        if call in ("fdatasync", "fsync"):
            if resumed and pid in pending:
                syncs.append((pending.pop(pid), i))
            elif wal and "<unfinished" in line:
                pending[pid] = i
            elif wal:
                syncs.append((i, i))
        elif call in ("pwrite64", "write") and wal and not resumed:
            last_write = i
        elif call in ("sendto", "sendmsg", "writev", "write") and "201 Created" in line:
            checked += 1
            if not any(last_write < s and e < i for s, e in syncs):
                print("# 201 at trace line %d without an fsync of the WAL after its last "
                      "write (line %d)" % (i + 1, last_write + 1))
                return 1
    print("# %d responses 201 each followed an fsync of the WAL" % checked)
    return 0 if checked else 1


if __name__ == "__main__":
    sys.exit(main())
