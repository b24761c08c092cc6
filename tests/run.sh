#!/bin/sh
# The suite's runner (docs/TESTING.md): every test of the selected tiers,
# N at a time, each with its own log, results in a stable order, where the
# time went, and last one line: "N passed, N failed, N skipped".
#
#   tests/run.sh [-j N] [--tier TIER]... [--exclude PATTERN]... [--list] [PATTERN...]
#
#   -j N         jobs at once (default: CGFB_TEST_JOBS, else the number of CPUs)
#   --tier TIER  unit, integration, system or fuzz (repeatable; default all)
#   --exclude PATTERN  leave out the jobs whose name matches (repeatable)
#   --list       print the jobs that would run (name, tier, tools) and exit
#   PATTERN      run only the jobs whose name matches: a shell pattern, or a
#                word found anywhere in the name (snapshot, build-san/*,
#                pg/server-api, valgrind/)
#
# Environment: BUILDS (builds to run, default "build"), VALGRIND=1 (memcheck
# over the unit tests and over the scripts tests/valgrind-scripts names),
# CGFB_SKIP_QEMU, CGFB_SKIP_PACKAGES, CGFB_SKIP_FUZZ (skip, and say so).
#
# Every test prints TAP ("ok N - name" / "not ok N - name"); a job that dies
# without reporting a failure (crash, sanitizer abort) counts as one failure.
# Jobs are independent: each makes its own temporary directory (tests/lib.sh),
# listens on a port the kernel picks, starts its own PostgreSQL; so any two
# can run at once, and so can two suites.
set -u
T_START=$(date +%s)
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 2

# --- one job (xargs calls the script again for each) -------------------------
# --job LOGDIR N: run line N of LOGDIR/jobs, output to LOGDIR/N.log, status
# and seconds to LOGDIR/N.st, one progress line to stderr.
if [ "${1:-}" = --job ]; then
	dir=$2 n=$3
	line=$(sed -n "${n}p" "$dir/jobs")
	name=$(printf '%s\n' "$line" | cut -f1)
	cmd=$(printf '%s\n' "$line" | cut -f4-)
	t0=$(date +%s)
	# As root, each job gets a mount namespace of its own with an empty
	# /run/motd.d: a program a test runs without the test's configuration
	# falls back to the host's login banner there, and the host's banner is
	# never a test's to write (tests/lib.sh says so when it is written
	# anyway, without this namespace).
	# The command is evaluated in that namespace's shell, a new process:
	# dir and n, which commands name (the valgrind scripts' log directory
	# is $dir/vg.$n), go with it in its environment. Without them every
	# valgrind job logged to one directory, /vg., shared by all jobs and
	# runs: each verdict read every log there, and a process of another
	# user could not create its log where a PID's old one was left.
	if [ "$(id -u)" = 0 ] && mkdir -p /run/motd.d 2>/dev/null &&
		unshare --mount --propagation private true 2>/dev/null; then
		dir=$dir n=$n unshare --mount --propagation private sh -c \
			'mount -t tmpfs -o mode=755,size=1m cgfb-test-motd /run/motd.d && eval "$1"' \
			sh "$cmd" >"$dir/$n.log" 2>&1 </dev/null
	else
		(eval "$cmd") >"$dir/$n.log" 2>&1 </dev/null
	fi
	rc=$?
	secs=$(($(date +%s) - t0))
	echo "$rc $secs" >"$dir/$n.st"
	nf=$(grep -c '^not ok ' "$dir/$n.log")
	verdict=ok
	{ [ "$nf" -gt 0 ] || { [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; }; } && verdict=FAILED
	printf '  %-44s %6s (%d s)\n' "$name" "$verdict" "$secs" >&2
	exit 0
fi

JOBS=${CGFB_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
TIERS="" LIST=0 PATTERNS="" EXCLUDE=""
while [ $# -gt 0 ]; do
	case $1 in
	-j) JOBS=$2; shift ;;
	-j*) JOBS=${1#-j} ;;
	--tier) TIERS="$TIERS $2"; shift ;;
	--tier=*) TIERS="$TIERS ${1#--tier=}" ;;
	--exclude) EXCLUDE="$EXCLUDE $2"; shift ;;
	--exclude=*) EXCLUDE="$EXCLUDE ${1#--exclude=}" ;;
	--list) LIST=1 ;;
	-h | --help) sed -n '2,/^set -u/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0 ;;
	-*) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
	*) PATTERNS="$PATTERNS $1" ;;
	esac
	shift
