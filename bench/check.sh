#!/bin/sh
# Benchmark: `cgroup-feedback check` of the 10,000-cgroup fixture against
# `cgroup-feedback snapshot` of the same tree (issue 25: check should take
# about as long as the snapshot, which reads the same knobs and anonymises
# them besides).
#
#   make bench                    (after the snapshot benchmark)
#   BUILD=build sh bench/check.sh
#
# The tree is tests/data/cgroupfs/big10k.desc (cached per machine). Each
# program runs once to warm the caches, then CGFB_BENCH_RUNS times,
# alternately; the best wall clock time of each counts. check must walk all
# 10,000 cgroups and find what the fixture sets (soft limits, swappiness),
# or the benchmark fails.
set -eu
. "$(dirname "$0")/lib.sh"
RUNS=${CGFB_BENCH_RUNS:-3}

die() {
	echo "bench: check: $*" >&2
	exit 1
}

[ -x "$BIN" ] || die "$BIN is missing: run make first"
# shellcheck source=../tests/data/cgroupfs/lib.sh
. tests/data/cgroupfs/lib.sh
FX=$(cached_fixture big10k) || die "cannot build the big10k fixture"
TREE=$FX/root
STATE=$(mktemp -d "${TMPDIR:-/tmp}/cgfb-bench-check.XXXXXX")
trap 'rm -rf "$STATE"' EXIT
trap 'exit 130' INT TERM

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
best() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a < b) ? a : b }'; }

chk() {
	"$BIN" check --json --root "$TREE" --mountinfo "$FX/mountinfo" --rules data/readiness.json
}
snap() {
	"$BIN" snapshot --json --state-dir "$STATE" --cgroup-root "$TREE" --mountinfo "$FX/mountinfo"
}

chk > "$STATE/check.json" && die "check found nothing that breaks on a v1 tree (exit 0)"
python3 - "$STATE/check.json" <<'EOP' || die "check did not walk the whole tree"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["system"]["cgroups_walked"] >= 10000, d["system"]
assert any(f["rule"] == "knob-soft-limit" for f in d["findings"]), [f["rule"] for f in d["findings"]]
EOP
snap > /dev/null || die "snapshot failed"

best_chk="" best_snap="" all_chk="" all_snap=""
i=0
while [ "$i" -lt "$RUNS" ]; do
	t0=$(now); chk > /dev/null || true; t1=$(now)
	t=$(elapsed "$t0" "$t1"); all_chk="$all_chk $t"; best_chk=$(best "$t" "$best_chk")
	t0=$(now); snap > /dev/null; t1=$(now)
	t=$(elapsed "$t0" "$t1"); all_snap="$all_snap $t"; best_snap=$(best "$t" "$best_snap")
	i=$((i + 1))
done
echo "check: runs (s): check$all_chk; snapshot$all_snap"
awk -v c="$best_chk" -v s="$best_snap" 'BEGIN {
	if (c <= 0) c = 0.001
	if (s <= 0) s = 0.001
	printf "check: 10000 cgroups: %.3f s; snapshot of the same tree: %.3f s; ratio %.2fx (>1 means faster than the snapshot)\n", c, s, s / c
	if (s / c < 0.5)
		print "NOTE: check took more than twice as long as the snapshot"
}'
