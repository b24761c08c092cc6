#!/bin/sh
# The main job on one machine: a local collector (the stand-in for
# linux-mm@kvack.org, on an embedded SQLite file) and the watcher reading the
# live kernel log. Reports wait for `cgroup-feedback review` in another
# terminal; nothing is sent without a yes there. Ctrl-C stops both.
#
# A trial is a trial: its state, database, admin token, configuration and
# banner live in a directory of its own, CGFB_TRIAL_DIR (default the build
# tree's trial/), never in the installed service's /var/lib/cgroup-feedback
# and /var/lib/cgroup-feedback-server, which a package installed later
# would adopt (the service would skip what the trial read, and hold two
# admin tokens). CGFB_STATE_DIR and CGFB_SERVER_DIR move each part.
set -eu
BUILD=${BUILD:-build}
# Absolute: the command printed below is pasted in another terminal,
# wherever that one is (and `make run` gives "build").
BUILD=$(cd "$BUILD" && pwd)
TRIAL=${CGFB_TRIAL_DIR:-$BUILD/trial}
STATE=${CGFB_STATE_DIR:-$TRIAL/state}
SERVER_DIR=${CGFB_SERVER_DIR:-$TRIAL/collector}
LISTEN=${CGFB_LISTEN:-127.0.0.1:8080}
if [ "$(id -u)" -ne 0 ]; then
	echo "run-local: the watcher reads /dev/kmsg and cgroupfs: run as root" >&2
	echo "run-local: (make demo replays a recorded log instead, as any user)" >&2
	exit 1
fi
# What a run reuses is root's alone: a trial or collector directory,
# admin-token, collector.db or client.conf another user owns or may write
# would let them choose the collector's token, its database or the
# commands the client runs as root (docs/SECURITY.md). refuse WHAT: stop.
refuse() {
	echo "run-local: $1; refusing to use it (remove it, or make it root's and writable by root alone)" >&2
	exit 1
}
# own_dir DIR: DIR made (0700) when missing, and then a directory, not a
# link, root's, that no one else may write, in a directory no one else may
# write (or a sticky one): nothing in it can be swapped under this run.
own_dir() {
	if [ ! -e "$1" ] && [ ! -L "$1" ]; then
		(umask 077 && mkdir -p "$1")
	fi
	[ -d "$1" ] && [ ! -L "$1" ] || refuse "$1 is not a directory (or is a symbolic link)"
	set -- "$1" "$(stat -c '%u %a' "$1")" "$(stat -L -c '%a' "$(dirname "$1")")"
	case ${2% *} in 0) ;; *) refuse "$1 belongs to uid ${2% *}" ;; esac
	case ${2#* } in *[2367]?|*[2367]) refuse "$1 may be written by others than root (mode ${2#* })" ;; esac
	case $3 in
	1???) ;;
	*[2367]?|*[2367]) refuse "$1 is in $(dirname "$1"), which others than its owner may write (mode $3)" ;;
	esac
	chmod 0700 "$1"
}
# own_file FILE: an existing FILE is a regular file (not a link), root's,
# that no one else may write.
own_file() {
	[ -e "$1" ] || [ -L "$1" ] || return 0
	[ -f "$1" ] && [ ! -L "$1" ] || refuse "$1 is not a regular file (or is a symbolic link)"
	set -- "$1" "$(stat -c '%u %a' "$1")"
	case ${2% *} in 0) ;; *) refuse "$1 belongs to uid ${2% *}" ;; esac
	case ${2#* } in *[2367]?|*[2367]) refuse "$1 may be written by others than root (mode ${2#* })" ;; esac
}
trial_note=
if [ -z "${CGFB_STATE_DIR:-}" ] || [ -z "${CGFB_SERVER_DIR:-}" ]; then
	own_dir "$TRIAL"
	trial_note=" (remove $TRIAL when done)"
fi
own_dir "$SERVER_DIR"
own_file "$SERVER_DIR/admin-token"
own_file "$SERVER_DIR/collector.db"
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
# The login banner: beside the trial's state (the programs never write a
# banner login shows for a spool other than the system's:
# cgroup-feedback.conf(5)); the system's only when CGFB_STATE_DIR names
# the system's spool. What the trial wrote is removed when it stops.
if [ "$STATE" = /var/lib/cgroup-feedback ]; then
	MOTD=/run/motd.d/cgroup-feedback.motd
else
	MOTD=$STATE/login-banner.motd
fi
[ -e "$MOTD" ] && motd_was_there=yes || motd_was_there=no
# One watcher a state directory (it holds a flock on it while it runs):
# a second make run on a trial that runs would start a second collector
# and rewrite the first's client.conf before its watcher is refused. A
# shared lock taken for a moment, so nothing is started or written.
if [ -d "$STATE" ] && ! flock -n -s "$STATE" true 2>/dev/null; then
	echo "run-local: a watcher already follows the kernel log for $STATE (another make run?); nothing was started." >&2
	echo "run-local: stop that one, or give this one a trial of its own: CGFB_TRIAL_DIR=DIR make run" >&2
	exit 1
fi
# The collector first, and only once it listens the rest: a port that is
# taken is said here, not found out by the first report.
PORTFILE=$SERVER_DIR/port
rm -f "$PORTFILE"
"$BUILD/cgroup-feedback-server" --listen "$LISTEN" --database "$SERVER_DIR/collector.db" \
	--admin-token-file "$SERVER_DIR/admin-token" --port-file "$PORTFILE" --quiet &
server=$!
cleanup() {
	# A second Ctrl-C must not cut the cleanup short (the banner left).
	trap '' INT TERM
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
# Written anew each run, never through what was there (a link is
# replaced, not followed): in a directory only root may write.
CONF=$(cd "$SERVER_DIR" && pwd)/client.conf
rm -f "$CONF"
(umask 022 && printf '# written by make run (tools/run-local.sh)\nendpoint = http://%s/api/v1/reports\nmotd-path = %s\n' \
	"$LISTEN" "$MOTD" > "$CONF")
cat <<EOT
run-local: collector on http://$LISTEN/ (database $SERVER_DIR/collector.db,
           admin token in $SERVER_DIR/admin-token)
run-local: watching the kernel log (state and reports in $STATE,
           login banner in $MOTD). In another terminal:
             sudo $(q "$BUILD/cgroup-feedback") --config $(q "$CONF") --state-dir $(q "$STATE") review
           ($CONF sends to this collector)
           and the dashboard at http://$LISTEN/ . Ctrl-C stops both.
           A trial: nothing of it is the installed service's${trial_note}.
           CGFB_TRIAL_DIR, CGFB_STATE_DIR, CGFB_SERVER_DIR and CGFB_LISTEN move them.
EOT
# Not exec'ed: the trial's banner is removed when the watcher stops.
"$BUILD/cgroup-feedback" --config "$CONF" --state-dir "$STATE" watch
