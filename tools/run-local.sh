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
# The login banner: the system's, where logins show it, for the trial of
# the real thing; a state directory moved elsewhere (a second trial, a
# test) keeps its banner beside it and leaves the system's alone. What the
# trial wrote is removed when it stops.
if [ "$STATE" = /var/lib/cgroup-feedback ]; then
	MOTD=/run/motd.d/cgroup-feedback.motd
else
	MOTD=$STATE/login-banner.motd
fi
[ -e "$MOTD" ] && motd_was_there=yes || motd_was_there=no
# The collector first, and only once it listens the rest: a port that is
# taken is said here, not found out by the first report.
PORTFILE=$SERVER_DIR/port
rm -f "$PORTFILE"
"$BUILD/cgroup-feedback-server" --listen "$LISTEN" --database "$SERVER_DIR/collector.db" \
	--admin-token-file "$SERVER_DIR/admin-token" --port-file "$PORTFILE" --quiet &
server=$!
cleanup() {
	kill $server 2>/dev/null
	wait $server 2>/dev/null
	[ "$motd_was_there" = yes ] || rm -f "$MOTD"
	rm -f "$PORTFILE"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
i=0
while [ ! -s "$PORTFILE" ] && kill -0 $server 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
if [ ! -s "$PORTFILE" ]; then
	echo "run-local: the collector could not listen on $LISTEN (above); nothing was started." >&2
	echo "run-local: choose another address: CGFB_LISTEN=127.0.0.1:PORT make run" >&2
	exit 1
fi
# The port it got (CGFB_LISTEN may ask for 0: any free one).
LISTEN=${LISTEN%:*}:$(cat "$PORTFILE")
# The client's configuration for this run: its endpoint is this collector,
# and its banner where the trial's goes.
CONF=$(cd "$SERVER_DIR" && pwd)/client.conf
printf '# written by make run (tools/run-local.sh)\nendpoint = http://%s/api/v1/reports\nmotd-path = %s\n' \
	"$LISTEN" "$MOTD" > "$CONF"
cat <<EOT
run-local: collector on http://$LISTEN/ (database $SERVER_DIR/collector.db,
           admin token in $SERVER_DIR/admin-token)
run-local: watching the kernel log (state and reports in $STATE,
           login banner in $MOTD). In another terminal:
             sudo $(q "$BUILD/cgroup-feedback") --config $(q "$CONF") --state-dir $(q "$STATE") review
           ($CONF sends to this collector)
           and the dashboard at http://$LISTEN/ . Ctrl-C stops both.
           CGFB_STATE_DIR, CGFB_SERVER_DIR and CGFB_LISTEN move them (README, Use).
EOT
# Not exec'ed: the trial's banner is removed when the watcher stops.
"$BUILD/cgroup-feedback" --config "$CONF" --state-dir "$STATE" watch
