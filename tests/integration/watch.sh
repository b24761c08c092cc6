#!/bin/sh
# watch: backlog, follow, restart in the middle of a log, new boots, bad state.
# The kernel log is stood in for by a file of real /dev/kmsg records
# (--kmsg), the boot id by a file (--boot-id-file).
. tests/lib.sh

M8='Non-hierarchical mode is deprecated. Please report your usecase to linux-mm@kvack.org if you depend on this functionality.'
M7='Cgroup memory moving (move_charge_at_immigrate) is deprecated. Please report your usecase to linux-mm@kvack.org if you depend on this functionality.'
M1B='kmem.limit_in_bytes is deprecated and will be removed. Writing any value to this file has no effect. Please report your usecase to linux-mm@kvack.org if you depend on this functionality.'
S1='Creating hierarchies with use_hierarchy==0 (flat hierarchy) is considered deprecated. If you believe that your setup is correct, we kindly ask you to contact linux-mm@kvack.org and let us know'

KMSG=$T_TMP/kmsg
STATE=$T_TMP/state
BOOT=$T_TMP/boot_id
echo 11111111-2222-3333-4444-555555555555 > "$BOOT"
seq=0
# rec PRIO TEXT: append one kmsg record with the next sequence number.
rec() {
	printf '%s,%d,%d,-;%s\n' "$1" "$seq" "$((seq * 1000 + 17))" "$2" >> "$KMSG"
	seq=$((seq + 1))
}
noise() {
	i=0
	while [ $i -lt "$1" ]; do
		rec 6 "eth0: link up, 1000 Mbps, full duplex ($seq)"
		printf ' SUBSYSTEM=net\n DEVICE=n2\n' >> "$KMSG"
		i=$((i + 1))
	done
}
watch_once() {
	"$CGFB" watch --once --json --kmsg "$KMSG" --state-dir "$STATE" --boot-id-file "$BOOT" \
		>"$T_TMP/out" 2>"$T_TMP/err"
}
ids() { sed -n 's/.*"id":"\([^"]*\)".*/\1/p' "$T_TMP/out" | tr '\n' ' '; }
expect_ids() {
	got=$(ids)
	if [ "$got" = "$2" ]; then ok "$1"; else not_ok "$1: got '$got', want '$2'"; cat "$T_TMP/err"; fi
}

# Part 1 of the boot: noise, M8, an injected userspace copy of M7, M7.
noise 20
rec 4 "$M8"
rec 12 "$M7"
noise 5
rec 4 "$M7"
noise 5
watch_once
check "first run exits 0" [ $? -eq 0 ]
expect_ids "first run reports M8 and M7 (userspace copy ignored)" "M8 M7 "
check "state file written" [ -s "$STATE/watch.state" ]
check "state dir is private" [ "$(stat -c %a "$STATE")" = 700 ]

# The ring buffer still holds part 1 when part 2 arrives: a repeat of M8,
# then M1b and an S1 inside a WARN block.
noise 3
rec 4 "$M8"
rec 4 '------------[ cut here ]------------'
rec 4 'WARNING: CPU: 0 PID: 4242 at mm/memcontrol.c:5007 mem_cgroup_css_alloc+0x3ac/0x510'
rec 4 "$S1"
rec 4 'CPU: 0 PID: 4242 Comm: libvirtd Not tainted 6.1.0-13-amd64 #1'
rec 4 '---[ end trace 0000000000000000 ]---'
rec 4 "$M1B"
watch_once
expect_ids "restart reports only what is new" "S1 M1b "
check "S1 carries the comm from its WARN block" grep -q '"comm":"libvirtd"' "$T_TMP/out"
check "repeat of M8 is counted in the state" grep -q '"M8": *2' "$STATE/watch.state"

watch_once
expect_ids "third run over the same log reports nothing" ""
# ...and says so, with where it started: a person tells "found nothing"
# from "read nothing". (Natively, CGFB_NATIVE: the run above took the same
# path under valgrind; only --json differs, and nothing was printed.)
"$CGFB_NATIVE" watch --once --kmsg "$KMSG" --state-dir "$STATE" --boot-id-file "$BOOT" \
	> /dev/null 2> "$T_TMP/said"
check "watch says where it starts reading and where its state is" \
	grep -q "reading $KMSG after record [0-9]* (state in $STATE)" "$T_TMP/said"
check "...and, with nothing new, that it read no new record and found nothing" \
	grep -q "$KMSG: 0 new records read, no new catalog message; done" "$T_TMP/said"

