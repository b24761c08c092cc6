#!/bin/sh
# snapshot: reports of fixture trees (tests/data/cgroupfs/*.desc) and of this
# machine, each checked by python3-jsonschema and by lib/schema.c; the
# flat-hierarchy verdicts and reorganisation; planted identifying names that
# must not reach a report; keyed tokens per install; size and node caps;
# unreadable trees; errors an administrator can make.
. tests/lib.sh
. tests/data/cgroupfs/lib.sh

PY=/usr/bin/python3
# Tokens are keyed by the secret bound to the machine-id (privacy/secret.h):
# a fixed one, which the checks below use too.
export CGFB_MACHINE_ID_FILE="$T_TMP/machine-id"
echo 00112233445566778899aabbccddeeff > "$CGFB_MACHINE_ID_FILE"
VALIDATE=$PWD/$BUILD/tests/tools/validate-report
ST=$T_TMP/state

# snap DIR [ARGS]: snapshot of the fixture in DIR.
snap() {
	d=$1
	shift
	"$CGFB" snapshot --state-dir "$ST" --cgroup-root "$d/root" --mountinfo "$d/mountinfo" "$@"
}
# valid NAME FILE: both validators accept the report.
valid() {
	check "$1: valid for python3-jsonschema (Draft 2020-12)" \
		sh -c '"$1" tests/tools/check_report.py "$2" >"$2.py" 2>&1' _ "$PY" "$2"
	check "$1: canonical and valid for lib/schema.c" \
		sh -c '"$1" "$2" >"$2.c" 2>&1' _ "$VALIDATE" "$2"
}
# facts REPORT ROOT MOUNTINFO [BEFORE]: what the report says beside what the
# tree holds, counted without the program: per hierarchy, "<mount> <dirs>
# <nodes_total> <controllers from mountinfo> <controllers in the report>".
# Exit 0 when they agree, 1 when not. REPORT "-": print the count of the
# tree only. With BEFORE (that count, taken before the snapshot) a tree
# that changed while it was taken is not compared with it: exit 3.
facts() {
	"$PY" - "$@" <<'PYEOF'
import hashlib, json, os, re, sys
root, mountinfo = sys.argv[2].rstrip("/"), sys.argv[3]
before = open(sys.argv[4]).read() if len(sys.argv) > 4 else None
mounts, seen = [], set()
for line in open(mountinfo, encoding="latin-1"):
    f = line.split()
    sep = f.index("-")
    if f[sep + 1] not in ("cgroup", "cgroup2") or f[2] in seen:
        continue
    seen.add(f[2])
    point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), f[4])
    known = "cpuset cpu cpuacct io blkio memory devices freezer net_cls perf_event net_prio hugetlb pids rdma misc debug".split()
    ctrl = [o for o in f[sep + 3].split(",") if o in known] if f[sep + 1] == "cgroup" else None
    mounts.append((point, f[sep + 1], ctrl))
def walk(point):
    return sorted(d for d, _, _ in os.walk(root.encode() + point.encode("latin-1")))
def count(point):
    return len(walk(point))
# Which directories, not only how many: one made and one removed between
# the two counts would leave the number as it was.
now = "".join("%s %s %d %s\n" % (p, t, len(w), hashlib.sha256(b"\0".join(w)).hexdigest()[:16])
              for p, t, w in ((p, t, walk(p)) for p, t, _ in mounts))
if sys.argv[1] == "-":
    sys.stdout.write(now)
    sys.exit(0)
if before is not None and before != now:
    print("the tree changed while the snapshot was taken:\nbefore:\n%safter:\n%s" % (before, now))
    sys.exit(3)
rep = json.load(open(sys.argv[1], encoding="utf-8"))
hs = rep["topology"]["hierarchies"]
ok = len(hs) == len(mounts)
print("hierarchies: %d in the report, %d mounted" % (len(hs), len(mounts)))
for h, (point, typ, ctrl) in zip(hs, mounts):
    dirs = count(point)
    same_ctrl = ctrl is None or sorted(ctrl) == sorted(h["controllers"])
    ok &= dirs == h["nodes_total"] and same_ctrl and h["version"] == (2 if typ == "cgroup2" else 1)
    print("%s: %d directories, nodes_total %d, controllers %s / %s" % (point, dirs, h["nodes_total"], ctrl, h["controllers"]))
    # listed nodes form a tree in pre-order: each parent listed before its child
    ids = set()
    for n in h["nodes"]:
        ok &= n["parent"] is None and n["depth"] == 0 or n["parent"] in ids
        ids.add(n["id"])
