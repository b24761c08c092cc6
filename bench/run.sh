#!/bin/sh
# Benchmark: `cgroup-feedback scan` against `grep -c -F` on big saved logs.
#
#   make bench                    (BUILD=build sh bench/run.sh)
#
# 1. bench/genlog.c (compiled here into $BUILD/bench/) writes a realistic
#    kernel log, deterministically: a series of boots of various kernels
#    ("Linux version" lines), firewall, audit, network, storage, USB and
#    systemd lines, OOM reports, WARN blocks that are not deprecations, lines
#    with a needle that are not catalog messages, and about one catalog
#    message per 100k lines (WARN-block S1/P1/P2, C1 with comm and pid, M4
#    then M5 in one boot, ...). It also writes the detections a correct
#    detector reports: "ID LINE" each.
# 2. The detector runs once with --json; its (id, line) pairs must equal the
#    expected ones, or the benchmark fails.
# 3. With the file in the page cache, the detector (scan FILE > /dev/null),
#    grep and `wc -l FILE` (the least that reads every byte: issue 43's
#    peer, target 0.8x its speed) run CGFB_BENCH_RUNS times each,
#    alternately; the best wall clock time of each counts, and the scan's
#    peak RSS (target: under 32 MiB) is printed.
#
# This is done for a dmesg-format file (`[ 1234.567890] text`, scanned by
# jumping from needle to needle) and a smaller kmsg-format one
# (`4,seq,usec,-;text`, where every record is parsed).
#
# bench/grep-patterns.txt is what grep gets: the fixed strings a grep user
# would look for. It is (a) every needle of data/catalog.json, (b) the
# detector's other anchor, "[ cut here ]", and (c) the fixed ("bold") parts
# of the message texts of /work/shared/kernel-warnings.md, section 1, split
# at their format specifiers (%s, %d) and at M4/M6's "linux-mm-@" typo, with
# parts shorter than 10 bytes dropped as the catalog's needles are (so
# "cpuset.", "blkio." and "cgroup: " are not patterns; " is deprecated"
# covers V1 and V2), plus the two contact addresses. grep -f takes every
# line as a pattern, hence no comments in that file.
#
# Environment:
#   BUILD               build directory (default build)
#   CGFB_BENCH_DIR      where the logs go (default /var/tmp); about
#                       1.3 GiB free is needed
#   CGFB_BENCH_KEEP=1   keep the logs in $CGFB_BENCH_DIR/cgfb-bench and reuse
#                       them next time (else a temporary directory is removed)
#   CGFB_BENCH_MB       size of the dmesg log in MiB (default 512)
#   CGFB_BENCH_KMSG_MB  size of the kmsg log in MiB (default 256)
#   CGFB_BENCH_RUNS     timed runs of each program (default 3)
#   CGFB_BENCH_SCAN_ONLY=1  stop after the scan (not the other benchmarks)
#   CGFB_BENCH_BEFORE=PATH  also time this (older) cgroup-feedback's scan in
#                       the same rounds, for a before/after in one run
set -eu
. "$(dirname "$0")/lib.sh"
PATTERNS=$TOP/bench/grep-patterns.txt
BASE=${CGFB_BENCH_DIR:-/var/tmp}
KEEP=${CGFB_BENCH_KEEP:-0}
MB=${CGFB_BENCH_MB:-512}
KMSG_MB=${CGFB_BENCH_KMSG_MB:-256}
RUNS=${CGFB_BENCH_RUNS:-3}
CC=${CC:-cc}

die() {
	echo "bench: $*" >&2
	exit 1
}

[ -x "$BIN" ] || die "$BIN is missing: run make first"
[ -r "$PATTERNS" ] || die "$PATTERNS is missing"
[ -d "$BASE" ] || die "$BASE is not a directory"

mkdir -p "$B/bench"
GENLOG=$B/bench/genlog
if [ ! -x "$GENLOG" ] || [ bench/genlog.c -nt "$GENLOG" ]; then
	$CC -std=gnu11 -O2 -Wall -Wextra -o "$GENLOG" bench/genlog.c
fi

if [ "$KEEP" = 1 ]; then
	DIR=$BASE/cgfb-bench
	mkdir -p "$DIR"
else
	DIR=$(mktemp -d "$BASE/cgfb-bench.XXXXXX")
	trap 'rm -rf "$DIR"' EXIT
	trap 'exit 130' INT TERM
fi

need_kb=$(( (MB + KMSG_MB) * 1024 * 11 / 10 ))
have_kb=$(df -Pk "$DIR" | awk 'NR == 2 { print $4 }')
# Logs kept from an earlier run do not need the space again.
for f in "$DIR"/dmesg.log "$DIR"/kmsg.log; do
	[ -f "$f" ] && have_kb=$((have_kb + $(du -k "$f" | cut -f1)))
