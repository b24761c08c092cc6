#!/bin/sh
# The full-system test's scenarios, run in the guest by cgfb-test.service
# (tests/system/image/) once systemd has brought the system up. The guest
# boots twice: the first boot installs the project's .debs and runs the
# scenarios, then reboots; the second boot checks what must survive a
# reboot, purges the packages and powers off. docs/SYSTEM-TEST.md says what
# each scenario proves.
#
# TAP goes to ttyS1 (see lib.sh); evidence for the host goes to /cgfb-test/out.
set -u
. /cgfb-test/guest/lib.sh

exec 3>/dev/ttyS1
stty -F /dev/ttyS1 raw -echo 2>/dev/null || :
mkdir -p "$OUT" /var/lib/cgfb-test
phase=$(cat /var/lib/cgfb-test/phase 2>/dev/null || echo 1)
note "guest boot $phase: $(uname -r), systemd up after $(uptime_s) s"

# Leave the guest whatever happens; the host waits for qemu to exit.
finish() {
	journalctl -b --no-pager -o short-monotonic >"$OUT/journal-boot$phase.txt" 2>&1
	dmesg >"$OUT/dmesg-boot$phase.txt" 2>&1
	cp -a /var/lib/cgroup-feedback "$OUT/spool-boot$phase" 2>/dev/null
	sync
}

# shellcheck source=tests/system/guest/scenarios.sh
. /cgfb-test/guest/scenarios.sh

case $phase in
1)
	for s in boot install readiness sandbox first_report login_banner forged wall_reached review_from_wall wall_refused \
		s1_module kill9 overrun delivery; do
		scenario "$s"
		"sc_$s"
	done
	scenario reboot
	sc_before_reboot
	finish
	echo 2 >/var/lib/cgfb-test/phase
	note "rebooting (uptime $(uptime_s) s)"
	sync
	systemctl reboot --no-block
	;;
2)
	for s in after_reboot repeat_at_boot review_from_banner check_report purge; do
		scenario "$s"
		"sc_$s"
	done
	finish
	echo "@@DONE@@" >&3
	note "powering off (uptime $(uptime_s) s)"
	systemctl poweroff --no-block
	;;
*)
	not_ok "unknown phase $phase"
	systemctl poweroff --no-block
	;;
esac
exit 0