types = {t for _, t, _ in mounts}
mode = "hybrid" if types == {"cgroup", "cgroup2"} else "unified" if types == {"cgroup2"} else "legacy" if types else "none"
ok &= rep["system"]["cgroup_mode"] == mode
print("mode %s, expected %s" % (rep["system"]["cgroup_mode"], mode))
sys.exit(0 if ok else 1)
PYEOF
}

# --- every fixture ------------------------------------------------------------------
for desc in tests/data/cgroupfs/*.desc; do
	n=$(basename "$desc" .desc)
	[ "$n" = big10k ] && continue
	if ! fixture "$n" "$T_TMP/$n"; then
		not_ok "$n: fixture builds"
		continue
	fi
	snap "$T_TMP/$n" --json >"$T_TMP/$n.json" 2>"$T_TMP/$n.err"
	check "$n: snapshot --json exits 0" [ $? -eq 0 ]
	valid "$n" "$T_TMP/$n.json"
	facts "$T_TMP/$n.json" "$T_TMP/$n/root" "$T_TMP/$n/mountinfo" >"$T_TMP/$n.facts" 2>&1
	check "$n: hierarchies, controllers, cgroup counts and mode match the tree" [ $? -eq 0 ]
	snap "$T_TMP/$n" >"$T_TMP/$n.txt" 2>>"$T_TMP/$n.err"
	check "$n: summary exits 0" [ $? -eq 0 ]
	check "$n: nothing to complain about on stderr" [ ! -s "$T_TMP/$n.err" ]
done
# Every catalog entry's report of one tree validates (knob and flat analyses).
bad=
for id in $("$CGFB" catalog --json | sed -n 's/^{"id":"\([^"]*\)".*/\1/p'); do
	snap "$T_TMP/docker" --json --for "$id" >"$T_TMP/for-$id.json" 2>"$T_TMP/for-$id.err" &&
		"$VALIDATE" "$T_TMP/for-$id.json" >/dev/null &&
		"$PY" tests/tools/check_report.py "$T_TMP/for-$id.json" >/dev/null || bad="$bad $id"
done
check "--for every catalog entry: reports valid for both validators${bad:+ (not:$bad)}" [ -z "$bad" ]

# --- the flat hierarchy of the 2012 patch ------------------------------------------
# The checks name cgroups by their tokens, computed here from the secret with
# Python's hmac: HMAC-SHA256(secret, name), first 12 hex digits.
flat() {
	"$PY" - "$ST/secret" "$@" <<'PYEOF'
import hashlib, hmac, json, os, sys
key = hmac.new(open(sys.argv[1], "rb").read(), b"machine-id\0" + open(os.environ["CGFB_MACHINE_ID_FILE"], "rb").read(32), hashlib.sha256).digest()
rep = json.load(open(sys.argv[2], encoding="utf-8"))
want = sys.argv[3]
tok = lambda s: "h:" + hmac.new(key, s.encode(), hashlib.sha256).hexdigest()[:12]
h = rep["topology"]["hierarchies"][0]
by_name = {n["name"]: n["id"] for n in h["nodes"]}
A, B, C = by_name[tok("A")], by_name[tok("B")], by_name[tok("C")]
fs = rep["analysis"]["flat_subtrees"]
print(json.dumps(fs))
assert len(fs) == 1, "one flat subtree"
f = fs[0]
assert f["node"] == A and sorted(f["children"]) == sorted([B, C]), "A with B and C"
assert f["verdict"] == want, f["verdict"]
r = f["reorganisation"]
assert r["new_parent"] == {"use_hierarchy": 1, "limit": "max", "tasks": "0"}
assert r["move_under_new_parent"][0] == A and sorted(r["move_under_new_parent"][1:]) == sorted([B, C])
reasons = set(f["reasons"])
if want == "affected":
    assert {"parent_has_tasks", "parent_has_limit", "children_limits_exceed_parent"} <= reasons, reasons
else:
    assert not reasons, reasons
for k in rep["analysis"]["knob_users"]:
    if k["knob"] == "memory.use_hierarchy":
        print("use_hierarchy=0 in %d cgroups" % k["count"])
        print(k["count"], file=open(sys.argv[2] + ".uh0", "w"))
PYEOF
}
for f in affected unaffected; do
	flat "$T_TMP/flat-$f.json" "$f" >"$T_TMP/flat-$f.out" 2>&1
	check "flat-$f: A (use_hierarchy=0) over B, C is $f, with the A' reorganisation" [ $? -eq 0 ]
	# Counted from the files: cgroups whose memory.use_hierarchy holds 0.
	zero=$(grep -rlx 0 "$T_TMP/flat-$f/root" --include=memory.use_hierarchy | wc -l)
	check "flat-$f: use_hierarchy=0 users as in the tree ($zero)" [ "$(cat "$T_TMP/flat-$f.json.uh0")" = "$zero" ]