done
TIERS=${TIERS:-unit integration system fuzz}
for t in $TIERS; do
	case $t in unit | integration | system | fuzz) ;;
	*) echo "run.sh: unknown tier '$t' (unit, integration, system, fuzz)" >&2; exit 2 ;;
	esac
done
case $JOBS in '' | *[!0-9]* | 0) echo "run.sh: -j wants a positive number" >&2; exit 2 ;; esac
BUILDS=${BUILDS:-${BUILD:-build}}
VALGRIND=${VALGRIND:-0}

LOGDIR=$(mktemp -d "${TMPDIR:-/tmp}/cgfb-tests.XXXXXX") || exit 2
# Under valgrind a test's program run as another user writes its log in
# here too (tests/tools/vg-wrap.sh).
chmod 0711 "$LOGDIR"
TABLE=$LOGDIR/jobs
: >"$TABLE"

# --- the jobs ------------------------------------------------------------------
# matches NAME PATTERN...: NAME matches one of the shell patterns, or holds it.
matches() {
	_n=$1; shift
	for p; do
		# shellcheck disable=SC2254
		case $_n in $p | *$p*) return 0 ;; esac
	done
	return 1
}
# wanted NAME: the name matches a PATTERN (or there is none), and no
# --exclude pattern.
wanted() {
	# shellcheck disable=SC2086
	[ -n "$EXCLUDE" ] && matches "$1" $EXCLUDE && return 1
	[ -z "$PATTERNS" ] && return 0
	# shellcheck disable=SC2086
	matches "$1" $PATTERNS
}
# add NAME TIER TOOLS COMMAND: one job, if its tier is selected and its name
# matches. The command is run by sh from the top of the tree.
add() {
	case " $TIERS " in *" $2 "*) ;; *) return ;; esac
	wanted "$1" || return
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$TABLE"
}
# on_valgrind SCRIPT: tests/valgrind-scripts names SCRIPT (its reason beside it).
on_valgrind() { grep -q "^$1[[:space:]]" tests/valgrind-scripts; }

# The collector's scripts run a second time on PostgreSQL (tests/server/pg.sh).
PG_SCRIPTS="server-api server-attack server-dashboard server-e2e server-edges server-export server-shows
server-import server-log"
# Scripts that test the sources or build packages from them, not $BUILD's
# programs: once, on the first build.
ONCE="layers deb-install rpm-build purge kernels-sync"
# Scripts that install packages or boot a machine: the system tier.
SYSTEM_SCRIPTS="deb-install rpm-build"

