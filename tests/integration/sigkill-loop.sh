#!/bin/sh
# SIGKILL at every step: the watcher, review, submit, flush and export are
# killed just before their 1st, 2nd, ... Nth call that changes the disk
# (write, open with O_CREAT, fsync, rename, unlink: tests/tools/killshim.so),
# so every point is hit once, between a rename and its directory's fsync
# included; then some at random times. After every round (and a recovery
# run) tests/client/spool_check.py holds the spool to its promises against a
# collector double that keeps receipts: reports whole or absent, consent
# only for the bytes shown, nothing acknowledged sent twice or forgotten;
# and a warning killed mid-report is reported exactly once by the restarted
# watcher.
. tests/lib.sh
. tests/client/lib.sh

SHIM=$PWD/$BUILD/tests/tools/killshim.so
# The rounds run the programs themselves even under valgrind: the shim
# would count (and kill) valgrind's own writes, and a killed process's leak
# check never runs.
if under_valgrind; then
	CGFB=$PWD/$BUILD/cgroup-feedback
	skip "valgrind over the killed commands" "SIGKILL by design: they run without valgrind"
fi
ST=$T_TMP/state
CONF=$T_TMP/conf
KMSG=$T_TMP/kmsg
MEM=$T_TMP/memory.json
if [ ! -f "$SHIM" ]; then
	skip "kill loop" "$SHIM not built (make tests)"
	finish
	exit
fi
# An ASan binary wants its runtime first; the shim does not mind.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
export ASAN_OPTIONS
mkdir -p "$ST/reports"
$PY tests/data/cgroupfs/mkfixture.py tests/data/cgroupfs/flat-affected.desc "$T_TMP/fx" > /dev/null
start_double "$T_TMP/double" api
# One checker for every round (check_round).
mkfifo "$T_TMP/chk.in" "$T_TMP/chk.out"
$PY tests/client/spool_check.py --serve "$T_TMP/chk.in" "$T_TMP/chk.out" > "$T_TMP/chk.err" 2>&1 &
CHK=$!
trap 'kill $CHK 2>/dev/null; stop_double; t_cleanup' EXIT
printf 'endpoint = %s\nmotd-path = %s/motd\nnotify = log, motd\ntimeout = %s\nconnect-timeout = %s\n' \
	"$URL" "$T_TMP" "$(scaled 5)" "$(scaled 2)" > "$CONF"
echo "We run one KVM guest per cgroup." > "$T_TMP/uc"
TAB=$(printf '\t')
printf 'Which software creates%slibvirt\nWhy must these sibling%s\nWould the reorganisation%s\nDescribe your use case%s\nSend this report to%sy\n' \
	"$TAB" "$TAB" "$TAB" "$TAB" "$TAB" > "$T_TMP/review.script"

