#!/bin/sh
# The demonstration, on any host (`make demo`, `cgroup-feedback demo`): a
# real kernel log recorded on a Fedora 42 machine booted into cgroup v1
# (five catalog messages, among them memcg's "Please report your usecase
# to linux-mm@kvack.org") is replayed by the watcher into a scratch
# directory of its own, with a collector of its own on a free loopback
# port. It then says the next commands (review, the dashboard, withdraw)
# and keeps the collector up until Ctrl-C, which stops it and removes the
# scratch directory.
#
# It touches nothing of the system: no /var/lib/cgroup-feedback*, no
# /run/motd.d nor the system's banner (its banner is a file in the scratch
# directory), no wall to the terminals, no root needed. The reports are
# about the Fedora machine that printed the messages, as its log shows it
# (its kernel, its command line), and carry nothing of this one's system
# (docs/PRIVACY.md).
#
# Where things are: CGFB_DEMO_CLI (cgroup-feedback), CGFB_DEMO_SERVER
# (cgroup-feedback-server; searched for when unset), CGFB_DEMO_LOG (the
# recording); unset, the build tree BUILD's (make demo). CGFB_DEMO_DIR: the
# scratch directory (it must not exist), else a new one in TMPDIR.
set -eu
BUILD=${BUILD:-build}
if [ -z "${CGFB_DEMO_CLI:-}" ]; then
	BUILD=$(cd "$BUILD" && pwd)
	CGFB_DEMO_CLI=$BUILD/cgroup-feedback
	: "${CGFB_DEMO_SERVER:=$BUILD/cgroup-feedback-server}"
	: "${CGFB_DEMO_LOG:=$(cd "$(dirname "$0")/.." && pwd)/tests/data/logs/fedora-6.15.kmsg}"
fi
CLI=$CGFB_DEMO_CLI
LOG=${CGFB_DEMO_LOG:?the recorded log}
SERVER=${CGFB_DEMO_SERVER:-}
if [ -z "$SERVER" ]; then
	SERVER=$(command -v cgroup-feedback-server 2>/dev/null || true)
	for s in "$(dirname "$CLI")/cgroup-feedback-server" /usr/sbin/cgroup-feedback-server \
		/usr/local/sbin/cgroup-feedback-server; do
		[ -n "$SERVER" ] || [ ! -x "$s" ] || SERVER=$s
	done
fi
# q WORD: WORD as a shell word to paste (quoted when it needs to be).
q() {
	case $1 in
	*[!A-Za-z0-9_/.:@%+=,-]*) printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")" ;;
	*) printf '%s' "$1" ;;
	esac
}
if [ -n "${CGFB_DEMO_DIR:-}" ]; then
	# Never a directory that holds something already: it is removed at the end.
	mkdir -m 0700 "$CGFB_DEMO_DIR" || {
		echo "demo: $CGFB_DEMO_DIR cannot be made (it must not exist: the demo removes it when it ends)" >&2
		exit 1
	}
	DIR=$(cd "$CGFB_DEMO_DIR" && pwd)
else
	DIR=$(mktemp -d "${TMPDIR:-/tmp}/cgroup-feedback-demo.XXXXXX")
fi
chmod 0700 "$DIR"
STATE=$DIR/state
COLL=$DIR/collector
CONF=$DIR/client.conf
MOTD=$DIR/login-banner.motd
server=
cleanup() {
	# A second Ctrl-C (a terminal's, or timeout's to the child and then
	# to its group) must not cut the cleanup short.
	trap - EXIT
	trap '' INT TERM
	if [ -n "$server" ]; then
		kill "$server" 2>/dev/null || true
		wait "$server" 2>/dev/null || true
	fi
	rm -rf "$DIR"
	echo "demo: stopped; $DIR removed"
}
trap cleanup EXIT
trap 'exit 0' INT TERM
mkdir -m 0700 "$COLL"
(umask 077 && od -An -N32 -tx1 /dev/urandom | tr -d ' \n' > "$COLL/admin-token")
endpoint=
if [ -n "$SERVER" ]; then
	"$SERVER" --listen 127.0.0.1:0 --database "$COLL/collector.db" \
		--admin-token-file "$COLL/admin-token" --port-file "$COLL/port" --quiet &
	server=$!
	i=0
	while [ ! -s "$COLL/port" ] && kill -0 "$server" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if [ ! -s "$COLL/port" ]; then
		echo "demo: the collector $SERVER did not start (above)" >&2
		exit 1
	fi
	PORT=$(cat "$COLL/port")
	endpoint="http://127.0.0.1:$PORT/api/v1/reports"
fi
# The client's configuration: this collector, a banner in the scratch
# directory, and no wall (the terminals of this host's administrators are
# not the demo's).
{
	echo "# written by the demo (tools/demo.sh)"
	[ -z "$endpoint" ] || echo "endpoint = $endpoint"
	echo "motd-path = $MOTD"
	echo "notify = log, motd"
} > "$CONF"
C="$(q "$CLI") --config $(q "$CONF") --state-dir $(q "$STATE")"
echo "demo: replaying $LOG,"
echo "      a kernel log recorded on Fedora 42 (kernel 6.15, booted into cgroup v1);"
echo "      the watcher writes a report for each catalog message it finds:"
# What it logs (the journal's lines on a real system) goes to a file: the
# detections it prints say enough here.
if ! "$CLI" --config "$CONF" --state-dir "$STATE" watch --once --kmsg "$LOG" 2> "$DIR/watch.log"; then
	cat "$DIR/watch.log" >&2
	exit 1
fi
"$CLI" --config "$CONF" --state-dir "$STATE" list > "$DIR/list"
# The one that asks linux-mm for the use case, else the first.
first=$(awk '$2 == "pending" && $3 == "M7" { print $1; exit }' "$DIR/list")
[ -n "$first" ] || first=$(awk '$2 == "pending" { print $1; exit }' "$DIR/list")
n=$(awk '$2 == "pending"' "$DIR/list" | wc -l)
if [ -z "$first" ]; then
	cat "$DIR/watch.log" >&2
	echo "demo: no report was written (above)" >&2
	exit 1
fi
echo
echo "demo: $n reports wait for review in $STATE"
echo "      (what the watcher logged: $DIR/watch.log; the login banner it would show: $MOTD)."
echo "Next, in another terminal (nothing leaves this machine: the collector is the demo's own):"
echo "  1. review the report of M7, the message that asks linux-mm for your use case, and"
echo "     send it (review without an id goes through all $n):"
echo "       $C review $first"
if [ -n "$endpoint" ]; then
	echo "  2. the collector's dashboard, http://127.0.0.1:$PORT/ : log in with the admin token"
	echo "     that this prints:"
	echo "       cat $(q "$COLL/admin-token")"
	echo "  3. withdraw the report once sent (the collector deletes it):"
	echo "       $C withdraw $first"
	echo "Ctrl-C stops the collector and removes $DIR."
else
	echo "  (no collector: cgroup-feedback-server is not installed; review offers to keep a"
	echo "   report or write the e-mail for linux-mm)"
	echo "Ctrl-C removes $DIR."
fi
if [ -n "$server" ]; then
	wait "$server" || true
	server=
	echo "demo: the collector stopped" >&2
	exit 1
fi
# No collector to wait for: until Ctrl-C all the same, so that the
# commands above work while they are read (a wait, which a signal ends).
while :; do
	sleep 3600 &
	wait $! || true
done