done
[ "$have_kb" -ge "$need_kb" ] ||
	die "$DIR: $((have_kb / 1024)) MiB free, $((need_kb / 1024)) MiB needed (set CGFB_BENCH_DIR)"

now() {
	date +%s.%N
}

# elapsed T0 T1: seconds between two time stamps
elapsed() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'
}

# gen FMT MIB NAME: the log and its expected detections, reused when kept
# from an earlier run with the same generator and size.
gen() {
	stamp="$(cksum < bench/genlog.c) $1 $2"
	if [ -f "$DIR/$3.log" ] && [ -f "$DIR/$3.stamp" ] && [ "$(cat "$DIR/$3.stamp")" = "$stamp" ]; then
		echo "$3: reusing $DIR/$3.log"
		return
	fi
	rm -f "$DIR/$3.stamp"
	t0=$(now)
	info=$("$GENLOG" "$1" "$2" "$DIR/$3.log" "$DIR/$3.expected")
	t1=$(now)
	echo "$3: generated $info in $(elapsed "$t0" "$t1") s"
	echo "$stamp" > "$DIR/$3.stamp"
}

# check NAME: the detector must report exactly the expected detections.
check() {
	log=$DIR/$1.log
	rc=0
	"$BIN" scan --json "$log" > "$DIR/$1.json" || rc=$?
	[ "$rc" -eq 0 ] || die "$1: scan exited with $rc (0 expected: the log holds catalog messages)"
	sed -n 's/^{"id":"\([^"]*\)".*"source":"[^"]*:\([0-9]*\)".*/\1 \2/p' "$DIR/$1.json" |
		sort -k2,2n -k1,1 > "$DIR/$1.found"
	sort -k2,2n -k1,1 "$DIR/$1.expected" > "$DIR/$1.want"
	found=$(wc -l < "$DIR/$1.found")
	want=$(wc -l < "$DIR/$1.want")
	if ! cmp -s "$DIR/$1.found" "$DIR/$1.want"; then
		echo "bench: FAILED: $1: the detections differ from those the generator wrote ($found found, $want expected)" >&2
		echo "bench: differences (< found, > expected; id line):" >&2
		diff "$DIR/$1.found" "$DIR/$1.want" | grep '^[<>]' | head -n 20 >&2 || true
		exit 1
	fi
	ids=$(awk '{ print $1 }' "$DIR/$1.want" | sort | uniq -c |
		awk '{ printf "%s%s:%s", (NR > 1 ? " " : ""), $2, $1 }')
	echo "$1: detections OK: $found ($ids)"
}

# measure NAME: best of RUNS for the detector, grep and wc -l, alternately.
measure() {
	log=$DIR/$1.log
	bytes=$(wc -c < "$log")
	cat "$log" > /dev/null
	best_scan="" best_grep="" best_wc="" best_old="" all_scan="" all_grep="" all_wc="" all_old=""
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		# Each round from the page cache: a VM's host may page out what
		# was not read for a while (this one runs DAMON's pageout of
		# regions idle for a minute), and a round takes seconds.
		cat "$log" > /dev/null
		t0=$(now)
		rc=0
		"$BIN" scan "$log" > /dev/null 2>&1 || rc=$?
		t1=$(now)
		[ "$rc" -eq 0 ] || die "$1: scan exited with $rc"
		t=$(elapsed "$t0" "$t1")
		all_scan="$all_scan $t"
		best_scan=$(awk -v a="$t" -v b="$best_scan" 'BEGIN { print (b == "" || a < b) ? a : b }')

		if [ -n "${CGFB_BENCH_BEFORE:-}" ]; then
			t0=$(now)
			"$CGFB_BENCH_BEFORE" scan "$log" > /dev/null 2>&1 || true
			t1=$(now)
			t=$(elapsed "$t0" "$t1")
			all_old="$all_old $t"
			best_old=$(awk -v a="$t" -v b="$best_old" 'BEGIN { print (b == "" || a < b) ? a : b }')
		fi

		t0=$(now)
		wc -l "$log" > /dev/null
		t1=$(now)
		t=$(elapsed "$t0" "$t1")
		all_wc="$all_wc $t"
		best_wc=$(awk -v a="$t" -v b="$best_wc" 'BEGIN { print (b == "" || a < b) ? a : b }')

		t0=$(now)
		rc=0
		lines=$(LC_ALL=C grep -c -F -f "$PATTERNS" "$log") || rc=$?
		t1=$(now)
		[ "$rc" -le 1 ] || die "$1: grep exited with $rc"
		t=$(elapsed "$t0" "$t1")
		all_grep="$all_grep $t"
		best_grep=$(awk -v a="$t" -v b="$best_grep" 'BEGIN { print (b == "" || a < b) ? a : b }')
		i=$((i + 1))
	done
	# The peak RSS in a run of its own: time(1) is not in the timed ones.
	/usr/bin/time -f %M -o "$DIR/rss" "$BIN" scan "$log" > /dev/null 2>&1 || true
	rss=$(cat "$DIR/rss")
	echo "$1: runs (s): scan$all_scan; grep$all_grep; wc -l$all_wc (grep -c: $lines matching lines)"
	[ -z "$best_old" ] || awk -v n="$1" -v o="$best_old" -v w="$best_wc" -v all="$all_old" 'BEGIN {
		printf "%s: before (%s): runs (s)%s; best %.3f s: %.2fx the speed of wc -l\n", n, ENVIRON["CGFB_BENCH_BEFORE"], all, o, w / o
	}' | tee -a "$DIR/wc-summary"
	awk -v n="$1" -v bytes="$bytes" -v s="$best_scan" -v g="$best_grep" 'BEGIN {
		if (s <= 0) s = 0.001
		if (g <= 0) g = 0.001
		printf "%s: scan: %.0f MiB in %.3f s = %.0f MB/s; grep -c -F: %.3f s = %.0f MB/s; ratio %.2fx (>1 means faster than grep)\n",
		       n, bytes / 1048576, s, bytes / s / 1e6, g, bytes / g / 1e6, g / s
	}' | tee -a "$DIR/summary"
	awk -v n="$1" -v s="$best_scan" -v w="$best_wc" -v rss="$rss" 'BEGIN {
		if (s <= 0) s = 0.001
		printf "%s: scan %.3f s, wc -l %.3f s: %.2fx the speed of wc -l (target 0.8x); scan peak RSS %.1f MiB (target under 32)\n",
		       n, s, w, w / s, rss / 1024
	}' | tee -a "$DIR/wc-summary"
}

