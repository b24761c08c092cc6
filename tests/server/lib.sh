# Helpers for the collector's integration tests (tests/integration/server*.sh),
# sourced after tests/lib.sh: a server on an ephemeral loopback port with a
# fresh database per start, bounded waits, and every server killed on exit.
#
# CGFB_TEST_STORE=pg runs the same script against PostgreSQL: a server
# started for the script (tests/server/pg.sh) and a database of its own per
# SQLite file the script names (store_db); rows, sql and bodies read
# whichever store is in use. tests/run.sh runs the scripts both ways.
# shellcheck shell=sh
SERVER=${SERVER:-$PWD/$BUILD/cgroup-feedback-server}
GEN=$PWD/tests/server/genreport.py
ADMIN=test-admin-token-0123456789abcdef
SERVER_PIDS=""

server_cleanup() {
	# SIGTERM first: a collector that shuts down runs its leak check under
	# valgrind (one killed with -9 never does); -9 for one that hangs.
	for p in $SERVER_PIDS; do kill -TERM "$p" 2>/dev/null; done
	for p in $SERVER_PIDS; do
		_i=0
		# Until it is gone or a zombie (this shell waits for none here).
		while ps -o stat= -p "$p" 2>/dev/null | grep -qv '^Z' && [ $_i -lt "$(scaled 50)" ]; do
			sleep 0.1
			_i=$((_i + 1))
		done
		kill -9 "$p" 2>/dev/null
	done
	[ "$STORE" = pg ] && pg_stop
	t_cleanup
}
trap server_cleanup EXIT

STORE=${CGFB_TEST_STORE:-sqlite}
if [ "$STORE" = pg ]; then
	. tests/server/pg.sh
	if ! pg_available; then
		echo "ok 1 - PostgreSQL backend # SKIP initdb is missing and cannot be installed"
		echo "1..1"
		exit 77
	fi
	if ! pg_start; then
		echo "not ok 1 - a PostgreSQL server for the tests starts"
		echo "1..1"
		exit 1
	fi
fi

# pg_dbname PATH: the PostgreSQL database that stands for SQLite file PATH.
pg_dbname() { echo "${1#"$T_TMP"/}" | tr -c 'a-zA-Z0-9\n' '_' | cut -c1-60; }

# store_db PATH: what --database gets for the store PATH names: PATH itself
# on SQLite; on PostgreSQL the URI of a database of its own, made if missing.
store_db() {
	if [ "$STORE" != pg ]; then
		echo "$1"
		return
	fi
	pg_createdb "$(pg_dbname "$1")" >/dev/null && pg_uri "$(pg_dbname "$1")"
}

# sql PATH QUERY: rows of QUERY on the store PATH names, fields joined by |.
sql() {
	if [ "$STORE" = pg ]; then
		pg_sql "$(pg_dbname "$1")" "$2"
		return
	fi
	python3 -c 'import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for r in db.execute(sys.argv[2]):
    print("|".join("" if v is None else str(v) for v in r))
db.commit()' "$1" "$2"
}

# bodies PATH: for every stored report, ordered by id, "id|sha256|SHA-256
# of the stored body bytes": equal lines mean byte-identical bodies.
bodies() {
	if [ "$STORE" = pg ]; then
		sql "$1" "select id, sha256, encode(sha256(body), 'hex') from reports order by id"
		return
	fi
	python3 -c 'import hashlib, sqlite3, sys
for i, h, b in sqlite3.connect(sys.argv[1]).execute("select id, sha256, body from reports order by id"):
    print("%s|%s|%s" % (i, h, hashlib.sha256(b).hexdigest()))' "$1"
}

# wait_for TENTHS COMMAND...: poll COMMAND every 0.1 s, at most TENTHS times
# (scaled by CGFB_TIMEOUT_SCALE).
wait_for() {
	_wf=$(scaled "$1"); shift
	while [ "$_wf" -gt 0 ]; do
		"$@" 2>/dev/null && return 0
		sleep 0.1
		_wf=$((_wf - 1))
	done
	return 1
}

# start_server NAME [OPTION...]: start a server with its own directory
# $T_TMP/NAME (database, log, admin token); sets DIR, SPID, PORT, URL.
# A NAME used before keeps its database (a restart). With SERVER_STORE set
# (a path, see store_db) every server started shares that store instead.
start_server() {
	DIR=$T_TMP/$1; shift
	mkdir -p "$DIR"
	echo "$ADMIN" > "$DIR/admin"
	rm -f "$DIR/port"
	# A summary recomputed every second, with exact counts, unless the
	# test says otherwise (a later --summary-interval or --summary-epsilon
	# wins); fresh_summary waits for one.
	"$SERVER" --summary-interval 1 --summary-epsilon 0 --listen 127.0.0.1:0 --database "$(store_db "${SERVER_STORE:-$DIR/db.sqlite}")" \
		--port-file "$DIR/port" \
		--admin-token-file "$DIR/admin" "$@" 2>>"$DIR/log" &
	SPID=$!
	SERVER_PIDS="$SERVER_PIDS $SPID"
	if ! wait_for 100 test -s "$DIR/port"; then
		echo "# server did not start; log:"; sed 's/^/#   /' "$DIR/log"
		return 1
	fi
	PORT=$(cat "$DIR/port")
	URL=${SCHEME:-http}://127.0.0.1:$PORT
}

