#!/bin/sh
# make demo (tools/demo.sh) and make run (tools/run-local.sh), the README's
# first commands, as an administrator starts them.
# The demo: a recorded kernel log replayed into a scratch directory of its
# own with a collector of its own: reports pending within a minute, the
# three next commands it prints work when pasted (review with show in its
# place, the dashboard's token, withdraw after a send), Ctrl-C ends it and
# removes its directory, and the system's spools, /run/motd.d and the
# system's banner are as they were.
# make run: the collector and the watcher come up, in a trial directory of
# their own by default (CGFB_TRIAL_DIR), it says where it writes (state,
# database, banner), CGFB_STATE_DIR, CGFB_SERVER_DIR and CGFB_LISTEN move
# them, the review command it prints works when pasted (with status in
# review's place: review wants a terminal), and Ctrl-C (SIGINT to its
# process group) stops both.
# shellcheck shell=sh
. tests/lib.sh

# As `make run` and `make demo` give it: relative to the checkout.
BIN=$BUILD
# Under valgrind, its programs are the wrapped copies.
under_valgrind && BIN=$(dirname "$CGFB")
# In a session of its own, as from a terminal, with SIGINT at its default: a
# background job of a script starts with SIGINT ignored, which a shell
# cannot trap.
in_session() {
	exec python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.setsid()
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}
# What of the system a trial must leave alone: the installed service's
# spools, the banners login shows and the packaged banner, each file's
# name, mode and content.
SYSTEM="/var/lib/cgroup-feedback /var/lib/cgroup-feedback-server /run/motd.d /run/cgroup-feedback /etc/motd"
system_state() {
	for p in $SYSTEM; do
		if [ -e "$p" ] || [ -L "$p" ]; then
			find "$p" -printf '%p %y %m %l\n' 2>&1 | sort
			find "$p" -type f -exec sha256sum {} + 2>&1 | sort
		else
			echo "$p: none"
		fi
	done
}
# same_system BEFORE NAME: the system as in BEFORE, or a skip when the
# installed service runs here and changed its own spool meanwhile.
same_system() {
	system_state > "$T_TMP/after.sys"
	if cmp -s "$1" "$T_TMP/after.sys"; then
		ok "$2"
	elif pgrep -f 'cgroup-feedback-(watch|server)( .*)? /var/lib/cgroup-feedback' > /dev/null; then
		skip "$2" "the installed service runs here and writes its spool meanwhile"
	else
		not_ok "$2"
		diff "$1" "$T_TMP/after.sys" | head -n 20 | sed 's/^/#   /'
	fi
}

# --- make demo -----------------------------------------------------------------
system_state > "$T_TMP/before.sys"
mkdir "$T_TMP/tmp"
TMPDIR=$T_TMP/tmp BUILD=$BIN in_session sh tools/demo.sh > "$T_TMP/demo.out" 2>&1 &
dpid=$!
trap 'kill -INT "-$dpid" 2>/dev/null; t_cleanup' EXIT
up=no
for _ in $(seq "$(scaled 600)"); do
	grep -q '^Ctrl-C stops the collector' "$T_TMP/demo.out" && { up=yes; break; }
	kill -0 "$dpid" 2>/dev/null || break
	sleep 0.1
done
check "make demo: within a minute it prints the next commands" [ "$up" = yes ]
[ "$up" = yes ] || evidence "$T_TMP/demo.out"
DD=$(sed -n 's/^Ctrl-C stops the collector and removes \(.*\)\.$/\1/p' "$T_TMP/demo.out")
check "... its scratch directory is its own (in TMPDIR, 0700)" \
	sh -c '[ -n "$1" ] && case $1 in "$2"/cgroup-feedback-demo.*) [ "$(stat -c %a "$1")" = 700 ];; *) false;; esac' \
	_ "$DD" "$T_TMP/tmp"
