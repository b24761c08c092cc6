#!/bin/sh
# Load test of the collector: wrk posts distinct valid reports at 64
# connections; reported are the reports accepted per second with durable
# commits, p50/p99 latency, and the ratio to the same server's ceiling with
# storage bypassed (CGFB_SERVER_BENCH_NO_STORE, validation still on). Then
# the database must hold exactly as many rows as the server answered 201.
# Target on a 2-core machine: >= 5000 reports/s with p99 < 50 ms.
# Then the same load on PostgreSQL 15 (a server started here, as the tests
# do: tests/server/pg.sh) through one collector, and split between two
# collectors sharing the database (issue 17; target >= 3000 reports/s with
# p99 < 100 ms, two instances faster than one); a table side by side.
# Each run also gives the CPU time spent per report (issue 43): the
# collectors' (user + system, from /proc/PID/stat), PostgreSQL's (every
# process of the cluster started here) and wrk's (its rusage), read just
# before and just after the load, and the share of the machine's CPUs that
# other work took meanwhile (from /proc/stat), to tell a shared machine's
# run from a quiet one.
set -eu
BUILD=${BUILD:-build}
SERVER=${SERVER:-$PWD/$BUILD/cgroup-feedback-server}
CONNS=${CONNS:-64}
SECS=${SECS:-10}
THREADS=${THREADS:-2}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/cgfb-bench-server.XXXXXX")
PID="" PIDS=""
T_TMP=$DIR
scaled() { echo "$1"; }
. tests/server/pg.sh
TCK=$(getconf CLK_TCK)
trap 'for p in $PID $PIDS; do kill -9 "$p" 2>/dev/null || true; done; pg_stop; rm -rf "$DIR"' EXIT

command -v wrk >/dev/null || { echo "bench/server.sh: wrk is missing (make deps)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/server.sh: /usr/bin/time is missing (make deps)" >&2; exit 2; }
[ -x "$SERVER" ] || { echo "bench/server.sh: build $SERVER first" >&2; exit 2; }

# 64 different valid reports as templates, checked with python3-jsonschema.
python3 - "$DIR/templates.txt" <<'PY'
import json, os, random, sys
sys.path.insert(0, os.path.join(os.getcwd(), "tests", "server"))
import genreport
import jsonschema
schema = jsonschema.Draft202012Validator(json.load(open("docs/report.schema.json")))
rng = random.Random(7)
with open(sys.argv[1], "w") as f:
    for n in range(64):
        rep, _ = genreport.report(n, rng, 20)
        schema.validate(rep)
        rep["report_id"] = "@@ID@@"
        f.write(genreport.canonical(rep).decode() + "\n")
PY

# probe PORT SECONDS OUT: GET /api/v1/summary every 50 ms from another
# loopback address (its own rate-limit key) for SECONDS; OUT gets the
# latencies in ms, one per line.
probe() {
	python3 - "$@" <<'PY'
import socket, sys, time
port, secs, out = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
lat = []
end = time.monotonic() + secs
while time.monotonic() < end:
    t0 = time.monotonic()
    s = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=("127.0.0.2", 0))
    s.sendall(b"GET /api/v1/summary HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    if data.startswith(b"HTTP/1.1 200"):
        lat.append((time.monotonic() - t0) * 1e3)
    time.sleep(0.05)
open(out, "w").write("".join("%.3f\n" % x for x in lat))
PY
}

# proc_ticks PID...: the CPU time the processes have used so far, user +
# system of all their threads, in clock ticks (proc(5): fields 14 and 15
# of /proc/PID/stat; the command name, field 2, may hold spaces and
# parentheses, so the fields are counted after its last ")").
proc_ticks() {
	for _p; do cat "/proc/$_p/stat"; done | awk '{ sub(/^.*\) /, ""); t += $12 + $13 } END { print t + 0 }'
}

# pg_ticks: the CPU time of the PostgreSQL cluster started here, in clock
# ticks: the postmaster's own, that of its children still running (every
# server process is one: backends, WAL writer, checkpointer, autovacuum)
# and that of its children that exited and were reaped (its cutime and
# cstime, fields 16 and 17), so a backend that ends during the load is
# still counted. A child reaped between the reads of its line and the
# postmaster's is counted twice (or not at all): none ends during a run
# but autovacuum's workers, a few ticks at most.
pg_ticks() {
	[ -n "$PG_ROOT" ] || { echo 0; return 0; }
	_pm=$(head -n 1 "$PG_ROOT/data/postmaster.pid")
	cat /proc/[0-9]*/stat 2>/dev/null | awk -v pm="$_pm" '{
		pid = $1; sub(/^.*\) /, "")
		if (pid == pm) t += $12 + $13 + $14 + $15
		else if ($2 == pm) t += $12 + $13
	} END { print t + 0 }'
}