BAD=0
ROUNDS=0
DUPS=0
LOST=0
cfb() { timeout 30 "$CGFB" --config "$CONF" "$@"; }
# shimmed AT CMD...: run CMD with the shim killing at step AT (0: never).
shimmed() {
	at=$1; shift
	KILLSHIM_AT=$at KILLSHIM_PROG=${PROG:-} LD_PRELOAD=$SHIM KILLSHIM_LOG=${SHIMLOG:-} \
		timeout 30 "$@" > /dev/null 2>&1
}
ids() { ls "$ST/reports" | sed -n 's/\.json$//p' | sort; }
# What the watcher made of the warnings so far: a report each, or a boot
# counted on a report it repeats (docs/REPEATS.md). A warning makes one.
# (awk, not a Python: this runs twice in each of some 60 watch rounds a
# build. A .seen is written whole, by rename, one field a line:
# client/report/spool.c.)
events() {
	ls -A "$ST/reports" | awk -v d="$ST/reports" '
		/\.json$/ { n++ }
		/\.seen$/ {
			f = d "/" $0
			b = ""
			while ((getline l < f) > 0)
				if (l ~ /^ *"boots": *[0-9]+,?$/) { gsub(/[^0-9]/, "", l); b = l }
			close(f)
			if (b == "") { print "no boots in " f > "/dev/stderr"; bad = 1; exit 1 }
			n += b - 1
		}
		END { if (bad) exit 1; print n + 0 }'
}
state_of() {
	[ -f "$ST/reports/$1.state" ] || { echo pending; return; }
	sed -n 's/.*"state":"\([a-z]*\)".*/\1/p' "$ST/reports/$1.state" | head -1
}
pending_one() {
	for i in $(ids); do
		[ "$(state_of "$i")" = pending ] && { echo "$i"; return; }
	done
	$PY tests/client/pending_report.py "$ST" M8 "p$ROUNDS.$$"
}
# A pending M8 report: review.script answers M8's questions (the C4
# reports the watch rounds leave ask others).
pending_m8() {
	for i in $(ids); do
		[ "$(state_of "$i")" = pending ] && grep -q '"catalog_id":"M8"' "$ST/reports/$i.json" &&
			{ echo "$i"; return; }
	done
	$PY tests/client/pending_report.py "$ST" M8 "p$ROUNDS.$$"
}
# A report consented but not yet sent: the double fails the first try.
consented_one() {
	id=$(pending_one)
	echo fail500 > "$T_TMP/double/mode"
	cfb submit --state-dir "$ST" --yes --use-case-file "$T_TMP/uc" "$id" > /dev/null 2>&1
	rm -f "$T_TMP/double/mode"
	$PY -c "
import json; p = '$ST/reports/$id.state'; s = json.load(open(p)); s['next_attempt'] = 0
json.dump(s, open(p, 'w'))"
	echo "$id"
}

# round KIND AT: prepare work for KIND, run it killed at step AT, check.
round() {
	kind=$1 at=$2
	ROUNDS=$((ROUNDS + 1))
	PROG=
	case $kind in
	watch|report)
		# C4 from a process named after the round: another trigger each
		# time, so each warning is a new report (a repeat would only be
		# counted on the old one, docs/REPEATS.md) and every step of
		# writing one is killed in turn.
		printf '4,%d,1000,-;option changes via remount are deprecated (pid=%d comm=job%s)\n' \
			"$ROUNDS" "$ROUNDS" "$(echo "$ROUNDS" | tr 0-9 a-j)" > "$KMSG"
		echo "0b0e0000-1111-4222-8333-$(printf '%012d' $ROUNDS)" > "$T_TMP/boot"
		# `cgroup-feedback watch` runs cgroup-feedback-watch, which runs
		# cgroup-feedback-report for each report: one of them is killed.
		PROG=cgroup-feedback-watch
		[ "$kind" = report ] && PROG=cgroup-feedback-report
		before=$(events)
		set -- "$CGFB" --config "$CONF" watch --once --kmsg "$KMSG" --state-dir "$ST" \
			--boot-id-file "$T_TMP/boot" --cgroup-root "$T_TMP/fx/root" \
			--mountinfo "$T_TMP/fx/mountinfo" ;;
	submit|flush|export|review)
		# cgroup-feedback runs these as cgroup-feedback-send, the
		# program that writes (docs/ARCHITECTURE.md): its steps are killed.
		PROG=cgroup-feedback-send ;;
	esac
	case $kind in
	submit)
		set -- "$CGFB" --config "$CONF" submit --state-dir "$ST" --yes \
			--use-case-file "$T_TMP/uc" "$(pending_one)" ;;
	flush)
		consented_one > /dev/null
		set -- "$CGFB" --config "$CONF" flush --state-dir "$ST" ;;
	export)
		set -- "$CGFB" --config "$CONF" export --yes --state-dir "$ST" --use-case-file "$T_TMP/uc" \
			-o "$T_TMP/x.eml" "$(pending_one)" ;;
	review)
		set -- $PY tests/client/drive_review.py "$T_TMP/review.log" -- \
			"$CGFB" --config "$CONF" review --state-dir "$ST" "$(pending_m8)" ;;
	esac
	if [ "$kind" = review ]; then
		# The shim belongs in the client, not in python.
		KILLSHIM_AT=$at KILLSHIM_PROG=$PROG LD_PRELOAD=$SHIM \
			KILLSHIM_LOG=${SHIMLOG:-} timeout 60 "$@" < "$T_TMP/review.script" \
			> /dev/null 2>&1
	elif [ "$at" = random ]; then
		"$@" > /dev/null 2>&1 &
		pid=$!
		sleep "0.0$(( (ROUNDS * 7919) % 60 + 10 ))"
		kill -9 $pid 2>/dev/null
		wait $pid 2>/dev/null
	else
		PROG=${PROG:-cgroup-feedback} shimmed "$at" "$@"
	fi
	check_round "$kind" "$at"
	# Recovery: the watcher restarted on the same log reports it once.
	case $kind in
	watch|report)
		"$@" > /dev/null 2>&1
		n=$(($(events) - before))
		if [ $n -ne 1 ]; then
			[ $n -gt 1 ] && DUPS=$((DUPS + 1)) || LOST=$((LOST + 1))
			echo "# round $ROUNDS ($kind at $at): $n reports or counted boots for one warning"
		fi ;;
	*)
		cfb flush --state-dir "$ST" > /dev/null 2>&1 ;;
	esac
	check_round "$kind" "$at, then recovery"
}