done
grep -q "AFFECTED by hierarchical accounting" "$T_TMP/flat-affected.txt"
check "flat-affected: the summary says AFFECTED" [ $? -eq 0 ]
grep -q "unaffected" "$T_TMP/flat-unaffected.txt"
check "flat-unaffected: the summary says unaffected" [ $? -eq 0 ]
for id in S1 C1 C2 M8; do
	snap "$T_TMP/flat-affected" --json --for "$id" >"$T_TMP/flat-$id.json" 2>"$T_TMP/flat-$id.err"
	check "flat-affected --for $id: the flat analysis" \
		grep -q '"flat_subtrees":\[{"children":\[' "$T_TMP/flat-$id.json"
done
snap "$T_TMP/flat-affected" --json --for M3 >"$T_TMP/flat-M3.json" 2>/dev/null
check "flat-affected --for M3: soft-limit users, no flat analysis" \
	grep -q '"flat_subtrees":\[\],"knob_users":\[{"count":0,"hierarchy":0,"knob":"memory.soft_limit_in_bytes"' \
	"$T_TMP/flat-M3.json"

# --- anonymisation ------------------------------------------------------------------
H=$T_TMP/hostile
leaks=
while IFS= read -r s; do
	[ -n "$s" ] || continue
	for f in "$H.json" "$H.txt"; do
		grep -qF -- "$s" "$f" && leaks="$leaks '$s' in $(basename "$f");"
	done
done <tests/data/cgroupfs/hostile-strings.txt
check "hostile: no planted string in the report or the summary${leaks:+: $leaks}" [ -z "$leaks" ]
check "hostile: the fixture path is not in the report" sh -c '! grep -qF "$1" "$2"' _ "$T_TMP" "$H.json"
check "hostile: only printable ASCII in the report bytes" sh -c '! LC_ALL=C grep -q "[^ -~]" "$1"' _ "$H.json"
# Tokens are HMAC-SHA256 under this install's secret: recomputed here for the
# odd names (a newline, bytes that are not UTF-8, 255 bytes).
"$PY" - "$ST/secret" "$H.json" >"$T_TMP/tokens.out" 2>&1 <<'PYEOF'
import hashlib, hmac, os, sys
key = hmac.new(open(sys.argv[1], "rb").read(), b"machine-id\0" + open(os.environ["CGFB_MACHINE_ID_FILE"], "rb").read(32), hashlib.sha256).digest()
assert len(key) == 32
rep = open(sys.argv[2], "rb").read()
names = [b"ACME-Corporation-billing", b"line-one\nline-two-ACMEcorp", b"caf\xe9-latin1-ACMEcorp\xff\xfe",
         b"customer-ACME-Corporation-long-name-" + b"x" * 216 + b"255", b"db-prod-07.acme-corp.example"]
for n in names:
    t = b"h:" + hmac.new(key, n, hashlib.sha256).hexdigest()[:12].encode()
    print(n, t, t in rep)
    assert t in rep, n
for kept in (b'"user-N.slice"', b'"session-N.scope"', b'"machine-qemu-ID.scope"', b'"lxc.payload.NAME"',
             b'"UUID"', b'"ID"', b'"system.slice"'):
    assert kept in rep, kept
PYEOF
check "hostile: odd names become their HMAC tokens, allowlisted ones are generalised" [ $? -eq 0 ]
topo() {
	"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); print(json.dumps([r["topology"], r["analysis"], r["system"]], sort_keys=True))' "$1"
}
snap "$H" --json >"$T_TMP/hostile2.json" 2>/dev/null
check "hostile: the same install gives the same tokens (topology, analysis, system identical)" \
	[ "$(topo "$H.json")" = "$(topo "$T_TMP/hostile2.json")" ]
