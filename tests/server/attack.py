#!/usr/bin/env python3
"""Attacks on a running collector over real loopback sockets.

  attack.py framing PORT [ADMIN_TOKEN]
  attack.py slowloris PORT ADDRS CONNS HEAD_TIMEOUT
  attack.py many PORT ADDRS PER_ADDR
  attack.py many6 PORT NETS PER_NET MAX_PER_IP   (in a network namespace, see
            server-attack.sh: fd00:0:0:N::1 for N < NETS and fd01::1 on lo)
  attack.py ghosts PORT PID N
  attack.py hangups PORT PID N BOUND
  attack.py tlschurn PORT ADDRS PER_ADDR SECONDS LOG
  attack.py flood PORT CONNS SECONDS ADMIN_TOKEN REPORT_ID WAL WAL_MAX_MB [LOAD_PID]
  attack.py shutdown PORT PID ADMIN_TOKEN N BOUND

Each prints one line per check: "ok<TAB>name" or "fail<TAB>name<TAB>why";
tests/integration/server-attack.sh turns them into TAP. Every socket has a
timeout, so every check is bounded in time.
"""
import os
import re
import selectors
import socket
import ssl
import sys
import threading
import time


def out(ok, name, why=""):
    why = "" if ok else " ".join(why.split())
    print("%s\t%s\t%s" % ("ok" if ok else "fail", name, why), flush=True)


def connect(port, src="127.0.0.1", timeout=10):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.bind((src, 0))
    s.connect(("127.0.0.1", port))
    return s


def read_all(s, limit=10):
    """Everything until the server closes, or until `limit` seconds pass.
    Returns (bytes, closed)."""
    data = b""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        s.settimeout(max(0.1, end - time.monotonic()))
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            return data, False
        except ConnectionResetError:
            return data, True
        if not chunk:
            return data, True
        data += chunk
    return data, False


def status_lines(data):
    """The status lines of every answer in data: at its start, or after the
    newline that ends the previous answer's body."""
    return re.findall(rb"(?:^|\n)(HTTP/1\.[01] \d{3}[^\r\n]*)", data)


# --- request framing (RFC 9112 6.3, 3.2) -------------------------------------------
SMUGGLE_TAIL = b"GET /api/v1/summary HTTP/1.1\r\nHost: x\r\n\r\n"
POST = b"POST /api/v1/reports HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"

