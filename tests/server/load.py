#!/usr/bin/env python3
"""Post reports concurrently until done or the server goes away.

  load.py HOST PORT DIR FIRST LAST THREADS OUT [KILL_PID@N | sh:COMMAND@N]

Posts DIR/<n>.json for n in [FIRST, LAST) from THREADS threads over
http.client, one connection per thread (keep-alive). Each report that was
answered 201 is appended to OUT ("<id>\\n", flushed at once) before the
next request, so OUT lists every 201 the client saw even if the server is
killed. A thread stops at its first connection error. Every request has a
timeout; the whole run is bounded by the number of reports.

With KILL_PID@N the process KILL_PID gets SIGKILL right after the N-th 201
was written to OUT, while the other threads' requests are in flight: a
kill under load that lands mid-load however slow or busy the machine is
(a shell watching OUT from outside may look too late). With sh:COMMAND@N
the shell command runs there instead (a database file swapped under load),
and the statuses other than 201 are counted by status.
"""
import http.client
import json
import os
import signal
import subprocess
import sys
import threading

host, port, d, first, last, nthreads, out = sys.argv[1:8]
port, first, last, nthreads = int(port), int(first), int(last), int(nthreads)
action = sys.argv[8] if len(sys.argv) > 8 else ""
command, kill_pid, kill_at = "", 0, 0
if action.startswith("sh:"):
    command, at = action[3:].rsplit("@", 1)
    kill_at = int(at)
elif action:
    kill_pid, kill_at = (int(x) for x in action.split("@"))
lock = threading.Lock()
outf = open(out, "a")
counts = {"201": 0, "other": 0, "errors": 0}
statuses = {}


def worker(k):
    conn = http.client.HTTPConnection(host, port, timeout=10)
    for n in range(first + k, last, nthreads):
        body = open("%s/%d.json" % (d, n), "rb").read()
        try:
            conn.request("POST", "/api/v1/reports", body,
                         {"Content-Type": "application/json"})
            r = conn.getresponse()
            data = r.read()
        except (OSError, http.client.HTTPException):
            with lock:
                counts["errors"] += 1
            return
        with lock:
            if r.status == 201:
                outf.write(json.loads(data)["id"] + "\n")
                outf.flush()
                counts["201"] += 1
                if kill_pid and counts["201"] == kill_at:
                    os.kill(kill_pid, signal.SIGKILL)
                if command and counts["201"] == kill_at:
                    subprocess.run(command, shell=True, check=True)
            else:
                counts["other"] += 1
                statuses[r.status] = statuses.get(r.status, 0) + 1


threads = [threading.Thread(target=worker, args=(k,)) for k in range(nthreads)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("load: %(201)d created, %(other)d other, %(errors)d connection errors" % counts +
      "".join(", %d: %d" % kv for kv in sorted(statuses.items())))
