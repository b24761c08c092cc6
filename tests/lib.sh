# Shared helpers for the integration scripts: TAP output, temp dirs, the binary.
# shellcheck shell=sh
BUILD=${BUILD:-build}
DATA=$PWD/tests/data
T_N=0
T_FAILED=0
T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/cgfb-it.XXXXXX")
# t_cleanup: the script's temporary directory removed, unless a check
# failed (it holds the evidence; its path is printed) or CGFB_KEEP_TMP is
# set. Every script's exit trap ends with it.
t_cleanup() {
	if [ "$T_FAILED" -gt 0 ] || [ -n "${CGFB_KEEP_TMP:-}" ]; then
		echo "# kept for inspection: $T_TMP"
	else
		rm -rf "$T_TMP"
	fi
}
trap t_cleanup EXIT
# Run through sudo, the client's hints start with "sudo " (lib/hint.c): the
# suite's expected hints must not depend on how it was started.
unset SUDO_USER SUDO_UID SUDO_GID SUDO_COMMAND

# VALGRIND=1 (tests/run.sh, make check): every program of the project runs
# under valgrind memcheck (tests/tools/vg-wrap.sh), the client, the helpers
# it starts and the collector; tests/run.sh checks the logs in
# $CGFB_VG_LOGDIR after the script (tests/tools/vg-check.sh). VG is the
# command prefix for a test that runs a copy of a program itself, empty
# otherwise. Not on a sanitizer's build: ASan and valgrind exclude each other.
VG=
case ${VALGRIND:-0}:$BUILD in
1:*san*) ;;
1:*)
	CGFB_VG_LOGDIR=${CGFB_VG_LOGDIR:-$T_TMP/vg-logs}
	# Programs run as another user (setpriv) reach their copies under
	# valgrind through here; nothing else in it is theirs to read.
	chmod 0711 "$T_TMP"
	VG=$(sh tests/tools/vg-wrap.sh "$BUILD" "$T_TMP/vg" "$CGFB_VG_LOGDIR") || exit 2
	CGFB=${CGFB:-$T_TMP/vg/bin/cgroup-feedback}
	SERVER=${SERVER:-$T_TMP/vg/bin/cgroup-feedback-server}
	# A program under valgrind starts in about a second and runs some
	# 20 times slower: the waits of the tests scale by this.
	CGFB_TIMEOUT_SCALE=${CGFB_TIMEOUT_SCALE:-4}
	;;
esac
CGFB=${CGFB:-$PWD/$BUILD/cgroup-feedback}
# CGFB_NATIVE: the same build's program, never under valgrind, for a run
# whose code paths another run of the same script already takes under
# valgrind (each such run says which); it costs seconds of valgrind's
# start-up per process and finds nothing new. Natively it is $CGFB.
CGFB_NATIVE=$PWD/$BUILD/cgroup-feedback
# SERVER_NATIVE: the same for the collector (its `import` and other
# one-shot commands; tests/server/lib.sh's SERVER is the one under valgrind).
SERVER_NATIVE=$PWD/$BUILD/cgroup-feedback-server
# CGFB_VG_NATIVE="PROGRAM..." in a command's environment: under valgrind,
# the programs it names (cgroup-feedback-report, cgroup-feedback-watch...)
# run as the build's own when another program starts them, the others stay
# under valgrind (tests/tools/vg-wrap.sh). For a run whose watcher takes a
# path of its own while the report writers it starts take again what
# another run of the same script took under valgrind (each such run says
# which). Natively and on ASan it changes nothing.
T_SCALE=${CGFB_TIMEOUT_SCALE:-1}
# under_valgrind: true when the programs run under valgrind.
under_valgrind() { [ -n "$VG" ]; }
# scaled N: N (tenths, seconds, tries) times CGFB_TIMEOUT_SCALE.
scaled() { echo $(($1 * T_SCALE)); }
# scaled_sleep SECONDS: sleep SECONDS (a fraction too) times CGFB_TIMEOUT_SCALE.
scaled_sleep() { sleep "$(awk -v s="$1" -v f="$T_SCALE" 'BEGIN { print s * f }')"; }

