#!/bin/sh
# The main job on one machine: a local collector (the stand-in for
# linux-mm@kvack.org, on an embedded SQLite file) and the watcher reading the
# live kernel log. Reports wait for `cgroup-feedback review` in another
# terminal; nothing is sent without a yes there. Ctrl-C stops both.
set -eu
BUILD=${BUILD:-build}
# Absolute: the command printed below is pasted in another terminal,
# wherever that one is (and `make run` gives "build").
BUILD=$(cd "$BUILD" && pwd)
STATE=${CGFB_STATE_DIR:-/var/lib/cgroup-feedback}
SERVER_DIR=${CGFB_SERVER_DIR:-/var/lib/cgroup-feedback-server}
LISTEN=${CGFB_LISTEN:-127.0.0.1:8080}
if [ "$(id -u)" -ne 0 ]; then
	echo "run-local: the watcher reads /dev/kmsg and cgroupfs: run as root" >&2
	exit 1
fi
mkdir -p "$SERVER_DIR"
chmod 0700 "$SERVER_DIR"
if [ ! -s "$SERVER_DIR/admin-token" ]; then
	(umask 077 && od -An -N32 -tx1 /dev/urandom | tr -d ' \n' > "$SERVER_DIR/admin-token")
fi
# q WORD: WORD as a shell word to paste (quoted when it needs to be).
q() {
	case $1 in
	*[!A-Za-z0-9_/.:@%+=,-]*) printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")" ;;
	*) printf '%s' "$1" ;;
	esac
}
# The client's configuration for this run: its endpoint is this collector,
# wherever CGFB_LISTEN put it.
CONF=$(cd "$SERVER_DIR" && pwd)/client.conf
printf '# written by make run (tools/run-local.sh)\nendpoint = http://%s/api/v1/reports\n' \
	"$LISTEN" > "$CONF"
"$BUILD/cgroup-feedback-server" --listen "$LISTEN" --database "$SERVER_DIR/collector.db" \
	--admin-token-file "$SERVER_DIR/admin-token" --quiet &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null' EXIT INT TERM
cat <<EOT
run-local: collector on http://$LISTEN/ (database $SERVER_DIR/collector.db,
           admin token in $SERVER_DIR/admin-token)
run-local: watching the kernel log (state and reports in $STATE,
           login banner in /run/motd.d/cgroup-feedback.motd). In another terminal:
             sudo $(q "$BUILD/cgroup-feedback") --config $(q "$CONF") --state-dir $(q "$STATE") review
           ($CONF sends to this collector)
           and the dashboard at http://$LISTEN/ . Ctrl-C stops both.
           CGFB_STATE_DIR, CGFB_SERVER_DIR and CGFB_LISTEN move them (README, Use).
EOT
"$BUILD/cgroup-feedback" --config "$CONF" --state-dir "$STATE" watch
