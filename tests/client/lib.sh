# Helpers for the client's integration tests (source after tests/lib.sh).
# shellcheck shell=sh
PY=/usr/bin/python3

# wait_file FILE: until FILE is non-empty, at most 5 s (scaled).
wait_file() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt "$(scaled 100)" ]; do sleep 0.05; i=$((i + 1)); done
	[ -s "$1" ]
}

# start_double DIR SCRIPT [CERT KEY]: the collector double in DIR (requests
# land in DIR/requests.log and DIR/last-body). Sets DPID and URL.
start_double() {
	mkdir -p "$1"
	rm -f "$1/port"
	$PY tests/client/collector_double.py --port-file "$1/port" --dir "$1" --script "$2" \
		--lifetime 120 ${3:+--tls "$3" "$4"} &
	DPID=$!
	wait_file "$1/port"
	URL=http${3:+s}://127.0.0.1:$(cat "$1/port")/api/v1/reports
}

stop_double() {
	[ -n "${DPID:-}" ] && kill "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
	DPID=
}
