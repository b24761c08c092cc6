#!/bin/sh
# Run the libFuzzer targets that make fuzz-build left in build-fuzz/fuzz/.
#
#   run.sh smoke [TARGET...]
#       each target FUZZ_SMOKE_SECONDS (default 4) from its seed corpus
#       fuzz/corpus/<target>, with a fixed seed; one TAP line per target.
#       Nothing is written to fuzz/corpus. tests/run.sh runs this.
#   run.sh campaign SECONDS JOBS [TARGET...]
#       each target SECONDS (JOBS > 1: that many processes, libFuzzer's
#       -fork) on its working corpus build-fuzz/corpus/<target>, read
#       together with the seeds; a line per target goes to
#       build-fuzz/campaign.tsv (target, seconds, executions, cov, ft,
#       corpus, result) for docs/FUZZING.md.
#   run.sh merge [TARGET...]
#       the inputs of the working corpus that add coverage, copied into
#       fuzz/corpus/<target> (libFuzzer's -merge=1).
#
# Crashes and property failures are saved as build-fuzz/artifacts/<target>-*
# (campaign) or in the smoke run's log directory; reproduce one with
# build-fuzz/fuzz/<target> FILE.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 2
B=${FUZZ_BUILD:-build-fuzz}
ALL=$(for f in fuzz/*.c; do basename "$f" .c; done)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# Flags of one target: its dictionary and the largest input worth trying
# (a report or a log is kilobytes; the catalog file is 22 KiB).
flags() {
	f="-timeout=10 -rss_limit_mb=2048 -print_final_stats=1"
	[ -f "fuzz/dict/$1.dict" ] && f="$f -dict=fuzz/dict/$1.dict"
	case $1 in
	catalog_load) f="$f -max_len=32768" ;;
	mail) f="$f -max_len=32768" ;;
	ingest | canon | scan | input | journal_fields) f="$f -max_len=16384" ;;
	logfmt | journal_export | mscan) f="$f -max_len=8192" ;;
	redact) f="$f -max_len=2048" ;;
	*) f="$f -max_len=4096" ;;
	esac
	echo "$f"
}

# "runs cov ft corp" from a libFuzzer log.
figures() {
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$1" | tail -n 1)
	last=$(grep -E '^#[0-9]+.*cov: [0-9]+' "$1" | tail -n 1)
	cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p')
	echo "${runs:-?} ${cov:-?} ${ft:-?} ${corp:-?}"
}

missing() {
	for t in $1; do
		[ -x "$B/fuzz/$t" ] || return 0
	done
	return 1
}

mode=${1:-smoke}
[ $# -gt 0 ] && shift
case $mode in
smoke)
	targets=${*:-$ALL}
	secs=${FUZZ_SMOKE_SECONDS:-4}
	if missing "$targets"; then
		if ! sh fuzz/have-libfuzzer.sh "${FUZZ_CC:-clang}"; then
			echo "ok 1 - fuzz smoke # SKIP clang with libFuzzer is not installed (Debian: clang libclang-rt-dev)"
			exit 0
		fi
		echo "not ok 1 - fuzz smoke: targets missing from $B/fuzz (make fuzz-build)"
		exit 1
	fi
	work=$(mktemp -d "${TMPDIR:-/tmp}/cgfb-fuzz.XXXXXX") || exit 2
	set -- $targets
	echo "1..$#"
	n=0 bad=0
	for t in $targets; do
		n=$((n + 1))
		mkdir -p "$work/$t"
		# shellcheck disable=SC2046
		"$B/fuzz/$t" $(flags "$t") -seed=1 -max_total_time="$secs" \
			-artifact_prefix="$work/$t-" "$work/$t" "fuzz/corpus/$t" \
			>"$work/$t.log" 2>&1
		rc=$?
		set -- $(figures "$work/$t.log")
		if [ "$rc" -eq 0 ]; then
			echo "ok $n - fuzz/$t: $1 runs in ${secs}s, cov $2, ft $3"
		else
			bad=1
			echo "not ok $n - fuzz/$t: exit $rc after $1 runs; log $work/$t.log"
			grep -E 'property failed|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|Test unit written' \
				"$work/$t.log" | head -n 5 | sed 's/^/# /'
		fi
		rm -rf "${work:?}/$t"
	done
	[ "$bad" -eq 0 ] && rm -rf "$work"
	exit "$bad"
	;;
campaign)
	secs=${1:-60} jobs=${2:-1}
	shift 2 2>/dev/null
	targets=${*:-$ALL}
	if missing "$targets"; then
		echo "fuzz: targets missing from $B/fuzz: make fuzz-build needs clang and libclang-rt-dev" >&2
		exit 1
	fi
	mkdir -p "$B/artifacts" "$B/logs"
	out=$B/campaign.tsv
	printf 'target\tseconds\tjobs\texecutions\tcov\tft\tcorpus\tresult\n' >"$out"
	bad=0
	for t in $targets; do
		mkdir -p "$B/corpus/$t"
		par=""
		[ "$jobs" -gt 1 ] && par="-fork=$jobs"
		echo "== fuzz/$t: ${secs}s${par:+, $par}"
		# shellcheck disable=SC2046
		"$B/fuzz/$t" $(flags "$t") $par -max_total_time="$secs" \
			-artifact_prefix="$B/artifacts/$t-" "$B/corpus/$t" "fuzz/corpus/$t" \
			>"$B/logs/$t.log" 2>&1
		rc=$?
		result=clean
		[ "$rc" -ne 0 ] && result="exit $rc" bad=1
		set -- $(figures "$B/logs/$t.log")
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$secs" "$jobs" "$1" "$2" "$3" "$4" \
			"$result" >>"$out"
		echo "   $1 executions, cov $2, ft $3, corpus $4: $result"
		[ "$rc" -ne 0 ] && grep -E 'property failed|ERROR:|runtime error|Test unit written' \
			"$B/logs/$t.log" | head -n 5 | sed 's/^/   /'
	done
	echo "fuzz: figures in $out, logs in $B/logs, crashes in $B/artifacts"
	exit "$bad"
	;;
merge)
	targets=${*:-$ALL}
	for t in $targets; do
		[ -d "$B/corpus/$t" ] || continue
		mkdir -p "fuzz/corpus/$t"
		# shellcheck disable=SC2046
		"$B/fuzz/$t" $(flags "$t") -merge=1 "fuzz/corpus/$t" "$B/corpus/$t" \
			>"$B/logs/$t.merge.log" 2>&1 || { echo "fuzz: merge of $t failed"; exit 1; }
		echo "fuzz/$t: $(ls "fuzz/corpus/$t" | wc -l) seeds"
	done
	;;
*)
	echo "usage: run.sh smoke|campaign SECONDS JOBS|merge [TARGET...]" >&2
	exit 2
	;;
esac
