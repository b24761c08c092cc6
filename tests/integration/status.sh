#!/bin/sh
# status for monitoring (issue 28): `status --json` is one JSON document
# that says what the spool holds (checked field by field against the
# spool's own files, and against docs/status.schema.json), and the exit
# status of both forms is 0 while nothing fails, 1 while a consented
# report's last attempt to send it failed (the collector double answering
# 503), 0 again once it is sent, and 2 on trouble (docs/STATUS.md).
. tests/lib.sh
. tests/client/lib.sh

ST=$T_TMP/state
CONF=$T_TMP/conf
mkdir -p "$ST"
trap 'stop_double; t_cleanup' EXIT
start_double "$T_TMP/double" ok
# The banner this test's commands refresh stays in its directory, never
# the host's /run/motd.d.
printf 'endpoint = %s\nnotify = log\nmotd-path = %s/motd\ntimeout = %s\nconnect-timeout = %s\n' \
	"$URL" "$T_TMP" "$(scaled 3)" "$(scaled 2)" > "$CONF"
cfb() { "$CGFB" --config "$CONF" --state-dir "$ST" "$@"; }
a=$($PY tests/client/pending_report.py "$ST" M8 status-a)
b=$($PY tests/client/pending_report.py "$ST" M3 status-b)
echo M3 > "$ST/silenced"
echo "One budget per VM; the siblings must stay isolated." > "$T_TMP/uc"

# both SUFFIX: status and status --json into $T_TMP/text.SUFFIX and
# $T_TMP/json.SUFFIX, their exit statuses in TEXT_RC and JSON_RC.
both() {
	cfb status > "$T_TMP/text.$1" 2>&1
	TEXT_RC=$?
	cfb status --json > "$T_TMP/json.$1" 2> "$T_TMP/json-err.$1"
	JSON_RC=$?
}
# matches SUFFIX: the JSON document against the schema and, field by
# field, against the spool's files and the configuration.
matches() {
	$PY - "$T_TMP/json.$1" "$ST" "$URL" docs/status.schema.json <<'EOP'
import json, os, sys
doc_text = open(sys.argv[1]).read()
assert doc_text.count("\n") == 1 and doc_text.endswith("\n"), "not one document on one line"
doc, st, url = json.loads(doc_text), sys.argv[2], sys.argv[3]
try:
    import jsonschema
    jsonschema.validate(doc, json.load(open(sys.argv[4])))
except ImportError:
    print("python3-jsonschema missing: the schema is not checked")
assert doc["schema"] == "cgroup-feedback/status" and doc["schema_version"] == 1, doc
assert doc["state_dir"] == st and doc["endpoint"] == url and doc["consent"] == "ask", doc
# No watcher follows this spool's log (watch.sh sees one that does).
assert doc["watcher"] == {"running": False, "pid": None}, doc["watcher"]
# Where a yes goes: the configured collector, and the sentence the text
# form prints (what_then checks the other channel).
d = doc["destination"]
assert d == {"channel": "collector", "endpoint": url, "mail_to": None, "mail_by": None,
             "says": "A yes sends the report over the network to the collector at %s "
                     "(endpoint in the configuration)." % url}, d
text = " ".join(open(sys.argv[1].replace("/json.", "/text.")).read().split())
assert "where a yes goes: " + d["says"] in text, text[:600]
assert text.startswith("watcher: not running: nothing reads the kernel log for this state "
                       "directory ("), text[:200]
spool = {}
for f in sorted(os.listdir(st + "/reports")):
    if f.endswith(".json"):
        rid = f[:-5]
        rep = json.load(open("%s/reports/%s" % (st, f)))
        try:
            state = json.load(open("%s/reports/%s.state" % (st, rid)))
        except FileNotFoundError:
            state = {"state": "pending"}
        spool[rid] = (rep, state)
silenced = open(st + "/silenced").read().split()
assert doc["silenced"] == silenced, (doc["silenced"], silenced)
counts = doc["counts"]
assert counts["total"] == len(spool), counts
for s in ("pending", "declined", "consented", "sent", "withdrawn"):
    want = sum(1 for _, st_ in spool.values() if st_["state"] == s)
    assert counts[s] == want, (s, counts[s], want)
def common(o, rid):
    rep, _ = spool[rid]
    assert o["catalog_id"] == rep["detection"]["catalog_id"], (o, rep["detection"])
    try:
        seen = json.load(open("%s/reports/%s.seen" % (st, rid)))
        want = {k: seen[k] for k in ("boots", "first_seen", "last_seen", "kernels")}
    except FileNotFoundError:
        want = {"boots": 1, "first_seen": o["created"], "last_seen": o["created"], "kernels": []}
    assert o["seen"] == want, (o["seen"], want)
pend = [r for r, (_, s) in spool.items() if s["state"] == "pending"]
assert sorted(o["id"] for o in doc["pending"]) == sorted(pend), (doc["pending"], pend)
for o in doc["pending"]:
    common(o, o["id"])
    assert o["state"] == "pending" and o["silenced"] == (o["catalog_id"] in silenced), o
    assert o["review"].endswith("--state-dir %s review %s" % (st, o["id"])), o["review"]
cons = [r for r, (_, s) in spool.items() if s["state"] == "consented"]
assert sorted(o["id"] for o in doc["consented"]) == sorted(cons), (doc["consented"], cons)
failing = 0
for o in doc["consented"]:
    common(o, o["id"])
    s = spool[o["id"]][1]
    assert o["endpoint"] == s["endpoint"] and o["attempts"] == s["attempts"], (o, s)
    assert o["last_error"] == (s.get("last_error") or None), (o, s)
    assert o["next_attempt"] == (s["next_attempt"] if s["next_attempt"] >= 0 else None), (o, s)
    assert o["failing"] == (s["attempts"] > 0 and bool(s.get("last_error"))), (o, s)
    assert o["due"] == (0 <= s["next_attempt"] <= doc["now"]), (o, s)
    failing += o["failing"]
again = [r for r, (_, s) in spool.items() if s["state"] not in ("pending", "consented")
         and os.path.exists("%s/reports/%s.seen" % (st, r))]
assert sorted(o["id"] for o in doc["seen_again"]) == sorted(again), (doc["seen_again"], again)
for o in doc["seen_again"]:
    common(o, o["id"])
    assert o["state"] == spool[o["id"]][1]["state"] and "review" not in o, o
assert counts["failing"] == failing and counts["due"] == sum(o["due"] for o in doc["consented"]), counts
print("ok", counts)
EOP
}

