#!/bin/sh
# Benchmark: `cgroup-feedback scan --journal-file` of a systemd journal
# against journalctl reading the same files (issue 43): the pipeline a
# grep user would run, `journalctl --file F -o cat | grep -c -F -f
# bench/grep-patterns.txt`, and journalctl alone, `journalctl --file F -o
# cat > /dev/null`.
#
#   make bench                    (BUILD=build sh bench/run.sh runs this)
#   BUILD=build sh bench/journal.sh
#
# The journal: bench/genlog.c writes a kmsg-format log of a few boots,
# bench/genjournal.c turns its records into the export stream journald's
# entries would give (fields as systemd 252's journald-kmsg.c writes them)
# with one userspace entry in three between them (services, PID 1, the
# kubelet; B2b and B3 planted as root's, and the same words from writers
# that do not count), and Debian's systemd-journal-remote writes the
# journal files (it rotates at its header limits: a few files, passed as
# --journal-file each, and as --file each to journalctl). The scan's
# detections (id, boot, sequence number) must equal the planted ones, or
# the benchmark fails. With the files in the page cache, the programs run
# CGFB_BENCH_RUNS times each (default 3), alternately; the best wall clock
# time counts. Target: scan at most 1.0x the time of the grep pipeline.
#
# Environment:
#   BUILD                  build directory (default build)
#   CGFB_BENCH_DIR         where the journal goes (default /var/tmp; about
#                          250 MiB free is needed for 200,000 entries)
#   CGFB_BENCH_JOURNAL_N   entries (default 200000)
#   CGFB_BENCH_RUNS        timed runs of each program (default 3)
#   CGFB_BENCH_BEFORE=PATH another build of cgroup-feedback (one from
#                          before a change) in the same rounds
set -eu
. "$(dirname "$0")/lib.sh"
PATTERNS=$TOP/bench/grep-patterns.txt
BASE=${CGFB_BENCH_DIR:-/var/tmp}
N=${CGFB_BENCH_JOURNAL_N:-200000}
RUNS=${CGFB_BENCH_RUNS:-3}
BEFORE=${CGFB_BENCH_BEFORE:-}
REMOTE=/lib/systemd/systemd-journal-remote
CC=${CC:-cc}

die() {
	echo "bench: journal: $*" >&2
	exit 1
}

[ -x "$BIN" ] || die "$BIN is missing: run make first"
[ -z "$BEFORE" ] || [ -x "$BEFORE" ] || die "CGFB_BENCH_BEFORE=$BEFORE is not a program"
[ -x "$REMOTE" ] || die "$REMOTE is missing (make deps: systemd-journal-remote)"
command -v journalctl > /dev/null || die "journalctl is missing"
[ "$N" -ge 1000 ] 2> /dev/null || die "CGFB_BENCH_JOURNAL_N=$N: at least 1000"
DIR=$(mktemp -d "$BASE/cgfb-bench-j.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
trap 'exit 130' INT TERM

mkdir -p "$B/bench"
for p in genlog genjournal; do
	[ -x "$B/bench/$p" ] && [ ! "bench/$p.c" -nt "$B/bench/$p" ] ||
		$CC -std=gnu11 -O2 -Wall -Wextra -o "$B/bench/$p" "bench/$p.c"
done

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
best() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a < b) ? a : b }'; }

# Kernel records enough for N entries (three in four are the kernel's, of
# about 150 bytes each), in boots of about N/5 lines.
t0=$(now)
"$B/bench/genlog" kmsg $((N * 160 / 1048576 + 4)) "$DIR/kmsg.log" "$DIR/kmsg.expected" \
	$((N / 5)) > /dev/null
"$B/bench/genjournal" "$N" "$DIR/kmsg.log" "$DIR/kmsg.expected" "$DIR/expected" \
	2> "$DIR/gen.info" > "$DIR/export" || die "genjournal: $(cat "$DIR/gen.info")"
mkdir "$DIR/j"
"$REMOTE" --output="$DIR/j/bench.journal" "$DIR/export" > "$DIR/remote.log" 2>&1 ||
	die "systemd-journal-remote: $(tail -n 3 "$DIR/remote.log")"
