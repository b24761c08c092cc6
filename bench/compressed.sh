#!/bin/sh
# Benchmark: `cgroup-feedback scan` of a log plain and compressed, against
# the least that reads the same bytes: `wc -l FILE` for the plain log, and
# each format's own decompressor piped into `wc -l` (`zcat | wc -l`,
# `xzcat`, `zstdcat`, `bzcat`, `lz4cat`) for the compressed ones.
#
#   make bench                    (runs this after the scan benchmark)
#   BUILD=build sh bench/compressed.sh [LOG]
#
# LOG defaults to a dmesg log of CGFB_BENCH_Z_MB MiB (default 1024) written
# by bench/genlog.c. Each compressed copy is made once with the tool's
# default level (what logrotate and the distributions use; xz with -T0) and
# must give exactly the plain file's detections, or the benchmark fails.
# With the files in the page cache, each pair runs CGFB_BENCH_RUNS times
# (default 3), alternately; the best wall clock time counts, and the peak
# RSS of the scan is printed. Targets (issue 26): plain at least 0.8x the
# speed of wc -l; each format at least 1.0x its decompressor alone.
set -eu
. "$(dirname "$0")/lib.sh"
RUNS=${CGFB_BENCH_RUNS:-3}
MB=${CGFB_BENCH_Z_MB:-1024}
BASE=${CGFB_BENCH_DIR:-/var/tmp}

die() {
	echo "bench: compressed: $*" >&2
	exit 1
}

[ -x "$BIN" ] || die "$BIN is missing: run make first"
for t in gzip xz zstd bzip2 lz4 wc; do
	command -v "$t" > /dev/null || die "$t is missing (make deps)"
done
DIR=$(mktemp -d "$BASE/cgfb-bench-z.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
trap 'exit 130' INT TERM

LOG=${1:-}
if [ -z "$LOG" ]; then
	mkdir -p "$B/bench"
	[ -x "$B/bench/genlog" ] && [ ! bench/genlog.c -nt "$B/bench/genlog" ] ||
		${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -o "$B/bench/genlog" bench/genlog.c
	LOG=$DIR/dmesg.log
	echo "compressed: $("$B/bench/genlog" dmesg "$MB" "$LOG" "$DIR/expected")"
fi

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
best() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a < b) ? a : b }'; }

# The (id, line) pairs of a scan, for comparing a copy with the plain log.
found() {
	"$BIN" scan --json "$1" 2> /dev/null |
		sed -n 's/^{"id":"\([^"]*\)".*"source":"[^"]*:\([0-9]*\)".*/\1 \2/p'
}

want=$(found "$LOG")
[ -n "$want" ] || die "$LOG: no detection at all (the generator plants some)"

# pair NAME FILE PEER...: the scan of FILE against the shell command PEER
# (given FILE as $1), best of RUNS each, and the ratio peer/scan.
pair() {
	name=$1 file=$2
	shift 2
	cat "$file" > /dev/null
	bs="" bp=""
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		t0=$(now)
		/usr/bin/time -f %M -o "$DIR/rss" "$BIN" scan "$file" > /dev/null 2>&1 ||
			die "$name: scan failed"
		t1=$(now)
		bs=$(best "$(elapsed "$t0" "$t1")" "$bs")
		t0=$(now)
		sh -c "$*" _ "$file" > /dev/null || die "$name: $* failed"
		t1=$(now)
		bp=$(best "$(elapsed "$t0" "$t1")" "$bp")
		i=$((i + 1))
	done
	awk -v n="$name" -v f="$(wc -c < "$file")" -v s="$bs" -v p="$bp" -v peer="$*" \
	    -v rss="$(cat "$DIR/rss")" 'BEGIN {
		if (s <= 0) s = 0.001
		printf "%-6s %6.0f MiB  scan %.3f s (peak RSS %d MiB)  %s %.3f s  ratio %.2fx\n",
		       n, f / 1048576, s, rss / 1024, peer, p, p / s
	}' | tee -a "$DIR/summary"
}

echo "machine: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) CPUs"
: > "$DIR/summary"
pair plain "$LOG" 'wc -l "$1"'
for f in "gzip gz zcat" "xz xz xzcat" "zstd zst zstdcat" "bzip2 bz2 bzcat" "lz4 lz4 lz4cat"; do
	set -- $f
	t0=$(now)
	case $1 in
	xz) xz -T0 -c "$LOG" > "$DIR/log.$2" ;;
	*) "$1" -q -c "$LOG" > "$DIR/log.$2" 2> /dev/null || "$1" -c "$LOG" > "$DIR/log.$2" ;;
	esac
	t1=$(now)
	[ "$(found "$DIR/log.$2")" = "$want" ] || die "$1: the detections differ from the plain log's"
	echo "$1: compressed in $(elapsed "$t0" "$t1") s, detections as in the plain log"
	pair "$1" "$DIR/log.$2" "$3"' "$1" | wc -l'
done
echo "---"
cat "$DIR/summary"
awk '$1 == "plain" && $NF + 0 < 0.8 { print "NOTE: plain: below the 0.8x target" }
     $1 != "plain" && $NF + 0 < 1.0 { print "NOTE: " $1 ": below the 1.0x target" }' \
	"$DIR/summary" | sed 's/x target/x target (of wc -l or the decompressor)/'