check_round() {
	# Bounded: a checker that died must fail the round, not hang the script.
	timeout 60 sh -c 'echo "$1" > "$2"' _ "$ST/reports $T_TMP/double $MEM" "$T_TMP/chk.in"
	timeout 120 cat "$T_TMP/chk.out" > "$T_TMP/why"
	if [ "$(tail -n 1 "$T_TMP/why")" != "== 0" ]; then
		# The checker's own death is a failure too, with its reason.
		kill -0 $CHK 2>/dev/null || cat "$T_TMP/chk.err" >> "$T_TMP/why"
		BAD=$((BAD + 1))
		sed "s/^/# round $ROUNDS ($1 at $2): /" "$T_TMP/why" | head -5
	fi
}

# steps KIND: TOTAL, how many counted calls one unkilled run of KIND makes.
steps() {
	SHIMLOG=$T_TMP/steps.$1
	rm -f "$SHIMLOG"
	round "$1" 0
	TOTAL=0
	[ -f "$SHIMLOG" ] && TOTAL=$(wc -l < "$SHIMLOG")
	SHIMLOG=
}

# Walk every step of each command (at most MAXSTEPS of them, evenly spread).
MAXSTEPS=${MAXSTEPS:-45}
for kind in watch report submit flush export review; do
	steps "$kind"
	total=$TOTAL
	stride=$(( (total + MAXSTEPS - 1) / MAXSTEPS ))
	[ "$stride" -ge 1 ] || stride=1
	echo "# $kind: $total steps, every ${stride}th killed"
	at=1
	while [ "$at" -le "$total" ]; do
		round "$kind" "$at"
		at=$((at + stride))
	done
	[ "$total" -gt 0 ] || not_ok "$kind: the shim saw no step (is it preloaded?)"
	# Keep the spool small enough that each check stays quick.
	for i in $(ids); do
		[ "$(state_of "$i")" = sent ] && rm -f "$ST/reports/$i.json" "$ST/reports/$i.state" \
			"$ST/reports/$i.seen" "$ST/reports/$i.draft"
	done
done
# And at random times: the steps the shim does not count (sockets, reads).
# 100 on the normal build; 30 on the ASan+UBSan build, which walks every
# counted step above in full as well: what the random rounds add is timing,
# which the sanitizers see no more of (and each of its rounds costs twice).
case $BUILD in *san*) RANDOM_ROUNDS=${RANDOM_ROUNDS:-30} ;; esac
r=0
while [ $r -lt ${RANDOM_ROUNDS:-100} ]; do
	r=$((r + 1))
	case $((r % 4)) in
	0) round watch random ;;
	1) round submit random ;;
	2) round flush random ;;
	3) round export random ;;
	esac
done

check "$ROUNDS kill rounds: the spool kept every promise" [ $BAD -eq 0 ]
check "no warning was reported twice by a restarted watcher" [ $DUPS -eq 0 ]
check "no warning was lost by a killed watcher" [ $LOST -eq 0 ]
cfb list --state-dir "$ST" > "$T_TMP/list" 2>"$T_TMP/err"
check "list works afterwards" [ $? -eq 0 ]
check "nothing was quarantined" \
	sh -c '[ ! -d "$1" ] || [ -z "$(ls "$1")" ]' _ "$ST/reports/quarantine"
