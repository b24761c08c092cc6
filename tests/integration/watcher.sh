#!/bin/sh
# The watcher carries only what it uses (docs/ARCHITECTURE.md): the process
# that `cgroup-feedback watch` becomes is cgroup-feedback-watch, which maps
# no network, TLS, crypto, udev or schema library; at rest it sleeps in
# poll(2) without a timeout; each new detection's report is written by
# cgroup-feedback-report in a child process.
. tests/lib.sh
. tests/client/lib.sh

WATCH=$PWD/$BUILD/cgroup-feedback-watch
ST=$T_TMP/state
FIFO=$T_TMP/kmsg
CONF=$T_TMP/conf
$PY tests/data/cgroupfs/mkfixture.py tests/data/cgroupfs/flat-affected.desc "$T_TMP/fx" > /dev/null
echo 0b0e0000-1111-4222-8333-444455556666 > "$T_TMP/boot"
printf 'notify = log\nmotd-path = %s/motd\n' "$T_TMP" > "$CONF"
mkfifo "$FIFO"
# A writer that stays (opened read-write, which does not wait for a
# reader): a FIFO without one polls as hung up.
exec 3<> "$FIFO"

"$CGFB" --config "$CONF" watch --kmsg "$FIFO" --state-dir "$ST" --boot-id-file "$T_TMP/boot" \
	--cgroup-root "$T_TMP/fx/root" --mountinfo "$T_TMP/fx/mountinfo" > "$T_TMP/out" 2> "$T_TMP/err" 3>&- &
PID=$!
trap 'kill $PID 2>/dev/null; t_cleanup' EXIT
wait_file "$ST/watch.state"
if under_valgrind; then
	# The process is valgrind's tool, running the copy of the watcher
	# (tests/tools/vg-wrap.sh) that its command line names; the mappings
	# below are still the watcher's own.
	check "cgroup-feedback watch became cgroup-feedback-watch under valgrind (same process)" \
		sh -c 'tr "\0" "\n" < "/proc/$1/cmdline" | grep -qx "$2"' _ "$PID" \
		"$T_TMP/vg/cgroup-feedback-watch/cgroup-feedback-watch"
else
	check "cgroup-feedback watch became $BUILD/cgroup-feedback-watch (same process)" \
		[ "$(readlink "/proc/$PID/exe")" = "$WATCH" ]
fi

# maps_lack PATTERN...: none of the patterns in the process's mappings.
maps_lack() {
	for p; do
		grep -q "/$p[.-]" "/proc/$PID/maps" && { echo "# maps $p"; return 1; }
	done
	return 0
}
check "no network library is mapped (curl, ssl, nghttp2, ssh2, ldap, gssapi, krb5, rtmp, gnutls, psl, idn2)" \
	maps_lack libcurl libssl libnghttp2 libssh2 libldap liblber libgssapi libkrb5 librtmp \
	libgnutls libpsl libidn2 libbrotli libzstd
check "nor crypto, udev or the schema's PCRE2: those are the report writer's" \
	maps_lack libcrypto libudev libpcre2
libs=$(awk '$6 ~ /\.so/ {print $6}' "/proc/$PID/maps" | grep -v 'lib\(asan\|ubsan\|stdc++\|gcc_s\|m\)\.so' |
	grep -v '/vgpreload_[a-z]*-[a-z0-9]*-linux\.so' | sort -u | wc -l)
check "it maps $libs shared objects besides a sanitizer's or valgrind's runtime (libc, the loader, json-c)" [ "$libs" -le 3 ]

# At rest: no timer. With the old 2-second tick a 3-second window had at
# least one wake-up; poll(2) without a timeout has none.
switches() { awk '/ctxt_switches/ { s += $2 } END { print s }' "/proc/$PID/status"; }
# quiet_window: a 3-second window without a context switch, in at most
# three tries. A timer of 3 s or less wakes it in every window; the tries
# are for a machine so busy that the end of the start-up, or of a burst,
# still runs into the first one.
quiet_window() {
	for _t in 1 2 3; do
		a=$(switches); sleep 3; b=$(switches)
		echo "window $_t: $a -> $b context switches"
		[ "$a" = "$b" ] && return 0
	done
	return 1
}
check "idle for 3 s: no wake-up" quiet_window
# Its one privilege, once the log is open and read (watch/privilege.h):
# CAP_SYSLOG (bit 34) is in none of its sets, the bounding set included
# (root may change it; the unit's watcher cannot, and needs not).
capsets() { grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' "/proc/$PID/status"; }
no_syslog() {
	capsets
	capsets | awk '{ v = $2; b = substr(v, length(v) - 8, 1)   # hex digit of bits 32-35
		if (index("4567cdefCDEF", b)) bad = 1 } END { exit bad }'
}
if [ "$(id -u)" = 0 ]; then
	check "CAP_SYSLOG given up after the first read: in no capability set" no_syslog
else
	skip "CAP_SYSLOG given up" "the watcher holds no capability when not run as root"
fi