# kill -9 while following, in the middle of the log.
rm -f "$KMSG" "$STATE/watch.state"
seq=0
noise 10
rec 4 "$M8"
# (CGFB_TEST_WATCH_IDLE_MS, for tests only: it looks at the regular file
# every 200 ms instead of every 2 s, docs/TESTING.md.)
CGFB_TEST_WATCH_IDLE_MS=200 "$CGFB" watch --json --kmsg "$KMSG" --state-dir "$STATE" --boot-id-file "$BOOT" \
	>"$T_TMP/follow" 2>"$T_TMP/follow.err" &
pid=$!
i=0
while [ $i -lt "$(scaled 100)" ] && ! grep -q '"id":"M8"' "$T_TMP/follow"; do sleep 0.1; i=$((i + 1)); done
check "follow mode reports the backlog" grep -q '"id":"M8"' "$T_TMP/follow"
# New records while it follows (it polls a regular file every 2 s; 200 ms
# here).
rec 4 "$M7"
i=0
while [ $i -lt "$(scaled 100)" ] && ! grep -q '"id":"M7"' "$T_TMP/follow"; do sleep 0.1; i=$((i + 1)); done
check "follow mode reports new records" grep -q '"id":"M7"' "$T_TMP/follow"
kill -9 $pid
wait $pid 2>/dev/null
noise 2
rec 4 "$M1B"
rec 4 "$M7"
watch_once
expect_ids "after kill -9 nothing repeated, nothing missed" "M1b "

# SIGTERM saves the state and exits 0.
# Once it says where it reads (its handlers are in place by then: a
# SIGTERM before, in valgrind's start-up on a busy machine, kills it).
"$CGFB" watch --kmsg "$KMSG" --state-dir "$STATE" --boot-id-file "$BOOT" >/dev/null 2>"$T_TMP/term.err" &
pid=$!
wait_for_text() { i=0; while [ $i -lt "$(scaled 100)" ] && ! grep -q "$1" "$2"; do sleep 0.1; i=$((i + 1)); done; }
wait_for_text "reading $KMSG" "$T_TMP/term.err"
kill -TERM $pid
wait $pid
check "SIGTERM exits 0" [ $? -eq 0 ]

# A new boot: the kernel prints its once-per-boot messages again.
echo 99999999-2222-3333-4444-555555555555 > "$BOOT"
watch_once
expect_ids "a new boot reports again" "M8 M7 M1b "

# Records overwritten while nobody watched (the state points past a gap):
# said of the ring buffer, which a FIFO stands for (held open for writing
# here, so that --once reads it to its end); never of a recording, a
# regular file, which only lacks what was not saved in it (issue 38).
printf '{"boot_id":"%s","next":1,"reported":{}}' "$(cat "$BOOT")" > "$STATE/watch.state"
sed -i '1,30d' "$KMSG"
# The report writers natively (CGFB_VG_NATIVE, tests/lib.sh): each finds
# its message's report of this boot and counts nothing
# (reporter/main.c's find_repeat, "this boot was counted already"), the
# path the writer of M1b took under valgrind after kill -9 above. The
# watcher, whose gap is what is checked here, stays under valgrind.
CGFB_VG_NATIVE=cgroup-feedback-report "$CGFB" watch --once --json --kmsg "$KMSG" --state-dir "$STATE" \
	--boot-id-file "$BOOT" >"$T_TMP/out" 2>"$T_TMP/err"
check "a recording (a regular file): a gap in its sequence numbers is no record overwritten" \
	sh -c '[ $1 -eq 0 ] && ! grep -qi -e overwritten -e journal "$2"' _ $? "$T_TMP/err"
printf '{"boot_id":"%s","next":1,"reported":{}}' "$(cat "$BOOT")" > "$STATE/watch.state"
mkfifo "$T_TMP/ring"
exec 3<>"$T_TMP/ring"
cat "$KMSG" >&3
"$CGFB" watch --once --json --kmsg "$T_TMP/ring" --state-dir "$STATE" --boot-id-file "$BOOT" \
	>"$T_TMP/out" 2>"$T_TMP/err"
exec 3>&-
check "the live log (a FIFO stands for it): a gap in sequence numbers is reported" \
	grep -q 'overwritten while nobody watched' "$T_TMP/err"

