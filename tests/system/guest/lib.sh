# Helpers of the full-system test's guest scripts (sourced by run.sh).
# shellcheck shell=sh
#
# Results go to the second serial port as TAP lines without numbers
# ("ok - ...", "not ok - ...", "# ..."); the host numbers them. Markers for
# the administrator's terminal (ttyS2, a file on the host) are written into
# that terminal, so the host can tell which part of its output belongs to
# which scenario.

T=/cgfb-test
OUT=$T/out
SPOOL=/var/lib/cgroup-feedback/reports
CG=/sys/fs/cgroup/memory/cgfbtest
ADMIN_TTY=/dev/ttyS2
T0=$(cut -d' ' -f1 /proc/uptime)

ok() { echo "ok - $*" >&3; }
not_ok() { echo "not ok - $*" >&3; }
note() { echo "# $*" >&3; }
# check NAME COMMAND...: one test that passes when COMMAND exits 0.
check() {
	name=$1; shift
	if "$@" >/dev/null 2>&1; then ok "$name"; else not_ok "$name"; fi
}
# Some lines of evidence for a failure, as TAP comments.
show() { sed 's/^/#   /' | head -n "${2:-15}" >&3; }

uptime_s() { cut -d' ' -f1 /proc/uptime | cut -d. -f1; }

# wait_for SECONDS COMMAND...: until COMMAND succeeds; 1 if it never did.
wait_for() {
	limit=$1; shift
	i=0
	while ! "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		[ "$i" -le "$limit" ] || return 1
		sleep 1
	done
	return 0
}

scenario() {
	note "== scenario $1 (uptime $(uptime_s) s)"
	echo "== scenario $1 (uptime $(uptime_s) s)" >/dev/kmsg 2>/dev/null || :
}

# A marker line in the administrator's terminal output.
mark() { printf '\r\n@@MARK %s@@\r\n' "$1" >"$ADMIN_TTY"; }

# --- the spool ---------------------------------------------------------------
# Report files of a catalog id (one a line).
reports_of() { grep -l "\"catalog_id\":\"$1\"" "$SPOOL"/*.json 2>/dev/null; }
count_of() { reports_of "$1" | grep -c .; }
n_reports() { ls "$SPOOL"/*.json 2>/dev/null | grep -c .; }
has_report() { [ "$(count_of "$1")" -ge 1 ]; }
wait_report() { wait_for "${2:-90}" has_report "$1"; }
# A report's state, as list --json says it.
state_of() { cgroup-feedback list --json | grep "\"id\":\"$1\"" | sed 's/.*"state":"\([a-z]*\)".*/\1/'; }
# The id (file name) of the report of a catalog id.
id_of() { reports_of "$1" | head -n 1 | sed 's|.*/||; s|\.json$||'; }

# --- the journal ---------------------------------------------------------------
# The watcher's unit (it and the report writers it starts) in this boot.
wjournal() { journalctl -b -q -o cat --no-pager -u cgroup-feedback.service; }
wjournal_has() { wjournal | grep -q -- "$1"; }
wait_journal() { wait_for "${2:-60}" wjournal_has "$1"; }

# --- the watcher -----------------------------------------------------------------
watcher_pid() { systemctl show -p MainPID --value cgroup-feedback.service; }
watcher_active() { [ "$(systemctl is-active cgroup-feedback.service)" = active ] && [ "$(watcher_pid)" != 0 ]; }

# --- triggers --------------------------------------------------------------------
# Real cgroup v1 memory knobs: the kernel prints its own warnings.
memcg_setup() { mkdir -p "$CG/job"; }
trigger_M8() { memcg_setup; echo 0 >"$CG/memory.use_hierarchy" 2>/dev/null; :; }
trigger_M7() { memcg_setup; echo 1 >"$CG/job/memory.move_charge_at_immigrate"; }
trigger_M1b() { memcg_setup; echo 64M >"$CG/job/memory.kmem.limit_in_bytes"; }
# C4: a remount that changes the options of a (named, otherwise unused) v1
# hierarchy; printed at every such remount.
trigger_C4() {
	mkdir -p /run/cgfb-c4
	mountpoint -q /run/cgfb-c4 || mount -t cgroup -o none,name=cgfbtest cgroup /run/cgfb-c4
	# Only the option that changes: mount(8) adds name= from the mount
	# table itself, and the kernel refuses a name given twice ("name
	# respecified") before it would warn.
	mount -o remount,release_agent=/bin/true /run/cgfb-c4 2>/dev/null
	:
}
c4_printed() { dmesg | grep -q 'option changes via remount are deprecated'; }
# The test module's messages, printed by a process called libvirtd (a name
# the reports keep in clear), as the SUSE warning's real callers were.
module_loaded() { [ -d /sys/module/cgfb_test ]; }
trigger_module() {
	module_loaded || insmod "$T/cgfb_test.ko" || return 1
	# Not in /run: it is mounted noexec.
	[ -x /usr/local/sbin/libvirtd ] || cp /bin/dash /usr/local/sbin/libvirtd
	/usr/local/sbin/libvirtd -c "echo $1 >/sys/module/cgfb_test/parameters/trigger"
}
