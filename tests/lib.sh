# Shared helpers for the integration scripts: TAP output, temp dirs, the binary.
# shellcheck shell=sh
BUILD=${BUILD:-build}
CGFB=${CGFB:-$PWD/$BUILD/cgroup-feedback}
DATA=$PWD/tests/data
T_N=0
T_FAILED=0
T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/cgfb-it.XXXXXX")
[ -n "${CGFB_KEEP_TMP:-}" ] || trap 'rm -rf "$T_TMP"' EXIT

ok() { T_N=$((T_N + 1)); echo "ok $T_N - $*"; }
not_ok() { T_N=$((T_N + 1)); T_FAILED=$((T_FAILED + 1)); echo "not ok $T_N - $*"; }
# check NAME COMMAND...: one test that passes when COMMAND exits 0.
check() {
	name=$1; shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}
skip() { T_N=$((T_N + 1)); echo "ok $T_N - $1 # SKIP $2"; }
finish() { echo "1..$T_N"; [ "$T_FAILED" -eq 0 ]; }
