#!/usr/bin/env python3
"""Admin token guesses against a collector on 127.0.0.1:PORT, from several
loopback addresses (Linux answers every 127/8 address on lo).

  guesses.py PORT ADMIN_TOKEN

Prints:
  one CODExN ...        22 wrong tokens from 127.0.0.3, the answers run-length
  one-right CODE        then the right token from 127.0.0.3
  retry-after N         the Retry-After of the last 429 (0: none)
  many N401 N429        wrong tokens from 127.0.1.1-20 in turn until a 429
  fresh-right CODE      the right token from 127.0.0.99, which guessed nothing
"""
import http.client
import sys

port, admin = int(sys.argv[1]), sys.argv[2]
conns = {}
retry = "0"


def ask(src, token):
    global retry
    c = conns.get(src)
    if c is None:
        c = conns[src] = http.client.HTTPConnection("127.0.0.1", port, timeout=10,
                                                    source_address=(src, 0))
    c.request("GET", "/api/v1/digest", headers={"Authorization": "Bearer " + token})
    r = c.getresponse()
    r.read()
    if r.status == 429:
        retry = r.getheader("Retry-After", "0")
    return r.status


def runs(codes):
    out = []
    for c in codes:
        if out and out[-1][0] == c:
            out[-1][1] += 1
        else:
            out.append([c, 1])
    return " ".join("%dx%d" % (c, n) for c, n in out)


print("one", runs([ask("127.0.0.3", "wrong-token-%04d-abcdefghij" % i) for i in range(22)]))
print("one-right", ask("127.0.0.3", admin))
print("retry-after", retry)
n401 = n429 = 0
for i in range(200):
    code = ask("127.0.1.%d" % (1 + i % 20), "wrong-token-many-%04d-abcdefgh" % i)
    n401 += code == 401
    n429 += code == 429
    if n429:
        break
print("many", n401, n429)
print("fresh-right", ask("127.0.0.99", admin))
