#!/usr/bin/env python3
"""Check from an strace log that every "201 Created" left the server only
after its report was on disk.

  durable_order.py TRACE
  durable_order.py --pg TRACE

TRACE is `strace -f -tt -y -e trace=pwrite64,write,fdatasync,fsync,sendto,
sendmsg,writev` of the server while reports were posted one at a time. For
each 201 sent, an fdatasync or fsync of the database's -wal file must have
begun after the last write to that file before the send, and finished
before the send. Prints the number of 201s checked; exit 1 on a violation
or when there is nothing to check.

With --pg the store is PostgreSQL, whose disk this process does not write:
TRACE is `strace -f -tt -s 65536 -e trace=sendto,recvfrom,sendmsg,writev,
write,read`, and a 201 for report ID must follow, in this order, a message
to the server that carries ID (its INSERT's parameters), a COMMIT sent
after it and the server's "COMMIT" command tag received after that (the
collector sets synchronous_commit = on: the tag comes once the commit is
flushed to the server's disk).
"""
import re
import sys

LINE = re.compile(r"^(\d+)\s+\S+\s+(<\.\.\. (\w+) resumed>|(\w+)\()")
RECEIPT_ID = re.compile(r'\\"id\\":\s*\\"([^\\"]+)\\"')
SENDS = ("sendto", "sendmsg", "writev", "write")


def pg_main(path):
    lines = open(path, errors="replace").read().splitlines()
    sent = []             # indexes of the messages sent to the server
    commit_sent = []      # indexes of a COMMIT sent to the server
    commit_done = []      # indexes of its "COMMIT" tag received
    checked = 0
    for i, line in enumerate(lines):
        m = LINE.match(line)
        if not m:
            continue
        call = m.group(3) or m.group(4)
        if call in SENDS and "201 Created" in line:
            rid = RECEIPT_ID.search(line)
            if not rid:
                print("# 201 at trace line %d: no id in what strace shows of it" % (i + 1))
                return 1
            rid = rid.group(1)
            carried = [j for j in sent if rid in lines[j]]
            if not carried:
                print("# 201 for %s at trace line %d: the report was never sent to the "
                      "server" % (rid, i + 1))
                return 1
            w = carried[-1]
            if not any(w < c and any(c < r < i for r in commit_done) for c in commit_sent):
                print("# 201 for %s at trace line %d: no COMMIT sent after its INSERT (line "
                      "%d) and confirmed before it" % (rid, i + 1, w + 1))
                return 1
            checked += 1
        elif call in SENDS:
            sent.append(i)
            if "COMMIT\\0" in line:
                commit_sent.append(i)
        elif call in ("recvfrom", "read") and "COMMIT\\0" in line:
            commit_done.append(i)
    print("# %d responses 201 each followed the COMMIT of their INSERT, confirmed by "
          "PostgreSQL" % checked)
    return 0 if checked else 1


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
    if sys.argv[1] == "--pg":
        sys.exit(pg_main(sys.argv[2]))
    sys.exit(main())
