#!/bin/sh
# The collector's hard edges: HTTPS with certificates made now, slow clients,
# the connection limit, SIGTERM with a request in flight, and kill -9 under
# load: every report that got a 201 must be in the database after a restart.
# On either store (CGFB_TEST_STORE=pg: tests/server/lib.sh); where the store
# itself is looked at (a clean close, durability, integrity) each has its own
# check.
. tests/lib.sh
. tests/server/lib.sh

R=$T_TMP/reports
gen "$R" 1600 3 20

# --- HTTPS, with a CA and a server certificate made with the openssl CLI -----------
C=$T_TMP/pki
make_pki "$C"
check "test PKI made" openssl verify -CAfile "$C/ca.pem" "$C/server.pem"

SCHEME=https start_server tls --rate 0 --tls-cert "$C/server.pem" --tls-key "$C/server.key"
expect_eq "HTTPS POST with the test CA: 201" "$(post "$R/0.json" --cacert "$C/ca.pem")" 201
curl -sS -o /dev/null --max-time 10 "$URL/api/v1/summary" 2>/dev/null
expect_eq "HTTPS without trusting the CA: refused by the client (curl 60)" "$?" 60
check "python http.client over TLS reads the summary" python3 -c 'import http.client, json, ssl, sys
ctx = ssl.create_default_context(cafile=sys.argv[1])
c = http.client.HTTPSConnection("127.0.0.1", int(sys.argv[2]), context=ctx, timeout=10)
c.request("GET", "/api/v1/summary")
r = c.getresponse()
sys.exit(r.status != 200 or "dimensions" not in json.loads(r.read()))' "$C/ca.pem" "$PORT"
# Over TLS the session cookie is __Host-cgfb_session: Secure, Path=/, no
# Domain, which a plain-HTTP page of another port can neither set nor
# shadow (issue 41); the plain name is not read.
expect_eq "HTTPS login: 200" "$(req POST /api/v1/session --cacert "$C/ca.pem" \
	-H "Authorization: Bearer $ADMIN")" 200
check "...the cookie is __Host-cgfb_session; Path=/; HttpOnly; SameSite=Strict; Secure" grep -q \
	'^Set-Cookie: __Host-cgfb_session=[0-9a-f]\{64\}; Path=/; Max-Age=3600; HttpOnly; SameSite=Strict; Secure' \
	"$T_TMP/headers"
v=$(sed -n 's/^Set-Cookie: __Host-cgfb_session=\([0-9a-f]*\);.*/\1/p' "$T_TMP/headers")
expect_eq "...read under that name from the page: 200" "$(req GET /api/v1/digest --cacert "$C/ca.pem" \
	-H "Cookie: __Host-cgfb_session=$v" -H "Sec-Fetch-Site: same-origin")" 200
expect_eq "...not under the plain name: 401" "$(req GET /api/v1/digest --cacert "$C/ca.pem" \
	-H "Cookie: cgfb_session=$v" -H "Sec-Fetch-Site: same-origin")" 401
expect_eq "plain HTTP to the HTTPS port gets no answer" \
	"$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$PORT/api/v1/summary")" 000
# What TLS offers (--tls-priorities' default): 1.2 and 1.3, forward secrecy,
# AEAD only. The client is told to offer the old suites (SECLEVEL=0), so a
# refusal is the server's.
# tls_with ARGS...: the cipher openssl s_client agreed on, or "refused".
tls_with() {
	timeout 10 openssl s_client -connect "127.0.0.1:$PORT" -CAfile "$C/ca.pem" "$@" \
		< /dev/null 2>/dev/null | sed -n 's/^New, .*Cipher is \(.*\)$/\1/p' | grep -v NONE ||
		echo refused
}
check "TLS 1.3: accepted ($(tls_with -tls1_3))" sh -c 'case $1 in TLS_*) ;; *) false ;; esac' _ \
	"$(tls_with -tls1_3)"
expect_eq "TLS 1.2 with ECDHE and AES-GCM: accepted" \
	"$(tls_with -tls1_2 -cipher ECDHE-RSA-AES128-GCM-SHA256)" ECDHE-RSA-AES128-GCM-SHA256
