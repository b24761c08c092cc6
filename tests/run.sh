#!/bin/sh
# Run every test: cmocka unit tests, integration scripts, the real-kernel test,
# the full-system test, the fuzz targets' smoke run.
# Every test reports TAP lines ("ok N - name" / "not ok N - name"); this
# script counts them and ends with one line: "N passed, N failed[, N skipped]".
set -u
T_START=$(date +%s)
BUILDS=${BUILDS:-${BUILD:-build}}
VALGRIND=${VALGRIND:-0}
export VALGRIND
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 2
LOGDIR=$(mktemp -d "${TMPDIR:-/tmp}/cgfb-tests.XXXXXX")
# Under valgrind a test's program run as another user writes its log in
# here too (tests/tools/vg-wrap.sh).
chmod 0711 "$LOGDIR"
passed=0 failed=0 skipped=0 failures=""

# Count the TAP lines of one test program; a program that dies without
# reporting (crash, sanitizer abort) counts as one failure of its own.
account() {
	name=$1 status=$2 log=$3
	p=$(grep -c '^ok ' "$log")
	f=$(grep -c '^not ok ' "$log")
	s=$(grep -c '^ok .*# *[Ss][Kk][Ii][Pp]' "$log")
	p=$((p - s))
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	if [ "$f" -gt 0 ]; then
		failures="$failures $name"
		grep '^not ok ' "$log" | sed "s|^|  $name: |"
	fi
	# 77 is the automake convention for "skipped": the test said why in TAP.
	if [ "$status" -ne 0 ] && [ "$status" -ne 77 ] && [ "$f" -eq 0 ]; then
		failed=$((failed + 1)); failures="$failures $name(exit=$status)"
		echo "  $name: exited with status $status without a failing test; last lines:"
		tail -n 15 "$log" | sed 's/^/    /'
	fi
	printf '%-40s %3d passed, %d failed, %d skipped%s\n' "$name" "$p" "$f" "$s" "${took:-}"
	took=
}

# Each test's wall time goes on its line: what to look at first when the
# suite grows towards CI's limit (the times say nothing about speed; that
# is make bench's).
run() {
	name=$1; shift
	log="$LOGDIR/$(echo "$name" | tr '/' '_').log"
	t0=$(date +%s)
	"$@" >"$log" 2>&1
	rc=$?
	took=" ($(($(date +%s) - t0)) s)"
	account "$name" $rc "$log"
}

for BUILD in $BUILDS; do
	export BUILD
	echo "== unit tests ($BUILD)"
	for t in "$BUILD"/tests/test_*; do
		[ -x "$t" ] || continue
		CMOCKA_MESSAGE_OUTPUT=TAP run "$BUILD/unit/$(basename "$t")" "$t"
		# valgrind sees what ASan cannot (uninitialised reads) and the
		# reverse; it is pointless on the ASan build itself.
		case $BUILD in *san*) continue ;; esac
		[ "$VALGRIND" = 1 ] || continue
		CMOCKA_MESSAGE_OUTPUT=TAP run "$BUILD/valgrind/$(basename "$t")" \
			valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite "$t"
	done

	echo "== integration tests ($BUILD)"
	for t in tests/integration/*.sh; do
		[ -f "$t" ] || continue
		script=$(basename "$t" .sh)
		case $VALGRIND:$BUILD in
		1:*san*|0:*)
			run "$BUILD/integration/$script" sh "$t"
			continue ;;
		esac
		# Every program the script runs is under valgrind (tests/lib.sh),
		# each logging to this directory; once the script is over (and
		# its programs with it) one more test says whether any logged an
		# error or a definite leak. ($script: run sets $name.)
		vglogs="$LOGDIR/vg-$BUILD-$script"
		rm -rf "$vglogs"
		CGFB_VG_LOGDIR=$vglogs run "$BUILD/integration/$script" sh "$t"
		run "$BUILD/valgrind/$script" sh tests/tools/vg-check.sh "$vglogs" "$script"
		# What it measures (100,000 reports exported in bounded memory)
		# valgrind's shadow memory hides: once more without it.
		[ "$script" = server-export ] &&
			run "$BUILD/integration/native/$script" env VALGRIND=0 sh "$t"
	done

	# The collector's scripts once more on PostgreSQL, a server each script
	# starts itself (tests/server/pg.sh). (server-pg-* are PostgreSQL's own;
	# the server-attack run under valgrind runs its collector natively.)
	echo "== collector on PostgreSQL ($BUILD)"
	for script in server-api server-attack server-dashboard server-e2e server-edges \
		server-export server-import server-log; do
		case $VALGRIND:$BUILD in
		1:*san*|0:*)
			CGFB_TEST_STORE=pg run "$BUILD/integration/pg/$script" sh "tests/integration/$script.sh"
			continue ;;
		esac
		vglogs="$LOGDIR/vg-$BUILD-pg-$script"
		rm -rf "$vglogs"
		CGFB_TEST_STORE=pg CGFB_VG_LOGDIR=$vglogs \
			run "$BUILD/integration/pg/$script" sh "tests/integration/$script.sh"
		run "$BUILD/valgrind/pg/$script" sh tests/tools/vg-check.sh "$vglogs" "$script"
	done

	echo "== real kernel under qemu ($BUILD)"
	if [ "${CGFB_SKIP_QEMU:-0}" = 1 ]; then
		echo "ok 1 - qemu # SKIP CGFB_SKIP_QEMU=1" > "$LOGDIR/qemu.log"
		account "$BUILD/qemu" 0 "$LOGDIR/qemu.log"
	elif [ -f tests/qemu/run.sh ]; then
		run "$BUILD/qemu" sh tests/qemu/run.sh "$BUILD/cgroup-feedback"
		case $VALGRIND:$BUILD in
		1:*san*|0:*) ;;
		*)
			echo "ok 1 - valgrind: qemu # SKIP the programs run in the guest, which has no valgrind" \
				> "$LOGDIR/qemu-valgrind.log"
			account "$BUILD/valgrind/qemu" 0 "$LOGDIR/qemu-valgrind.log" ;;
		esac
	fi

	# The installed packages under systemd (docs/SYSTEM-TEST.md): once, on
	# the normal build; the packages are built from the sources, not $BUILD.
	case $BUILD in *san*) continue ;; esac
	echo "== full system: the .debs under systemd in qemu ($BUILD)"
	if [ "${CGFB_SKIP_QEMU:-0}" = 1 ] || [ "${CGFB_SKIP_PACKAGES:-0}" = 1 ]; then
		echo "ok 1 - full-system test # SKIP CGFB_SKIP_QEMU=1 or CGFB_SKIP_PACKAGES=1" > "$LOGDIR/system.log"
		account "$BUILD/system" 0 "$LOGDIR/system.log"
	elif [ -f tests/system/run.sh ]; then
		run "$BUILD/system" sh tests/system/run.sh
	fi
done

# The fuzz targets (make fuzz-build), each a few seconds from its seed
# corpus: crashes, sanitizer reports and property failures fail the suite.
echo "== fuzz targets, smoke run"
if [ "${CGFB_SKIP_FUZZ:-0}" = 1 ]; then
	echo "ok 1 - fuzz smoke # SKIP CGFB_SKIP_FUZZ=1" > "$LOGDIR/fuzz.log"
	account fuzz/smoke 0 "$LOGDIR/fuzz.log"
else
	run fuzz/smoke sh fuzz/run.sh smoke
fi

echo "logs: $LOGDIR ($(($(date +%s) - T_START)) s in all)"
[ -n "$failures" ] && echo "failed:$failures"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
