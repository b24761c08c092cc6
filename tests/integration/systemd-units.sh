#!/bin/sh
# packaging/systemd: the units as `make install` writes them pass
# `systemd-analyze verify`, the watcher scores <= 2.0 in
# `systemd-analyze security --offline=yes`, and sysusers.d / tmpfiles.d
# create the users and directories the units expect (in a scratch root).
# systemd need not be PID 1 for any of this.
. tests/lib.sh

if ! command -v systemd-analyze >/dev/null 2>&1; then
	skip "systemd units" "systemd-analyze not installed (Debian package systemd; make deps)"
	finish
	exit 77
fi

ROOT=$T_TMP/root
make -s --no-print-directory install-packaging PREFIX=/usr DESTDIR="$ROOT" BUILD="$BUILD" \
	>"$T_TMP/install.log" 2>&1
check "make install-packaging PREFIX=/usr" [ $? -eq 0 ]
# /lib/systemd/system on Debian 12 (systemd's pkg-config), elsewhere /usr/lib/...
UNITDIR=$(dirname "$(find "$ROOT" -name cgroup-feedback.service | head -n 1)")
WATCHER=$UNITDIR/cgroup-feedback.service
FLUSH=$UNITDIR/cgroup-feedback-flush.service
TIMER=$UNITDIR/cgroup-feedback-flush.timer
SERVER=$UNITDIR/cgroup-feedback-server.service
CHECK=$UNITDIR/cgroup-feedback-check.service
CHECKT=$UNITDIR/cgroup-feedback-check.timer
for u in "$WATCHER" "$FLUSH" "$TIMER" "$SERVER" "$CHECK" "$CHECKT"; do
	check "installed $(basename "$u")" [ -f "$u" ]
done
check "ExecStart names the installed binaries" \
	sh -c 'grep -qx "ExecStart=/usr/libexec/cgroup-feedback/cgroup-feedback-watch --state-dir.*" "$1" &&
	       grep -qx "ExecStart=/usr/bin/cgroup-feedback flush" "$2" &&
	       grep -qx "ExecStart=/usr/sbin/cgroup-feedback-server .*" "$3" &&
	       grep -qx "ExecStart=/usr/bin/cgroup-feedback check --prometheus /var/lib/prometheus/node-exporter/cgroup-feedback.prom" "$4"' \
	_ "$WATCHER" "$FLUSH" "$SERVER" "$CHECK"
check "no @VARIABLE@ left in any unit" sh -c '! grep -l "@[A-Z]*@" "$1"/cgroup-feedback*' _ "$UNITDIR"

# --- systemd-analyze verify ---------------------------------------------------
# verify checks that ExecStart= is executable and Documentation=man: pages
# exist: point the units at the binaries of this build (same unit otherwise)
# and man(1) at the installed pages.
V=$T_TMP/verify
mkdir -p "$V/bin"
cp "$CGFB" "$V/bin/cgroup-feedback"
cp "$BUILD/cgroup-feedback-send" "$BUILD/cgroup-feedback-watch" "$BUILD/cgroup-feedback-report" "$V/bin/"
# Every program is part of the product: one missing fails the copy and
# the verify of its unit.
cp "$BUILD/cgroup-feedback-server" "$V/bin/cgroup-feedback-server"
for u in "$WATCHER" "$FLUSH" "$TIMER" "$SERVER" "$CHECK" "$CHECKT"; do
	sed -e "s|/usr/s\{0,1\}bin/cgroup-feedback|$V/bin/cgroup-feedback|" \
	    -e "s|/usr/libexec/cgroup-feedback/|$V/bin/|" "$u" > "$V/$(basename "$u")"
done
man_opt=--man=yes
command -v man >/dev/null 2>&1 || man_opt=--man=no
verify() {
	MANPATH=$ROOT/usr/share/man SYSTEMD_LOG_LEVEL=notice \
		timeout 60 systemd-analyze verify "$man_opt" "$@" >"$T_TMP/verify.out" 2>&1
	st=$?
	# verify exits 0 on unknown keys and unparsable values and only says
	# so: any output at all is a failure.
	[ $st -eq 0 ] && [ ! -s "$T_TMP/verify.out" ] && return 0
	sed 's/^/# /' "$T_TMP/verify.out"
	return 1
}
check "verify cgroup-feedback.service" verify "$V/cgroup-feedback.service"
check "verify cgroup-feedback-flush.service" verify "$V/cgroup-feedback-flush.service"
check "verify cgroup-feedback-flush.timer" verify "$V/cgroup-feedback-flush.timer"
check "verify cgroup-feedback-server.service" verify "$V/cgroup-feedback-server.service"
check "verify cgroup-feedback-check.service" verify "$V/cgroup-feedback-check.service"
check "verify cgroup-feedback-check.timer" verify "$V/cgroup-feedback-check.timer"

# --- systemd-analyze security --------------------------------------------------
exposure() {
	timeout 60 systemd-analyze security --offline=yes "$1" 2>/dev/null |
		sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p'
}
at_most() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a + 0 <= b + 0) }'; }
for u in "$WATCHER" "$FLUSH" "$SERVER" "$CHECK"; do
	score=$(exposure "$u")
	echo "# systemd-analyze security --offline=yes $(basename "$u"): ${score:-?}"
	check "exposure of $(basename "$u") is ${score:-?} <= 2.0" at_most "$score" 2.0