# Each hostile head (issue 30), the status the RFC gives it, and what
# follows it on the connection: a valid request that must not be answered.
HOSTILE = [
    ("RFC 9112 6.3 Content-Length and Transfer-Encoding", 400,
     POST + b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
    ("RFC 9112 6.3 two different Content-Lengths", 400,
     POST + b"Content-Length: 5\r\nContent-Length: 40\r\n\r\n" + b"x" * 5),
    ("RFC 9112 6.3 two equal Content-Lengths", 400,
     POST + b"Content-Length: 5\r\nContent-Length: 5\r\n\r\n" + b"x" * 5),
    ("RFC 9112 5.1 white space before the colon of Transfer-Encoding", 400,
     POST + b"Transfer-Encoding : chunked\r\n\r\n0\r\n\r\n"),
    ("RFC 9112 5.1 white space before the colon of Content-Length", 400,
     POST + b"Content-Length : 47\r\n\r\n"),
    ("RFC 9112 2.2 a field hidden behind a bare CR", 400,
     POST + b"X-A: a\rContent-Length: 47\r\n\r\n"),
    ("RFC 9112 5.2 an obs-folded Content-Length", 400,
     POST + b"Content-Length: 4\r\n 7\r\n\r\n"),
    ("RFC 9112 6.3 Transfer-Encoding gzip", 400,
     POST + b"Transfer-Encoding: gzip\r\n\r\n"),
    ("RFC 9112 6.3 Transfer-Encoding chunked, identity", 400,
     POST + b"Transfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n"),
    ("RFC 9112 6.1 Transfer-Encoding gzip, chunked", 501,
     POST + b"Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"),
    ("RFC 9110 15.6.2 Transfer-Encoding 'chunked ' (libmicrohttpd would read to the end)", 501,
     POST + b"Transfer-Encoding: chunked \r\n\r\n0\r\n\r\n"),
    ("RFC 9112 3.2 two Host fields", 400,
     b"GET /api/v1/summary HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n"),
    ("RFC 9112 3.2 an invalid Host", 400,
     b"GET /api/v1/summary HTTP/1.1\r\nHost: a b/c\r\n\r\n"),
    ("RFC 3986 7.3 %00 in the path", 400,
     b"GET /api/v1/summary%00.json HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("RFC 3986 7.3 %0d%0a in the path", 400,
     b"GET /api/v1/summary%0d%0aX HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("RFC 9112 3.2 a raw control character in the target", 400,
     b"GET /api/v1/sum\x01mary HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("RFC 9112 3.2 a raw NUL in the target", 400,
     b"GET /api/v1/summary\x00.json HTTP/1.1\r\nHost: x\r\n\r\n"),
]

# Heads that are fine: answered, and the request after them too.
FINE = [
    ("Transfer-Encoding CHUNKED (any case)",
     POST + b"Transfer-Encoding: CHUNKED\r\n\r\n2\r\n{}\r\n0\r\n\r\n"),
    ("Host [::1]:8080", b"GET /api/v1/summary HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n"),
    ("Host with a port", b"GET /api/v1/summary HTTP/1.1\r\nHost: example.org:443\r\n\r\n"),
    ("a percent-encoded path", b"GET /api/v1/%73ummary HTTP/1.1\r\nHost: x\r\n\r\n"),
]


def framing(port, token=None):
    for name, status, raw in HOSTILE:
        s = connect(port)
        s.sendall(raw + SMUGGLE_TAIL)
        data, closed = read_all(s, 10)
        s.close()
        st = status_lines(data)
        good = (len(st) == 1 and st[0].split(b" ")[1] == b"%d" % status and closed
                and b"\r\nConnection: close\r\n" in data)
        out(good, "%s: one %d with Connection: close, the pipelined request not answered, "
            "connection closed" % (name, status), "answers %r, closed %s" % (st, closed))

    for name, raw in FINE:
        s = connect(port)
        s.sendall(raw + SMUGGLE_TAIL.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"))
        data, closed = read_all(s, 10)
        s.close()
        st = status_lines(data)
        out(len(st) == 2 and not st[0].startswith(b"HTTP/1.1 5") and b" 200" in st[1],
            "%s: answered, and the request after it too" % name, "answers %r" % st)

    s = connect(port)
    s.sendall(b"GET /api/v1/summary HTTP/1.1\r\n\r\n")
    data, closed = read_all(s, 10)
    s.close()
    st = status_lines(data)
    out(len(st) == 1 and b" 400" in st[0], "HTTP/1.1 without Host: 400", repr(st))

    s = connect(port)
    s.sendall(b"GET /api/v1/summary HTTP/1.0\r\n\r\n")
    data, closed = read_all(s, 10)
    s.close()
    st = status_lines(data)
    out(len(st) == 1 and b" 200" in st[0], "HTTP/1.0 without Host: 200", repr(st))

    # HEAD wherever GET works: the same status and headers, no body.
    for path in (b"/api/v1/summary", b"/", b"/api/v1/nonexistent"):
        got = {}
        for method in (b"GET", b"HEAD"):
            s = connect(port)
            s.sendall(method + b" " + path + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            data, _ = read_all(s, 10)
            s.close()
            head, _, rest = data.partition(b"\r\n\r\n")
            lines = head.split(b"\r\n")
            cl = [l for l in lines if l.lower().startswith(b"content-length:")]
            got[method] = (lines[0] if lines else b"", cl, rest)
        g, h = got[b"GET"], got[b"HEAD"]
        out(g[0] == h[0] and g[1] == h[1] and h[2] == b"" and g[2] != b"",
            "HEAD %s: GET's status and Content-Length, no body" % path.decode(),
            "GET %r %r, HEAD %r %r body %d" % (g[0], g[1], h[0], h[1], len(h[2])))
    if token:
        head_of_export(port, token)
    huge_chunk(port)
    s = connect(port)
    s.sendall(b"PUT /api/v1/summary HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
              b"Content-Length: 0\r\n\r\n")
    data, _ = read_all(s, 10)
    s.close()
    out(b"405" in data.split(b"\r\n")[0] and b"Allow: GET, HEAD" in data,
        "405 names HEAD in Allow", data.split(b"\r\n\r\n")[0][:200].decode(errors="replace"))


def huge_chunk(port):
    """A chunked upload announcing 2^63 - 1 bytes, pushed as fast as the
    socket takes it: the collector ends the connection once the body is
    far over its limit (4 x 256 KiB), not at the request timeout."""
    s = connect(port, timeout=2)
    s.sendall(POST + b"Transfer-Encoding: chunked\r\n\r\n7fffffffffffffff\r\n")
    block, sent, t0 = b"x" * 65536, 0, time.monotonic()
    closed = False
    while time.monotonic() - t0 < 5:
        try:
            sent += s.send(block)
        except socket.timeout:
            continue
        except OSError:
            closed = True
            break
    s.close()
    out(closed and sent < 8 << 20,
        "a chunk of 2^63 - 1 bytes: the connection is closed within 5 s, after %d KiB" % (
            sent >> 10), "closed %s after %d KiB in %.1f s" % (
                closed, sent >> 10, time.monotonic() - t0))


def head_of_export(port, token):
    """HEAD of a streamed answer (the mbox export, RFC 9110 9.3.2): GET's
    status and Content-Type, no body; libmicrohttpd 0.9.75 sent the last
    chunk of a chunked body ("0" CRLF CRLF) after the head."""
    got = {}
    for method in (b"GET", b"HEAD"):
        s = connect(port)
        s.sendall(method + b" /api/v1/export.mbox HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                  b"Authorization: Bearer " + token.encode() + b"\r\n\r\n")
        data, closed = read_all(s, 10)
        s.close()
        head, _, rest = data.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        ctype = [l for l in lines if l.lower().startswith(b"content-type:")]
        framing = [l for l in lines if l.lower().startswith((b"content-length:",
                                                            b"transfer-encoding:"))]
        got[method] = (lines[0], ctype, framing, rest, closed)
    g, h = got[b"GET"], got[b"HEAD"]
    out(g[0] == h[0] and b" 200 " in h[0] + b" " and g[1] == h[1] and h[3] == b"" and h[4]
        and not [l for l in h[2] if l.lower().startswith(b"content-length:")],
        "HEAD /api/v1/export.mbox: GET's status and Content-Type, no Content-Length, "
        "nothing after the head", "GET %r, HEAD %r" % (g[:3], h))


# --- slowloris ---------------------------------------------------------------------
def slowloris(port, addrs, conns, head_timeout):
    """CONNS connections spread over ADDRS source addresses, each sending one
    header byte every 2 s; meanwhile a client from another address must be
    served, and every slow connection must be closed by the server within
    head_timeout plus a margin."""
    head = b"GET /api/v1/summary HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 4000
    socks, refused = [], 0
    for i in range(conns):
        src = "127.0.0.%d" % (10 + i % addrs)
        try:
            s = connect(port, src, timeout=2)
            s.sendall(head[:1])
            socks.append(s)
        except OSError:
            refused += 1
    # Whether the server took or refused them, the slots it took must be
    # held now: send a byte each so libmicrohttpd's idle timeout restarts.
    start = time.monotonic()
    pos = 1
    served_at = None
    why = ""
    # (2 s: the server's head deadline must still be ahead when the normal
    # client below is served; server-attack.sh sets it to 5 s.)
    while time.monotonic() - start < 2:
        for s in socks:
            try:
                s.sendall(head[pos:pos + 1])
            except OSError:
                pass
        pos += 1
        time.sleep(1)
    # A normal client, from an address the attack did not use.
    t0 = time.monotonic()
    try:
        c = connect(port, "127.0.0.200", timeout=5)
        c.sendall(b"GET /api/v1/summary HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data, _ = read_all(c, 5)
        c.close()
        if data.startswith(b"HTTP/1.1 200"):
            served_at = time.monotonic() - t0
        else:
            why = "answer %r" % data[:60]
    except OSError as e:
        why = str(e)
    out(served_at is not None,
        "a normal client is served while %d slow connections from %d addresses try to "
        "hold the server (%d refused at connect)" % (conns, addrs, refused), why)
    # Keep trickling; the server must close every slow connection by
    # head_timeout (from connecting) plus a margin for the reaper's tick.
    deadline = start + head_timeout + 6
    alive = list(socks)
    while alive and time.monotonic() < deadline:
        still = []
        for s in alive:
            try:
                s.sendall(head[pos:pos + 1])
                s.settimeout(0.01)
                if s.recv(1) == b"":
                    continue
                still.append(s)
            except socket.timeout:
                still.append(s)
            except OSError:
                continue
        alive = still
        pos += 1
        time.sleep(1)
    out(not alive, "every slow connection is closed within the head timeout (%d s) "
        "plus 6 s" % head_timeout, "%d of %d still open" % (len(alive), len(socks)))
    for s in socks:
        s.close()


SUMMARY = b"GET /api/v1/summary HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"


def served(port, n, src="127.0.0.200", timeout=3):
    """How many of n requests, one a connection, a normal client gets
    answered (any status but a refusal at connect or a cut)."""
    got = 0
    for _ in range(n):
        try:
            c = connect(port, src, timeout=timeout)
            c.sendall(SUMMARY)
            data, _ = read_all(c, timeout)
            c.close()
            got += data.startswith(b"HTTP/1.1 200")
        except OSError:
            pass
    return got


def many(port, addrs, per):
    """ADDRS addresses each holding PER slow request heads, every one under
    each per-address share, together more than the server's slots: a
    normal client must still be answered (it was 6 of 125 before the
    oldest incomplete head made room for it)."""
    head = b"GET /api/v1/summary HTTP/1.1\r\nHost: x\r\nX-Slow: a"
    socks = []
    for i in range(addrs * per):
        try:
            s = connect(port, "127.0.1.%d" % (1 + i % addrs), timeout=2)
            s.sendall(head)
            socks.append(s)
        except OSError:
            pass
    time.sleep(0.3)
    got = served(port, 10)
    out(got >= 9, "a normal client gets %d of 10 answers while %d addresses hold %d slow "
        "heads each (%d connected)" % (got, addrs, per, len(socks)), "%d of 10" % got)
    for s in socks:
        s.close()


def many6(port, nets, per, max_per_ip):
    """NETS IPv6 /64s of one /56 (fd00:0:0:N::1), PER slow heads from each:
    one key (the /48), so the server holds at most MAX_PER_IP of them, and
    a client from another /48 is answered. Keyed by the /64 each net held
    3 and all together every slot."""
    head = b"GET /api/v1/summary HTTP/1.1\r\nHost: x\r\nX-Slow: a"
    socks = []
    for i in range(nets * per):
        s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        s.settimeout(2)
        try:
            s.bind(("fd00:0:0:%x::1" % (i % nets), 0))
            s.connect(("::1", port))
            s.sendall(head)
            socks.append(s)
        except OSError:
            s.close()
    # A refused connection is closed by the server's event loop, which a
    # loaded machine (or ASan) may run late: counted until it settles.
    for s in socks:
        s.setblocking(False)
    for _ in range(10):
        time.sleep(0.5)
        held = 0
        for s in socks:
            try:
                held += s.recv(1) != b""
            except BlockingIOError:
                held += 1
            except OSError:
                pass
        if held <= max_per_ip:
            break
    out(held <= max_per_ip, "%d /64s of one /56, %d slow heads each: one key, %d held "
        "(at most --max-per-ip %d)" % (nets, per, held, max_per_ip), "%d held" % held)
    got = 0
    for _ in range(10):
        try:
            c = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
            c.settimeout(3)
            c.bind(("fd01::1", 0))
            c.connect(("::1", port))
            c.sendall(SUMMARY)
            data, _ = read_all(c, 3)
            c.close()
            got += data.startswith(b"HTTP/1.1 200")
        except OSError:
            pass
    out(got >= 9, "...and a client from another /48 gets %d of 10 answers" % got,
        "%d of 10" % got)
    for s in socks:
        s.close()


def sockets_of(pid):
    n = 0
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            n += os.readlink("/proc/%d/fd/%s" % (pid, fd)).startswith("socket:")
        except OSError:
            pass
    return n


def ghosts(port, pid, n):
    """N connections that send half a request head and close: within 2 s
    the server holds none of them and a normal client is answered."""
    base = sockets_of(pid)
    socks = []
    for i in range(n):
        s = connect(port, "127.0.2.%d" % (1 + i % 20), timeout=2)
        s.sendall(b"GET /api/v1/summary HTTP/1.1\r\nHost: x\r\nX-Half: a")
        socks.append(s)
    time.sleep(0.3)
    held = sockets_of(pid) - base
    for s in socks:
        s.close()
    end = time.monotonic() + 2
    while time.monotonic() < end and sockets_of(pid) - base > 0:
        time.sleep(0.1)
    left = sockets_of(pid) - base
    out(held >= n * 3 // 4 and left <= 0,
        "%d half heads closed by their client: the server held %d, %d still held 2 s "
        "later" % (n, held, max(left, 0)), "held %d, then %d" % (held, left))
    got = served(port, 10)
    out(got >= 9, "...and a normal client gets %d of 10 answers" % got, "%d of 10" % got)


def hangups(port, pid, n, bound):
    """N connections the server holds, each then sending half a request
    head and closing at once: the half head and the FIN arrive together,
    which libmicrohttpd 0.9.75 read as the half head only, holding the slot
    until the head deadline (10 s). The server must hold none of them
    within BOUND seconds, polled."""
    base = sockets_of(pid)
    socks = [connect(port, "127.0.3.%d" % (1 + i % 20), timeout=2) for i in range(n)]
    end = time.monotonic() + 5
    while sockets_of(pid) - base < n and time.monotonic() < end:
        time.sleep(0.01)
    held = sockets_of(pid) - base
    t0 = time.monotonic()
    for s in socks:
        s.sendall(b"GET /api/v1/summary HTTP/1.1\r\nHost: x\r\nX-Half: a")
        s.close()
    while sockets_of(pid) - base > 0 and time.monotonic() - t0 < bound:
        time.sleep(0.01)
    took, left = time.monotonic() - t0, sockets_of(pid) - base
    out(held >= n and left <= 0,
        "%d held connections send half a head and hang up: %d still held after %.2f s "
        "(bound %.1f s)" % (n, max(left, 0), took, bound), "held %d, then %d" % (held, left))


# A ClientHello cut short: the record says 512 bytes, 38 come.
HELLO_CUT = b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x5a" * 32


def churn(port, addrs, per, stop):
    """ADDRS addresses holding PER cut-short ClientHellos each, every one
    reconnected as soon as the server closes it."""
    sel = selectors.DefaultSelector()

    def opened(i):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        try:
            s.bind(("127.0.1.%d" % (1 + i % addrs), 0))
            s.connect_ex(("127.0.0.1", port))
            sel.register(s, selectors.EVENT_WRITE, (i, False))
        except OSError:
            s.close()
            return False
        return True

    todo = [i for i in range(addrs * per) if not opened(i)]
    while not stop.is_set():
        todo = [i for i in todo if not opened(i)]
        for key, _ in sel.select(0.05):
            s, (i, sent) = key.fileobj, key.data
            try:
                if not sent:
                    s.send(HELLO_CUT)
                    sel.modify(s, selectors.EVENT_READ, (i, True))
                    continue
                if s.recv(4096):
                    continue
            except BlockingIOError:
                continue
            except OSError:
                pass
            sel.unregister(s)
            s.close()
            if not opened(i):
                todo.append(i)
    for key in list(sel.get_map().values()):
        key.fileobj.close()


def tlschurn(port, addrs, per, seconds, log):
    """A normal HTTPS client's share while ADDRS addresses hold PER cut-short
    ClientHellos each and reconnect at once (2 answers of 37 when a
    handshake could be evicted like any head not yet in); then, the attack
    still on, the server's LOG must say it closed handshakes past their
    deadline (3 s, checked once a second: 5 s at most from the start)."""
    start = time.monotonic()
    stop = threading.Event()
    t = threading.Thread(target=churn, args=(port, addrs, per, stop))
    t.start()
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    # Until the attack holds every slot for handshakes, past their minimum age.
    time.sleep(0.5)
    tries = got = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        tries += 1
        try:
            c = ctx.wrap_socket(connect(port, "127.0.0.200", timeout=2))
            c.sendall(SUMMARY)
            data, _ = read_all(c, 2)
            c.close()
            ok = data.startswith(b"HTTP/1.1 200")
        except OSError:
            ok = False
        got += ok
        # As a client would: not again at once after a refusal.
        if not ok:
            time.sleep(0.1)
    said = False
    while not said and time.monotonic() - start < 6:
        with open(log, errors="replace") as f:
            said = "whose TLS handshake took over 3 s" in f.read()
        time.sleep(0.05)
    stop.set()
    t.join()
    out(got >= 3 and got * 10 >= tries * 8,
        "a normal HTTPS client gets %d answers of %d while %d addresses hold %d cut-short "
        "ClientHellos each and reconnect" % (got, tries, addrs, per), "%d of %d" % (got, tries))
    out(said, "...and closes the cut-short handshakes past their 3 s deadline",
        "no such line in %.1f s" % (time.monotonic() - start))


# --- summary flood -----------------------------------------------------------------
def running(pid):
    """pid is there and not a zombie (the shell reaps it only later)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def flood(port, conns, seconds, token, report_id, wal, wal_max_mb, load_pid=0):
    stop = threading.Event()
    counts = {"200": 0, "429": 0, "other": 0}
    lock = threading.Lock()

    def flooder():
        while not stop.is_set():
            try:
                s = connect(port, "127.0.0.50", timeout=5)
                while not stop.is_set():
                    s.sendall(b"GET /api/v1/summary HTTP/1.1\r\nHost: x\r\n\r\n")
                    head = b""
                    while b"\r\n\r\n" not in head:
                        chunk = s.recv(65536)
                        if not chunk:
                            raise OSError("closed")
                        head += chunk
                    h, _, body = head.partition(b"\r\n\r\n")
                    n = 0
                    for line in h.split(b"\r\n"):
                        if line.lower().startswith(b"content-length:"):
                            n = int(line.split(b":")[1])
                    while len(body) < n:
                        chunk = s.recv(65536)
                        if not chunk:
                            raise OSError("closed")
                        body += chunk
                    code = h[9:12].decode()
                    with lock:
                        counts[code if code in counts else "other"] += 1
            except OSError:
                time.sleep(0.01)

    threads = [threading.Thread(target=flooder, daemon=True) for _ in range(conns)]
    for t in threads:
        t.start()
    time.sleep(1)
    worst = 0.0
    wal_peak = 0
    failures = []
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        for req in (b"GET /api/v1/summary HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                    b"GET /api/v1/reports/" + report_id.encode() + b" HTTP/1.1\r\nHost: x\r\n"
                    b"Authorization: Bearer " + token.encode() + b"\r\nConnection: close\r\n\r\n"):
            t0 = time.monotonic()
            try:
                c = connect(port, "127.0.0.60", timeout=5)
                c.sendall(req)
                data, _ = read_all(c, 5)
                c.close()
                if not data.startswith(b"HTTP/1.1 200"):
                    failures.append(data[:40])
            except OSError as e:
                failures.append(str(e))
            worst = max(worst, time.monotonic() - t0)
            n += 1
        try:
            if wal != "-":
                wal_peak = max(wal_peak, os.path.getsize(wal))
        except OSError:
            pass
        time.sleep(0.2)
    stop.set()
    for t in threads:
        t.join(10)
    # The WAL is watched until the write load beside the flood is done too
    # (LOAD_PID), whether or not the flood outlasted it.
    flood_end = time.monotonic()
    posting = bool(load_pid) and running(load_pid)
    end = time.monotonic() + 120
    while load_pid and wal != "-" and running(load_pid) and time.monotonic() < end:
        try:
            wal_peak = max(wal_peak, os.path.getsize(wal))
        except OSError:
            pass
        time.sleep(0.2)
    if load_pid and wal != "-":
        print("# the posts beside it %s" % ("went on %.1f s after the flood" % (
            time.monotonic() - flood_end) if posting else "were done before the flood ended"),
            flush=True)
    print("# flood: %d connections from 127.0.0.50 for %d s: %s; %d normal reads, "
          "the slowest %.3f s" % (conns, seconds, counts, n, worst), flush=True)
    out(not failures, "every normal read during the flood is answered 200", repr(failures[:3]))
    out(worst < 1.0, "the slowest normal read during the flood took under 1 s",
        "%.3f s" % worst)
    out(counts["429"] > 0, "the flooding address is rate limited (429)", repr(counts))
    if wal == "-":
        # PostgreSQL: its WAL is the server's, bounded by its max_wal_size.
        return
    print("# the WAL's largest size during the flood: %.1f MiB" % (wal_peak / 1048576.0))
    out(wal_peak < wal_max_mb * 1048576, "the WAL stays under %d MiB" % wal_max_mb,
        "%.1f MiB" % (wal_peak / 1048576.0))


def main():
    cmd, port = sys.argv[1], int(sys.argv[2])
    if cmd == "framing":
        framing(port, sys.argv[3] if len(sys.argv) > 3 else None)
    elif cmd == "slowloris":
        slowloris(port, int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    elif cmd == "many":
        many(port, int(sys.argv[3]), int(sys.argv[4]))
    elif cmd == "many6":
        many6(port, int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    elif cmd == "ghosts":
        ghosts(port, int(sys.argv[3]), int(sys.argv[4]))
    elif cmd == "hangups":
        hangups(port, int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]))
    elif cmd == "tlschurn":
        tlschurn(port, int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), sys.argv[6])
    elif cmd == "flood":
        flood(port, int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6], sys.argv[7],
              int(sys.argv[8]), int(sys.argv[9]) if len(sys.argv) > 9 else 0)
    elif cmd == "queued":
        queued(port, int(sys.argv[3]), sys.argv[4], int(sys.argv[5]))
    elif cmd == "shutdown":
        shutdown(port, int(sys.argv[3]), sys.argv[4], int(sys.argv[5]), int(sys.argv[6]))
    else:
        sys.exit("unknown command " + cmd)



# --- SIGTERM with reads queued -----------------------------------------------------
def shutdown(port, pid, token, n, bound):
    """N digests at once; SIGTERM as soon as the first is answered (the rest
    are running or queued then); every request must get 200 or 503, at
    least one 503, and the server must be gone within BOUND seconds."""
    import signal
    statuses = []
    lock = threading.Lock()
    first = threading.Event()
    all_sent = threading.Event()
    sent = [0]

    def one():
        code = "error"
        try:
            c = connect(port, timeout=bound + 30)
            c.sendall(b"GET /api/v1/digest?days=3660 HTTP/1.1\r\nHost: x\r\n"
                      b"Authorization: Bearer " + token.encode() + b"\r\nConnection: close\r\n\r\n")
            with lock:
                sent[0] += 1
                if sent[0] == n:
                    all_sent.set()
            data, _ = read_all(c, bound + 30)
            c.close()
            code = data[9:12].decode() or "none"
        except OSError as e:
            code = "error " + str(e)
        with lock:
            statuses.append(code)
        first.set()

    threads = [threading.Thread(target=one, daemon=True) for _ in range(n)]
    for t in threads:
        t.start()
    # Every request on its way before SIGTERM: one not yet sent would meet
    # a closed port, which is no part of what is measured here.
    if not all_sent.wait(60) or not first.wait(60):
        out(False, "a digest is answered before SIGTERM", "none in 60 s")
        return
    os.kill(pid, signal.SIGTERM)
    t0 = time.monotonic()
    gone = None
    while time.monotonic() - t0 < bound + 30:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            gone = time.monotonic() - t0
            break
        # A zombie (the shell has not reaped it) counts as gone.
        try:
            with open("/proc/%d/stat" % pid) as f:
                if f.read().split(") ")[1].startswith("Z"):
                    gone = time.monotonic() - t0
                    break
        except OSError:
            gone = time.monotonic() - t0
            break
        time.sleep(0.05)
    for t in threads:
        t.join(bound + 30)
    counts = {}
    for s in statuses:
        counts[s] = counts.get(s, 0) + 1
    print("# %d digests, SIGTERM after the first answer: %s; exit after %s s"
          % (n, counts, "%.1f" % gone if gone is not None else "never"), flush=True)
    out(gone is not None and gone <= bound,
        "SIGTERM with %d digests running or queued: the server exits within %d s" % (n, bound),
        "exit after %s" % gone)
    out(set(counts) <= {"200", "503"}, "every digest is answered 200 or 503", repr(counts))
    out(counts.get("503", 0) > 0, "reads still queued at SIGTERM are answered 503",
        repr(counts))


# --- connections queued in the kernel at SIGTERM ------------------------------------
def queued(port, pid, token, n):
    """The server stopped (SIGSTOP) while N clients connect and send a
    digest request: the kernel queues the connections, nobody accepts
    them. Then SIGTERM and SIGCONT: every one must be answered 200 or 503
    (with Retry-After), none reset or closed without an answer."""
    import signal
    os.kill(pid, signal.SIGSTOP)
    socks = []
    try:
        for _ in range(n):
            c = connect(port, timeout=30)
            c.sendall(b"GET /api/v1/digest?days=3660 HTTP/1.1\r\nHost: x\r\n"
                      b"Authorization: Bearer " + token.encode() + b"\r\nConnection: close\r\n\r\n")
            socks.append(c)
    finally:
        os.kill(pid, signal.SIGTERM)
        os.kill(pid, signal.SIGCONT)
    counts, retry = {}, 0
    for c in socks:
        data, _ = read_all(c, 30)
        c.close()
        code = data[9:12].decode() or "none"
        counts[code] = counts.get(code, 0) + 1
        retry += code == "503" and b"\r\nRetry-After: " in data
    print("# %d connections queued while the server was stopped, then SIGTERM: %s"
          % (n, counts), flush=True)
    out(set(counts) <= {"200", "503"},
        "connections queued in the kernel at SIGTERM are answered, none reset", repr(counts))
    out(retry == counts.get("503", 0), "...each 503 with Retry-After",
        "%d of %d" % (retry, counts.get("503", 0)))


if __name__ == "__main__":
    main()