# stop_server: SIGTERM, and the exit status once it is gone (bounded).
stop_server() {
	kill -TERM "$SPID" 2>/dev/null
	i=0
	while kill -0 "$SPID" 2>/dev/null && [ $i -lt "$(scaled 150)" ]; do sleep 0.1; i=$((i + 1)); done
	if kill -0 "$SPID" 2>/dev/null; then
		kill -9 "$SPID"
		wait "$SPID" 2>/dev/null
		return 99
	fi
	wait "$SPID"
}

# start_status LOG ARG...: start a server that should refuse to start; its
# exit status is printed, or "running" (and it is killed) if it is still up
# after 10 s.
start_status() {
	_log=$1; shift
	"$SERVER" "$@" 2>"$_log" &
	_p=$!
	if ! wait_for 100 sh -c '! kill -0 "$1"' _ "$_p"; then
		kill -9 "$_p" 2>/dev/null
		wait "$_p" 2>/dev/null
		echo running
		return
	fi
	wait "$_p"
	echo $?
}

# make_pki DIR: a CA (ca.pem, ca.key) and a server certificate it signed for
# 127.0.0.1 and localhost (server.pem, server.key), made now with the openssl
# CLI, and an unrelated key (other.key).
make_pki() {
	mkdir -p "$1"
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=cgfb-test-ca \
		-keyout "$1/ca.key" -out "$1/ca.pem" -addext basicConstraints=critical,CA:TRUE 2>/dev/null
	openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout "$1/server.key" \
		-out "$1/server.csr" 2>/dev/null
	printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' > "$1/ext"
	openssl x509 -req -in "$1/server.csr" -CA "$1/ca.pem" -CAkey "$1/ca.key" -CAcreateserial \
		-days 2 -extfile "$1/ext" -out "$1/server.pem" 2>/dev/null
	openssl req -newkey rsa:2048 -nodes -subj /CN=other -keyout "$1/other.key" \
		-out /dev/null 2>/dev/null
}

# gen DIR COUNT [SEED] [SYSTEMS]: schema-valid canonical reports (see genreport.py).
gen() {
	python3 "$GEN" --dir "$1" --count "$2" --seed "${3:-1}" --systems "${4:-7}"
}

# post FILE [CURL OPTION...]: POST a report (Content-Type $CT, by default
# application/json); the status is printed, the body and headers are left
# in $T_TMP/body and $T_TMP/headers. This is where the real client's submit command
# can stand in once it exists.
post() {
	f=$1; shift
	ct=${CT-application/json}
	curl -sS -o "$T_TMP/body" -D "$T_TMP/headers" -w '%{http_code}' --max-time 20 \
		-H "Content-Type: $ct" --data-binary "@$f" "$@" "$URL/api/v1/reports"
}

# req METHOD PATH [CURL OPTION...]: any request; status printed, body and
# headers in $T_TMP/body and $T_TMP/headers.
req() {
	m=$1 p=$2; shift 2
	curl -sS -o "$T_TMP/body" -D "$T_TMP/headers" -w '%{http_code}' --max-time 20 -X "$m" \
		"$@" "$URL$p"
}
admin() { req GET "$1" -H "Authorization: Bearer $ADMIN"; }

# rows DB: the number of stored reports, read from the store directly.
rows() { sql "$1" "select count(*) from reports"; }

# json EXPR: evaluate a Python expression over the last body as j.
json() {
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$T_TMP/body" "$1"
}

# fresh_summary: GET /api/v1/summary once it was recomputed after this call
# (so it counts every report stored before), at most 10 s; status printed,
# body and headers as for req.
fresh_summary() {
	_t=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	_i=0
	while [ $_i -lt "$(scaled 100)" ]; do
		_st=$(req GET /api/v1/summary)
		if [ "$_st" = 200 ] && python3 -c 'import json, sys
sys.exit(json.load(open(sys.argv[1]))["computed"] <= sys.argv[2])' "$T_TMP/body" "$_t"; then
			echo "$_st"
			return 0
		fi
		sleep 0.1
		_i=$((_i + 1))
	done
	echo "$_st"
	return 1
}

# has_header REGEX: the last response has a header line matching REGEX.
has_header() { tr -d '\r' < "$T_TMP/headers" | grep -Eiq "$1"; }

# expect_eq NAME GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: got '$2', want '$3'"; fi
}

# client_spool: a client beside the collector: its spool $ST and its
# configuration $CONF (banner in the script's directory, log only, short
# timeouts), cfb (the client with that configuration), new_report ID
# CATALOG (a pending report, tests/client/pending_report.py) and a use case
# in $T_TMP/uc.
client_spool() {
	ST=$T_TMP/state
	CONF=$T_TMP/conf
	mkdir -p "$ST"
	printf 'motd-path = %s/motd/cgroup-feedback.motd\nnotify = log\ntimeout = 5\nconnect-timeout = 3\n' \
		"$T_TMP" > "$CONF"
	echo "One KVM guest per memory cgroup under libvirt; siblings must not share reclaim." > "$T_TMP/uc"
}
cfb() { "$CGFB" --config "$CONF" "$@"; }
new_report() { python3 tests/client/pending_report.py "$ST" "$1" "$2"; }