for c in AES128-SHA AES256-GCM-SHA384 ECDHE-RSA-AES128-SHA ECDHE-RSA-AES256-SHA384; do
	expect_eq "TLS 1.2 with $c (static RSA or CBC): refused" \
		"$(tls_with -tls1_2 -cipher "$c:@SECLEVEL=0")" refused
done
expect_eq "TLS 1.1: refused" "$(tls_with -tls1_1 -cipher 'DEFAULT:@SECLEVEL=0')" refused
stop_server
SCHEME=

# --- where it listens: [::] is both families, [::1] is IPv6 only ------------------
summary_via() { curl -gsS -o /dev/null -w '%{http_code}' --max-time 5 "http://$1:$PORT/api/v1/summary"; }
if [ -n "$(ip -6 addr show dev lo 2>/dev/null)" ]; then
	start_server dual --listen '[::]:0'
	expect_eq "--listen [::]:0 answers on IPv6 ([::1])" "$(summary_via '[::1]')" 200
	expect_eq "...and on IPv4 (127.0.0.1)" "$(summary_via 127.0.0.1)" 200
	stop_server
	start_server v6only --listen '[::1]:0'
	expect_eq "--listen [::1]:0 answers on IPv6" "$(summary_via '[::1]')" 200
	expect_eq "...and not on IPv4" "$(summary_via 127.0.0.1 2>/dev/null)" 000
	stop_server
else
	skip "listening on [::]" "no IPv6 on the loopback"
fi
"$SERVER" --listen 127.0.0.1:0 --database "$(store_db "$T_TMP/x.sqlite")" --tls-cert "$C/server.pem" \
	--tls-key "$C/other.key" 2>"$T_TMP/mismatch.log" &
p=$!
wait_for 100 sh -c '! kill -0 "$1"' _ "$p"
wait "$p"
expect_eq "a key that does not belong to the certificate: refuses to start (exit 2)" "$?" 2
check "...and says so" grep -q "does not belong to" "$T_TMP/mismatch.log"

# --- slow clients ------------------------------------------------------------------
start_server slow --rate 0 --idle-timeout 2 --request-timeout 3
DB=$DIR/db.sqlite
# A second collector on a port that is taken: with SO_REUSEPORT it shared
# the port and took half of the reports into its own database (issue 41).
expect_eq "a second collector on the port the first listens on: refuses to start (exit 2)" \
	"$(start_status "$T_TMP/taken.log" --listen "127.0.0.1:$PORT" \
		--database "$(store_db "$T_TMP/taken.sqlite")")" 2
check "...and says the port is taken" grep -q "cannot listen on 127.0.0.1:$PORT: Address already in use" \
	"$T_TMP/taken.log"
check "a silent connection is closed after the idle timeout" python3 -c 'import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
t = time.time()
data = s.recv(100)
sys.exit(not (data == b"" and 1.5 < time.time() - t < 8))' "$PORT"
check "a body trickling in is cut off after the request timeout, not stored" python3 -c 'import socket, sys, time
body = open(sys.argv[2], "rb").read()
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
s.sendall(b"POST /api/v1/reports HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
          b"Content-Length: %d\r\n\r\n" % len(body))
t = time.time()
try:
    for i in range(len(body)):
        s.sendall(body[i:i + 1])
        time.sleep(0.5)
        if time.time() - t > 12:
            sys.exit(1)
except OSError:
    pass
sys.exit(not (2.5 < time.time() - t < 10))' "$PORT" "$R/1.json"
expect_eq "nothing stored from the slow clients" "$(rows "$DB")" 0
expect_eq "the server still answers" "$(post "$R/2.json")" 201
stop_server

# --- the connection limit ----------------------------------------------------------
start_server limit --rate 0 --max-connections 4 --idle-timeout 5
python3 -c 'import socket, sys, time
held = []
for i in range(4):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
    s.sendall(b"GET /api/v1/summary HTTP/1.1\r\nHost: x\r\n")   # headers never finish
    held.append(s)