# The temporaries of interrupted writes: list removes them once they are
# older than any write takes (aged here, not waited for).
left=$(find "$ST/reports" -maxdepth 1 -name '.*.tmp.*' | wc -l)
echo "# $left temporaries left by the kills"
find "$ST/reports" -maxdepth 1 -name '.*.tmp.*' -exec touch -d '1 hour ago' {} +
touch "$ST/reports/.$(ls "$ST/reports" | grep -m1 '\.json$').tmp.1"   # a young one
cfb list --state-dir "$ST" > /dev/null 2>"$T_TMP/err"
check "list removes the stale temporaries of killed writes" \
	[ "$(find "$ST/reports" -maxdepth 1 -name '.*.tmp.*' | wc -l)" -eq 1 ]
check "and says so" [ "$(grep -c 'left by an interrupted write' "$T_TMP/err")" -eq "$left" ]

# The watcher killed while its report writer is mid-step (held there by
# the shim): the writer dies with it, rather than writing beside the next
# watcher's writer (one writer at a time, report/repindex.h); the next
# watcher writes the report, once.
O=$T_TMP/orphan
mkdir -p "$O/state/reports"
printf '4,1,1000,-;option changes via remount are deprecated (pid=7 comm=orphan)\n' > "$O/kmsg"
echo 0b0e0000-1111-4222-8333-0000000000ff > "$O/boot"
set -- "$CGFB" --config "$CONF" watch --once --kmsg "$O/kmsg" --state-dir "$O/state" \
	--boot-id-file "$O/boot" --cgroup-root "$T_TMP/fx/root" --mountinfo "$T_TMP/fx/mountinfo"
KILLSHIM_AT=1 KILLSHIM_PROG=cgroup-feedback-report KILLSHIM_ARG=--report-id \
	KILLSHIM_HOLD=$O/writer LD_PRELOAD=$SHIM \
	"$@" > /dev/null 2>&1 &
wpid=$!
i=0
while [ ! -s "$O/writer" ] && [ $i -lt 300 ] && kill -0 $wpid 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
kill -9 $wpid 2>/dev/null
wait $wpid 2>/dev/null
orphan=$(cat "$O/writer" 2>/dev/null)
# Dead: gone, or a zombie until whoever adopted it reaps it.
alive() { [ -r "/proc/$1/stat" ] && [ "$(sed 's/.*) //; s/ .*//' "/proc/$1/stat" 2>/dev/null)" != Z ]; }
i=0
while [ -n "$orphan" ] && alive "$orphan" && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
check "the watcher's report writer was caught mid-step (pid ${orphan:-none})" [ -n "$orphan" ]
dead=no
[ -n "$orphan" ] && ! alive "$orphan" && dead=yes
check "... and died with its killed watcher" [ $dead = yes ]
[ -z "$orphan" ] || kill -9 "$orphan" 2>/dev/null
"$@" > /dev/null 2>&1
check "the next watcher wrote its report, once" \
	[ "$(ls "$O/state/reports" | grep -c '\.json$')" -eq 1 ]

