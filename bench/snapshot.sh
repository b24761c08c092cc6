#!/bin/sh
# Benchmark: `cgroup-feedback snapshot` of the 10,000-cgroup fixture against
# `find TREE -type f -name 'memory.*' -exec cat {} +` on the same tree, the
# least a shell script would do to look at the same knobs.
#
#   make bench                    (runs this after bench/run.sh's scan benchmark)
#   BUILD=build sh bench/snapshot.sh
#
# The tree is tests/data/cgroupfs/big10k.desc built by mkfixture.py (cached
# per machine, see tests/data/cgroupfs/lib.sh): 10,000 memory cgroups with
# every file a 5.4 kernel gives them, about 300,000 files. Both programs run
# once to warm the caches, then CGFB_BENCH_RUNS times each, alternately; the
# best wall clock time of each counts. The snapshot's report must be within
# its 256 KiB cap and account for all 10,000 cgroups, or the benchmark fails.
set -eu
. "$(dirname "$0")/lib.sh"
RUNS=${CGFB_BENCH_RUNS:-3}

die() {
	echo "bench: snapshot: $*" >&2
	exit 1
}

[ -x "$BIN" ] || die "$BIN is missing: run make first"
# shellcheck source=../tests/data/cgroupfs/lib.sh
. tests/data/cgroupfs/lib.sh
t0=$(date +%s)
FX=$(cached_fixture big10k) || die "cannot build the big10k fixture"
echo "snapshot: fixture $FX ($(($(date +%s) - t0)) s to build or find)"
TREE=$FX/root
STATE=$(mktemp -d "${TMPDIR:-/tmp}/cgfb-bench-snap.XXXXXX")
trap 'rm -rf "$STATE"' EXIT
trap 'exit 130' INT TERM

now() {
	date +%s.%N
}

elapsed() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'
}

snap() {
	"$BIN" snapshot --json --state-dir "$STATE" --cgroup-root "$TREE" --mountinfo "$FX/mountinfo"
}

findcat() {
	find "$TREE" -type f -name 'memory.*' -exec cat {} +
}

snap > "$STATE/report.json" || die "snapshot failed"
size=$(($(wc -c < "$STATE/report.json") - 1))
[ "$size" -le 262144 ] || die "the report is $size bytes, over the 262144-byte cap"
grep -q '"nodes_total":10000' "$STATE/report.json" || die "the report does not count 10000 memory cgroups"
files=$(find "$TREE" -type f -name 'memory.*' | wc -l)
findcat > /dev/null

best_snap="" best_find="" all_snap="" all_find=""
i=0
while [ "$i" -lt "$RUNS" ]; do
	t0=$(now)
	snap > /dev/null || die "snapshot failed"
	t1=$(now)
	t=$(elapsed "$t0" "$t1")
	all_snap="$all_snap $t"
	best_snap=$(awk -v a="$t" -v b="$best_snap" 'BEGIN { print (b == "" || a < b) ? a : b }')

	t0=$(now)
	findcat > /dev/null
	t1=$(now)
	t=$(elapsed "$t0" "$t1")
	all_find="$all_find $t"
	best_find=$(awk -v a="$t" -v b="$best_find" 'BEGIN { print (b == "" || a < b) ? a : b }')
	i=$((i + 1))
done
echo "snapshot: runs (s): snapshot$all_snap; find|cat$all_find"
awk -v s="$best_snap" -v f="$best_find" -v size="$size" -v files="$files" 'BEGIN {
	if (s <= 0) s = 0.001
	if (f <= 0) f = 0.001
	printf "snapshot: 10000 cgroups, report %d bytes: %.3f s; find -name '"'"'memory.*'"'"' -exec cat (%d files): %.3f s; ratio %.2fx (>1 means faster than find)\n",
	       size, s, files, f, f / s
	if (f / s < 1)
		print "NOTE: the snapshot was slower than find | cat"
}'
