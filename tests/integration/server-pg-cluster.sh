#!/bin/sh
# Several collectors on one PostgreSQL (issue 17), a real server started by
# the test (tests/server/pg.sh): two instances starting together migrate
# once; the same reports sent to both at the same moment are stored once
# and answered 201 by one and 200 with the same receipt by the other; the
# public summary is the same from either; a withdrawal on one is
# seen by the other; kill -9 of an instance under load and an immediate
# restart of PostgreSQL under load lose no report that was answered 201,
# and the collector answers 503 with Retry-After meanwhile and recovers by
# itself.
CGFB_TEST_STORE=pg
. tests/lib.sh
. tests/server/lib.sh

R=$T_TMP/reports
gen "$R" 1500 5 40
SERVER_STORE=$T_TMP/shared.sqlite
# The database exists (empty); the schema is the instances' business.
store_db "$SERVER_STORE" > /dev/null

# --- two instances starting together on a new database -----------------------------------
start_server a --rate 0 --quiet &
start_server b --rate 0 --quiet &
wait
# Each ran in a subshell: read their ports and pids back from the files.
PA=$(cat "$T_TMP/a/port" 2>/dev/null) PB=$(cat "$T_TMP/b/port" 2>/dev/null)
check "two instances starting together both listen" sh -c '[ -n "$1" ] && [ -n "$2" ]' _ "$PA" "$PB"
SERVER_PIDS="$SERVER_PIDS $(pgrep -f -- "--port-file $T_TMP/a/port") $(pgrep -f -- "--port-file $T_TMP/b/port")"
expect_eq "the schema was migrated once, to version 5" \
	"$(sql "$SERVER_STORE" "select string_agg(version::text, ',') from cgfb_schema")" 5
expect_eq "one of them logged the migration" \
	"$(cat "$T_TMP/a/log" "$T_TMP/b/log" | grep -c "schema migrated to version 5")" 1
A=http://127.0.0.1:$PA B=http://127.0.0.1:$PB

# --- the same ids to both at the same moment -------------------------------------------------
python3 - "$R" 0 300 "$A" "$B" > "$T_TMP/dup.out" <<'PY'
import http.client, json, sys, threading, urllib.parse
d, first, last, a, b = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
def post(url, body, res, k):
    u = urllib.parse.urlsplit(url)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=20)
    c.request("POST", "/api/v1/reports", body, {"Content-Type": "application/json"})
    r = c.getresponse()
    res[k] = (r.status, json.loads(r.read()))
bad = 0
for n in range(first, last):
    body = open("%s/%d.json" % (d, n), "rb").read()
    res = [None, None]
    ts = [threading.Thread(target=post, args=(u, body, res, k)) for k, u in enumerate((a, b))]
    for t in ts: t.start()
    for t in ts: t.join()
    st = sorted(r[0] for r in res)
    if st != [200, 201] or res[0][1] != res[1][1]:
        bad += 1
        if bad <= 3:
            print("report %d: %s" % (n, res), file=sys.stderr)
print(bad)
PY
expect_eq "300 reports sent to both at once: one 201 and one 200 each, the same receipt" \
	"$(cat "$T_TMP/dup.out")" 0
expect_eq "...stored once each: 300 rows" "$(rows "$SERVER_STORE")" 300
expect_eq "...300 distinct ids" "$(sql "$SERVER_STORE" "select count(distinct id) from reports")" 300