# --- pending reports only: nothing fails ------------------------------------------
both pending
check "pending reports only: status exits 0" [ "$TEXT_RC" -eq 0 ]
check "pending reports only: status --json exits 0" [ "$JSON_RC" -eq 0 ]
check "status --json is the spool, field by field (pending, silenced)" matches pending
check "status says nothing fails" grep -qx "failing to send: 0" "$T_TMP/text.pending"

# --- a consented report whose sending failed: exit 1 ---------------------------------
echo fail503 > "$T_TMP/double/mode"
cfb submit "$a" --yes --use-case-file "$T_TMP/uc" > /dev/null 2> "$T_TMP/submit.err"
check "submit to a collector answering 503 fails" [ $? -eq 2 ]
both failing
check "a consented report's send failed: status exits 1" [ "$TEXT_RC" -eq 1 ]
check "...and status --json exits 1" [ "$JSON_RC" -eq 1 ]
check "status says one fails" grep -qx "failing to send: 1" "$T_TMP/text.failing"
check "status --json is the spool, field by field (attempts, error, next try, endpoint)" \
	matches failing
check "...the failing report is the one submitted, with the double's 503" $PY -c "
import json, sys
d = json.load(open('$T_TMP/json.failing'))
c = d['consented']
assert len(c) == 1 and c[0]['id'] == '$a' and c[0]['failing'] and c[0]['attempts'] == 1, c
assert '503' in c[0]['last_error'] and c[0]['endpoint'] == '$URL', c
assert c[0]['next_attempt'] > d['now'] and not c[0]['due'] and d['counts']['failing'] == 1, c"