open(sys.argv[2], "w").write("held\n")
time.sleep(2.5)' "$PORT" "$T_TMP/held" &
holder=$!
wait_for 50 test -s "$T_TMP/held"
sleep 0.3
st=$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 "$URL/api/v1/summary")
expect_eq "a fifth connection is refused while four are held" "$st" 000
wait "$holder"
wait_for 50 sh -c '[ "$(curl -s -o /dev/null -w "%{http_code}" --max-time 3 "$1/api/v1/summary")" = 200 ]' _ "$URL"
expect_eq "served again once they are gone" "$?" 0
stop_server

# --- SIGTERM finishes the request in flight and closes the database cleanly --------
# On PostgreSQL a clean close is the protocol's Terminate before the socket
# closes: without it the server logs "unexpected EOF on client connection"
# (at DEBUG1, asked for this database only).
if [ "$STORE" = pg ]; then
	store_db "$T_TMP/term/db.sqlite" >/dev/null
	pg_sql postgres "ALTER DATABASE \"$(pg_dbname "$T_TMP/term/db.sqlite")\" SET log_min_messages = debug1"
	pg_sql postgres "ALTER SYSTEM SET log_disconnections = on" &&
		pg_sql postgres "SELECT pg_reload_conf()" >/dev/null
fi
start_server term --rate 0
DB=$DIR/db.sqlite
python3 -c 'import json, os, signal, socket, sys, time
body = open(sys.argv[2], "rb").read()
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
s.sendall(b"POST /api/v1/reports HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
          b"Content-Length: %d\r\n\r\n" % len(body) + body[:100])
time.sleep(0.3)
os.kill(int(sys.argv[3]), signal.SIGTERM)
time.sleep(0.5)
s.sendall(body[100:])
resp = b""
while True:
    d = s.recv(4096)
    if not d:
        break
    resp += d
open(sys.argv[4], "wb").write(resp)' "$PORT" "$R/3.json" "$SPID" "$T_TMP/inflight"
check "the request in flight at SIGTERM got its 201" grep -q "^HTTP/1.1 201" "$T_TMP/inflight"
check "...with Connection: close" grep -qi "^Connection: close" "$T_TMP/inflight"
stop_server
expect_eq "exit status 0 after SIGTERM" "$?" 0
expect_eq "the report is stored" "$(rows "$DB")" 1
if [ "$STORE" = pg ]; then
	wait_for 50 grep -q "disconnection: .*database=$(pg_dbname "$DB")" "$PG_ROOT/log"
	expect_eq "PostgreSQL logged the collector's sessions ending" "$?" 0
	check "...each with a Terminate: no 'unexpected EOF on client connection'" \
		sh -c '! grep -q "unexpected EOF on client connection" "$1"' _ "$PG_ROOT/log"
else
	check "the WAL was checkpointed and removed at close" sh -c '[ ! -s "$1-wal" ]' _ "$DB"
fi
check "the log says it stopped cleanly" grep -q "stopped; database closed" "$DIR/log"
check "every request was logged with method, path, status, bytes, duration" \
	grep -Eq "POST /api/v1/reports 201 [0-9]+ [0-9.]+ms" "$DIR/log"

# --- durable before 201, seen in the system calls ------------------------------------
# Posted one at a time under strace: on SQLite each 201 must leave after an
# fsync of the WAL that began after the report's commit wrote it; on
# PostgreSQL after the server confirmed the COMMIT of the report's INSERT
# (tests/server/durable_order.py).
if command -v strace >/dev/null; then
	D=$T_TMP/strace
	mkdir -p "$D"
	if [ "$STORE" = pg ]; then
		calls="-s 65536 -e trace=sendto,recvfrom,sendmsg,writev,write,read"
		order="--pg"
	else
		calls="-y -e trace=pwrite64,write,fdatasync,fsync,sendto,sendmsg,writev"
		order=""
	fi
	# shellcheck disable=SC2086 # $calls and $order are lists of words
	strace -f -tt $calls -o "$D/trace" \
		"$SERVER" --listen 127.0.0.1:0 --database "$(store_db "$D/db.sqlite")" --port-file "$D/port" --rate 0 \
		2>"$D/log" &
	tracer=$!
	SERVER_PIDS="$SERVER_PIDS $tracer"
	wait_for 150 test -s "$D/port"
	URL=http://127.0.0.1:$(cat "$D/port")
	codes=""
	for n in 600 601 602 603 604; do codes="$codes $(post "$R/$n.json")"; done
	expect_eq "five reports posted under strace" "$codes" " 201 201 201 201 201"
	traced=$(pgrep -P "$tracer" | head -n 1)
	[ -n "$traced" ] && kill -TERM "$traced"
	wait_for 100 sh -c '! kill -0 "$1"' _ "$tracer"
	# shellcheck disable=SC2086
	check "every 201 followed its commit, durable (an fsync of the WAL or PostgreSQL's COMMIT)" \
		python3 tests/server/durable_order.py $order "$D/trace"