check "hostile: ... but a new report id" \
	sh -c '[ "$(sed "s/.*report_id\":\"\([^\"]*\).*/\1/" "$1")" != "$(sed "s/.*report_id\":\"\([^\"]*\).*/\1/" "$2")" ]' _ "$H.json" "$T_TMP/hostile2.json"
"$CGFB" snapshot --state-dir "$T_TMP/other" --cgroup-root "$H/root" --mountinfo "$H/mountinfo" --json \
	>"$T_TMP/hostile3.json" 2>/dev/null
"$PY" - "$H.json" "$T_TMP/hostile3.json" >"$T_TMP/unlink.out" 2>&1 <<'PYEOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
na = [n["name"] for n in a["topology"]["hierarchies"][0]["nodes"]]
nb = [n["name"] for n in b["topology"]["hierarchies"][0]["nodes"]]
ta = {x for x in na if x.startswith("h:")}
tb = {x for x in nb if x.startswith("h:")}
print(len(ta), len(tb), ta & tb)
assert len(ta) >= 10 and len(tb) == len(ta) and not ta & tb
assert {x for x in na if not x.startswith("h:")} == {x for x in nb if not x.startswith("h:")}
PYEOF
check "hostile: another install (state dir) gives other tokens, the same allowlisted names" [ $? -eq 0 ]
check "secret: 32 bytes, mode 0600" sh -c '[ "$(stat -c %s:%a "$1")" = 32:600 ]' _ "$ST/secret"
check "secret: the state dir is private" [ "$(stat -c %a "$ST")" = 700 ]

# The allowlist grows from a file: one name per line, or the JSON form.
printf '# names we are happy to show\nACME-Corporation-billing\n' >"$T_TMP/allow.txt"
snap "$H" --json --allowlist "$T_TMP/allow.txt" >"$T_TMP/allow.json" 2>/dev/null
check "--allowlist (one per line): the name appears in clear" grep -q '"name":"ACME-Corporation-billing"' "$T_TMP/allow.json"
printf '{"generalise": [{"match": "^home-[a-z]+-projects$", "as": "home-USER-projects"}]}' >"$T_TMP/allow2.json"
snap "$H" --json --allowlist "$T_TMP/allow2.json" >"$T_TMP/allow2.out" 2>/dev/null
check "--allowlist (JSON): a generalisation applies" grep -q '"name":"home-USER-projects"' "$T_TMP/allow2.out"
printf 'fine.slice\nnot/a name\n' >"$T_TMP/allow3.txt"
snap "$H" --allowlist "$T_TMP/allow3.txt" >/dev/null 2>"$T_TMP/allow3.err"
check "--allowlist with a bad name: exit 2" [ $? -eq 2 ]
check "--allowlist with a bad name: names file and line" grep -q "allow3.txt: line 2" "$T_TMP/allow3.err"

# --- this machine -------------------------------------------------------------------
"$CGFB" snapshot --json --state-dir "$ST" >"$T_TMP/real.json" 2>"$T_TMP/real.err"
check "this machine: snapshot --json exits 0" [ $? -eq 0 ]
valid "this machine" "$T_TMP/real.json"
"$CGFB" snapshot --json --state-dir "$ST" --for M8 >"$T_TMP/real-M8.json" 2>>"$T_TMP/real.err"
valid "this machine, --for M8" "$T_TMP/real-M8.json"
# The live tree is not the suite's: other work creates and removes cgroups
# while the snapshot is taken. Like is compared with like: the tree is
# counted before and after a snapshot, and a report is judged only when the
# two counts agree (else the snapshot is taken again, up to 20 times).
live_facts() {
	_try=0
	while [ $_try -lt 20 ]; do
		_try=$((_try + 1))
		facts - / /proc/self/mountinfo >"$T_TMP/live.before"
		"$CGFB" snapshot --json --state-dir "$ST" >"$T_TMP/live.json" 2>>"$T_TMP/real.err"
		facts "$T_TMP/live.json" / /proc/self/mountinfo "$T_TMP/live.before" >"$T_TMP/live.facts" 2>&1
		_rc=$?
		echo "attempt $_try: exit $_rc"
		cat "$T_TMP/live.facts"
		[ $_rc -eq 3 ] || return $_rc
	done
	echo "the tree never held still across a snapshot in $_try attempts"
	return 1
}
check "this machine: every cgroup mount and cgroup is in the report" live_facts
host=$(uname -n)
check "this machine: the host name ($host) is not a word of the report" \
	sh -c '! grep -qwiF -- "$1" "$2"' _ "$host" "$T_TMP/real.json"