# A new detection: the report comes from the child, the watcher stays small.
printf '4,1,5000,-;%s\n' 'Non-hierarchical mode is deprecated. Please report your usecase to linux-mm@kvack.org if you depend on this functionality.' >&3
i=0
while [ $i -lt "$(scaled 100)" ] && ! ls "$ST"/reports/*.json > /dev/null 2>&1; do sleep 0.05; i=$((i + 1)); done
check "a new detection: its report is written" sh -c 'ls "$1"/reports/*.json > /dev/null' _ "$ST"
check "...by cgroup-feedback-report, valid against the schema" \
	sh -c '"$1" "$2"/reports/*.json > /dev/null' _ "$PWD/$BUILD/tests/tools/validate-report" "$ST"
check "the watcher still maps no crypto library afterwards" maps_lack libcrypto libcurl libssl
# The burst's last steps (the state, the log line) take the watcher a few
# milliseconds, or a second or two under valgrind: they are not a timer.
wait_for_next2() {
	i=0
	while [ $i -lt "$(scaled 100)" ] && ! grep -Eq '"next": ?2([^0-9]|$)' "$ST/watch.state"; do sleep 0.1; i=$((i + 1)); done
}
wait_for_next2
check "and sleeps again: no wake-up in 3 s after the burst" quiet_window
check "the state was saved right after the burst (sequence 2 is next)" \
	$PY -c 'import json, sys; assert json.load(open(sys.argv[1]))["next"] == 2' "$ST/watch.state"

kill -TERM $PID
i=0
while kill -0 $PID 2>/dev/null && [ $i -lt "$(scaled 50)" ]; do sleep 0.1; i=$((i + 1)); done
check "SIGTERM in a wait without timeout: exits within $(scaled 5) s" sh -c '! kill -0 "$1" 2>/dev/null' _ $PID
wait $PID
check "...with status 0" [ $? -eq 0 ]
exec 3>&-

# Neither program of the privileged side links libcurl.
for p in cgroup-feedback-watch cgroup-feedback-report; do
	check "$p links no libcurl or libssl" sh -c '! ldd "$1" | grep -Eq "libcurl|libssl"' _ "$BUILD/$p"
done

# The command itself carries only what scan, check, status and catalog use:
# the commands that read free text (ICU) or send (libcurl) are
# cgroup-feedback-send's, which it execs (docs/ARCHITECTURE.md). Each is
# caught blocked on a pipe, past what it loads, and its maps read
# (tests/tools/blocked-maps.py).
mkdir -m 0700 "$T_TMP/lean"
C="$PWD/$BUILD/cgroup-feedback --state-dir $T_TMP/lean"
# shellcheck disable=SC2086 # each command and its arguments
$PY tests/tools/blocked-maps.py $C status \; $C check \; $C catalog \; $C scan /dev/stdin \
	> "$T_TMP/lean.maps" 2> "$T_TMP/lean.err" || sed 's/^/# /' "$T_TMP/lean.err"
for c in status check catalog "scan /dev/stdin"; do
	awk -v c="$c" '/^== / { on = ($0 ~ (" " c "$")); if (on) seen = 1; next } on
		END { if (!seen) print "not run" }' "$T_TMP/lean.maps" > "$T_TMP/lean.one"
	check "cgroup-feedback $c, running, maps no libcurl (nor what it pulls in), ICU, libmicrohttpd, libpq or SQLite" \
		sh -c 'grep -q "/libc\.so" "$1" && ! grep -E "/lib(curl|icu[a-z0-9]*|microhttpd|pq|sqlite3|ssl|nghttp2|ssh2|ldap|rtmp|psl|gssapi)[.-]" "$1"' \
		_ "$T_TMP/lean.one"
done
check "...and links none of them (ldd)" \
	sh -c '! ldd "$1" | grep -Eq "libcurl|libicu|libmicrohttpd|libpq|libsqlite3"' _ "$BUILD/cgroup-feedback"

# Without the watcher program next to it or installed: a clear error.
mkdir -p "$T_TMP/alone"
cp "$BUILD/cgroup-feedback" "$T_TMP/alone/cgroup-feedback"
$VG "$T_TMP/alone/cgroup-feedback" --config "$CONF" watch --once --kmsg /dev/null --state-dir "$ST" \
	2> "$T_TMP/alone.err"
check "no watcher program: exit 2" [ $? -eq 2 ]
check "...saying which program is missing and where it was looked for" \
	grep -q 'cgroup-feedback-watch is neither beside this program nor in' "$T_TMP/alone.err"
# The same for the commands that send.
$VG "$T_TMP/alone/cgroup-feedback" --config "$CONF" --state-dir "$ST" review 2> "$T_TMP/alone.err"
check "no cgroup-feedback-send: review exits 2" [ $? -eq 2 ]
check "...saying which program is missing and where it was looked for" \
	grep -q '^cgroup-feedback: review: cgroup-feedback-send is neither beside this program nor in' "$T_TMP/alone.err"
finish
