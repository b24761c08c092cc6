#!/usr/bin/env python3
"""A forward HTTP proxy on loopback that logs each request it relays
("METHOD absolute-URL" lines in LOG) and passes it on unchanged; a CONNECT
(an https endpoint's tunnel) is logged as "CONNECT host:port" and piped,
its host looked up in --map first (NAME=ADDRESS, repeatable), so that a
client can name an endpoint that is not loopback and still reach a double.

  proxy_double.py --port-file F --log LOG [--lifetime S] [--map NAME=ADDR]
"""
import argparse
import http.client
import http.server
import os
import select
import socket
import sys
import threading
import urllib.parse


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--lifetime", type=float, default=60)
    ap.add_argument("--map", action="append", default=[])
    a = ap.parse_args()
    names = dict(m.split("=", 1) for m in a.map)

    class H(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def _relay(self):
            with open(a.log, "a") as f:
                f.write("%s %s\n" % (self.command, self.path))
            u = urllib.parse.urlsplit(self.path)
            n = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(n) if n else None
            c = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=10)
            hdrs = {k: v for k, v in self.headers.items()
                    if k.lower() not in ("proxy-connection", "connection")}
            c.request(self.command, u.path or "/", body=body, headers=hdrs)
            r = c.getresponse()
            data = r.read()
            self.send_response(r.status)
            for k, v in r.getheaders():
                if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                    self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_POST = _relay
        do_DELETE = _relay

        def do_CONNECT(self):
            with open(a.log, "a") as f:
                f.write("CONNECT %s\n" % self.path)
            host, port = self.path.rsplit(":", 1)
            try:
                up = socket.create_connection((names.get(host, host), int(port)), timeout=10)
            except OSError:
                self.send_error(502)
                return
            self.send_response(200, "Connection established")
            self.end_headers()
            self.wfile.flush()
            ends = [self.connection, up]
            while True:
                r, _, _ = select.select(ends, [], [], 30)
                if not r:
                    break
                data = b""
                for s_ in r:
                    data = s_.recv(65536)
                    if not data:
                        break
                    (up if s_ is self.connection else self.connection).sendall(data)
                if not data:
                    break
            up.close()
            self.close_connection = True

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
    srv.daemon_threads = True
    with open(a.port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(a.port_file + ".tmp", a.port_file)
    threading.Timer(a.lifetime, lambda: os._exit(0)).start()
    srv.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
