#!/bin/sh
# The collector behind a real reverse proxy (Debian's HAProxy, configured as
# docs/API.md shows, option forwardfor): with --trusted-proxy each client
# behind it has its own rate limit, taken from the address the proxy
# appends; a client's own X-Forwarded-For changes nothing, and a client
# that reaches the collector directly is not listened to. Without
# --trusted-proxy every client is the proxy: one client's burst refuses
# everyone (the defect of issue 30). On SQLite only: the store plays no part.
. tests/lib.sh
. tests/server/lib.sh

if ! command -v haproxy > /dev/null; then
	not_ok "haproxy is installed (make deps installs it)"
	finish
	exit 1
fi

# Clients come from their own loopback addresses (127.0.0.0/8 is all lo's).
A=127.0.0.10
B=127.0.0.11
D=127.0.0.20
# via ADDR [CURL OPTION...]: GET /api/v1/summary through the proxy from ADDR.
via() {
	_from=$1; shift
	curl -s -o /dev/null -w '%{http_code}\n' --max-time 10 --interface "$_from" "$@" \
		"http://127.0.0.1:$PPORT/api/v1/summary"
}
# codes N ADDR [OPTION...]: N requests, the status codes counted ("200:5 429:15").
codes() {
	_n=$1; shift
	_i=0
	while [ $_i -lt "$_n" ]; do via "$@"; _i=$((_i + 1)); done | sort | uniq -c |
		awk '{ printf "%s%s:%s", sep, $2, $1; sep = " " }'
}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# proxy_to PORT: HAProxy in front of the collector at PORT, in the foreground.
proxy_to() {
	PPORT=$(free_port)
	cat > "$T_TMP/haproxy.cfg" <<EOF
global
    maxconn 256
defaults
    mode http
    timeout connect 5s
    timeout client 10s
    timeout server 10s
    option forwardfor
frontend collector
    bind 127.0.0.1:$PPORT
    default_backend cgroup_feedback
backend cgroup_feedback
    server collector 127.0.0.1:$1
EOF
	haproxy -db -f "$T_TMP/haproxy.cfg" > "$T_TMP/haproxy.log" 2>&1 &
	HPID=$!
	# Listening is enough: a request would spend the rate limit under test.
	wait_for 100 python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$PPORT" ||
		{ echo "# haproxy did not start:"; sed 's/^/#   /' "$T_TMP/haproxy.log"; }
}
stop_proxy() { kill "$HPID" 2>/dev/null; wait "$HPID" 2>/dev/null; }
trap 'stop_proxy; t_cleanup' EXIT

# --- without --trusted-proxy: everyone is the proxy --------------------------------------------
start_server plain --read-rate 0.1 --read-burst 5 || { not_ok "server starts"; finish; exit 1; }
proxy_to "$PORT"
expect_eq "without --trusted-proxy: a burst of 8 from A gets 5 answers" "$(codes 8 $A)" "200:5 429:3"
expect_eq "...and B, who sent nothing, is refused too" "$(codes 3 $B)" "429:3"
stop_proxy
stop_server

# --- with it: each client its own ----------------------------------------------------------------
start_server trusted --read-rate 0.1 --read-burst 5 --trusted-proxy 127.0.0.1 ||
	{ not_ok "server starts with --trusted-proxy"; finish; exit 1; }
proxy_to "$PORT"
expect_eq "with --trusted-proxy 127.0.0.1: a burst of 8 from A gets 5 answers" "$(codes 8 $A)" "200:5 429:3"
expect_eq "...B gets its own 5" "$(codes 5 $B)" "200:5"
expect_eq "A naming another address in its own X-Forwarded-For is still A" \
	"$(codes 3 $A -H 'X-Forwarded-For: 127.0.0.12')" "429:3"
expect_eq "...and so is A sending two of them" \
	"$(codes 2 $A -H 'X-Forwarded-For: 127.0.0.13' -H 'X-Forwarded-For: 127.0.0.14')" "429:2"
# A client reaching the collector directly, from an address that is not a
# trusted proxy, with a new X-Forwarded-For each time: counted as itself.
direct=$(i=0; while [ $i -lt 8 ]; do
	curl -s -o /dev/null -w '%{http_code}\n' --max-time 10 --interface $D \
		-H "X-Forwarded-For: 192.0.2.$i" "$URL/api/v1/summary"; i=$((i + 1)); done |
	sort | uniq -c | awk '{ printf "%s%s:%s", sep, $2, $1; sep = " " }')
expect_eq "a direct client's X-Forwarded-For is not listened to" "$direct" "200:5 429:3"
# A report from B through the proxy: B's address is used, never kept.
gen "$T_TMP/reports" 1 1 1
expect_eq "B posts a report through the proxy: 201" "$(curl -s -o /dev/null -w '%{http_code}' \
	--max-time 10 --interface $B -H 'Content-Type: application/json' \
	--data-binary "@$T_TMP/reports/0.json" "http://127.0.0.1:$PPORT/api/v1/reports")" 201
stop_proxy
stop_server
expect_eq "SIGTERM: clean exit" "$?" 0
check "B's address is in no file of the store (it was never refused, nor logged)" sh -c \
	'! grep -rqaF "$1" "$2"' _ $B "$DIR"
expect_eq "...which holds B's report" "$(rows "$DIR/db.sqlite")" 1
check "the log counts the refusals of A and of the direct client, not of the proxy" sh -c \
	'grep -q "from 127\.0\.0\.10\b" "$1" && grep -q "from 127\.0\.0\.20\b" "$1" &&
	 ! grep -q "from 127\.0\.0\.1\b" "$1"' _ "$DIR/log"
expect_eq "--trusted-proxy with a host name: refuses to start (exit 2)" \
	"$(start_status "$T_TMP/bad.log" --listen 127.0.0.1:0 --database "$T_TMP/bad.sqlite" \
		--trusted-proxy proxy.example)" 2
check "...and says why" grep -q "trusted-proxy" "$T_TMP/bad.log"
finish
