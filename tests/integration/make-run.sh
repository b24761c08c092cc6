#!/bin/sh
# make run (tools/run-local.sh), the README's first command, as an
# administrator starts it: the collector and the watcher come up, it says
# where it writes (state, database, banner), CGFB_STATE_DIR, CGFB_SERVER_DIR
# and CGFB_LISTEN move them, the review command it prints works when pasted
# (with status in review's place: review wants a terminal), and Ctrl-C
# (SIGINT to its process group) stops both.
# shellcheck shell=sh
. tests/lib.sh

if [ "$(id -u)" -ne 0 ]; then
	skip "make run" "it reads /dev/kmsg: needs root"
	finish
	exit
fi
# As `make run` gives it: relative to the checkout.
BIN=$BUILD
# Under valgrind, its programs are the wrapped copies.
under_valgrind && BIN=$(dirname "$CGFB")
ST=$T_TMP/state
SV="$T_TMP/server dir"
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# A port already taken: make run says so and starts nothing (no watcher).
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
open(sys.argv[1], "w").write(str(s.getsockname()[1])); time.sleep(60)' "$T_TMP/taken" &
holder=$!
for _ in $(seq 50); do [ -s "$T_TMP/taken" ] && break; sleep 0.1; done
CGFB_STATE_DIR=$T_TMP/st-taken CGFB_SERVER_DIR=$T_TMP/sv-taken \
	CGFB_LISTEN=127.0.0.1:$(cat "$T_TMP/taken") BUILD=$BIN timeout 30 sh tools/run-local.sh \
	> "$T_TMP/taken.out" 2>&1
rc=$?
kill $holder 2>/dev/null
check "a port already taken: make run exits 1, saying so and how to choose another" \
	sh -c '[ $1 -eq 1 ] && grep -q "the collector could not listen on 127.0.0.1:" "$2" && grep -q "CGFB_LISTEN=127.0.0.1:PORT make run" "$2"' \
	_ $rc "$T_TMP/taken.out"
check "... and started no watcher" [ ! -e "$T_TMP/st-taken" ]

# A pending report waits in the trial's state directory: the login banner
# the watcher writes at its start names it, and goes when the trial stops.
python3 tests/client/pending_report.py "$ST" M8 mr > /dev/null
chmod 700 "$ST"

# In a session of its own, as from a terminal, with SIGINT at its default: a
# background job of a script starts with SIGINT ignored, which a shell
# cannot trap.
CGFB_STATE_DIR=$ST CGFB_SERVER_DIR=$SV CGFB_LISTEN=127.0.0.1:$PORT BUILD=$BIN \
	python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.setsid()
os.execvp("sh", ["sh", "tools/run-local.sh"])' > "$T_TMP/out" 2>&1 &
pid=$!
stop() { kill -INT "-$pid" 2>/dev/null; }
trap 'stop; t_cleanup' EXIT

up=no
for _ in $(seq "$(scaled 100)"); do
	# The state directory exists before (the pending report planted
	# above): up is the watcher's first state saved.
	if curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$PORT/api/v1/summary" &&
	   [ -s "$ST/watch.state" ]; then
		up=yes
		break
	fi
	sleep 0.2
done
check "the collector answers on CGFB_LISTEN and the watcher saved its state" [ "$up" = yes ]
check "it says where the reports are" grep -q "state and reports in $ST" "$T_TMP/out"
check "it says where the database and the admin token are" \
	grep -q "database $SV/collector.db" "$T_TMP/out"
check "it says where the login banner goes: beside the moved state, not the system's" \
	grep -q "login banner in $ST/login-banner.motd" "$T_TMP/out"
i=0
while [ ! -s "$ST/login-banner.motd" ] && [ $i -lt "$(scaled 50)" ]; do sleep 0.2; i=$((i + 1)); done
check "... where the watcher wrote it, naming the pending report" grep -q M8 "$ST/login-banner.motd"
check "the database is where it says" [ -f "$SV/collector.db" ]
check "the client's endpoint is this collector" \
	grep -qx "endpoint = http://127.0.0.1:$PORT/api/v1/reports" "$SV/client.conf"
# The watcher on the host's real /dev/kmsg, as root: once it has read the
# log it holds CAP_SYSLOG (bit 34) in none of its capability sets.
wpid=$(pgrep -f "cgroup-feedback-watch .*$ST" | head -n 1)
no_syslog() {
	[ -n "$wpid" ] || { echo "no watcher process found"; return 1; }
	i=0
	while [ $i -lt "$(scaled 50)" ] && [ ! -s "$ST/watch.state" ]; do sleep 0.2; i=$((i + 1)); done
	grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' "/proc/$wpid/status"
	grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' "/proc/$wpid/status" |
		awk '{ b = substr($2, length($2) - 8, 1); if (index("4567cdefCDEF", b)) bad = 1 } END { exit bad }'
}
check "the watcher on /dev/kmsg gave up CAP_SYSLOG once it read the log" no_syslog
# Pasted in another terminal: another directory, without this one's
# environment.
hint=$(sed -n 's/^ *sudo \(.*\) review$/\1 status/p' "$T_TMP/out")
if [ -n "$hint" ] && (cd / && unset CGFB_STATE_DIR CGFB_CONFIG && eval "$hint") > "$T_TMP/hint" 2>&1; then
	ok "the printed review command works when pasted in / ('$hint')"
else
	not_ok "the printed review command works when pasted in / ('$hint'): $(head -c 300 "$T_TMP/hint")"
fi
check "...and it used make run's configuration (its collector's endpoint)" \
	grep -qx "endpoint: http://127.0.0.1:$PORT/api/v1/reports" "$T_TMP/hint"
stop
gone=no
for _ in $(seq "$(scaled 50)"); do
	if ! kill -0 "$pid" 2>/dev/null && ! pgrep -f "127.0.0.1:$PORT" > /dev/null; then
		gone=yes
		break
	fi
	sleep 0.2
done
check "Ctrl-C stops the collector and the watcher" [ "$gone" = yes ]
check "... and the banner the trial wrote is gone" [ ! -e "$ST/login-banner.motd" ]
wait "$pid" 2>/dev/null
finish