# Kills of the report writer, not of the watcher: the held record is read
# again and the log replays exactly what happened. M4's text printed twice
# is M4 then M5 (two call sites), whatever writer dies: never an invented
# M5, never a count inflated; and a WARN block's report keeps its process
# and function when its writer died the first time.
M4='oom_control is deprecated and will be removed. Please report your usecase to linux-mm-@kvack.org if you depend on this functionality.'
M7='Cgroup memory moving (move_charge_at_immigrate) is deprecated. Please report your usecase to linux-mm@kvack.org if you depend on this functionality.'
S1='Creating hierarchies with use_hierarchy==0 (flat hierarchy) is considered deprecated. If you believe that your setup is correct, we kindly ask you to contact linux-mm@kvack.org and let us know'
W=$T_TMP/writer-kills
mkdir -p "$W"
echo 11111111-2222-3333-4444-555555555555 > "$W/boot"
# wlog NAME PRIO TEXT...: kmsg records, sequence numbers from 0.
wlog() {
	f=$W/$1
	shift
	n=0
	: > "$f"
	while [ $# -ge 2 ]; do
		printf '%s,%d,%d,-;%s\n' "$1" "$n" "$((n * 1000 + 17))" "$2" >> "$f"
		n=$((n + 1))
		shift 2
	done
}
wlog twice 4 "$M4" 6 'eth0: link up' 4 "$M7" 4 "$M4"
wlog warn 4 '------------[ cut here ]------------' \
	4 'WARNING: CPU: 0 PID: 4242 at mm/memcontrol.c:5007 mem_cgroup_css_alloc+0x3ac/0x510' \
	4 "$S1" 4 'CPU: 0 PID: 4242 Comm: libvirtd Not tainted 6.1.0-13-amd64 #1' \
	4 '---[ end trace 0000000000000000 ]---' 4 "$M7"
# writer_killed LOG AT [HOW]: watch LOG until it is handled (--once runs; a
# held record ends a run with 2), the first report writer killed at its
# AT-th disk step (HOW: "kill", SIGKILL; "oom", the kernel's OOM killer
# under a 64 MiB memory cgroup, the unit's MemoryMax; or an errno that
# step fails with: ENOSPC, ENOMEM); prints the report ids, what was
# printed, the counts, and whether S1's report has its WARN block's function.
writer_killed() {
	d=$W/$1-$2-${3:-kill}
	rm -rf "$d"
	mkdir -p "$d"
	runs=0
	fail=
	oom=
	case ${3:-kill} in
	kill) ;;
	oom) oom=1 ;;
	*) fail=$3 ;;
	esac
	while [ $runs -lt 4 ]; do
		runs=$((runs + 1))
		(
			export KILLSHIM_AT=$2 KILLSHIM_PROG=cgroup-feedback-report \
				KILLSHIM_ONCE=$d/killed KILLSHIM_FAIL=$fail LD_PRELOAD=$SHIM
			[ -z "$oom" ] || export KILLSHIM_OOM=1
			${oom:+in_memcg} timeout 60 "$CGFB" --config "$CONF" watch --once --json --kmsg "$W/$1" \
				--state-dir "$d/state" --boot-id-file "$W/boot" \
				--cgroup-root "$T_TMP/fx/root" --mountinfo "$T_TMP/fx/mountinfo" \
				>> "$d/out" 2>> "$d/err"
		) && break
	done
	$PY - "$d" <<'EOP'
import glob, json, sys
d = sys.argv[1]
reps = [json.load(open(r))["detection"] for r in glob.glob(d + "/state/reports/*.json")]
ids = sorted(x["catalog_id"] for x in reps)
printed = [json.loads(l)["id"] + "@" + json.loads(l)["source"] for l in open(d + "/out")]
st = json.load(open(d + "/state/watch.state"))
s1 = [x for x in reps if x["catalog_id"] == "S1"]
warn = "-" if not s1 else str(s1[0]["warn_block"] and s1[0]["fields"].get("function") == "mem_cgroup_css_alloc")
print(" ".join(ids), "|", " ".join(printed), "|", json.dumps(st["reported"], sort_keys=True), "|", warn,
      "| killed" if __import__("os").path.exists(d + "/killed") else "| not killed")