# HOSTILE: a name another party may choose (a cgroup, a process, a draft,
# a collector's receipt, a log line): an OSC title, an OSC 52 clipboard
# write, a screen clear, DEL, CSI as UTF-8 (c2 9b) and as a raw byte, a
# right-to-left override, SOH and a backslash; no '/', NUL or newline.
# HOSTILE_PCT: the same for tests/data/cgroupfs/mkfixture.py. noraw FILE...:
# nothing of it reached FILE raw, and its escape is shown (tests/tools/noraw.py).
HOSTILE=$(printf 'ev\033]0;x\007\033]52;c;Y2htb2QK\007\033[2J\177\302\233\233\342\200\256\001\\')
HOSTILE_PCT='ev%1b]0;x%07%1b]52;c;Y2htb2QK%07%1b[2J%7f%c2%9b%9b%e2%80%ae%01%5c'
noraw() { python3 tests/tools/noraw.py "$@"; }

ok() { T_N=$((T_N + 1)); echo "ok $T_N - $*"; }
not_ok() { T_N=$((T_N + 1)); T_FAILED=$((T_FAILED + 1)); echo "not ok $T_N - $*"; }
# evidence FILE: the end of FILE as TAP comments, under a failed test.
evidence() {
	[ -s "$1" ] || return 0
	tail -n "${2:-30}" "$1" | sed 's/^/#   /'
}
# check NAME COMMAND...: one test that passes when COMMAND exits 0; when it
# fails, what COMMAND printed is shown under it.
check() {
	name=$1; shift
	if "$@" >"$T_TMP/.check.out" 2>&1; then
		ok "$name"
	else
		not_ok "$name"
		evidence "$T_TMP/.check.out"
	fi
}
skip() { T_N=$((T_N + 1)); echo "ok $T_N - $1 # SKIP $2"; }
# The host's login banner is never a test's to write: a program run without
# the test's configuration falls back to /run/motd.d, and the banner then
# names this script's scratch directory. (Another script can overwrite the
# evidence first; it never makes a clean script fail.)
HOST_MOTD=/run/motd.d/cgroup-feedback.motd
host_banner_untouched() {
	if [ -f "$HOST_MOTD" ] && grep -qF "$T_TMP" "$HOST_MOTD" 2>/dev/null; then
		not_ok "the host's $HOST_MOTD was written by this script: $(head -c 300 "$HOST_MOTD")"
		rm -f "$HOST_MOTD"
	fi
}
finish() { host_banner_untouched; echo "1..$T_N"; [ "$T_FAILED" -eq 0 ]; }

# paste_hint SED FILE NAME [STATUS]: the command that the sed script SED
# picks out of FILE (its first line; a terminal's CR dropped) is run as a
# person pastes it: as printed, from another directory (/), with nothing of
# the test's own (no $CGFB_STATE_DIR, no $CGFB_CONFIG); one test, passing
# when it exits STATUS (0; status exits 1 while a report fails to send).
# The hints of a build-tree run name that program by its path (HINT_CLI_RE
# matches it), and every option it needs.
HINT_CLI_RE='[^ ]*/cgroup-feedback'
paste_hint() {
	cmd=$(tr -d '\r' < "$2" | sed -n "$1" | head -n 1)
	[ -n "$cmd" ] || { not_ok "$3: no command in $2: $(head -c 300 "$2")"; return; }
	(cd / && unset CGFB_STATE_DIR CGFB_CONFIG && eval "$cmd") > "$T_TMP/hint.out" 2>&1 < /dev/null
	_st=$?
	if [ "$_st" -eq "${4:-0}" ]; then
		ok "$3: '$cmd' works"
	else
		not_ok "$3: '$cmd' failed (exit $_st): $(head -c 300 "$T_TMP/hint.out")"
	fi
}

# without_random FILE...: the files' text with hashes, keyed tokens, report
# ids and UUIDs (runs of 8 or more hex digits: the digest names a report by
# the first 8 of its id; 8-4-4-4-12) taken out, for looking for short
# planted strings: "4711" or "db01" turn up in random hex by chance (the
# digest's "(report 3a4711c0)" failed privacy.sh once in a clean-clone run).
without_random() {
	sed -E 's/[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}/<uuid>/g; s/[0-9a-fA-F]{8,}/<hex>/g' \
		"$@" 2>/dev/null
}