else
	skip "durable before 201 in the system calls" "strace is not installed (make deps)"
fi

# --- the wall clock stepped back an hour (issue 41) ----------------------------------
# chrony at boot or a restored VM steps the clock back: the scrub after a
# withdrawal ("within seconds") and the summary's recomputation must come
# on time all the same. tests/tools/clockshim.so steps CLOCK_REALTIME back
# an hour for the collector once $T_TMP/stepped exists, the waits on that
# clock included.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
CLOCKSHIM_FILE=$T_TMP/stepped
LD_PRELOAD=$PWD/$BUILD/tests/tools/clockshim.so
export ASAN_OPTIONS CLOCKSHIM_FILE LD_PRELOAD
start_server clock --rate 0
unset LD_PRELOAD
DB=$DIR/db.sqlite
# withdraw N: DELETE report N with its token.
withdraw() {
	req DELETE "/api/v1/reports/$(sed -n "s/^$1\t\([^\t]*\).*/\1/p" "$R/index.tsv")" \
		-H "X-Deletion-Token: $(cat "$R/$1.token")"
}
# scrubbed N: report N's SHA-256 (in its row only) is in no file of the
# SQLite store; on PostgreSQL the reports table was vacuumed since $v0.
scrubbed() {
	if [ "$STORE" = pg ]; then
		[ "$(sql "$DB" "select vacuum_count from pg_stat_user_tables where relname = 'reports'")" -gt "$v0" ]
	else
		! grep -qraF "$(sed -n "s/^$1\t[^\t]*\t\([^\t]*\).*/\1/p" "$R/index.tsv")" "$DB"*
	fi
}
vacuums() { [ "$STORE" = pg ] && sql "$DB" "select vacuum_count from pg_stat_user_tables where relname = 'reports'" || echo 0; }
etag() { req GET /api/v1/summary > /dev/null; tr -d '\r' < "$T_TMP/headers" | sed -n 's/^[Ee][Tt]ag: //p'; }
etag_moved() { [ "$(etag)" != "$e0" ]; }
v0=$(vacuums)
expect_eq "clock: a report, withdrawn before the step: 201, 200" \
	"$(post "$R/700.json") $(withdraw 700)" "201 200"
wait_for 40 scrubbed 700
expect_eq "...scrubbed at once" "$?" 0
touch "$T_TMP/stepped"
v0=$(vacuums)
expect_eq "...the wall clock an hour back, another: 201, 200" \
	"$(post "$R/701.json") $(withdraw 701)" "201 200"
wait_for 40 scrubbed 701
expect_eq "...scrubbed within 4 s all the same" "$?" 0
e0=$(etag)
expect_eq "...a report posted after the step: 201" "$(post "$R/702.json")" 201
wait_for 40 etag_moved
expect_eq "...counted by the summary within 4 s (interval 1 s)" "$?" 0
if [ "$STORE" != pg ]; then
	# in_file N: report N's SHA-256 is in the database file itself, not
	# only in its WAL: the checkpointer (every 250 ms, nothing else
	# checkpoints without a withdrawal) copied it there.
	in_file() { grep -qaF "$(sed -n "s/^$1\t[^\t]*\t\([^\t]*\).*/\1/p" "$R/index.tsv")" "$DB"; }
	expect_eq "...another report: 201" "$(post "$R/703.json")" 201
	wait_for 20 in_file 703
	expect_eq "...checkpointed into the file within 2 s (every 250 ms)" "$?" 0
fi
stop_server
unset CLOCKSHIM_FILE