# machine_ticks: the machine's busy time (user, nice, system, irq and
# softirq of /proc/stat's "cpu" line: proc(5)) and its uptime, both in
# clock ticks; with the CPUs' number, what the rest of the machine took
# while a run was measured.
machine_ticks() {
	echo "$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat)" \
		"$(awk -v hz="$TCK" '{ printf "%d", $1 * hz }' /proc/uptime)"
}

# cpu_mark FILE PID...: the CPU ticks so far of the collectors PID..., of
# the PostgreSQL cluster (0 without one) and of the machine, and the
# uptime, into FILE.
cpu_mark() {
	_f=$1; shift
	echo "$(proc_ticks "$@") $(pg_ticks) $(machine_ticks)" > "$_f"
}

# cpu_line LABEL MARK N WRKCPU...: the CPU per report of N between the
# marks MARK.0 and MARK.1: the collectors', PostgreSQL's (when it ran)
# and wrk's, and the share of the machine's CPUs the rest took meanwhile
# (other work on a shared machine; the probe and this script count there
# too, a few %; the process times and /proc/stat are counted apart, so a
# quiet machine reads 0-3 %, never below 0). Sets cpu_c and cpu_p to the first two (in µs), cpu_o to
# the last (in %).
cpu_line() {
	_l=$1 _m=$2 _n=$3; shift 3
	read -r _c0 _p0 _b0 _u0 < "$_m.0"
	read -r _c1 _p1 _b1 _u1 < "$_m.1"
	cpu_c=$(us_per $((_c1 - _c0)) "$_n") cpu_p=$(us_per $((_p1 - _p0)) "$_n")
	_w=$(cat "$@" | awk -v hz="$TCK" '{ t += $1 + $2 } END { printf "%d", t * hz }')
	cpu_o=$(awk -v o=$((_b1 - _b0 - (_c1 - _c0) - (_p1 - _p0) - _w)) -v u=$((_u1 - _u0)) \
		-v n="$(grep -c '^cpu[0-9]' /proc/stat)" 'BEGIN { o = (u > 0 ? 100 * o / u / n : 0); printf "%.0f", (o > 0 ? o : 0) }')
	if [ "$_p1" = 0 ]; then _pg=""; else _pg=" PostgreSQL $cpu_p µs,"; fi
	echo "CPU per report, $_l: collector $cpu_c µs,$_pg wrk $(wrk_us "$_n" "$@") µs;" \
		"the machine's other work meanwhile $cpu_o % of its CPUs"
}

# us_per TICKS N: TICKS clock ticks per report of N, in microseconds.
us_per() { awk -v t="$1" -v hz="$TCK" -v n="$2" 'BEGIN { printf "%.1f", (n > 0 ? t * 1e6 / hz / n : 0) }'; }

# wrk_us N FILE...: the CPU time of the wrk runs whose "user system"
# seconds (/usr/bin/time -f '%U %S') are in FILE..., per report of N, in
# microseconds.
wrk_us() {
	_n=$1; shift
	cat "$@" | awk -v n="$_n" '{ t += $1 + $2 } END { printf "%.1f", (n > 0 ? t * 1e6 / n : 0) }'
}

# pct FILE P: the P-th percentile of the numbers in FILE.
pct() {
	sort -n "$1" | awk -v p="$2" '{ v[NR] = $1 } END { i = int(NR * p / 100 + 0.999); if (i < 1) i = 1; print v[i] }'
}

