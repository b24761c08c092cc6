#!/bin/sh
# A full disk: the state directory on a small tmpfs, filled up. The watcher
# and every command that writes (review, submit, export, flush) fail with a
# clear message and a non-zero exit, leave no temporary file and no
# truncated report; list and status still read. When there is space again
# everything recovers, and the warning that arrived while the disk was full
# is reported: by the next `watch --once`, and by a running watcher on its
# own.
. tests/lib.sh
. tests/client/lib.sh

ST=$T_TMP/st
CONF=$T_TMP/conf
KMSG=$T_TMP/kmsg
BOOT=$T_TMP/boot
MEM=$T_TMP/memory.json
mkdir -p "$ST"
if [ "$(id -u)" -ne 0 ] || ! mount -t tmpfs -o size=512k,mode=0700 tmpfs "$ST" 2>/dev/null; then
	skip "full disk" "needs root and a tmpfs mount"
	finish
	exit
fi
WPID=
trap '[ -n "$WPID" ] && kill $WPID 2>/dev/null; stop_double; umount "$ST"; t_cleanup' EXIT
$PY tests/data/cgroupfs/mkfixture.py tests/data/cgroupfs/flat-affected.desc "$T_TMP/fx" > /dev/null
start_double "$T_TMP/double" api
printf 'endpoint = %s\nmotd-path = %s/motd\nnotify = log, motd\ntimeout = %s\nconnect-timeout = %s\n' \
	"$URL" "$T_TMP" "$(scaled 5)" "$(scaled 2)" > "$CONF"
echo "We run one KVM guest per cgroup." > "$T_TMP/uc"
echo 44444444-2222-3333-4444-555555555555 > "$BOOT"
M8='Non-hierarchical mode is deprecated. Please report your usecase to linux-mm@kvack.org if you depend on this functionality.'
M3='soft_limit_in_bytes is deprecated and will be removed. Please report your usecase to linux-mm@kvack.org if you depend on this functionality.'
seq=1
rec() {
	printf '4,%d,%d,-;%s\n' "$seq" "$((seq * 1000 + 17))" "$1" >> "$KMSG"
	seq=$((seq + 1))
}
cfb() { timeout 60 "$CGFB" --config "$CONF" "$@"; }
watch_once() {
	cfb watch --once --kmsg "$KMSG" --state-dir "$ST" --boot-id-file "$BOOT" \
		--cgroup-root "$T_TMP/fx/root" --mountinfo "$T_TMP/fx/mountinfo"
}
reports() { ls "$ST/reports" | grep -c '\.json$'; }
state_of() {
	[ -f "$ST/reports/$1.state" ] || { echo pending; return; }
	sed -n 's/.*"state":"\([a-z]*\)".*/\1/p' "$ST/reports/$1.state" | head -1
}
due_now() {
	$PY -c "
import json; p = '$ST/reports/$1.state'; s = json.load(open(p)); s['next_attempt'] = 0
json.dump(s, open(p, 'w'))"
}
# Whole reports, no temporaries anywhere in the state directory.
clean() {
	$PY tests/client/spool_check.py "$ST/reports" "$T_TMP/double" "$MEM" > "$T_TMP/why" 2>&1 &&
	[ -z "$(find "$ST" -name '.*.tmp.*')" ] || { sed 's/^/#   /' "$T_TMP/why"; false; }
}
fill() {
	dd if=/dev/zero of="$ST/filler" bs=4k > /dev/null 2>&1
	dd if=/dev/zero of="$ST/filler2" bs=512 > /dev/null 2>&1
	sync
}

# Work for every command, while there is space: a report from the watcher,
# pending ones, and one consented whose first try failed.
rec "$M8"
watch_once > /dev/null 2>&1
check "with space: the watcher writes its report" [ "$(reports)" -eq 1 ]
for n in 1 2 3 4; do $PY tests/client/pending_report.py "$ST" M8 "fd$n" > /dev/null; done
set -- $(ls "$ST/reports" | sed -n 's/\.json$//p' | sort)
P1=$1 P2=$2 P3=$3 P4=$4 P5=$5
echo fail500 > "$T_TMP/double/mode"
cfb submit --state-dir "$ST" --yes --use-case-file "$T_TMP/uc" "$P5" > /dev/null 2>&1
rm "$T_TMP/double/mode"
check "with space: one report consented, its first try failed" [ "$(state_of "$P5")" = consented ]
due_now "$P5"
clean > /dev/null

fill
check "the disk is full" sh -c '! echo x > "$1/probe" 2>/dev/null' _ "$ST"
rm -f "$ST/probe"
before=$(reports)

# The watcher: the new warning is not handled, and says why.
rec "$M3"
watch_once > "$T_TMP/out" 2> "$T_TMP/err"
check "full: watch --once exits 2" [ $? -eq 2 ]
check "full: watch says the report is not written for now, and why" \
	grep -q 'report for M3 not written for now: .*No space left on device' "$T_TMP/err"