check "... at least one report pending there" sh -c \
	'"$1" --state-dir "$2/state" list | grep -q " pending "' _ "$CGFB_NATIVE" "$DD"
check "... each about the recorded Fedora machine, as its log shows it, and nothing of this one's" \
	python3 - "$DD" "$(uname -r)" <<'EOP'
import glob, json, sys
files = glob.glob(sys.argv[1] + "/state/reports/*.json")
assert files
for f in files:
    r = json.load(open(f))
    s = r["system"]
    assert s["facts"] == "log" and s["kernel"]["release"] == "6.15.4-N.fc42.x86_64", s
    assert s["cmdline"] == {"systemd.unified_cgroup_hierarchy": "0"}, s
    assert r["topology"]["hierarchies"] == [] and sys.argv[2] not in json.dumps(r), r
EOP
check "... no record of the recording called overwritten" sh -c '! grep -qi overwritten "$1" "$2/watch.log"' \
	_ "$T_TMP/demo.out" "$DD"
paste_hint 's/^ *\(.*\) review \([0-9a-f-]*\)$/\1 show \2/p' "$T_TMP/demo.out" \
	"the demo's review command (show in review's place)"
sed -n 's/^ *\(cat .*admin-token.*\)$/\1/p' "$T_TMP/demo.out" > "$T_TMP/catcmd"
DPORT=$(sed -n 's|.*dashboard, http://127.0.0.1:\([0-9]*\)/ .*|\1|p' "$T_TMP/demo.out")
check "the demo's dashboard takes the admin token its command prints" sh -c \
	'tok=$(cd / && eval "$(cat "$1")") && [ -n "$tok" ] &&
	 [ "$(curl -s -o /dev/null -w %{http_code} -X POST -H "Authorization: Bearer $tok" "http://127.0.0.1:$2/api/v1/session")" = 200 ]' \
	_ "$T_TMP/catcmd" "$DPORT"
# Sent as review would send it (yes, no use case), then the printed withdraw.
did=$(sed -n 's/^ *.* withdraw \([0-9a-f-]*\)$/\1/p' "$T_TMP/demo.out")
"$CGFB_NATIVE" --config "$DD/client.conf" --state-dir "$DD/state" submit "$did" --yes > "$T_TMP/submit.out" 2>&1
check "the demo's report sent to the demo's collector" grep -q "^$did: sent" "$T_TMP/submit.out"
paste_hint 's/^ *\(.* withdraw [0-9a-f-]*\)$/\1/p' "$T_TMP/demo.out" "the demo's withdraw command"
# Ctrl-C twice, as an impatient administrator (or timeout, which signals
# the child and then its group) does: the second lands while the demo
# stops its collector, and must not cut its cleanup short.
kill -INT "-$dpid" 2>/dev/null
sleep 0.03
kill -INT "-$dpid" 2>/dev/null
gone=no
for _ in $(seq "$(scaled 50)"); do
	if ! kill -0 "$dpid" 2>/dev/null && [ ! -e "$DD" ] && ! pgrep -f "port-file $DD/" > /dev/null; then
		gone=yes
		break
	fi
	sleep 0.2
done
wait "$dpid"
check "Ctrl-C, twice, ends the demo (exit 0), its collector stopped, its directory removed" \
	sh -c '[ "$1" = yes ] && [ "$2" -eq 0 ]' _ "$gone" $?
trap t_cleanup EXIT
same_system "$T_TMP/before.sys" \
	"the demo left /var/lib/cgroup-feedback*, /run/motd.d and the system's banner as they were"

if [ "$(id -u)" -ne 0 ]; then
	skip "make run" "it reads /dev/kmsg: needs root"
	finish
	exit
fi
# --- make run ------------------------------------------------------------------
# Its own trial directory (a space in its name: the printed commands quote).
TRIAL="$T_TMP/trial dir"
ST=$TRIAL/state
SV=$TRIAL/collector
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

# What a run reuses must be root's alone: an admin token another user
# owns (they would know the collector's admin token), or a collector
# directory others may write, stops the run before anything starts.
mkdir -m 0700 "$T_TMP/sv-theirs" "$T_TMP/sv-open"
echo planted > "$T_TMP/sv-theirs/admin-token"
chown 65534 "$T_TMP/sv-theirs/admin-token"
chmod 0770 "$T_TMP/sv-open"
for sv in sv-theirs sv-open; do
	CGFB_STATE_DIR=$T_TMP/st-$sv CGFB_SERVER_DIR=$T_TMP/$sv CGFB_LISTEN=127.0.0.1:0 BUILD=$BIN \
		timeout 30 sh tools/run-local.sh > "$T_TMP/$sv.out" 2>&1
	echo $? >> "$T_TMP/$sv.out"
done
check "an admin-token another user owns: make run refuses it (exit 1), saying so, and starts nothing" \
	sh -c 'grep -q "admin-token belongs to uid 65534; refusing to use it" "$1" && [ "$(tail -n 1 "$1")" = 1 ] &&
	       [ ! -e "$2" ] && [ ! -e "$3" ]' _ "$T_TMP/sv-theirs.out" "$T_TMP/st-sv-theirs" "$T_TMP/sv-theirs/port"
check "a collector directory others may write: refused the same way" \
	sh -c 'grep -q "sv-open may be written by others than root (mode 770); refusing" "$1" &&
	       [ "$(tail -n 1 "$1")" = 1 ] && [ ! -e "$2" ]' _ "$T_TMP/sv-open.out" "$T_TMP/st-sv-open"
# A client.conf left as a link to another file: replaced, never written through.
mkdir -p -m 0700 "$SV"
echo "the victim's bytes" > "$T_TMP/victim"
ln -s "$T_TMP/victim" "$SV/client.conf"

# A pending report waits in the trial's state directory: the login banner
# the watcher writes at its start names it, and goes when the trial stops.
python3 tests/client/pending_report.py "$ST" M8 mr > /dev/null
chmod 700 "$ST"

# Only the trial directory named: the state and the collector's files go
# in it, not in the installed service's /var/lib/cgroup-feedback*.
system_state > "$T_TMP/before.sys"
CGFB_TRIAL_DIR=$TRIAL CGFB_LISTEN=127.0.0.1:$PORT BUILD=$BIN \
	in_session sh tools/run-local.sh > "$T_TMP/out" 2>&1 &
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
check "... in a client.conf of its own: the link left there replaced, its target untouched" \
	sh -c '[ -f "$1" ] && [ ! -L "$1" ] && [ "$(cat "$2")" = "the victim'"'"'s bytes" ]' _ "$SV/client.conf" "$T_TMP/victim"
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
check "... and status says the trial's watcher runs (pid ${wpid:-none})" \
	grep -qx "watcher: running (pid $wpid)" "$T_TMP/hint"
# A second make run on the same trial while this one runs: refused before
# it starts a collector or rewrites this one's client.conf.
cp "$SV/client.conf" "$T_TMP/conf.before"
CGFB_TRIAL_DIR=$TRIAL CGFB_LISTEN=127.0.0.1:0 BUILD=$BIN timeout 30 sh tools/run-local.sh \
	> "$T_TMP/second.out" 2>&1
rc=$?
check "a second make run on a running trial: exit 1, naming its state directory" \
	sh -c '[ $1 -eq 1 ] && grep -q "a watcher already follows the kernel log for $2" "$3"' \
	_ $rc "$ST" "$T_TMP/second.out"
check "... having started and written nothing (client.conf as it was)" \
	sh -c 'cmp -s "$1" "$2" && ! grep -q "collector on" "$3"' _ "$SV/client.conf" \
	"$T_TMP/conf.before" "$T_TMP/second.out"
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
same_system "$T_TMP/before.sys" \
	"make run left /var/lib/cgroup-feedback*, /run/motd.d and the system's banner as they were"
finish