# run NAME [ENV...]: one wrk run against a fresh server; prints the RESULT line.
run() {
	name=$1; shift
	rm -f "$DIR/port"
	env "$@" "$SERVER" --listen 127.0.0.1:0 --database "$DIR/$name.sqlite" --port-file "$DIR/port" \
		--rate 0 --max-connections 512 2>"$DIR/$name.log" &
	PID=$!
	i=0
	while [ ! -s "$DIR/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	# The public summary's latency, idle for 3 s and then beside the writes.
	probe "$(cat "$DIR/port")" 3 "$DIR/$name.idle"
	probe "$(cat "$DIR/port")" "$SECS" "$DIR/$name.busy" &
	PROBE=$!
	cpu_mark "$DIR/$name.cpu.0" "$PID"
	BENCH_TEMPLATES=$DIR/templates.txt timeout $((SECS + 60)) /usr/bin/time -f '%U %S' \
		-o "$DIR/$name.wrkcpu" wrk -t"$THREADS" -c"$CONNS" -d"${SECS}s" --timeout 10s \
		-s bench/server.lua "http://127.0.0.1:$(cat "$DIR/port")/" > "$DIR/$name.wrk"
	# The probe ends with the load; by then the last batch is committed.
	wait "$PROBE" || true
	cpu_mark "$DIR/$name.cpu.1" "$PID"
	kill -TERM "$PID"
	wait "$PID" || true
	PID=""
	grep '^RESULT' "$DIR/$name.wrk" | sed "s/^RESULT/$name/"
}

echo "machine: $(nproc) CPUs; $CONNS connections, $THREADS wrk threads, ${SECS}s per run"
durable=$(run durable X=1)
ceiling=$(run ceiling CGFB_SERVER_BENCH_NO_STORE=1)
echo "$durable"
echo "$ceiling"
# The server logs one line per request: every 201 it sent. wrk counts only
# the answers it read before it stopped, so its count may be lower by the
# requests in flight at the end (a request whose connection wrk closed while
# it waited for its commit is stored, and logged as the 201 it would have
# had: "client left before its answer").
sent=$(grep -c 'POST /api/v1/reports 201 ' "$DIR/durable.log" || true)
unanswered=$(grep -c 'POST /api/v1/reports 201 .*client left before its answer' "$DIR/durable.log" || true)
rows=$(python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("select count(*) from reports").fetchone()[0])' "$DIR/durable.sqlite")
val() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
rate=$(val "$durable" rate) p99=$(val "$durable" p99_ms) crate=$(val "$ceiling" rate)
echo "rows in the database: $rows; 201s by the server: $sent (of them $unanswered to a client that had left); 201s read by wrk: $(val "$durable" created)"
awk -v r="$rate" -v p="$p99" -v c="$crate" -v rows="$rows" -v sent="$sent" 'BEGIN {
	printf "server: %.0f durable reports/s, p99 %.1f ms; ceiling without storage %.0f/s; ratio %.2f\n",
	       r, p, c, (c > 0 ? r / c : 0)
	if (rows != sent) { print "FAIL: rows != 201s"; exit 1 }
	if (r < 5000 || p >= 50) print "NOTE: below the target (5000 reports/s, p99 < 50 ms)"
}'
# CPU per report: per durable report (the server's 201s) with SQLite; per
# report answered 201 without storage for the ceiling.
cpu_line "SQLite, one instance" "$DIR/durable.cpu" "$sent" "$DIR/durable.wrkcpu"
cpu_sq=$cpu_c cpu_osq=$cpu_o
cpu_line "without storage (ceiling)" "$DIR/ceiling.cpu" "$(val "$ceiling" created)" "$DIR/ceiling.wrkcpu"
# The summary is served from memory: a write load should not slow it much.
idle99=$(pct "$DIR/durable.idle" 99) busy50=$(pct "$DIR/durable.busy" 50) busy99=$(pct "$DIR/durable.busy" 99)
awk -v i="$idle99" -v b50="$busy50" -v b99="$busy99" -v n="$(wc -l < "$DIR/durable.busy")" 'BEGIN {
	printf "summary beside the durable writes: p50 %.1f ms, p99 %.1f ms (%d requests); idle p99 %.1f ms; ratio p99 busy/idle %.1f\n",
	       b50, b99, n, i, (i > 0 ? b99 / i : 0)
}'

# --- PostgreSQL: one collector, then two on the same database ---------------------
# start_pg NAME DB: a collector on PostgreSQL database DB; its port in
# $DIR/NAME.port.
start_pg() {
	"$SERVER" --listen 127.0.0.1:0 --database "$(pg_uri "$2")" --port-file "$DIR/$1.port" \
		--rate 0 --max-connections 512 2>"$DIR/$1.log" &
	PIDS="$PIDS $!"
	i=0
	while [ ! -s "$DIR/$1.port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$DIR/$1.port" ]
}
# wrk_at NAME PORT CONNS THREADS TID_BASE: one wrk run; its RESULT line;
# its CPU seconds in $DIR/NAME.wrkcpu.
wrk_at() {
	BENCH_TEMPLATES=$DIR/templates.txt BENCH_TID_BASE=$5 timeout $((SECS + 60)) \
		/usr/bin/time -f '%U %S' -o "$DIR/$1.wrkcpu" wrk -t"$4" -c"$3" -d"${SECS}s" \
		--timeout 10s -s bench/server.lua "http://127.0.0.1:$2/" > "$DIR/$1.wrk"
	grep '^RESULT' "$DIR/$1.wrk"
}
# pg_mark FILE: cpu_mark of the collectors running ($PIDS).
pg_mark() {
	# shellcheck disable=SC2086 # the list of pids, split on purpose
	cpu_mark "$1" $PIDS
}
stop_all() {
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null || true; done
	PIDS=""
}
pg1="" pg2a="" pg2b=""
if ! pg_available || ! pg_start > "$DIR/pg.start" 2>&1; then
	echo "NOTE: no PostgreSQL for the benchmark: $(cat "$DIR/pg.start" 2>/dev/null)"
