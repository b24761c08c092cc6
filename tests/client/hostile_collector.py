#!/usr/bin/env python3
"""A collector that is hostile at the byte level, for the client's fault
paths: it speaks raw HTTP/1.1 over a socket (TLS when given a certificate)
so it can break a response anywhere, which http.server cannot.

  hostile_collector.py --port-file F --dir D --script MODE[,MODE...]
                       [--tls CERT KEY] [--lifetime S] [--location URL]

Each connection takes the next MODE of the script (the last one repeats):
  ok          201 with a correct receipt (204 for a DELETE)
  garbage     200 with bytes that are no JSON
  noreceipt   201 with an empty body
  partial     201 with a receipt missing received_at
  fail500     500 with a JSON error
  busy429     429 with Retry-After: 900
  stall       headers of a 201 promising a body, then nothing
  reset       headers and half a body, then a TCP reset
  redirect    307 (and 301, 302, 303, 308 by suffix: redirect301 ...) to
              --location
  record      (the redirect target) 404 for everything, after recording it
  evilid      201 with a receipt whose id writes to a terminal (issue 39)
  evil500     500 whose error writes to a terminal: OSC title, OSC 52, a
              screen clear, DEL, CSI as UTF-8 and as a raw byte, U+202E
Each request is appended to D/requests.log as one JSON object per line
(method, path, headers, body as text) so a test can look for any byte of a
report or a credential in what reached this listener.
"""
import argparse
import hashlib
import json
import os
import socket
import ssl
import struct
import sys
import threading
import time

# What a hostile collector says to root's terminal: an OSC title, an OSC 52
# clipboard write, a screen clear, DEL, CSI in UTF-8 and as a raw byte, a
# right-to-left override. Raw bytes in a JSON string: json-c takes them.
EVIL = (b"ev\x1b]0;x\x07\x1b]52;c;Y2htb2QK\x07\x1b[2J\x7f\xc2\x9b\x9b\xe2\x80\xae")

REASONS = {200: "OK", 201: "Created", 204: "No Content", 301: "Moved Permanently",
           302: "Found", 303: "See Other", 307: "Temporary Redirect",
           308: "Permanent Redirect", 404: "Not Found", 429: "Too Many Requests",
           500: "Internal Server Error"}


def read_request(conn):
    """One request: (method, path, headers dict, body bytes), or None."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
        if len(data) > 1 << 20:
            return None
    head, body = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    method, path = lines[0].split(" ")[0:2]
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    n = int(headers.get("content-length", "0") or 0)
    while len(body) < n:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return method, path, headers, body


def response(code, body=b"", headers=()):
    out = "HTTP/1.1 %d %s\r\n" % (code, REASONS.get(code, "Whatever"))
    for k, v in headers:
        out += "%s: %s\r\n" % (k, v)
    if not any(k.lower() == "content-length" for k, _ in headers):
        out += "Content-Length: %d\r\n" % len(body)
    out += "Connection: close\r\n\r\n"
    return out.encode() + body


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--script", required=True)
    ap.add_argument("--tls", nargs=2)
    ap.add_argument("--location", default="http://127.0.0.1:9/elsewhere")
    ap.add_argument("--lifetime", type=float, default=120)
    a = ap.parse_args()
    lock = threading.Lock()
    script = a.script.split(",")
    state = {"n": 0}
    ctx = None
    if a.tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(a.tls[0], a.tls[1])

    def record(method, path, headers, body):
        with lock, open(os.path.join(a.dir, "requests.log"), "a") as f:
            f.write(json.dumps({"method": method, "path": path, "headers": headers,
                                "body": body.decode("utf-8", "replace")}) + "\n")

    def next_mode():
        with lock:
            m = script[min(state["n"], len(script) - 1)]
            state["n"] += 1
        return m

    def answer(conn, req, m):
        method, path, headers, body = req
        sha = hashlib.sha256(body).hexdigest()
        try:
            rid = json.loads(body)["report_id"]
        except Exception:
            rid = ""
        receipt = {"id": rid, "sha256": sha, "received_at": "2026-12-03T00:00:00Z"}
        if m == "ok" and method == "DELETE":
            conn.sendall(response(204))
        elif m == "ok":
            conn.sendall(response(201, json.dumps(receipt).encode()))
        elif m == "garbage":
            conn.sendall(response(200, b"<html>\x00\x1b[2J\xff\xfe not a receipt"))
        elif m == "noreceipt":
            conn.sendall(response(201))
        elif m == "partial":
            del receipt["received_at"]
            conn.sendall(response(201, json.dumps(receipt).encode()))
        elif m == "fail500":
            conn.sendall(response(500, b'{"error":"database is on fire"}'))
        elif m == "busy429":
            conn.sendall(response(429, b'{"error":"slow down"}', [("Retry-After", "900")]))
        elif m == "stall":
            conn.sendall(response(201, b"", [("Content-Length", "200")]))
            time.sleep(60)
        elif m == "reset":
            full = json.dumps(receipt).encode()
            conn.sendall(response(201, b"", [("Content-Length", str(len(full)))]) +
                         full[:len(full) // 2])
            # SO_LINGER 0: close() sends RST instead of FIN.
            # (An SSLSocket's close sends no close_notify: the reset is
            # what the client sees.)
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        elif m.startswith("redirect"):
            code = int(m[len("redirect"):] or 307)
            conn.sendall(response(code, b"", [("Location", a.location)]))
        elif m == "evilid":
            receipt["id"] = EVIL.decode("utf-8", "surrogateescape")
            conn.sendall(response(201, json.dumps(receipt, ensure_ascii=False).encode(
                "utf-8", "surrogateescape")))
        elif m == "evil500":
            body = EVIL.replace(b"\x1b", b"\\u001b").replace(b"\x07", b"\\u0007")
            conn.sendall(response(500, b'{"error":"' + body.replace(b"\x7f", b"\\u007f") + b'"}'))
        elif m == "record":
            conn.sendall(response(404, b'{"error":"nothing here"}'))

    def serve(conn):
        m = next_mode()
        try:
            conn.settimeout(30)
            if ctx:
                conn = ctx.wrap_socket(conn, server_side=True)
            req = read_request(conn)
            if req is None:
                return
            record(*req)
            answer(conn, req, m)
        except (OSError, ssl.SSLError, ValueError):
            pass      # clients hanging up, or refusing our certificate
        finally:
            try:
                conn.close()
            except OSError:
                pass

    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    with open(a.port_file + ".tmp", "w") as f:
        f.write(str(srv.getsockname()[1]))
    os.rename(a.port_file + ".tmp", a.port_file)
    # Never outlive the test that started us.
    threading.Timer(a.lifetime, lambda: os._exit(0)).start()
    while True:
        c, _ = srv.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
