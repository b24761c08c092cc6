#!/usr/bin/env python3
"""A collector that misbehaves on purpose, for the client's failure paths
(the real collector in server-stub/ is tested against the real client
elsewhere). It speaks the same receipt contract as docs/API.md:
201 {"id", "sha256", "received_at"} for a POST of canonical JSON.

  collector_double.py --port-file F --dir D [--tls CERT KEY] [--lifetime S]
      --script MODE[,MODE...]

Each request takes the next MODE of the script (the last one repeats):
  ok          201 with a correct receipt
  fail500     500 with a JSON error
  fail503     503 with Retry-After: 120
  busy429     429 with Retry-After: 3600
  badhash     201 with a receipt naming another SHA-256
  huge        200 with a 1 MiB body
  redirect    307 to http://mover:Pl4ntedLocPw@127.0.0.1:9/elsewhere?token=Pl4ntedTok
  conflict    409
  hang        sleep longer than any client timeout, then close
  slowok      as ok, after 2 s (a send in flight, for what happens meanwhile)
  api         the collector's contract for retries (docs/API.md): 201 for a
              new report id, 200 with the first receipt for the same bytes
              again, 409 for other bytes; each answer is appended to
              D/acks.log as "ID SHA256 STATUS" before it is sent
A file D/mode, while it exists, names the MODE of every request instead.
Every request is appended to D/requests.log as "METHOD PATH sha256 headers".
"""
import argparse
import hashlib
import http.server
import json
import os
import ssl
import sys
import threading
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--script", default="ok")
    ap.add_argument("--tls", nargs=2)
    ap.add_argument("--lifetime", type=float, default=120)
    a = ap.parse_args()
    script = a.script.split(",")
    state = {"n": 0}
    stored = {}
    lock = threading.Lock()

    class H(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def _mode(self):
            try:
                with open(os.path.join(a.dir, "mode")) as f:
                    return f.read().strip()
            except FileNotFoundError:
                pass
            with lock:
                m = script[min(state["n"], len(script) - 1)]
                state["n"] += 1
            return m

        def _send(self, code, body, headers=()):
            self.send_response(code)
            for k, v in headers:
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _record(self, body):
            with open(os.path.join(a.dir, "requests.log"), "a") as f:
                f.write("%s %s %s %s\n" % (self.command, self.path,
                                           hashlib.sha256(body).hexdigest(),
                                           json.dumps(dict(self.headers))))
            if body:
                with open(os.path.join(a.dir, "last-body"), "wb") as f:
                    f.write(body)

        def _handle(self):
            n = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(n) if n else b""
            self._record(body)
            mode = self._mode()
            sha = hashlib.sha256(body).hexdigest()
            rid = ""
            try:
                rid = json.loads(body)["report_id"] if body else ""
            except Exception:
                pass
            receipt = {"id": rid, "sha256": sha, "received_at": "2026-12-03T00:00:00Z"}
            # As the collector: reports are taken at one path only.
            if self.command == "POST" and self.path != "/api/v1/reports":
                self._send(404, b'{"error":"not_found","message":"no such resource"}')
            elif mode in ("ok", "slowok"):
                if mode == "slowok":
                    time.sleep(2)
                code = 201 if self.command == "POST" else 204
                self._send(code, json.dumps(receipt).encode() if code == 201 else b"")
            elif mode == "fail500":
                self._send(500, b'{"error":"database is on fire"}')
            elif mode == "fail503":
                self._send(503, b'{"error":"down for maintenance"}', [("Retry-After", "120")])
            elif mode == "busy429":
                self._send(429, b'{"error":"slow down"}', [("Retry-After", "3600")])
            elif mode == "badhash":
                receipt["sha256"] = "0" * 64
                self._send(201, json.dumps(receipt).encode())
            elif mode == "huge":
                self._send(200, b"x" * (1 << 20))
            elif mode == "redirect":
                self._send(307, b"", [("Location", "http://mover:Pl4ntedLocPw@127.0.0.1:9/elsewhere?token=Pl4ntedTok")])
            elif mode == "conflict":
                self._send(409, b'{"error":"report id exists with other bytes"}')
            elif mode == "api" and self.command == "POST":
                with lock:
                    first = stored.setdefault(rid, receipt)
                    code = 201 if first is receipt else 200 if first["sha256"] == sha else 409
                    with open(os.path.join(a.dir, "acks.log"), "a") as f:
                        f.write("%s %s %d\n" % (rid, sha, code))
                if code == 409:
                    self._send(409, b'{"error":"report id exists with other bytes"}')
                else:
                    self._send(code, json.dumps(first).encode())
            elif mode == "api":
                self._send(204, b"")
            elif mode == "hang":
                time.sleep(30)

        do_POST = _handle
        do_DELETE = _handle

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
    srv.daemon_threads = True
    # Clients hanging up on "huge" and "hang" are the point, not news.
    srv.handle_error = lambda *args: None
    if a.tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(a.tls[0], a.tls[1])
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    with open(a.port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(a.port_file + ".tmp", a.port_file)
    # Never outlive the test that started us.
    threading.Timer(a.lifetime, lambda: os._exit(0)).start()
    srv.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