else
	pg_createdb bench1 && pg_createdb bench2
	start_pg one bench1
	pg_mark "$DIR/one.0"
	pg1=$(wrk_at one "$(cat "$DIR/one.port")" "$CONNS" "$THREADS" 0)
	# The commits of the requests still in flight when wrk stopped.
	sleep 0.2
	pg_mark "$DIR/one.1"
	stop_all
	rows1=$(pg_sql bench1 "select count(*) from reports")
	# Two collectors, half the connections each, one wrk thread each.
	start_pg two_a bench2 && start_pg two_b bench2
	pg_mark "$DIR/two.0"
	wrk_at two_a "$(cat "$DIR/two_a.port")" $((CONNS / 2)) 1 0 > "$DIR/two_a.res" &
	wa=$!
	wrk_at two_b "$(cat "$DIR/two_b.port")" $((CONNS / 2)) 1 1000 > "$DIR/two_b.res"
	wait "$wa" || true
	pg2a=$(cat "$DIR/two_a.res") pg2b=$(cat "$DIR/two_b.res")
	sleep 0.2
	pg_mark "$DIR/two.1"
	stop_all
	rows2=$(pg_sql bench2 "select count(*) from reports")
	sent1=$(grep -c 'POST /api/v1/reports 201 ' "$DIR/one.log" || true)
	sent2=$(cat "$DIR/two_a.log" "$DIR/two_b.log" | grep -c 'POST /api/v1/reports 201 ' || true)
	echo "$pg1" | sed 's/^RESULT/postgresql-1/'
	echo "$pg2a" | sed 's/^RESULT/postgresql-2a/'
	echo "$pg2b" | sed 's/^RESULT/postgresql-2b/'
	echo "PostgreSQL rows: one instance $rows1 (201s by the server: $sent1); two instances $rows2 (201s: $sent2)"
	[ "$rows1" = "$sent1" ] && [ "$rows2" = "$sent2" ] || { echo "FAIL: PostgreSQL rows != 201s"; exit 1; }
	cpu_line "PostgreSQL, one instance" "$DIR/one" "$sent1" "$DIR/one.wrkcpu"
	cpu_c1=$cpu_c cpu_p1=$cpu_p cpu_o1=$cpu_o
	cpu_line "PostgreSQL, two instances" "$DIR/two" "$sent2" "$DIR/two_a.wrkcpu" "$DIR/two_b.wrkcpu"
	cpu_c2=$cpu_c cpu_p2=$cpu_p cpu_o2=$cpu_o
fi
echo
echo "machine: $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "CPU per durable report in µs (user + system), the collectors' and PostgreSQL's;" \
	"others: the machine's CPUs that other work took meanwhile"
printf '%-28s %14s %10s %14s %14s %8s\n' "store" "durable rep/s" "p99 ms" "collector µs" "PostgreSQL µs" \
	"others"
printf '%-28s %14.0f %10.1f %14.1f %14s %7d%%\n' "SQLite, one instance" "$rate" "$p99" "$cpu_sq" "-" "$cpu_osq"
if [ -n "$pg1" ]; then
	printf '%-28s %14.0f %10.1f %14.1f %14.1f %7d%%\n' "PostgreSQL, one instance" "$(val "$pg1" rate)" \
		"$(val "$pg1" p99_ms)" "$cpu_c1" "$cpu_p1" "$cpu_o1"
	r2=$(awk -v a="$(val "$pg2a" rate)" -v b="$(val "$pg2b" rate)" 'BEGIN { print a + b }')
	p2=$(awk -v a="$(val "$pg2a" p99_ms)" -v b="$(val "$pg2b" p99_ms)" 'BEGIN { print (a > b ? a : b) }')
	printf '%-28s %14.0f %10.1f %14.1f %14.1f %7d%%\n' "PostgreSQL, two instances" "$r2" "$p2" \
		"$cpu_c2" "$cpu_p2" "$cpu_o2"
	awk -v r1="$(val "$pg1" rate)" -v p1="$(val "$pg1" p99_ms)" -v r2="$r2" -v p2="$p2" 'BEGIN {
		if (r1 < 3000 || p1 >= 100) print "NOTE: PostgreSQL, one instance: below the target (3000 reports/s, p99 < 100 ms)"
		if (r2 <= r1) print "NOTE: two instances are not faster than one"
	}'
fi