done

# --- what the units promise ------------------------------------------------------
has() { grep -qx "$2" "$1"; }
check "watcher: only CAP_SYSLOG, ambient" \
	sh -c 'grep -qx "AmbientCapabilities=CAP_SYSLOG" "$1" && grep -qx "CapabilityBoundingSet=CAP_SYSLOG" "$1"' _ "$WATCHER"
for line in "PrivateNetwork=yes" "IPAddressDeny=any" "RestrictAddressFamilies=AF_UNIX" \
	"ProtectSystem=strict" "ProtectHome=yes" "NoNewPrivileges=yes" "ProtectControlGroups=yes" \
	"SystemCallFilter=@system-service" "SystemCallFilter=capset" "StateDirectory=cgroup-feedback" "Restart=on-failure" \
	"User=_cgroup-feedback"; do
	check "watcher: $line" has "$WATCHER" "$line"
done
check "watcher: MemoryMax= set" grep -q '^MemoryMax=[0-9]' "$WATCHER"
check "flush: no capabilities at all" \
	sh -c 'grep -qx "CapabilityBoundingSet=" "$1" && ! grep -q "^AmbientCapabilities=." "$1"' _ "$FLUSH"
check "flush: same user and state directory as the watcher (shares the spool)" \
	sh -c 'u=$(grep "^User=" "$1"); s=$(grep "^StateDirectory=" "$1");
	       [ "$u" = "$(grep "^User=" "$2")" ] && [ "$s" = "$(grep "^StateDirectory=" "$2")" ]' _ "$FLUSH" "$WATCHER"
check "flush: the only client unit with IP sockets" \
	sh -c 'grep -q "^RestrictAddressFamilies=.*AF_INET" "$1" && ! grep -q "^RestrictAddressFamilies=.*AF_INET" "$2"' _ "$FLUSH" "$WATCHER"
check "timer: enabled through timers.target, starts the flush service" \
	sh -c 'grep -qx "WantedBy=timers.target" "$1" && [ -f "$2" ]' _ "$TIMER" "$FLUSH"
check "check: no network, reading is its only capability, exit 1 a result" \
	sh -c 'grep -qx "PrivateNetwork=yes" "$1" && grep -qx "CapabilityBoundingSet=CAP_DAC_READ_SEARCH" "$1" &&
	       grep -qx "SuccessExitStatus=1" "$1" && grep -qx "ReadWritePaths=/var/lib/prometheus/node-exporter" "$1"' _ "$CHECK"
check "check timer: daily, through timers.target (the package leaves it disabled)" \
	sh -c 'grep -qx "WantedBy=timers.target" "$1" && grep -qx "OnCalendar=daily" "$1" &&
	       grep -q "no-enable cgroup-feedback-check.service" debian/rules' _ "$CHECKT"
check "server: its own user and state directory" \
	sh -c 'grep -qx "User=_cgroup-feedback-server" "$1" && grep -qx "StateDirectory=cgroup-feedback-server" "$1"' _ "$SERVER"

# --- sysusers.d and tmpfiles.d, applied to the scratch root ---------------------
if command -v systemd-sysusers >/dev/null 2>&1 && command -v systemd-tmpfiles >/dev/null 2>&1; then
	mkdir -p "$ROOT/etc"
	: > "$ROOT/etc/passwd"; : > "$ROOT/etc/group"
	timeout 60 systemd-sysusers --root="$ROOT" >"$T_TMP/sysusers.out" 2>&1
	check "systemd-sysusers --root creates _cgroup-feedback" grep -q '^_cgroup-feedback:' "$ROOT/etc/passwd"
	check "systemd-sysusers --root creates _cgroup-feedback-server" grep -q '^_cgroup-feedback-server:' "$ROOT/etc/passwd"
	check "service users are system users without a login shell" \
		sh -c '! awk -F: "/^_cgroup-feedback/ && (\$3 >= 1000 || \$7 !~ /nologin|false/)" "$1" | grep -q .' _ "$ROOT/etc/passwd"
	timeout 60 systemd-tmpfiles --root="$ROOT" --create \
		cgroup-feedback.conf cgroup-feedback-server.conf >"$T_TMP/tmpfiles.out" 2>&1
	check "systemd-tmpfiles --create succeeds" [ $? -eq 0 ]
	uid=$(awk -F: '$1 == "_cgroup-feedback" { print $3 }' "$ROOT/etc/passwd")
	check "spool /var/lib/cgroup-feedback: 0700, owned by the service user" \
		[ "$(stat -c '%a %u' "$ROOT/var/lib/cgroup-feedback" 2>/dev/null)" = "700 $uid" ]
	check "spool reports/ made too" [ -d "$ROOT/var/lib/cgroup-feedback/reports" ]
	check "login banner link in /run/motd.d" \
		[ "$(readlink "$ROOT/run/motd.d/cgroup-feedback.motd")" = ../cgroup-feedback/motd ]
	suid=$(awk -F: '$1 == "_cgroup-feedback-server" { print $3 }' "$ROOT/etc/passwd")
	check "collector state directory owned by its own user" \
		[ "$(stat -c '%a %u' "$ROOT/var/lib/cgroup-feedback-server" 2>/dev/null)" = "700 $suid" ]
else
	skip "sysusers.d and tmpfiles.d" "systemd-sysusers/systemd-tmpfiles not installed"
fi

finish