echo "machine: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) CPUs," \
	"$(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), Linux $(uname -r)"
echo "programs: $BIN; $(LC_ALL=C grep --version | head -n 1); logs in $DIR"
: > "$DIR/summary"
: > "$DIR/wc-summary"

gen dmesg "$MB" dmesg
check dmesg
measure dmesg

gen kmsg "$KMSG_MB" kmsg
check kmsg
measure kmsg

echo "---"
cat "$DIR/summary" "$DIR/wc-summary"
if awk '{ r = $0; sub(/.*ratio /, "", r); sub(/x .*/, "", r); if (r + 0 < 1) bad = 1 } END { exit !bad }' "$DIR/summary"; then
	echo "NOTE: the detector was slower than grep on at least one format"
fi
awk '/target 0.8x/ { r = $0; sub(/.*s: /, "", r); sub(/x the speed.*/, "", r); m = $0; sub(/.*RSS /, "", m)
       if (r + 0 < 0.8) print "NOTE: " $1 " below 0.8x the speed of wc -l"
       if (m + 0 >= 32) print "NOTE: " $1 " peak RSS not under 32 MiB" }' "$DIR/wc-summary"

[ "${CGFB_BENCH_SCAN_ONLY:-0}" = 1 ] && exit 0

# The collector's load test (issue 5): reports/s with durable commits.
echo "---"
BUILD=$BUILD sh bench/server.sh || echo "NOTE: bench/server.sh failed"

# The public summary at 1,000,000 reports (issue 30): its recomputation
# against one full scan of the table, within its 15 s deadline.
echo "---"
BUILD=$BUILD sh bench/summary.sh || echo "NOTE: bench/summary.sh failed"

# The watcher at rest (issue 14): wake-ups and memory beside kerneloops.
echo "---"
BUILD=$BUILD sh bench/watcher.sh || echo "NOTE: bench/watcher.sh failed"

# The snapshot (issue 3): a 10,000-cgroup tree against find | cat.
echo "---"
BUILD=$BUILD sh bench/snapshot.sh || echo "NOTE: bench/snapshot.sh failed"

# Start-up (issue 43): status against true, scan of an empty file against
# grep -c x of one.
echo "---"
BUILD=$BUILD sh bench/startup.sh || echo "NOTE: bench/startup.sh failed"

# The readiness check (issue 25): the same tree against the snapshot.
echo "---"
BUILD=$BUILD sh bench/check.sh || echo "NOTE: bench/check.sh failed"

# Rotated and compressed logs (issue 26): scan against wc -l and each
# format's own decompressor piped into wc -l.
echo "---"
BUILD=$BUILD sh bench/compressed.sh || echo "NOTE: bench/compressed.sh failed"

# The spool (issue 29): one detection with 10 and with 100,000 reports.
echo "---"
BUILD=$BUILD sh bench/spool.sh || echo "NOTE: bench/spool.sh failed"

# The systemd journal (issue 43): scan --journal-file against journalctl
# -o cat | grep -c -F and journalctl -o cat alone.
echo "---"
BUILD=$BUILD sh bench/journal.sh || echo "NOTE: bench/journal.sh failed"