if [ -s /etc/machine-id ]; then
	check "this machine: the machine id is not in the report" \
		sh -c '! grep -qF -- "$(cat /etc/machine-id)" "$1"' _ "$T_TMP/real.json"
fi
"$CGFB" snapshot --state-dir "$ST" >"$T_TMP/real.txt" 2>>"$T_TMP/real.err"
check "this machine: summary exits 0" [ $? -eq 0 ]

# --- caps ---------------------------------------------------------------------------
if BIG=$(cached_fixture big10k); then
	"$CGFB" snapshot --json --state-dir "$ST" --cgroup-root "$BIG/root" --mountinfo "$BIG/mountinfo" \
		>"$T_TMP/big.json" 2>"$T_TMP/big.err"
	check "big10k: snapshot --json exits 0" [ $? -eq 0 ]
	valid "big10k" "$T_TMP/big.json"
	size=$(($(wc -c <"$T_TMP/big.json") - 1))
	check "big10k: report of $size bytes is within the 262144-byte cap" [ "$size" -le 262144 ]
	facts "$T_TMP/big.json" "$BIG/root" "$BIG/mountinfo" >"$T_TMP/big.facts" 2>&1
	check "big10k: all 10,000 memory cgroups counted" [ $? -eq 0 ]
	"$PY" - "$T_TMP/big.json" >"$T_TMP/big.out" 2>&1 <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
h = [h for h in r["topology"]["hierarchies"] if h["controllers"] == ["memory"]][0]
print(h["nodes_total"], h["nodes_listed"], h["cut"])
assert h["nodes_total"] == 10000 and 0 < h["nodes_listed"] < 10000
assert h["nodes_listed"] == len(h["nodes"])
assert h["cut"] == {"reason": "size_cap", "nodes_omitted": 10000 - h["nodes_listed"]}
assert r["topology"]["max_bytes"] == 262144 and r["topology"]["max_nodes"] == 50000
PYEOF
	check "big10k: a size_cap cut summary counts what was left out" [ $? -eq 0 ]
	"$CGFB" snapshot --json --state-dir "$ST" --cgroup-root "$BIG/root" --mountinfo "$BIG/mountinfo" \
		--max-nodes 500 >"$T_TMP/cap.json" 2>/dev/null
	valid "--max-nodes 500" "$T_TMP/cap.json"
	"$PY" - "$T_TMP/cap.json" >"$T_TMP/cap.out" 2>&1 <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
hs = r["topology"]["hierarchies"]
assert r["topology"]["max_nodes"] == 500
assert sum(h["nodes_listed"] for h in hs) <= 500
h = [h for h in hs if h["controllers"] == ["memory"]][0]
assert h["nodes_total"] == 10000 and h["cut"]["reason"] == "node_cap", h["cut"]
assert h["cut"]["nodes_omitted"] == 10000 - h["nodes_listed"]
PYEOF
	check "--max-nodes 500: at most 500 listed, all 10,000 counted, a node_cap cut" [ $? -eq 0 ]
else
	not_ok "big10k: fixture builds"
fi

# --- trouble ------------------------------------------------------------------------
# A FIFO where a knob should be must not hang the walk.
D=$T_TMP/docker
c=$(find "$D/root" -path '*/docker/4f2b*' -name memory.limit_in_bytes | head -n 1)
rm -f "$c" && mkfifo "$c"
timeout 20 "$CGFB" snapshot --state-dir "$ST" --cgroup-root "$D/root" --mountinfo "$D/mountinfo" --json \
	>"$T_TMP/fifo.json" 2>/dev/null