EOP
}
# in_memcg CMD...: CMD in a fresh memory cgroup of 64 MiB (and no swap),
# the unit's MemoryMax; MEMCG_OOMS counts its OOM kills afterwards.
MEMCG=
memcg_setup() {
	for root in /sys/fs/cgroup/memory /sys/fs/cgroup/unified /sys/fs/cgroup; do
		[ -w "$root" ] || continue
		[ -e "$root/memory.limit_in_bytes" ] || [ -e "$root/cgroup.subtree_control" ] || continue
		MEMCG=$root/cgfb-test-$$
		mkdir "$MEMCG" 2>/dev/null || { MEMCG=; continue; }
		if [ -e "$MEMCG/memory.limit_in_bytes" ]; then
			echo 64M > "$MEMCG/memory.limit_in_bytes" &&
				{ [ ! -e "$MEMCG/memory.memsw.limit_in_bytes" ] ||
				  echo 64M > "$MEMCG/memory.memsw.limit_in_bytes"; } && return 0
		elif [ -e "$MEMCG/memory.max" ]; then
			echo 64M > "$MEMCG/memory.max" &&
				{ [ ! -e "$MEMCG/memory.swap.max" ] || echo 0 > "$MEMCG/memory.swap.max"; } &&
				return 0
		fi
		rmdir "$MEMCG"
		MEMCG=
	done
	return 1
}
in_memcg() { sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' _ "$MEMCG" "$@"; }
memcg_ooms() {
	if [ -e "$MEMCG/memory.events" ]; then
		sed -n 's/^oom_kill //p' "$MEMCG/memory.events"
	else
		sed -n 's/^oom_kill //p' "$MEMCG/memory.oom_control"
	fi
}

for at in 1 3; do
	got=$(writer_killed twice $at)
	want='M4 M5 M7 | M4@kmsg:0 M7@kmsg:2 M5@kmsg:3 | {"M4": 1, "M5": 1, "M7": 1} | - | killed'
	check "M4's writer killed at its step $at: M4 and M5 once each, in the log's order, counts exact" \
		[ "$got" = "$want" ]
	[ "$got" = "$want" ] || printf '#   got:  %s\n#   want: %s\n' "$got" "$want"
	got=$(writer_killed warn $at)
	want='M7 S1 | S1@kmsg:2 M7@kmsg:5 | {"M7": 1, "S1": 1} | True | killed'
	check "S1's writer killed at its step $at: its report keeps the WARN block's function, M7 after it" \
		[ "$got" = "$want" ]
	[ "$got" = "$want" ] || printf '#   got:  %s\n#   want: %s\n' "$got" "$want"
done

# The same hand-off failing the other ways a writer fails: its disk full
# (ENOSPC at a write), no memory for it (ENOMEM), and the OOM killer under
# the unit's memory limit. The failed detection is held and retried: the
# same reports, counts and WARN context as with no failure at all.
for how in ENOSPC ENOMEM; do
	got=$(writer_killed twice 3 $how)
	want='M4 M5 M7 | M4@kmsg:0 M7@kmsg:2 M5@kmsg:3 | {"M4": 1, "M5": 1, "M7": 1} | - | killed'
	check "M4's writer failing with $how: M4 and M5 once each, in order, counts exact" \
		[ "$got" = "$want" ]
	[ "$got" = "$want" ] || printf '#   got:  %s\n#   want: %s\n' "$got" "$want"
	got=$(writer_killed warn 3 $how)
	want='M7 S1 | S1@kmsg:2 M7@kmsg:5 | {"M7": 1, "S1": 1} | True | killed'
	check "S1's writer failing with $how: its WARN context kept, M7 after it" [ "$got" = "$want" ]
	[ "$got" = "$want" ] || printf '#   got:  %s\n#   want: %s\n' "$got" "$want"
	case $how in
	ENOSPC) why="No space left on device" ;;
	ENOMEM) why="Cannot allocate memory" ;;
	esac
	check "... the watcher's log names the writer's failure ($why), and the retry" \
		sh -c 'grep -q "$1" "$2" && grep -q "tries again" "$2"' _ "$why" "$W/warn-3-$how/err"
done
if [ "$(id -u)" -eq 0 ] && memcg_setup; then
	got=$(writer_killed warn 3 oom)
	want='M7 S1 | S1@kmsg:2 M7@kmsg:5 | {"M7": 1, "S1": 1} | True | killed'
	check "S1's writer OOM-killed under 64 MiB: its WARN context kept, M7 after it" \
		[ "$got" = "$want" ]
	[ "$got" = "$want" ] || printf '#   got:  %s\n#   want: %s\n' "$got" "$want"
	check "... and that was the kernel's OOM killer ($(memcg_ooms) kill in the cgroup)" \
		[ "$(memcg_ooms)" -ge 1 ]
	check "... the watcher's log says its writer was killed, and the retry" \
		sh -c 'grep -q "its writer was killed" "$1" && grep -q "tries again" "$1"' _ "$W/warn-3-oom/err"
	rmdir "$MEMCG"
else
	skip "the OOM killer under a memory limit" "needs root and a writable memory cgroup"
fi
finish