first=1
for B in $BUILDS; do
	case $B in *san*) san=1 tool=asan+ubsan ;; *) san=0 tool=native ;; esac
	for src in tests/unit/test_*.c; do
		t=$(basename "$src" .c)
		add "$B/unit/$t" unit "$tool" "CMOCKA_MESSAGE_OUTPUT=TAP $B/tests/$t"
		# valgrind sees what ASan cannot (uninitialised reads) and the
		# reverse; it is pointless on the ASan build itself.
		# (--read-inline-info=no: as in tests/tools/vg-wrap.sh, which says why.)
		[ "$san$VALGRIND" = 01 ] && add "$B/valgrind/$t" unit valgrind \
			"CMOCKA_MESSAGE_OUTPUT=TAP valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --read-inline-info=no $B/tests/$t"
	done
	for src in tests/integration/*.sh; do
		s=$(basename "$src" .sh)
		case " $ONCE " in *" $s "*) [ $first = 1 ] || continue ;; esac
		tier=integration dir=integration
		case " $SYSTEM_SCRIPTS " in *" $s "*) tier=system dir=packages ;; esac
		if [ "$san$VALGRIND" = 01 ] && on_valgrind "$s"; then
			# Every program the script runs is under valgrind
			# (tests/lib.sh), each logging to a directory of its own;
			# once the script is over one more test says whether any
			# logged an error or a definite leak, and fails when none
			# logged at all (unless the whole script was skipped, 77).
			add "$B/valgrind/$s" $tier valgrind \
				"BUILD=$B VALGRIND=1 CGFB_VG_LOGDIR=\$dir/vg.\$n sh $src; rc=\$?; [ \$rc = 77 ] || sh tests/tools/vg-check.sh \$dir/vg.\$n $s || rc=1; exit \$rc"
		else
			t=$tool
			[ $dir = packages ] && t=packages
			add "$B/$dir/$s" $tier "$t" "BUILD=$B VALGRIND=0 sh $src"
		fi
	done
	for s in $PG_SCRIPTS; do
		if [ "$san$VALGRIND" = 01 ] && on_valgrind "pg/$s"; then
			add "$B/valgrind/pg/$s" integration postgresql+valgrind \
				"BUILD=$B VALGRIND=1 CGFB_TEST_STORE=pg CGFB_VG_LOGDIR=\$dir/vg.\$n sh tests/integration/$s.sh; rc=\$?; [ \$rc = 77 ] || sh tests/tools/vg-check.sh \$dir/vg.\$n pg/$s || rc=1; exit \$rc"
		else
			add "$B/pg/$s" integration "postgresql+$tool" \
				"BUILD=$B VALGRIND=0 CGFB_TEST_STORE=pg sh tests/integration/$s.sh"
		fi
	done
	if [ "${CGFB_SKIP_QEMU:-0}" = 1 ]; then
		add "$B/qemu" system qemu "echo 'ok 1 - qemu # SKIP CGFB_SKIP_QEMU=1'"
	else
		add "$B/qemu" system "qemu+$tool" "sh tests/qemu/run.sh $B/cgroup-feedback"
	fi
	# The installed packages under systemd (docs/SYSTEM-TEST.md): once, on
	# the normal build; the packages are built from the sources.
	if [ $san = 0 ]; then
		if [ "${CGFB_SKIP_QEMU:-0}" = 1 ] || [ "${CGFB_SKIP_PACKAGES:-0}" = 1 ]; then
			add "$B/system" system qemu \
				"echo 'ok 1 - full-system test # SKIP CGFB_SKIP_QEMU=1 or CGFB_SKIP_PACKAGES=1'"
		else
			add "$B/system" system qemu+systemd+deb "BUILD=$B sh tests/system/run.sh"
		fi
	fi
	first=0
done
# The fuzz targets (make fuzz-build), each a few seconds from its seed
# corpus: crashes, sanitizer reports and property failures fail the suite.
for src in fuzz/*.c; do
	f=$(basename "$src" .c)
	if [ "${CGFB_SKIP_FUZZ:-0}" = 1 ]; then
		add "fuzz/$f" fuzz libfuzzer "echo 'ok 1 - fuzz/$f # SKIP CGFB_SKIP_FUZZ=1'"
	else
		add "fuzz/$f" fuzz libfuzzer+asan+ubsan "sh fuzz/run.sh smoke $f"
	fi
done

count=$(wc -l <"$TABLE")
if [ "$LIST" = 1 ]; then
	printf '%-44s %-12s %s\n' JOB TIER TOOLS
	awk -F'\t' '{ printf "%-44s %-12s %s\n", $1, $2, $3 }' "$TABLE"
	echo "$count jobs"
	rm -rf "$LOGDIR"
	exit 0
fi
if [ "$count" -eq 0 ]; then
	echo "run.sh: no job matches:$PATTERNS (tiers: $TIERS; see --list)" >&2
	rm -rf "$LOGDIR"
	exit 2
fi

# --- run them ----------------------------------------------------------------
# Longest first, so that the long jobs do not start last: by the time each
# took in this checkout's last run (TIMES), else by kind.
TIMES=$(echo "$BUILDS" | cut -d' ' -f1)/test-times
guess() {
	case $1 in
	*/system) echo 600 ;; */qemu) echo 200 ;; */valgrind/test_*) echo 3 ;;
	*/valgrind/*) echo 120 ;; */pg/*) echo 40 ;; fuzz/*) echo 8 ;;
	*/unit/*) echo 1 ;; *) echo 20 ;;
	esac
}
n=0
while IFS='	' read -r name _; do
	n=$((n + 1))
	t=$(awk -F'\t' -v j="$name" '$1 == j { print $2; exit }' "$TIMES" 2>/dev/null)
	echo "${t:-$(guess "$name")} $n"
done <"$TABLE" | sort -k1,1nr -k2,2n | cut -d' ' -f2 >"$LOGDIR/order"

echo "== $count jobs, $JOBS at a time (logs: $LOGDIR)"
xargs -P "$JOBS" -n 1 sh "$0" --job "$LOGDIR" <"$LOGDIR/order"

# --- results, in the table's order -------------------------------------------
passed=0 failed=0 skipped=0 failures=""
: >"$LOGDIR/times"
n=0
while IFS='	' read -r name tier _; do
	n=$((n + 1))
	log=$LOGDIR/$n.log
	if [ -f "$LOGDIR/$n.st" ]; then
		read -r rc secs <"$LOGDIR/$n.st"
	else
		rc=125 secs=0
		echo "not ok 1 - $name did not run (interrupted?)" >>"$log"
	fi
	p=$(grep -c '^ok ' "$log")
	f=$(grep -c '^not ok ' "$log")
	s=$(grep -c '^ok .*# *[Ss][Kk][Ii][Pp]' "$log")
	p=$((p - s))
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	if [ "$f" -gt 0 ]; then
		failures="$failures $name"
		# Each failed test with the evidence printed under it.
		awk -v j="$name" '/^not ok / { print "  " j ": " $0; c = 0; on = 1; next }
			on && /^#/ && c < 25 { print "      " $0; c++; next } { on = 0 }' "$log" |
			tee -a "$LOGDIR/failed"
	fi
	# 77 is the automake convention for "skipped": the test said why in TAP.
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ] && [ "$f" -eq 0 ]; then
		failed=$((failed + 1)) failures="$failures $name(exit=$rc)"
		{
			echo "  $name: exited with status $rc without a failing test; last lines:"
			tail -n 15 "$log" | sed 's/^/    /'
		} | tee -a "$LOGDIR/failed"
	fi
	printf '%-44s %4d passed, %d failed, %d skipped (%d s)\n' "$name" "$p" "$f" "$s" "$secs"
	printf '%s\t%s\t%s\n' "$name" "$secs" "$tier" >>"$LOGDIR/times"
done <"$TABLE"

# --- where the time went -----------------------------------------------------
wall=$(($(date +%s) - T_START))
echo "== time: $wall s wall, $JOBS jobs at a time"
awk -F'\t' '{ s[$3] += $2; c[$3]++ } END {
	for (t in s) printf "  %-12s %4d jobs %6d s\n", t, c[t], s[t] }' "$LOGDIR/times" | sort
echo "  slowest:"
sort -t'	' -k2,2nr "$LOGDIR/times" | head -n 10 | awk -F'\t' '{ printf "  %6d s  %s\n", $2, $1 }'
# The next run of this checkout starts the longest first.
# Merged: a run of a few jobs updates theirs and keeps the others'.
if [ -d "$(dirname "$TIMES")" ]; then
	awk -F'\t' 'FNR == NR { t[$1] = $0; next } !($1 in t) { print } END { for (j in t) print t[j] }' \
		"$LOGDIR/times" "$TIMES" 2>/dev/null >"$LOGDIR/times.all" || cp "$LOGDIR/times" "$LOGDIR/times.all"
	cp "$LOGDIR/times.all" "$TIMES" 2>/dev/null
fi

echo "logs: $LOGDIR"
# Again where a reader of the run's last lines looks (CI shows its tail).
if [ -s "$LOGDIR/failed" ]; then
	echo "== what failed (each with the lines under it; the whole log in $LOGDIR):"
	head -n 80 "$LOGDIR/failed"
fi
[ -n "$failures" ] && echo "failed:$failures"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
