#!/bin/sh
# Benchmark: start-up (issue 43). `cgroup-feedback status` against `true`,
# and `cgroup-feedback scan` of an empty file against `grep -c x` of one:
# what a command costs before it does any work, which is mostly the
# libraries the dynamic loader maps and relocates (cgroup-feedback maps no
# libcurl and no ICU since the commands that send are cgroup-feedback-send).
#
#   make bench                    (BUILD=build sh bench/run.sh)
#   BUILD=build sh bench/startup.sh
#
# Each program is started CGFB_BENCH_STARTS times in a loop (one start is
# a few milliseconds, below what a single `date` pair measures well), the
# four loops alternately, CGFB_BENCH_RUNS rounds; the best round of each
# counts, divided by the starts. The peers are external programs
# (/usr/bin/true, not the shell's builtin), started by the same loop.
# CGFB_BENCH_BEFORE=PATH adds another build of cgroup-feedback (say, one
# linked before the split) to the same rounds, for a before and after.
set -eu
. "$(dirname "$0")/lib.sh"
RUNS=${CGFB_BENCH_RUNS:-3}
STARTS=${CGFB_BENCH_STARTS:-200}
BEFORE=${CGFB_BENCH_BEFORE:-}
TRUE=$(command -v true | grep / || echo /usr/bin/true)
[ -x "$TRUE" ] || TRUE=/bin/true

die() {
	echo "bench: startup: $*" >&2
	exit 1
}

[ -x "$BIN" ] || die "$BIN is missing: run make first"
[ -z "$BEFORE" ] || [ -x "$BEFORE" ] || die "CGFB_BENCH_BEFORE=$BEFORE is not a program"
D=$(mktemp -d "${TMPDIR:-/tmp}/cgfb-bench-startup.XXXXXX")
trap 'rm -rf "$D"' EXIT
trap 'exit 130' INT TERM
mkdir -m 0700 "$D/state"
: > "$D/empty.log"

now() { date +%s.%N; }
best() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a < b) ? a : b }'; }

# Each command once, as the loops run it: it must work (status 0, scan 1
# for "nothing found", grep 1 for no match).
"$BIN" --state-dir "$D/state" status > /dev/null || die "status failed"
rc=0; "$BIN" scan "$D/empty.log" > /dev/null 2>&1 || rc=$?
[ "$rc" -eq 1 ] || die "scan of an empty file exited with $rc (1 expected)"
rc=0; grep -c x "$D/empty.log" > /dev/null || rc=$?
[ "$rc" -eq 1 ] || die "grep -c x of an empty file exited with $rc"

# loop NAME CMD...: STARTS starts of CMD; the seconds per start of this
# round, kept as the best of NAME's rounds (in $D/NAME.best).
loop() {
	name=$1
	shift
	t0=$(now)
	i=0
	while [ "$i" -lt "$STARTS" ]; do
		"$@" > /dev/null 2>&1 || true
		i=$((i + 1))
	done
	t1=$(now)
	t=$(awk -v a="$t0" -v b="$t1" -v n="$STARTS" 'BEGIN { printf "%.6f", (b - a) / n }')
	prev=$(cat "$D/$name.best" 2>/dev/null || true)
	best "$t" "$prev" > "$D/$name.best"
	printf ' %s' "$t" >> "$D/$name.all"
}

r=0
while [ "$r" -lt "$RUNS" ]; do
	loop status "$BIN" --state-dir "$D/state" status
	loop true "$TRUE"
	loop scan "$BIN" scan "$D/empty.log"
	loop grep grep -c x "$D/empty.log"
	if [ -n "$BEFORE" ]; then
		loop before_status "$BEFORE" --state-dir "$D/state" status
		loop before_scan "$BEFORE" scan "$D/empty.log"
	fi
	r=$((r + 1))
done

libs() { ldd "$1" | grep -c '=>' || true; }
echo "startup: $STARTS starts a round, $RUNS rounds; seconds a start: status$(cat "$D/status.all");" \
	"true$(cat "$D/true.all"); scan$(cat "$D/scan.all"); grep$(cat "$D/grep.all")"
awk -v s="$(cat "$D/status.best")" -v t="$(cat "$D/true.best")" -v c="$(cat "$D/scan.best")" \
    -v g="$(cat "$D/grep.best")" -v n="$(libs "$BIN")" 'BEGIN {
	printf "startup: cgroup-feedback status: %.2f ms; %s: %.2f ms; ratio %.2fx (1 means as fast as true)\n", s * 1000, "true", t * 1000, s / t
	printf "startup: cgroup-feedback scan of an empty file: %.2f ms; grep -c x of one: %.2f ms; ratio %.2fx (1 means as fast as grep)\n", c * 1000, g * 1000, c / g
	printf "startup: cgroup-feedback links %d shared libraries (ldd)\n", n
}'
if [ -n "$BEFORE" ]; then
	awk -v s="$(cat "$D/before_status.best")" -v t="$(cat "$D/true.best")" \
	    -v c="$(cat "$D/before_scan.best")" -v g="$(cat "$D/grep.best")" -v n="$(libs "$BEFORE")" \
	    -v p="$BEFORE" 'BEGIN {
		printf "startup: before (%s, %d shared libraries): status %.2f ms, %.2fx true; scan %.2f ms, %.2fx grep\n", p, n, s * 1000, s / t, c * 1000, c / g
	}'
fi