# --- the SQLite file swapped under load (issue 41) -----------------------------------
# A backup restored by rename over the live file, the file removed, the
# file made read-only, each while reports are posted (load.py runs the
# command at the 40th 201). The old file goes with the collector: every 201
# must be in the file at the path or in the copy the collector made of the
# old one (FILE.replaced-TIME, FILE.removed-TIME), which must pass PRAGMA
# integrity_check, as must what lies at the path with the WAL beside it
# (what a restart would open); the man page's merge recipe (EXAMPLES) must
# bring every 201 into the file at the path. The collector answers 503
# with Retry-After and says why, once, in its log, naming the copy.
if [ "$STORE" != pg ]; then
	# audit KEPT ACKED PATH: "<201s> missing <n>, kept <integrity>, path
	# <integrity>, <k> only kept", each file read from a copy with its own
	# -wal and -shm; missing: in neither file.
	audit() {
		python3 -c 'import os, shutil, sqlite3, sys, tempfile
def opened(path):
    d = tempfile.mkdtemp()
    for s in ("", "-wal", "-shm"):
        if os.path.exists(path + s):
            shutil.copy(path + s, os.path.join(d, "db" + s))
    return sqlite3.connect(os.path.join(d, "db"))
def ids(db):
    try:
        return {r[0] for r in db.execute("select id from reports")}
    except sqlite3.Error:
        return set()
kept, path = opened(sys.argv[1]), opened(sys.argv[3])
acked = set(open(sys.argv[2]).read().split())
k, p = ids(kept), ids(path)
print("%d missing %d, kept %s, path %s, %d only kept" % (len(acked), len(acked - k - p),
      kept.execute("pragma integrity_check").fetchone()[0].splitlines()[0],
      path.execute("pragma integrity_check").fetchone()[0].splitlines()[0], len(k - p)))' "$@"
	}
	# swap_start NAME: a fresh collector.
	swap_start() {
		start_server "$1" --rate 0 --quiet
		DB=$DIR/db.sqlite
		: > "$DIR/acked"
	}
	# swap_load WHAT FIRST COMMAND: reports FIRST..FIRST+299 posted,
	# COMMAND run at the 40th 201; then a POST of its own.
	swap_load() {
		python3 tests/server/load.py 127.0.0.1 "$PORT" "$R" "$2" $(($2 + 300)) 8 "$DIR/acked" \
			"sh:$3@40" > "$DIR/load" 2>&1
		check "$1 under load: refused after it ($(cat "$DIR/load"))" \
			grep -q ", 503: " "$DIR/load"
		expect_eq "...a POST afterwards: 503" "$(post "$R/0.json")" 503
		check "...with Retry-After" has_header '^Retry-After: [0-9]+'
	}
	# sound AUDIT: every 201 in one of the files, both pass integrity_check.
	sound() { case $1 in [1-9]*" missing 0, kept ok, path ok, "*) ;; *) false ;; esac; }
	# kept_by SUFFIX: the copy the collector made, named in its log.
	kept_by() {
		KEPT=$(ls "$DB.$1"-*Z 2>/dev/null | head -n 1)
		check "...the old file kept beside it ($KEPT) and named in the log" \
			grep -q "kept in $KEPT (" "$DIR/log"
	}
	swap_start swap
	swap_load "the file made read-only" 100 "chmod 0444 '$DB'"
	check "...the log says it" grep -q 'was made read-only' "$DIR/log"
	chmod 0644 "$DB"
	expect_eq "...writable again: 201" "$(post "$R/0.json")" 201
	check "...and the log says so" grep -q 'is writable again' "$DIR/log"
	# A backup of now, restored over the file once 40 more are acknowledged.
	python3 -c 'import sqlite3, sys
