#!/bin/sh
# A spool of 10,000 reports (issue 29): the report writer, started by the
# watcher as at every detection, finds the report a detection repeats and
# writes a new one with its memory bounded, whatever the spool holds. The
# spool is one real report and 20,000 copies of it, each a message of its
# own (tests/client/clone_reports.py), none of them in the repeat index: the
# first writer rebuilds it. 10,000 keeps the script within seconds. Nothing here is timed (bench/spool.sh is).
. tests/lib.sh
. tests/data/cgroupfs/lib.sh

PY=/usr/bin/python3
KMSG=$T_TMP/kmsg
STATE=$T_TMP/state
BOOT=$T_TMP/boot_id
FX=$T_TMP/flat
N=10000
fixture flat-affected "$FX" || not_ok "fixture flat-affected builds"
# The state directory on a tmpfs of its own when it can be (root): 10,000
# files written and read back at memory speed, whatever else the machine's
# disk is doing.
mkdir -p "$STATE"
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=256m,mode=0700 tmpfs "$STATE" 2>/dev/null; then
	trap 'umount "$STATE"; t_cleanup' EXIT
fi
printf 'notify = log motd\nmotd-path = %s/motd\n' "$T_TMP" > "$T_TMP/conf"

# C4 from process COMM, in a boot of its own.
c4() {
	printf '4,0,1000,-;cgroup: option changes via remount are deprecated (pid=4242 comm=%s)\n' \
		"$1" > "$KMSG"
	echo "$2" > "$BOOT"
}
# rss CMD... OUT: the peak RSS in KiB of CMD and every process it waited for
# (the watcher, its report writer), and CMD's exit status after it; its
# output in OUT.out and OUT.err.
rss() {
	$PY -c 'import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:-1], stdout=open(sys.argv[-1] + ".out", "w"),
                     stderr=open(sys.argv[-1] + ".err", "w"))
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, rc)' "$@"
}
watch_once() {
	"$CGFB" --config "$T_TMP/conf" watch --once --json --kmsg "$KMSG" --state-dir "$STATE" \
		--boot-id-file "$BOOT" --cgroup-root "$FX/root" --mountinfo "$FX/mountinfo" "$@"
}
reports() { ls "$STATE/reports" | grep -c '\.json$'; }

c4 acme-job0 11111111-2222-3333-4444-000000000001
watch_once > "$T_TMP/out" 2> "$T_TMP/err"
check "the first report is written" [ "$(reports)" -eq 1 ]
first=$(ls "$STATE/reports" | sed -n 's/\.json$//p')
$PY tests/client/clone_reports.py "$STATE/reports" "$first" $N
check "$N copies beside it" [ "$(reports)" -eq $((N + 1)) ]

# The same message in another boot: a repeat of the first report.
c4 acme-job0 11111111-2222-3333-4444-000000000002
set -- $(rss "$CGFB" --config "$T_TMP/conf" watch --once --json --kmsg "$KMSG" \
	--state-dir "$STATE" --boot-id-file "$BOOT" --cgroup-root "$FX/root" \
	--mountinfo "$FX/mountinfo" "$T_TMP/repeat")
repeat_kib=$1
check "a repeat among $((N + 1)) reports: exit 0" [ "$2" -eq 0 ]
check "... no new report" [ "$(reports)" -eq $((N + 1)) ]
check "... counted on the first report" \
	grep -q "C4 again (kernel series .*): counted on report $first" "$T_TMP/repeat.err"
check "... whose .seen says two boots" grep -q '"boots":2' "$STATE/reports/$first.seen"
check "... the index was rebuilt from every report, once" \
	[ "$(grep -c "repeat index .* rebuilt from $((N + 1)) reports" "$T_TMP/repeat.err")" -eq 1 ]

# Another process: a new report, the banner rewritten from the spool.
c4 acme-job1 11111111-2222-3333-4444-000000000003
set -- $(rss "$CGFB" --config "$T_TMP/conf" watch --once --json --kmsg "$KMSG" \
	--state-dir "$STATE" --boot-id-file "$BOOT" --cgroup-root "$FX/root" \
	--mountinfo "$FX/mountinfo" "$T_TMP/new")
new_kib=$1
check "a new message among $((N + 1)) reports: exit 0" [ "$2" -eq 0 ]
check "... a new report" [ "$(reports)" -eq $((N + 2)) ]
check "... the index was current: not rebuilt" sh -c '! grep -q rebuilt "$1"' _ "$T_TMP/new.err"
check "... the banner counts every pending report, names 20" \
	grep -q "use case $((N + 2)) times: \(C4 \)\{20\}and $((N + 2 - 20)) more" "$T_TMP/motd"
# A third message: the banner from the pending reports the last writer
# kept, not from a listing; the same count a listing gives.
c4 acme-job2 11111111-2222-3333-4444-000000000005
watch_once > "$T_TMP/out" 2> "$T_TMP/err"
check "another new message: a new report" [ "$(reports)" -eq $((N + 3)) ]
check "... the banner counts it, from what the writer kept" \
	grep -q "use case $((N + 3)) times: \(C4 \)\{20\}and $((N + 3 - 20)) more" "$T_TMP/motd"
mv "$T_TMP/motd" "$T_TMP/motd.kept"     # the watcher at its start writes it anew
"$CGFB" --config "$T_TMP/conf" watch --once --kmsg /dev/null --state-dir "$STATE" \
	--boot-id-file "$BOOT" > /dev/null 2>&1 || true
check "... the same banner as a listing of the whole spool makes" cmp -s "$T_TMP/motd" "$T_TMP/motd.kept"
# And again: a repeat of the new one, through the index the last writer left.
c4 acme-job1 11111111-2222-3333-4444-000000000004
watch_once > "$T_TMP/out" 2> "$T_TMP/err"
check "its repeat in the next boot: no new report" [ "$(reports)" -eq $((N + 3)) ]
check "... counted, the index not rebuilt" \
	sh -c 'grep -q "C4 again" "$1" && ! grep -q rebuilt "$1"' _ "$T_TMP/err"

# Memory: the writer held the whole spool's states and keys before (22 MB
# for 10,000 reports, 145 MB for 100,000, past the service's MemoryMax of
# 64M); now one report, the index's ids and the banner's pending ids, and
# the programs' own 10 MiB. The bound is for 10,000 reports; bench/spool.sh
# measures 100,000. Measured on
# the shipped build: ASan's shadow memory and quarantine would count in the
# RSS of build-san's binaries, valgrind's in its own.
case $BUILD in
*san*) skip "memory bound" "measured on the normal build, not under ASan" ;;
*)
	if under_valgrind; then
		skip "memory bound" "measured natively, not under valgrind"
	else
		check "the repeat: peak RSS $((repeat_kib / 1024)) MiB < 16 MiB" [ "$repeat_kib" -lt 16384 ]
		check "the new report: peak RSS $((new_kib / 1024)) MiB < 16 MiB" [ "$new_kib" -lt 16384 ]
	fi ;;
esac
finish
