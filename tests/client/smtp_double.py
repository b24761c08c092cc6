#!/usr/bin/env python3
"""A small SMTP server for the client's --send, on loopback, with STARTTLS
(or, with --no-starttls, without it, to see the client refuse to send in
the clear). Each message is written to DIR/msg-N.eml with the envelope in
DIR/msg-N.env ("MAIL FROM:<..>" and "RCPT TO:<..>" lines, and "TLS yes/no").

  smtp_double.py --port-file F --dir D --cert CRT --key KEY [--no-starttls]
"""
import argparse
import os
import socket
import ssl
import sys
import threading


def serve(conn, a, counter):
    f = conn.makefile("rb")
    tls = False

    def send(line):
        conn.sendall((line + "\r\n").encode())

    send("220 smtp-double ESMTP")
    env = []
    while True:
        line = f.readline()
        if not line:
            return
        cmd = line.decode("utf-8", "replace").rstrip("\r\n")
        up = cmd.upper()
        if up.startswith("EHLO") or up.startswith("HELO"):
            env.append(cmd)
            lines = ["250-smtp-double", "250-8BITMIME", "250-SIZE 10485760"]
            if not a.no_starttls and not tls:
                lines.append("250-STARTTLS")
            lines.append("250 HELP")
            for l in lines:
                send(l)
        elif up == "STARTTLS" and not a.no_starttls and not tls:
            send("220 go ahead")
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(a.cert, a.key)
            conn = ctx.wrap_socket(conn, server_side=True)
            f = conn.makefile("rb")
            tls = True
        elif up.startswith("MAIL FROM:") or up.startswith("RCPT TO:"):
            env.append(cmd)
            send("250 ok")
        elif up == "DATA":
            send("354 end with .")
            data = b""
            while True:
                l = f.readline()
                if not l or l in (b".\r\n", b".\n"):
                    break
                if l.startswith(b".."):
                    l = l[1:]
                data += l
            with counter["lock"]:
                counter["n"] += 1
                n = counter["n"]
            with open(os.path.join(a.dir, "msg-%d.eml" % n), "wb") as out:
                out.write(data)
            with open(os.path.join(a.dir, "msg-%d.env" % n), "w") as out:
                out.write("\n".join(env + ["TLS %s" % ("yes" if tls else "no")]) + "\n")
            env = []
            send("250 queued")
        elif up == "QUIT":
            send("221 bye")
            return
        elif up in ("RSET", "NOOP"):
            send("250 ok")
        else:
            send("502 not implemented")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--cert")
    ap.add_argument("--key")
    ap.add_argument("--no-starttls", action="store_true")
    ap.add_argument("--lifetime", type=float, default=60)
    a = ap.parse_args()
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(8)
    with open(a.port_file + ".tmp", "w") as f:
        f.write(str(s.getsockname()[1]))
    os.rename(a.port_file + ".tmp", a.port_file)
    threading.Timer(a.lifetime, lambda: os._exit(0)).start()
    counter = {"n": 0, "lock": threading.Lock()}
    while True:
        conn, _ = s.accept()
        conn.settimeout(10)
        threading.Thread(target=lambda c=conn: (serve(c, a, counter), c.close()),
                         daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