rm -f "$DIR/export" "$DIR/kmsg.log"
t1=$(now)
set --
for f in "$DIR"/j/*.journal; do
	set -- "$@" "$f"
done
files=$#
bytes=$(cat "$@" | wc -c)
echo "journal: $(cat "$DIR/gen.info"), $files files, $((bytes / 1048576)) MiB, made in $(elapsed "$t0" "$t1") s"

# The scan's and journalctl's arguments, one --journal-file / --file each.
SARGS="" JARGS=""
for f in "$@"; do
	SARGS="$SARGS --journal-file $f"
	JARGS="$JARGS --file $f"
done

# check PROGRAM: its detections (id, boot, sequence number) must be the
# planted ones.
check() {
	rc=0
	# shellcheck disable=SC2086
	"$1" scan --json $SARGS > "$DIR/found.json" 2> "$DIR/scan.err" || rc=$?
	[ "$rc" -eq 0 ] || die "$1: scan exited with $rc: $(tail -n 2 "$DIR/scan.err")"
	sed -n 's/^{"id":"\([^"]*\)".*"source":"journal:\([0-9a-f]*\):\([0-9]*\)".*/\1 \2 \3/p' \
		"$DIR/found.json" > "$DIR/found"
	if ! cmp -s "$DIR/found" "$DIR/expected"; then
		echo "bench: journal: FAILED: $1: the detections differ from the planted ones" \
			"($(wc -l < "$DIR/found") found, $(wc -l < "$DIR/expected") planted)" >&2
		diff "$DIR/found" "$DIR/expected" | grep '^[<>]' | head -n 20 >&2 || true
		exit 1
	fi
}
check "$BIN"
[ -z "$BEFORE" ] || check "$BEFORE"
ids=$(awk '{ print $1 }' "$DIR/expected" | sort | uniq -c |
	awk '{ printf "%s%s:%s", (NR > 1 ? " " : ""), $2, $1 }')
echo "journal: detections OK: $(wc -l < "$DIR/expected") ($ids); $(tail -n 1 "$DIR/scan.err" | sed 's/^[^:]*: //')"

# time_one CMD: seconds of one run of the shell command CMD, into t.
time_one() {
	t0=$(now)
	sh -c "$1" > /dev/null 2>&1 || die "$1 failed"
	t1=$(now)
	t=$(elapsed "$t0" "$t1")
}

cat "$@" > /dev/null
# The scan exits 0: the journal holds catalog messages.
SCAN="\"$BIN\" scan $SARGS"
PIPE="journalctl $JARGS -o cat | LC_ALL=C grep -c -F -f \"$PATTERNS\""
CAT="journalctl $JARGS -o cat"
peak=$(/usr/bin/time -f %M sh -c "$SCAN > /dev/null 2>&1" 2>&1)
all_scan="" all_before="" all_pipe="" all_cat=""
best_scan="" best_before="" best_pipe="" best_cat=""
i=0
while [ "$i" -lt "$RUNS" ]; do
	time_one "$SCAN"
	all_scan="$all_scan $t" best_scan=$(best "$t" "$best_scan")
	if [ -n "$BEFORE" ]; then
		time_one "\"$BEFORE\" scan $SARGS"
		all_before="$all_before $t" best_before=$(best "$t" "$best_before")
	fi
	time_one "$PIPE"
	all_pipe="$all_pipe $t" best_pipe=$(best "$t" "$best_pipe")
	time_one "$CAT"
	all_cat="$all_cat $t" best_cat=$(best "$t" "$best_cat")
	i=$((i + 1))
done
echo "journal: load $(cut -d' ' -f1-3 /proc/loadavg); runs (s): scan${all_scan}${BEFORE:+; before${all_before}}; journalctl|grep${all_pipe}; journalctl${all_cat}"
awk -v n="$N" -v f="$files" -v mib="$((bytes / 1048576))" -v s="$best_scan" \
    -v b="$best_before" -v p="$best_pipe" -v c="$best_cat" -v rss="$peak" 'BEGIN {
	if (s <= 0) s = 0.001
	printf "journal: %d entries, %d files, %d MiB: scan %.3f s (peak RSS %d MiB)", n, f, mib, s, rss / 1024
	if (b != "") printf ", before %.3f s", b
	printf "; journalctl -o cat | grep -c -F %.3f s, ratio %.2fx; journalctl -o cat %.3f s, ratio %.2fx\n", p, p / s, c, c / s
	if (p / s < 1.0) print "NOTE: journal: the scan took longer than journalctl | grep (target: at most 1.0x its time)"
}'