check "a FIFO in the tree: no hang, exit 0" [ $? -eq 0 ]
valid "a FIFO in the tree" "$T_TMP/fifo.json"
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	# Unreadable to an unprivileged user: one cgroup directory and one file.
	U=$T_TMP/unreadable
	mkdir -p "$U" && fixture docker "$U/t"
	chmod 755 "$T_TMP" "$U"
	chmod 000 "$U/t/root/sys/fs/cgroup/memory/system.slice/containerd.service"
	chmod 000 "$(find "$U/t/root/sys/fs/cgroup/memory/docker" -name memory.limit_in_bytes | head -n 1)"
	mkdir -p "$U/state" && chown 65534:65534 "$U/state"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$CGFB" snapshot --json --state-dir "$U/state" --cgroup-root "$U/t/root" \
		--mountinfo "$U/t/mountinfo" >"$U/r.json" 2>"$U/err"
	check "unreadable cgroup and file: exit 0" [ $? -eq 0 ]
	valid "unreadable cgroup and file" "$U/r.json"
	check "unreadable: warned once, naming the first" \
		sh -c '[ "$(grep -c "could not be read" "$1")" = 1 ] && grep -q "Permission denied" "$1"' _ "$U/err"
	dirs=$(find "$U/t/root/sys/fs/cgroup/memory" -type d | wc -l)
	check "unreadable: the directory is left out, the rest is counted" \
		grep -q "\"controllers\":\[\"memory\"\],\"cut\":null,\"id\":1,\"max_depth\":2,\"name\":null,\"nodes\":.*\"nodes_listed\":$((dirs - 1)),\"nodes_total\":$((dirs - 1))" "$U/r.json"
else
	skip "unreadable cgroup and file" "needs root and setpriv"
fi

# --- errors -------------------------------------------------------------------------
"$CGFB" snapshot --state-dir "$ST" --mountinfo "$T_TMP/nonexistent" >/dev/null 2>"$T_TMP/e1"
check "missing mountinfo: exit 2" [ $? -eq 2 ]
check "missing mountinfo: names it" grep -q "nonexistent" "$T_TMP/e1"
"$CGFB" snapshot --state-dir "$ST" --for X9 >/dev/null 2>"$T_TMP/e2"
check "--for unknown: exit 2, says so" sh -c '[ $1 -eq 2 ] && grep -q "X9" "$2"' _ $? "$T_TMP/e2"
chmod 644 "$ST/secret"
"$CGFB" snapshot --state-dir "$ST" >/dev/null 2>"$T_TMP/e3"
check "a secret readable by others is refused" sh -c '[ $1 -eq 2 ] && grep -q "readable by others" "$2"' _ $? "$T_TMP/e3"
chmod 600 "$ST/secret"
printf 'short' >"$T_TMP/badsecret" && mkdir -p "$T_TMP/st2" && cp "$T_TMP/badsecret" "$T_TMP/st2/secret" && chmod 600 "$T_TMP/st2/secret"
"$CGFB" snapshot --state-dir "$T_TMP/st2" >/dev/null 2>"$T_TMP/e4"
check "a secret of the wrong size is refused" sh -c '[ $1 -eq 2 ] && grep -q "not 32 bytes" "$2"' _ $? "$T_TMP/e4"
# A hierarchy deeper than the walk goes (256 levels): the report says it
# was cut, why, and how many cgroups right below the cap it left out,
# instead of "cut": null as if whole.
D=$T_TMP/deep
mkdir -p "$D/root/sys/fs/cgroup/memory"
python3 -c 'import os, sys
p = sys.argv[1]
for i in range(300):
    p = os.path.join(p, "d")
    os.mkdir(p)
os.mkdir(os.path.join(os.path.dirname(p), "e"))' "$D/root/sys/fs/cgroup/memory"
echo '30 25 0:26 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime shared:9 - cgroup cgroup rw,memory' \
	> "$D/mountinfo"
"$CGFB" snapshot --json --state-dir "$ST" --cgroup-root "$D/root" --mountinfo "$D/mountinfo" \
	> "$T_TMP/deep.json" 2> "$T_TMP/deep.err"
check "a 300-level hierarchy: its report says depth_cap, one cgroup below the cap left out" \
	python3 -c 'import json, sys
h = json.load(open(sys.argv[1]))["topology"]["hierarchies"][0]
sys.exit(h["cut"] != {"reason": "depth_cap", "nodes_omitted": 1} or h["max_depth"] != 256)' "$T_TMP/deep.json"
check "... and the report is valid" "$PWD/$BUILD/tests/tools/validate-report" "$T_TMP/deep.json"
check "... and the log says only part of it was counted" grep -q "deeper than 256 levels; only part of it was counted" "$T_TMP/deep.err"
finish