# --- the packaged configuration, which names no collector --------------------------
# Where a yes goes is the e-mail for the list, written to a file; the
# report consented for the collector above still goes only there, and
# status says how to stop it.
sed "s|^motd-path = .*|motd-path = $T_TMP/motd|" packaging/conf/cgroup-feedback.conf > "$T_TMP/packaged.conf"
# The text form natively under valgrind: its destination is the JSON
# run's after it, its printing the other status runs'.
"$CGFB_NATIVE" --config "$T_TMP/packaged.conf" --state-dir "$ST" status > "$T_TMP/text.mail" 2>&1
"$CGFB" --config "$T_TMP/packaged.conf" --state-dir "$ST" status --json > "$T_TMP/json.mail" 2>&1
check "no collector configured: status and status --json say a yes writes the e-mail for the list, to a file" \
	$PY - "$T_TMP/text.mail" "$T_TMP/json.mail" docs/status.schema.json <<'EOP'
import json, sys
text = " ".join(open(sys.argv[1]).read().split())
doc = json.load(open(sys.argv[2]))
try:
    import jsonschema
    jsonschema.validate(doc, json.load(open(sys.argv[3])))
except ImportError:
    print("python3-jsonschema missing: the schema is not checked")
says = ("No collector is configured (endpoint), so a yes writes the report as an e-mail for the "
        "list the kernel message names (linux-mm@kvack.org, and cgroups@vger.kernel.org for the "
        "cgroup core's messages) to a file, for you to send; nothing goes over the network.")
assert doc["endpoint"] == "" and doc["destination"] == {
    "channel": "mail", "endpoint": None, "mail_to": None, "mail_by": "file", "says": says}, doc
assert "endpoint: none (no collector is configured)" in text and "where a yes goes: " + says in text, text
assert "http://127" not in text.split("reports:")[0], text
EOP
check "... the report consented for a collector: only there, said, with how to stop it" \
	grep -q "consented for $URL; no collector is configured now, and flush still sends it there; to stop it: $HINT_CLI_RE --config $T_TMP/packaged.conf --state-dir $ST withdraw $a" "$T_TMP/text.mail"
# --- sent after all: exit 0 again ---------------------------------------------------
rm -f "$T_TMP/double/mode"
# The backoff's wait, skipped: the retry is due now.
$PY -c "
import json; p = '$ST/reports/$a.state'; s = json.load(open(p)); s['next_attempt'] = 0
json.dump(s, open(p, 'w'))"
both due
check "a failed report due for its retry still fails: status exits 1" [ "$TEXT_RC" -eq 1 ]
check "...counted as due" grep -qx "due for sending now: 1" "$T_TMP/text.due"
check "status --json of a report due (next_attempt 0)" matches due
cfb flush > /dev/null 2>&1
check "flush sends it once the collector behaves" grep -q '"state": *"sent"' "$ST/reports/$a.state"
both sent
check "sent: status exits 0 again" [ "$TEXT_RC" -eq 0 ]
check "...and status --json exits 0" [ "$JSON_RC" -eq 0 ]
check "status --json after the send (sent 1, consented 0)" matches sent
# Its message came back at two later boots, on another kernel series.
printf '{"boots":3,"first_seen":1700000000,"last_seen":1700100000,"last_boot":"b","kernels":["6.1","6.12"]}' \
	> "$ST/reports/$a.seen"
both again
check "a sent report seen again: status and status --json exit 0" \
	sh -c '[ "$1" -eq 0 ] && [ "$2" -eq 0 ]' _ "$TEXT_RC" "$JSON_RC"
check "status --json lists it as seen again, with its boots and kernels" matches again
check "...as the text does" grep -q "M8 $a: sent; seen again since (3 boots, kernel 6.1 6.12)" "$T_TMP/text.again"

# --- trouble: exit 2, either form ----------------------------------------------------
"$CGFB" --state-dir "$T_TMP/nowhere" status > /dev/null 2>&1
check "status on a missing state directory exits 2" [ $? -eq 2 ]
"$CGFB" --state-dir "$T_TMP/nowhere" status --json > "$T_TMP/out" 2>&1
check "...and status --json too, printing no document" sh -c '[ $1 -eq 2 ] && ! grep -q "^{" "$2"' _ $? "$T_TMP/out"
"$CGFB" --config "$T_TMP/missing.conf" --state-dir "$ST" status --json > /dev/null 2>&1
check "status --json with a missing configuration exits 2" [ $? -eq 2 ]
finish