# A corrupt state file is moved aside; the watcher goes on.
printf '{"boot_id": 12' > "$STATE/watch.state"
# The report writers natively (CGFB_VG_NATIVE, tests/lib.sh): the same
# records of the same file and boot as the recording's run above, whose
# writers took that path under valgrind (a regular file: no --journal-gap
# writer in either). The watcher moving the corrupt state aside stays
# under valgrind. (Not the FIFO's run: its gap starts a --journal-gap
# writer, a path of its own.)
CGFB_VG_NATIVE=cgroup-feedback-report "$CGFB" watch --once --json --kmsg "$KMSG" \
	--state-dir "$STATE" --boot-id-file "$BOOT" >"$T_TMP/out" 2>"$T_TMP/err"
rc=$?
check "corrupt state: exit 0" [ $rc -eq 0 ]
check "corrupt state: warned" grep -q 'corrupt: moved aside' "$T_TMP/err"
check "corrupt state: kept aside" [ -f "$STATE/watch.state.corrupt" ]

# Clear errors for what an administrator gets wrong.
"$CGFB" watch --once --kmsg /nonexistent/kmsg --state-dir "$STATE" --boot-id-file "$BOOT" \
	>/dev/null 2>"$T_TMP/err"
check "missing kernel log: exit 2" [ $? -eq 2 ]
check "missing kernel log: names it" grep -q '/nonexistent/kmsg' "$T_TMP/err"
"$CGFB" watch --once --kmsg "$KMSG" --state-dir /proc/nope --boot-id-file "$BOOT" \
	>/dev/null 2>"$T_TMP/err"
check "unusable state dir: exit 2" [ $? -eq 2 ]
check "unusable state dir: names it" grep -q '/proc/nope' "$T_TMP/err"
# One watcher for each state directory (base/watchlock.h): the service and a
# watcher started by hand on its directory would both answer every
# warning. A second is refused with the first's pid, and writes nothing;
# the first's kill -9 leaves no lock behind.
printf '{"boot_id":"%s","next":1,"reported":{}}' "$(cat "$BOOT")" > "$STATE/watch.state"
mkfifo "$T_TMP/live"
exec 4<>"$T_TMP/live"
"$CGFB_NATIVE" watch --kmsg "$T_TMP/live" --state-dir "$STATE" --boot-id-file "$BOOT" \
	>/dev/null 2>"$T_TMP/first.err" &
first=$!
i=0
until grep -q 'state in' "$T_TMP/first.err" || [ $i -ge 300 ]; do sleep 0.1; i=$((i + 1)); done
cp "$STATE/watch.state" "$T_TMP/state.before"
"$CGFB" status --state-dir "$STATE" > "$T_TMP/status" 2>&1
"$CGFB" status --json --state-dir "$STATE" > "$T_TMP/status.json" 2>&1
check "status says the watcher runs, and its pid" grep -qx "watcher: running (pid $first)" "$T_TMP/status"
check "... and so does status --json" python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["watcher"] == {"running": True, "pid": int(sys.argv[2])}' \
	"$T_TMP/status.json" "$first"
"$CGFB" watch --once --kmsg "$KMSG" --state-dir "$STATE" --boot-id-file "$BOOT" \
	>/dev/null 2>"$T_TMP/err"
rc=$?
check "a second watcher on one state directory: exit 2" [ $rc -eq 2 ]
check "... it names the first by its pid ($first)" grep -q "another watcher (pid $first)" "$T_TMP/err"
check "... and read and wrote nothing (watch.state as it was)" cmp -s "$STATE/watch.state" "$T_TMP/state.before"
kill -9 $first
wait $first 2>/dev/null
exec 4>&-
"$CGFB" watch --once --kmsg "$KMSG" --state-dir "$STATE" --boot-id-file "$BOOT" \
	>/dev/null 2>"$T_TMP/err"
check "after the first's kill -9 a watcher starts (no stale lock)" [ $? -eq 0 ]
# And one report writer at a time on a spool (reporter/main.c): while
# another holds reports/ (flock(1) stands in for scan --report's writer),
# the watcher's writer waits, and writes once it is let go.
WS=$T_TMP/ws
mkdir -p "$WS/reports"
mkfifo "$T_TMP/release"
flock "$WS/reports" sh -c ': > "$1"; read x < "$2"' _ "$T_TMP/held" "$T_TMP/release" &
holder=$!
i=0
until [ -e "$T_TMP/held" ] || [ $i -ge 300 ]; do sleep 0.1; i=$((i + 1)); done
"$CGFB_NATIVE" watch --once --kmsg "$KMSG" --state-dir "$WS" --boot-id-file "$BOOT" \
	>/dev/null 2>"$T_TMP/ws.err" &