sqlite3.connect(sys.argv[1]).execute("vacuum into ?", (sys.argv[2],))' "$DB" "$DIR/backup"
	swap_load "a backup renamed over the file" 400 "mv '$DIR/backup' '$DB'"
	expect_eq "...the log says it once" "$(grep -c 'was replaced by another file' "$DIR/log")" 1
	stop_server
	kept_by replaced
	a=$(audit "$KEPT" "$DIR/acked" "$DB")
	check "...every 201 in the restored file or the kept one, both sound: $a" sound "$a"
	check "...the kept one holds the 201s since the backup" \
		sh -c 'case $1 in *", "[1-9]*" only kept") ;; *) false ;; esac' _ "$a"
	check "...the log counts the reports only the kept file holds" \
		grep -q "of them not in the file now at the path" "$DIR/log"
	only=${a##*, }
	expect_eq "...and that count is right" \
		"$(sed -n 's/.* \([0-9]*\) of them not in the file now at the path.*/\1/p' "$DIR/log")" \
		"${only%% *}"
	sed -n '/^runuser.*<<.SQL.$/,/^SQL$/p' docs/man/cgroup-feedback-server.8 | sed '1d;$d' |
		sed "s|'reports.sqlite.replaced-[0-9TZ]*'|'$KEPT'|" > "$DIR/merge.sql"
	check "the man page's merge recipe runs (twice)" python3 -c 'import sqlite3, sys
for _ in range(2):
    sqlite3.connect(sys.argv[1], isolation_level=None).executescript(open(sys.argv[2]).read())' \
		"$DB" "$DIR/merge.sql"
	a=$(audit "$DB" "$DIR/acked" "$DB")
	check "...every 201 in the merged file, sound: $a" sound "$a"

	swap_start swap-rm
	swap_load "the file removed" 100 "rm '$DB'"
	expect_eq "...the log says it once" "$(grep -c 'was removed under the running' "$DIR/log")" 1
	stop_server
	kept_by removed
	a=$(audit "$KEPT" "$DIR/acked" "$DB")
	check "...every 201 in the kept file, sound, a new one beside its WAL too: $a" sound "$a"
fi

# --- kill -9 under load: every 201 survives ------------------------------------------
start_server crash --rate 0 --quiet
DB=$DIR/db.sqlite
round=0 first=10
for last in 540 1070 1600; do
	round=$((round + 1))
	: > "$T_TMP/created.$round"
	# Killed once a tenth of this round's reports were answered, by the
	# loader itself (load.py KILL_PID@N), with the other 15 requests in
	# flight: a shell polling from outside was too late on a busy machine.
	python3 tests/server/load.py 127.0.0.1 "$PORT" "$R" "$first" "$last" 16 "$T_TMP/created.$round" \
		"$SPID@$(((last - first) / 10))" > "$T_TMP/load.$round" 2>&1
	wait "$SPID" 2>/dev/null
	n=$(wc -l < "$T_TMP/created.$round")
	start_server crash --rate 0 --quiet
	# Each id is answered 201 once (the loader posts each report once).
	inlist=$(sed -n "s/^\([0-9a-zA-Z-]*\)\$/'\1'/p" "$T_TMP/created.$round" | paste -sd, -)
	stored=$(sql "$DB" "select count(*) from reports where id in (${inlist:-''})")
	missing=$((n - stored))
	# Under load: the loader must have lost connections to the kill.
	if [ "$n" -gt 0 ] && [ "$missing" = 0 ] && ! grep -q " 0 connection errors" "$T_TMP/load.$round"; then
		ok "kill -9 round $round: all $n reports answered 201 are stored ($(cat "$T_TMP/load.$round"))"
	else
		not_ok "kill -9 round $round: $missing of $n answered 201 are missing ($(cat "$T_TMP/load.$round"))"
	fi
	first=$last
done
if [ "$STORE" = pg ]; then
	# amcheck (PostgreSQL's contrib): every index of the reports is sound
	# and holds every row of the table.
	sql "$DB" "create extension if not exists amcheck" >/dev/null
	indexes_sound() {
		sql "$DB" "select bt_index_check(i.indexrelid, true) from pg_index i where i.indrelid = 'reports'::regclass" >/dev/null
	}
	check "every index of the reports passes amcheck's bt_index_check after three crashes" indexes_sound
else
	check "the database passes PRAGMA integrity_check after three crashes" python3 -c 'import sqlite3, sys
sys.exit(sqlite3.connect(sys.argv[1]).execute("pragma integrity_check").fetchone()[0] != "ok")' "$DB"
fi
admin /api/v1/reports?limit=1 >/dev/null
expect_eq "the restarted server serves the stored reports" "$(json 'len(j["reports"])')" 1
stop_server

finish