check "full: watch does not print the warning as handled" sh -c '! grep -q M3 "$1"' _ "$T_TMP/out"
check "full: no report, no temporary" [ "$(reports)" -eq "$before" ]
check "full: the spool is whole" clean

# Every command that writes.
TAB=$(printf '\t')
$PY tests/client/drive_review.py "$T_TMP/review.log" -- "$CGFB" --config "$CONF" review \
	--state-dir "$ST" "$P1" > /dev/null 2>&1 <<EOS
Which software creates${TAB}libvirt
Why must these sibling${TAB}
Would the reorganisation${TAB}
Describe your use case${TAB}
Send this report to${TAB}y
EOS
check "full: review fails" [ $? -ne 0 ]
check "full: review says why" grep -q 'No space left on device' "$T_TMP/review.log"
check "full: review left the report pending" [ "$(state_of "$P1")" = pending ]
check "full: review printed what was typed, as it could not be kept" \
	sh -c 'tr -d "\r" < "$1" | grep -A3 "What you typed could not be kept" | grep -qx libvirt' _ "$T_TMP/review.log"
cfb submit --state-dir "$ST" --yes --use-case-file "$T_TMP/uc" "$P2" > /dev/null 2> "$T_TMP/err"
check "full: submit exits 2" [ $? -eq 2 ]
check "full: submit says why" grep -q 'No space left on device' "$T_TMP/err"
check "full: submit left the report pending" [ "$(state_of "$P2")" = pending ]
cfb export --yes --state-dir "$ST" --use-case-file "$T_TMP/uc" -o "$T_TMP/x.eml" "$P3" \
	> /dev/null 2> "$T_TMP/err"
check "full: export exits 2" [ $? -eq 2 ]
check "full: export says why" grep -q 'No space left on device' "$T_TMP/err"
check "full: export wrote no mail" [ ! -e "$T_TMP/x.eml" ]
cfb flush --state-dir "$ST" > "$T_TMP/out" 2> "$T_TMP/err"
check "full: flush exits 2" [ $? -eq 2 ]
check "full: flush says why" grep -q 'No space left on device' "$T_TMP/err"
check "full: the spool is whole after them all" clean
cfb list --state-dir "$ST" > "$T_TMP/list" 2> "$T_TMP/err"
check "full: list still works" [ $? -eq 0 ]
check "full: list shows every report" [ "$(grep -c -- '-4' "$T_TMP/list")" -eq "$before" ]
cfb status --state-dir "$ST" > /dev/null 2> "$T_TMP/err"
check "full: status still works (exit 1: $P5's first try failed)" [ $? -eq 1 ]

# A running watcher: the warning that arrives now is reported once there
# is space again, without a restart.
"$CGFB" --config "$CONF" watch --kmsg "$KMSG" --state-dir "$ST" --boot-id-file "$BOOT" \
	--cgroup-root "$T_TMP/fx/root" --mountinfo "$T_TMP/fx/mountinfo" \
	> "$T_TMP/follow" 2> "$T_TMP/follow.err" &
WPID=$!
i=0
while [ $i -lt "$(scaled 200)" ] && ! grep -q 'M3 not written for now' "$T_TMP/follow.err"; do
	sleep 0.05; i=$((i + 1))
done
check "full: the running watcher says it will try again" grep -q 'M3 not written for now' "$T_TMP/follow.err"

# Space again.
rm -f "$ST/filler" "$ST/filler2"
i=0
# The report is written before the watcher prints its line: wait for both.
while [ $i -lt "$(scaled 300)" ] &&
      { [ "$(reports)" -eq "$before" ] || ! grep -q 'M3' "$T_TMP/follow"; }; do
	sleep 0.1; i=$((i + 1))
done
check "space again: the running watcher reported the warning on its own" \
	[ "$(reports)" -eq $((before + 1)) ]
check "space again: and printed it" grep -q 'M3' "$T_TMP/follow"
kill -TERM $WPID
wait $WPID
check "space again: the watcher stops cleanly" [ $? -eq 0 ]
WPID=
watch_once > "$T_TMP/out" 2> "$T_TMP/err"
check "space again: watch --once exits 0" [ $? -eq 0 ]
check "space again: the warning is reported once" [ "$(reports)" -eq $((before + 1)) ]
cfb submit --state-dir "$ST" --yes --use-case-file "$T_TMP/uc" "$P2" > /dev/null 2>&1
check "space again: submit sends" [ "$(state_of "$P2")" = sent ]
cfb export --yes --state-dir "$ST" --use-case-file "$T_TMP/uc" -o "$T_TMP/x.eml" "$P3" > /dev/null 2>&1
check "space again: export writes the mail" grep -q '^To: linux-mm@kvack.org' "$T_TMP/x.eml"
due_now "$P5"
cfb flush --state-dir "$ST" > "$T_TMP/out" 2>&1
check "space again: flush sends the consented report" [ "$(state_of "$P5")" = sent ]
check "space again: the spool is whole" clean
finish