w=$!
sleep 0.5
during=$(ls "$WS/reports" | grep -c '\.json$')
kill -0 $w 2>/dev/null && waiting=yes || waiting=no
echo > "$T_TMP/release"
wait $holder
wait $w
rc=$?
check "a report writer waits while another holds the spool (reports: $during, watcher waiting: $waiting)" \
	[ "$during.$waiting" = 0.yes ]
n=$(ls "$WS/reports" | grep -c "\.json$")
check "... and writes once it is let go (exit $rc, $n reports)" \
	[ "$rc.$n" = 0.3 ]
# A writer that never lets go (hung, or a lock taken through a state
# directory left readable): after the wait (30 s; 0.3 s here) no report for
# now, the watcher holds the detection and tries again; nothing is lost.
# (Under valgrind here, watcher and writer: their path of giving up; the
# runs before and after it are the programs themselves.)
WS=$T_TMP/ws2
mkdir -p "$WS/reports"
rm -f "$T_TMP/held"
flock "$WS/reports" sh -c ': > "$1"; read x < "$2"' _ "$T_TMP/held" "$T_TMP/release" &
holder=$!
i=0
until [ -e "$T_TMP/held" ] || [ $i -ge 300 ]; do sleep 0.1; i=$((i + 1)); done
CGFB_TEST_WRITER_WAIT_MS=300 timeout 60 "$CGFB" watch --once --kmsg "$KMSG" --state-dir "$WS" \
	--boot-id-file "$BOOT" >/dev/null 2>"$T_TMP/ws.err"
rc=$?
n=$(ls "$WS/reports" | grep -c "\.json$")
check "a spool locked past the wait: no report for now (exit $rc, $n reports), the watcher tries again" \
	sh -c '[ "$1.$2" = 2.0 ] && grep -q "tries again" "$3"' _ $rc $n "$T_TMP/ws.err"
check "... saying the spool is locked, by whom" \
	grep -q "reports has been locked by another report writer (pid $holder) for" "$T_TMP/ws.err"
echo > "$T_TMP/release"
wait $holder
"$CGFB_NATIVE" watch --once --kmsg "$KMSG" --state-dir "$WS" --boot-id-file "$BOOT" \
	>/dev/null 2>"$T_TMP/ws.err"
rc=$?
n=$(ls "$WS/reports" | grep -c "\.json$")
check "... and once it is let go the next run writes every report (exit $rc, $n reports)" \
	[ "$rc.$n" = 0.3 ]
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && [ -r /dev/kmsg ]; then
	# dmesg_restrict=1 makes /dev/kmsg need CAP_SYSLOG; the message says so.
	old=$(cat /proc/sys/kernel/dmesg_restrict)
	if echo 1 > /proc/sys/kernel/dmesg_restrict 2>/dev/null; then
		setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
			"$CGFB" scan >/dev/null 2>"$T_TMP/err"
		rc=$?
		echo "$old" > /proc/sys/kernel/dmesg_restrict
		check "no CAP_SYSLOG: exit 2" [ $rc -eq 2 ]
		check "no CAP_SYSLOG: says which capability" grep -q CAP_SYSLOG "$T_TMP/err"
	else
		skip "no CAP_SYSLOG" "cannot set kernel.dmesg_restrict here"
	fi
else
	skip "no CAP_SYSLOG" "needs root, setpriv and a readable /dev/kmsg"
fi

# The watcher never opens a network socket (only submit, flush and withdraw do).
# The programs themselves (CGFB_NATIVE), not valgrind around them: theirs
# are the calls traced; the same run over an unchanged log was the third
# run above, under valgrind.
if command -v strace >/dev/null; then
	strace -f -qq -e trace=socket -o "$T_TMP/strace" "$CGFB_NATIVE" watch --once --kmsg "$KMSG" \
		--state-dir "$STATE" --boot-id-file "$BOOT" >/dev/null 2>&1
	check "watch opens no network socket" sh -c "! grep -E 'AF_INET|AF_INET6|AF_PACKET|AF_NETLINK' '$T_TMP/strace'"
else
	skip "watch opens no network socket" "strace is not installed"
fi

