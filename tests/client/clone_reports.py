#!/usr/bin/env python3
"""Fill a spool with copies of one real report, each a message of its own.

  clone_reports.py REPORTS_DIR ID N

Reads REPORTS_DIR/ID.json (written by the report writer, canonical) and
writes N copies beside it, each with a new report id and a new token in
place of the report's process token (detection.fields.comm, and the
message that names it): N reports of N distinct repeat keys, canonical as
the writer's, as a spool that grew over the years would hold. The bytes are
changed in place (same lengths), so the copies stay canonical without
being parsed; a copy's file time is its source's.
"""
import json
import os
import sys


def main():
    d, src, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    data = open(os.path.join(d, src + ".json"), "rb").read()
    token = json.loads(data)["detection"]["fields"]["comm"].encode()
    assert token.startswith(b"h:") and len(token) == 14, token
    st = os.stat(os.path.join(d, src + ".json"))
    for i in range(n):
        rid = "%08x-c10e-4000-8000-%012x" % (i, i)
        out = data.replace(src.encode(), rid.encode()).replace(token, b"h:%012x" % i)
        p = os.path.join(d, rid + ".json")
        fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, out)
        os.close(fd)
        os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    return 0


if __name__ == "__main__":
    sys.exit(main())