# --- the public summary: computed by one, the same from both ----------------------------------
# Each instance serves from memory what it last read of the database (every
# --summary-interval): the copies read after the writes must agree, down to
# the ETag, which is made of the counts.
no_computed() { python3 -c 'import json, sys
j = json.load(open(sys.argv[1])); j.pop("computed")
print(json.dumps(j, sort_keys=True))' "$T_TMP/body"; }
URL=$A
fresh_summary > /dev/null
no_computed > "$T_TMP/sum.a"
tr -d '\r' < "$T_TMP/headers" | grep -i '^etag:' > "$T_TMP/etag.a"
expect_eq "the summary counts every report" "$(json 'j["total"]["reports"]')" 300
URL=$B
fresh_summary > /dev/null
no_computed > "$T_TMP/sum.b"
tr -d '\r' < "$T_TMP/headers" | grep -i '^etag:' > "$T_TMP/etag.b"
check "the summary is the same from either instance" cmp -s "$T_TMP/sum.a" "$T_TMP/sum.b"
check "...with the same ETag" sh -c 'test -s "$1" && cmp -s "$1" "$2"' _ "$T_TMP/etag.a" "$T_TMP/etag.b"
expect_eq "...kept in the database for all (summary_snapshot)" \
	"$(sql "$SERVER_STORE" "select count(*) from summary_snapshot")" 1
# Both folded what both wrote before their summaries (store_fold, one at a
# time under an advisory lock): the counts kept are the rows', none pending.
expect_eq "...from the counts kept: every row counted once, installs and all, none pending" \
	"$(sql "$SERVER_STORE" "select (select count(*) from tally_delta) || ':' ||
		(select reports - (select count(*) from reports) from tally_groups where dim = 9) || ':' ||
		(select installs - (select count(distinct install) from reports) from tally_groups where dim = 9)")" "0:0:0"

# --- the other two spellings of a PostgreSQL database ---------------------------------------
for spec in "host=$PG_SOCK dbname=$(pg_dbname "$SERVER_STORE") user=postgres" \
	"postgres:///$(pg_dbname "$SERVER_STORE")?host=$PG_SOCK&user=postgres"; do
	# A later --database wins over start_server's.
	start_server other --rate 0 --quiet --database "$spec" || { not_ok "server starts: $spec"; continue; }
	admin '/api/v1/reports?limit=500' > /dev/null
	expect_eq "--database '${spec%%[ ?]*}...' reads the shared database" "$(json 'len(j["reports"])')" 300
	stop_server
done
URL=$B

# --- a conflict and a withdrawal across instances -------------------------------------------
URL=$B
python3 -c 'import json, sys
o = json.load(open(sys.argv[1])); o["detection"]["count"] += 1
open(sys.argv[2], "wb").write(json.dumps(o, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode())' \
	"$R/1.json" "$T_TMP/other.json"
expect_eq "other bytes under a stored id, on the other instance: 409" "$(post "$T_TMP/other.json")" 409
id7=$(sed -n 's/^7\t\([^\t]*\).*/\1/p' "$R/index.tsv")
tok7=$(cat "$R/7.token")
URL=$A
expect_eq "withdrawn on A" "$(req DELETE "/api/v1/reports/$id7" -H "X-Deletion-Token: $tok7")" 200
URL=$B
expect_eq "a late copy sent to B: 410" "$(post "$R/7.json")" 410

# --- kill -9 of an instance under load, three rounds ---------------------------------------
# Load on A and B at once; A is killed, then started again; every 201 from
# either is stored, once.
missing() {  # missing FILE: how many ids of FILE are not stored
	sql "$SERVER_STORE" "select id from reports" | sort > "$T_TMP/stored"
	sort "$1" | comm -23 - "$T_TMP/stored" | wc -l
}
for round in 1 2 3; do
	first=$((round * 300)) mid=$((round * 300 + 150)) last=$((round * 300 + 300))
	: > "$T_TMP/acked.a"; : > "$T_TMP/acked.b"
	# A is killed by the load itself right after its 20th 201, with the
	# other seven requests in flight (load.py KILL_PID@N).
	apid=$(pgrep -f -- "--port-file $T_TMP/a/port" | head -n 1)
	python3 tests/server/load.py 127.0.0.1 "$PA" "$R" "$first" "$mid" 8 "$T_TMP/acked.a" "$apid@20" \
		> "$T_TMP/load.a" 2>&1 &
	la=$!
	python3 tests/server/load.py 127.0.0.1 "$PB" "$R" "$mid" "$last" 8 "$T_TMP/acked.b" > "$T_TMP/load.b" 2>&1 &
	lb=$!
	wait "$la" "$lb"
	cat "$T_TMP/acked.a" "$T_TMP/acked.b" > "$T_TMP/acked"
	n=$(wc -l < "$T_TMP/acked")
	if [ "$n" -gt 20 ] && [ "$(missing "$T_TMP/acked")" = 0 ] && ! grep -q " 0 connection errors" "$T_TMP/load.a"; then
		ok "kill -9 of A under load, round $round: all $n reports answered 201 by A or B are stored ($(cat "$T_TMP/load.a"); $(cat "$T_TMP/load.b"))"
	else
		not_ok "kill -9 of A under load, round $round: $(missing "$T_TMP/acked") of $n answered 201 are missing ($(cat "$T_TMP/load.a"); $(cat "$T_TMP/load.b"))"
	fi
	start_server a --rate 0 --quiet || { not_ok "A starts again"; finish; exit 1; }
	PA=$PORT A=$URL
done
expect_eq "no id stored twice" "$(sql "$SERVER_STORE" "select count(*) - count(distinct id) from reports")" 0

# --- PostgreSQL restarted under load --------------------------------------------------------------
: > "$T_TMP/acked.r"
python3 - "$R" 1200 1500 "$B" "$T_TMP/acked.r" > "$T_TMP/restart.out" <<'PY' &
# Like load.py, but a 503 is retried after its Retry-After (as the client
# does) and a connection error ends nothing: the collector stays up.
import http.client, json, sys, threading, time, urllib.parse
d, first, last, url, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
u = urllib.parse.urlsplit(url)
lock = threading.Lock()
outf = open(out, "a")
counts = {"201": 0, "200": 0, "503": 0, "503_without_retry_after": 0, "other": 0}
def worker(k):
    for n in range(first + k, last, 4):
        body = open("%s/%d.json" % (d, n), "rb").read()
        for attempt in range(200):
            c = http.client.HTTPConnection(u.hostname, u.port, timeout=20)
            c.request("POST", "/api/v1/reports", body, {"Content-Type": "application/json"})
            r = c.getresponse()
            data = r.read()
            with lock:
                if r.status in (200, 201):
                    # 200: a retry of a report whose commit went through
                    # while the connection to PostgreSQL broke (its answer
                    # was a 503): stored, with its receipt.
                    outf.write(json.loads(data)["id"] + "\n"); outf.flush()
                    counts[str(r.status)] += 1
                elif r.status == 503:
                    counts["503"] += 1
                    if not r.getheader("Retry-After"):
                        counts["503_without_retry_after"] += 1
                else:
                    counts["other"] += 1
            if r.status != 503:
                break
            time.sleep(0.1)
ts = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
for t in ts: t.start()
for t in ts: t.join()
print("%(201)d %(503)d %(503_without_retry_after)d %(other)d %(200)d" % counts)
PY
lr=$!
i=0
while [ "$(wc -l < "$T_TMP/acked.r")" -lt 30 ] && [ $i -lt 2000 ]; do sleep 0.01; i=$((i + 1)); done
pg_restart immediate
check "PostgreSQL restarted (immediate: as after a crash)" [ $? = 0 ]
wait "$lr"
set -- $(cat "$T_TMP/restart.out")
echo "# restart under load: $1 created, $5 already there on a retry, $2 answered 503, $4 other"
n=$(wc -l < "$T_TMP/acked.r")
expect_eq "every report answered 201 (or 200 on a retry) across the restart is stored" "$(missing "$T_TMP/acked.r")" 0
expect_eq "...and no answer but 201, 200 and 503" "${4:-x}" 0
check "the collector answered 503 while PostgreSQL was away" [ "${2:-0}" -gt 0 ]
expect_eq "...each with Retry-After" "${3:-x}" 0
expect_eq "...and recovered by itself: all 300 reports were acknowledged in the end" "$n" 300
grep -q "database: reconnected" "$T_TMP/b/log"
check "the collector logged its reconnection" [ $? = 0 ]
expect_eq "no id stored twice" "$(sql "$SERVER_STORE" "select count(*) - count(distinct id) from reports")" 0

# --- a table locked by someone else (issue 30) ----------------------------------------------------
# psql holds reports in ACCESS EXCLUSIVE mode: writes waited 27 s holding
# their connections. With --db-lock-timeout 1 each is answered 503 with
# Retry-After within seconds, and the public summary (from memory) is
# still served.
start_server l --rate 0 --quiet --db-lock-timeout 1 || { not_ok "server starts"; finish; exit 1; }
expect_eq "the public summary is computed" "$(fresh_summary)" 200
pg_sql "$(pg_dbname "$SERVER_STORE")" "BEGIN; LOCK TABLE reports IN ACCESS EXCLUSIVE MODE;
	SELECT pg_sleep(30); COMMIT" > /dev/null 2>&1 &
locker=$!
locked() {
	[ "$(pg_sql "$(pg_dbname "$SERVER_STORE")" "select count(*) from pg_locks where granted
		and mode = 'AccessExclusiveLock' and relation = 'reports'::regclass")" = 1 ]
}
check "psql holds the reports table" wait_for 100 locked
python3 - "$R" 1400 "$PORT" > "$T_TMP/locked.out" <<'PY'
import http.client, sys, threading, time
d, first, port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
got = {}
def post(n):
    t0 = time.monotonic()
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    c.request("POST", "/api/v1/reports", open("%s/%d.json" % (d, n), "rb").read(),
              {"Content-Type": "application/json"})
    r = c.getresponse()
    r.read()
    got[n] = (r.status, r.getheader("Retry-After"), time.monotonic() - t0)
ts = [threading.Thread(target=post, args=(first + i,)) for i in range(5)]
for t in ts: t.start()
summary = 0
for _ in range(5):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        c.request("GET", "/api/v1/summary")
        r = c.getresponse()
        r.read()
        summary += r.status == 200
    except OSError:
        pass
    time.sleep(0.1)
for t in ts: t.join()
v = list(got.values())
print(sum(1 for s, ra, _ in v if s == 503 and ra), max(t for _, _, t in v) if v else 99, summary)
PY
read -r n503 slowest summary < "$T_TMP/locked.out"
echo "# 5 writes under the lock: $n503 answered 503 with Retry-After, the slowest in $slowest s"
expect_eq "5 writes under a table lock: each 503 with Retry-After" "$n503" 5
# (A write waits 1 s for its own batch, and 1 s for each batch before it:
# the five make one or two.)
check "...within 6 s ($slowest s), not when the lock goes (30 s)" \
	python3 -c "import sys; sys.exit(not $slowest < 6)"
check "...and a normal client gets $summary of 5 public summaries meanwhile" [ "$summary" -ge 4 ]
stop_server
expect_eq "...and the server stops cleanly" "$?" 0
pg_sql postgres "select pg_terminate_backend(pid) from pg_stat_activity where query like '%pg_sleep(30)%' and pid <> pg_backend_pid()" > /dev/null
wait "$locker" 2>/dev/null

# --- SIGTERM while a read and a write wait in PostgreSQL ----------------------------------------
# A lock held from psql makes the admin list wait (up to its 15 s statement
# timeout); SIGTERM cancels it at once, as SQLite's readers stop at their
# progress handler: the collector is gone in seconds, the read answered 503.
# A write waiting for the lock (here for up to 60 s) is cancelled once the
# shutdown grace is over (1 s here, 10 s by default): it took 23 s.
start_server t --rate 0 --quiet --db-lock-timeout 60 --db-statement-timeout 60 \
	--shutdown-grace 1 || { not_ok "server starts"; finish; exit 1; }
pg_sql "$(pg_dbname "$SERVER_STORE")" "BEGIN; LOCK TABLE reports IN ACCESS EXCLUSIVE MODE;
	SELECT pg_sleep(60); COMMIT" > /dev/null 2>&1 &
locker=$!
locked() {
	[ "$(pg_sql "$(pg_dbname "$SERVER_STORE")" "select count(*) from pg_locks where granted
		and mode = 'AccessExclusiveLock' and relation = 'reports'::regclass")" = 1 ]
}
check "psql holds the reports table" wait_for 100 locked
admin '/api/v1/reports?limit=1' > "$T_TMP/blocked.status" &
reader=$!
curl -sS -o /dev/null -w '%{http_code}' --max-time 30 -H "Content-Type: application/json" \
	--data-binary "@$R/1410.json" "$URL/api/v1/reports" > "$T_TMP/blocked-post.status" &
writer=$!
sleep 1
check "the admin list waits for the lock" kill -0 "$reader"
check "the write waits for the lock" kill -0 "$writer"
start=$(date +%s)
stop_server
st=$?
took=$(($(date +%s) - start))
wait "$reader"
wait "$writer"
check "SIGTERM with a read and a write waiting in PostgreSQL: gone in $took s (at most 4)" \
	[ "$took" -le 4 ]
expect_eq "...a clean exit" "$st" 0
expect_eq "...the read answered 503" "$(cat "$T_TMP/blocked.status")" 503
expect_eq "...the write answered 503" "$(cat "$T_TMP/blocked-post.status")" 503
pg_sql postgres "select pg_terminate_backend(pid) from pg_stat_activity where query like '%pg_sleep(60)%' and pid <> pg_backend_pid()" > /dev/null
wait "$locker" 2>/dev/null


# --- a frozen PostgreSQL (issue 41) -----------------------------------------------------------
# Every process of the cluster SIGSTOPped under load: the kernel still
# accepts and acknowledges, the server answers nothing and enforces none
# of its timeouts. Every POST waited without an answer and SIGTERM took
# 35 s. With --db-statement-timeout 0.5 --db-deadline 0.5 each POST is
# answered within 0.5 + 2 x 0.5 = 1.5 s (the call in progress, then its
# own batch's reconnection: docs/API.md), 503 with Retry-After. A second
# collector's SIGTERM, with the default deadlines and a write waiting on
# the frozen server, ends within its grace (1 s here) and a wait's slice
# (0.1 s). After SIGCONT the first recovers by itself and every report it
# acknowledged is stored.
gen "$T_TMP/fz" 120 41 40
start_server fy --rate 0 --quiet --shutdown-grace 1 || { not_ok "server starts"; finish; exit 1; }
FY=$SPID FYURL=$URL
start_server fz --rate 0 --quiet --db-statement-timeout 0.5 --db-deadline 0.5 ||
	{ not_ok "server starts"; finish; exit 1; }
: > "$T_TMP/acked.fz"
python3 - "$T_TMP/fz" 119 "$PORT" "$T_TMP/acked.fz" "$T_TMP/answers.fz" "$T_TMP/fz.stop" <<'PY' &
# Each answer as "status seconds retry-after" in ANSWERS; a 503 is retried
# until acknowledged; a report every 20 ms per thread, until STOP exists.
import http.client, json, os, sys, threading, time
d, count, port, acked, answers, stop = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
lock = threading.Lock()
ackf, ansf = open(acked, "a"), open(answers, "a")
def worker(k):
    for n in range(k, count, 4):
        body = open("%s/%d.json" % (d, n), "rb").read()
        for _ in range(300):
            t0 = time.monotonic()
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            c.request("POST", "/api/v1/reports", body, {"Content-Type": "application/json"})
            r = c.getresponse()
            data = r.read()
            with lock:
                if r.status in (200, 201):
                    ackf.write(json.loads(data)["id"] + "\n"); ackf.flush()
                ansf.write("%d %.3f %s\n" % (r.status, time.monotonic() - t0,
                                             r.getheader("Retry-After") or "-"))
                ansf.flush()
            if r.status != 503:
                break
            time.sleep(0.1)
        if os.path.exists(stop):
            return
        time.sleep(0.02)
ts = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
for t in ts: t.start()
for t in ts: t.join()
PY
lf=$!
check "10 reports acknowledged before the freeze" \
	wait_for 100 sh -c '[ "$(wc -l < "$1")" -ge 10 ]' _ "$T_TMP/acked.fz"
pg_freeze
curl -sS -o /dev/null -w '%{http_code}' --max-time 30 -H "Content-Type: application/json" \
	--data-binary "@$T_TMP/fz/39.json" "$FYURL/api/v1/reports" > "$T_TMP/fy.status" &
fyc=$!
# The first 503 comes a second or so after the freeze: by then the write
# sent to the other collector waits in its writer (for up to 15 s).
n503() { grep -c '^503 ' "$T_TMP/answers.fz"; }
check "PostgreSQL frozen: POSTs answered 503" \
	wait_for 50 sh -c '[ "$(grep -c "^503 " "$1")" -ge 1 ]' _ "$T_TMP/answers.fz"
SPID=$FY
start=$(date +%s%N)
stop_server
st=$?
took=$((($(date +%s%N) - start) / 1000000))
wait "$fyc"
check "...several" wait_for 50 sh -c '[ "$(grep -c "^503 " "$1")" -ge 4 ]' _ "$T_TMP/answers.fz"
n=$(wc -l < "$T_TMP/acked.fz")
pg_thaw
check "after SIGCONT the collector recovered by itself: reports acknowledged again" \
	wait_for 50 sh -c '[ "$(wc -l < "$1")" -ge "$2" ]' _ "$T_TMP/acked.fz" $((n + 8))
touch "$T_TMP/fz.stop"
wait "$lf"
check "SIGTERM with a write waiting on the frozen PostgreSQL: gone in $took ms (grace 1 s + 0.1 s; 2.5 s allowed)" \
	[ "$took" -le 2500 ]
expect_eq "...a clean exit" "$st" 0
expect_eq "...the write answered 503" "$(cat "$T_TMP/fy.status")" 503
slowest=$(sort -k2 -n "$T_TMP/answers.fz" | tail -n 1 | cut -d' ' -f2)
echo "# frozen under load: $(n503) answers 503, the slowest answer in $slowest s"
check "every POST answered within 1.5 s ($slowest s; 2.5 allowed), the frozen server's 503s too" \
	python3 -c "import sys; sys.exit(not ${slowest:-99} <= 2.5)"
expect_eq "...each 503 with Retry-After" "$(grep '^503 ' "$T_TMP/answers.fz" | grep -c ' -$')" 0
expect_eq "every acknowledged report ($(wc -l < "$T_TMP/acked.fz")) is stored" "$(missing "$T_TMP/acked.fz")" 0
grep -q "no answer within" "$T_TMP/fz/log"
check "...the collector logged the deadline" [ $? = 0 ]
grep -q "database: reconnected" "$T_TMP/fz/log"
check "...and its reconnection" [ $? = 0 ]

finish