# A WARN block whose end line never comes, and a continued line never
# ended: a following watcher reports what they hold once no record has
# come for 2 s (it does not wait for 256 more records; 200 ms here, with
# CGFB_TEST_WATCH_IDLE_MS, for tests only).
echo 33333333-2222-3333-4444-555555555555 > "$T_TMP/boot-open"
# follow_until NAME FILE N: watch FILE (following) until N detections are
# printed or the bound passes; then SIGTERM. What was printed before the
# stop is $T_TMP/NAME.before.
# [VG_NATIVE]: CGFB_VG_NATIVE for the watcher's command (tests/lib.sh).
follow_until() {
	CGFB_VG_NATIVE=${4:-} CGFB_TEST_WATCH_IDLE_MS=200 "$CGFB" watch --json --kmsg "$2" --state-dir "$T_TMP/state-$1" \
		--boot-id-file "$T_TMP/boot-open" > "$T_TMP/$1.out" 2> "$T_TMP/$1.err" &
	pid=$!
	i=0
	# (cat: the output file may not be there yet, and grep -c of a
	# missing file prints no count; the wait then ended at once.)
	while [ $i -lt "$(scaled 400)" ] && [ "$(cat "$T_TMP/$1.out" 2>/dev/null | grep -c '"id"')" -lt "$3" ]; do
		sleep 0.05; i=$((i + 1))
	done
	# What was printed before the stop: at the stop everything is handed out.
	cp "$T_TMP/$1.out" "$T_TMP/$1.before"
	kill -TERM $pid
	wait $pid
}
printf '4,0,17,-;------------[ cut here ]------------\n4,1,18,-;WARNING: CPU: 0 PID: 4242 at mm/memcontrol.c:5007 mem_cgroup_css_alloc+0x3ac/0x510\n4,2,19,-;%s\n4,3,20,-;CPU: 0 PID: 4242 Comm: libvirtd Not tainted 6.1.0-13-amd64 #1\n' \
	"$S1" > "$T_TMP/kmsg-block"
follow_until block "$T_TMP/kmsg-block" 1
check "an unended WARN block is closed when the log goes quiet: S1 with its process" \
	grep -q '"id":"S1".*"comm":"libvirtd"' "$T_TMP/block.before"
printf '4,0,21,c;Non-hierarchical mode is deprecated. Please report your usecase \n4,1,22,+;to linux-mm@kvack.org if you depend on this functionality.\n' \
	> "$T_TMP/kmsg-frag"
# Its report writers natively: a new report in a new spool, the block's
# writers' path just above, under valgrind there; the watcher joining
# the continued line stays under valgrind.
follow_until frag "$T_TMP/kmsg-frag" 1 cgroup-feedback-report
check "an unended continued line too: M8, whole" \
	grep -q '"id":"M8".*"text":"Non-hierarchical mode is deprecated. Please report your usecase to linux-mm@kvack.org' "$T_TMP/frag.before"

# A flood of repeats (a local user can make the kernel print some texts
# again and again) costs no fsync each: the repeats are saved with the end
# of their burst. Only the watcher's own calls are traced (no -f).
if command -v strace > /dev/null; then
	K3=$T_TMP/kmsg-flood
	: > "$K3"
	python3 -c 'import sys
m = sys.argv[1]
with open(sys.argv[2], "w") as f:
    for i in range(2000):
        f.write("4,%d,%d,-;%s\n" % (i, i * 1000 + 17, m))' "$M8" "$K3"
	# The watcher's own binary (not a valgrind wrapper): its calls are counted.
	strace -qq -e trace=fsync,fdatasync -o "$T_TMP/flood.strace" \
		"$PWD/$BUILD/cgroup-feedback-watch" --once --json \
		--kmsg "$K3" --state-dir "$T_TMP/state-flood" --boot-id-file "$T_TMP/boot-open" \
		> "$T_TMP/flood.out" 2> /dev/null
	n=$(grep -c 'sync(' "$T_TMP/flood.strace")
	check "2,000 repeats of M8: $n fsyncs by the watcher, not 2 each" [ "$n" -ge 1 -a "$n" -le 10 ]
	check "... reported once" [ "$(grep -c '"id"' "$T_TMP/flood.out")" -eq 1 ]
	check "... counted 2,000 times" grep -q '"M8":2000' "$T_TMP/state-flood/watch.state"
else
	skip "a flood of repeats" "strace is not installed"
fi

# scan of the live log reads the same records.
"$CGFB" scan --json --kmsg "$KMSG" > "$T_TMP/out"
check "scan --kmsg exit 0" [ $? -eq 0 ]
expect_ids "scan --kmsg reports every occurrence" "M8 M7 M1b M7 "
finish
