# The scenarios of the full-system test, one function each (sourced by
# run.sh, which runs them in order). Each asserts through ok/not_ok/check
# (lib.sh); the host adds what only it can see (the administrator's
# terminal, between the markers written here). docs/SYSTEM-TEST.md lists
# them with what each proves.
# shellcheck shell=sh

# The system booted as the issue describes it: systemd as PID 1, cgroup v1
# (legacy hierarchy), the kernel printed M9b for swapaccount=0.
sc_boot() {
	check "systemd is PID 1" sh -c 'readlink /proc/1/exe | grep -q systemd'
	check "systemd reached multi-user.target" systemctl is-active multi-user.target
	check "cgroup v1 memory controller mounted (systemd.unified_cgroup_hierarchy=0)" \
		grep -q ' /sys/fs/cgroup/memory cgroup ' /proc/mounts
	check "the kernel printed M9b at boot (swapaccount=0)" \
		sh -c 'dmesg | grep -q "swapaccount=0 commandline option is deprecated"'
	check "the root disk came up through the initrd's virtio_blk" sh -c 'lsmod | grep -q "^virtio_blk"'
}

# The project's own packages, as an administrator installs them (apt, the
# maintainer scripts under systemd: sysusers, tmpfiles, enable and start).
# Nobody is logged in while the watcher starts: its first report's wall
# must say that it reached nobody.
sc_install() {
	systemctl stop serial-getty@ttyS2.service
	note "installing $(ls "$T"/debs/ | tr '\n' ' ')"
	# The dependencies are in the image already: no network is needed.
	if apt-get install -y -q --no-install-recommends -o Dpkg::Use-Pty=0 "$T"/debs/*.deb \
		>"$OUT/install.log" 2>&1; then
		ok "apt-get install of cgroup-feedback and cgroup-feedback-server"
	else
		not_ok "apt-get install of cgroup-feedback and cgroup-feedback-server"
		tail -n 15 "$OUT/install.log" | show
	fi
	check "the watcher unit is active" wait_for 30 watcher_active
	check "the collector unit is active" wait_for 30 systemctl is-active cgroup-feedback-server.service
	check "the flush timer is active" systemctl is-active cgroup-feedback-flush.timer
	check "system user _cgroup-feedback exists" getent passwd _cgroup-feedback
}

# Before an upgrade: check on this boot (systemd.unified_cgroup_hierarchy=0
# gives systemd 252's hybrid mode: v1 controllers beside an empty cgroup2)
# names the mode, the v1 hierarchies and the command-line switch, and its timer's service (shipped disabled) works
# inside its sandbox: no network, CAP_DAC_READ_SEARCH alone.
sc_readiness() {
	cgroup-feedback check >"$OUT/check.txt" 2>&1
	st=$?
	check "check on the hybrid boot: exit 1 (something breaks when cgroup v1 goes)" [ "$st" -eq 1 ]
	for s in "[cgroup-mode-hybrid]" "/sys/fs/cgroup/memory (memory)" \
		"/proc/cmdline: systemd.unified_cgroup_hierarchy=0" "/proc/cmdline: swapaccount=0" \
		"systemd 252"; do
		check "check names '$s'" grep -qF "$s" "$OUT/check.txt"
	done
	tail -n 1 "$OUT/check.txt" | show 1
	check "the check timer is installed, not enabled" \
		sh -c '[ "$(systemctl is-enabled cgroup-feedback-check.timer)" = disabled ]'
	mkdir -p /var/lib/prometheus/node-exporter
	systemctl start cgroup-feedback-check.service
	check "cgroup-feedback-check.service, sandboxed, succeeds (its exit 1 is a result)" \
		sh -c '[ "$(systemctl show -P Result cgroup-feedback-check.service)" = success ]'
	check "... and writes what node_exporter reads: the hybrid mode and the switch counted" \
		sh -c 'f=/var/lib/prometheus/node-exporter/cgroup-feedback.prom
		       grep -qx "cgroup_feedback_check_findings{rule=\"cgroup-mode-hybrid\",severity=\"breaks\"} 1" $f &&
		       grep -qx "cgroup_feedback_check_findings{rule=\"cmdline-legacy\",severity=\"breaks\"} 1" $f &&
		       grep -qx "cgroup_feedback_check_ready 0" $f'
	check "... and no device list of systemd's own units counted (systemd moves them to v2 itself)" \
		grep -qx 'cgroup_feedback_check_findings{rule="knob-devices",severity="breaks"} 0' \
		/var/lib/prometheus/node-exporter/cgroup-feedback.prom
	grep -v '^#' /var/lib/prometheus/node-exporter/cgroup-feedback.prom | grep -v ' 0$' | show 12
	rm -rf /var/lib/prometheus
}

# The watcher's sandbox, as the kernel sees the running process.
sc_sandbox() {
	pid=$(watcher_pid)
	st=/proc/$pid/status
	check "the watcher runs the libexec program" \
		sh -c '[ "$(readlink /proc/$1/exe)" = /usr/libexec/cgroup-feedback/cgroup-feedback-watch ]' _ "$pid"
	check "the watcher runs as _cgroup-feedback" sh -c '[ "$(stat -c %U /proc/$1)" = _cgroup-feedback ]' _ "$pid"
	# CAP_SYSLOG is capability 34: the unit gives it and nothing else; the
	# watcher gives it up once /dev/kmsg is open and read
	# (watch/privilege.h), so it holds none while it runs.
	check "its bounding set is CAP_SYSLOG alone (the unit)" \
		grep -q "^CapBnd:	0000000400000000" "$st"
	check "reading /dev/kmsg, it holds no capability: CAP_SYSLOG given up (effective, permitted, inheritable, ambient)" \
		sh -c 'for s in CapEff CapPrm CapInh CapAmb; do grep -q "^$s:	0000000000000000" "$1" || exit 1; done' _ "$st"
	grep '^Cap' "$st" | show 5
	check "no new privileges, seccomp filter on" \
		sh -c 'grep -q "^NoNewPrivs:	1" "$1" && grep -q "^Seccomp:	2" "$1"' _ "$st"
	check "its network namespace has loopback only" \
		sh -c '[ "$(awk "NR > 2 { print \$1 }" /proc/$1/net/dev)" = "lo:" ]' _ "$pid"
	check "it can open /dev/kmsg" sh -c 'ls -l /proc/$1/fd | grep -q /dev/kmsg' _ "$pid"
	systemd-analyze security cgroup-feedback.service >"$OUT/security.txt" 2>&1
	level=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' "$OUT/security.txt")
	note "systemd-analyze security: exposure level ${level:-?}"
	check "systemd-analyze security rates the watcher 2.0 or better (${level:-?})" \
		awk -v l="${level:-99}" 'BEGIN { exit !(l <= 2.0) }'
}

# The first detection: M9b, printed at boot before the package was there.
sc_first_report() {
	check "a report for M9b within 90 s of the start" wait_report M9b 90
	check "one report for M9b" [ "$(count_of M9b)" -eq 1 ]
	r=$(reports_of M9b | head -n 1)
	check "the report is 0600, owned by _cgroup-feedback" \
		sh -c '[ "$(stat -c "%a %U" "$1")" = "600 _cgroup-feedback" ]' _ "$r"
	check "the journal says it was detected" wait_journal "detected M9b"
	check "the journal names the report and the command to run" wait_journal "cgroup-feedback review $(id_of M9b)"
	check "the journal says that no administrator was logged in to be told" \
		wait_journal "no administrator" 20
	check "the login banner is there" test -e /run/motd.d/cgroup-feedback.motd
	check "the banner is readable by the administrator (not root)" \
		setpriv --reuid=admin --regid=admin --init-groups cat /run/motd.d/cgroup-feedback.motd
	cat /run/motd.d/cgroup-feedback.motd >"$OUT/banner-1.txt" 2>&1
	# The packaged configuration names no collector (issue 38): the banner
	# and status say a yes writes the e-mail for the list.
	check "the banner says where a yes goes: the e-mail for the list, no collector" \
		sh -c 'tr "\n" " " <"$1" | tr -s " " | grep -q "Where a yes goes: No collector is configured (endpoint), so a yes writes the report as an e-mail for the list the kernel message names"' \
		_ "$OUT/banner-1.txt"
	cgroup-feedback status >"$OUT/status-packaged.txt" 2>&1
	check "status says no collector is configured and where a yes goes (the e-mail, to a file)" \
		sh -c 'grep -qx "endpoint: none (no collector is configured)" "$1" &&
		       tr "\n" " " <"$1" | tr -s " " | grep -q "where a yes goes: No collector is configured (endpoint), so a yes writes the report as an e-mail" &&
		       ! grep -q "127.0.0.1" "$1"' _ "$OUT/status-packaged.txt"
	check "status (root's) names the service's watcher by its MainPID" \
		grep -qx "watcher: running (pid $(watcher_pid))" "$OUT/status-packaged.txt"
	show <"$OUT/status-packaged.txt" 7
	# Root follows the guide's watch --state-dir /var/lib/cgroup-feedback
	# while the service runs: refused, naming the service's watcher.
	timeout 30 cgroup-feedback watch --once --state-dir /var/lib/cgroup-feedback \
		>/dev/null 2>"$OUT/watch-beside.txt"
	check "root's watcher beside the service's is refused (exit 2), naming it" \
		sh -c '[ $1 -eq 2 ] && grep -q "another watcher (pid $2)" "$3"' _ $? "$(watcher_pid)" \
		"$OUT/watch-beside.txt"
	check "... and the service's watcher still runs" watcher_active
}

# The administrator logs in (agetty --autologin on ttyS2): the host checks
# that the banner is in what the terminal showed after marker login-1.
sc_login_banner() {
	mark login-1
	systemctl start serial-getty@ttyS2.service
	if wait_for 60 sh -c 'who | grep -q "^admin *ttyS2" && pgrep -u admin -t ttyS2 bash'; then
		ok "the administrator is logged in on ttyS2 (utmp, login shell)"
	else
		not_ok "the administrator is logged in on ttyS2 (utmp, login shell)"
		who | show
	fi
	sleep 2
	check "the administrator's terminal takes messages (mesg y in ~/.profile: 0620, group tty)" \
		sh -c '[ "$(stat -c "%a %G" /dev/ttyS2)" = "620 tty" ]'
	mark login-1-end
}

# A record written to /dev/kmsg by userspace is not the kernel's.
sc_forged() {
	printf '<4>kmem.tcp.limit_in_bytes is deprecated and will be removed. Please report your usecase to linux-mm@kvack.org if you depend on this functionality.\n' >/dev/kmsg
	sleep 3
	check "a forged M2 record (userspace, /dev/kmsg) makes no report" [ "$(count_of M2)" -eq 0 ]
	check "nor a G1 report" [ "$(count_of G1)" -eq 0 ]
}

# A real v1 memory knob write; the logged-in administrator gets the wall
# message (the host checks the terminal after marker wall-M8).
sc_wall_reached() {
	mark wall-M8
	trigger_M8
	check "writing 0 to memory.use_hierarchy: M8 reported" wait_report M8
	check "the journal says the wall reached the administrator's terminal" \
		wait_journal "reached 1 of 1 " 20
	sleep 2
	mark wall-M8-end
}

# The administrator does what the wall message says: the host
# (tests/system/admin.py) types its command as printed, sudo's password and
# review's answers on the terminal, and keeps the report for later; then
# the command keep for later printed, which starts from what was typed.
# Here: sudo ran exactly that command twice, review ended, the draft holds
# what was typed, and nothing was sent.
reviews_of() { journalctl -b -q -o cat _COMM=sudo | grep -c "COMMAND=[^ ]*/cgroup-feedback review $1\$"; }
reviewed_twice() { [ "$(reviews_of "$1")" -ge 2 ] && ! pgrep -f "[c]group-feedback review"; }
sc_review_from_wall() {
	id=$(id_of M8)
	check "the administrator ran the wall message's command, then keep for later's (sudo's log: cgroup-feedback review $id, twice)" \
		wait_for 500 reviewed_twice "$id"
	journalctl -b -q -o cat _COMM=sudo | show 3
	check "review kept what the administrator typed (the draft: an answer, the use case)" \
		sh -c 'grep -q "our own batch scheduler" "$1" && grep -q "Each batch job gets its own memory limit." "$1"' _ "$SPOOL/$id.draft"
	check "nothing was sent: the M8 report is still pending" [ "$(state_of "$id")" = pending ]
	mark review-M8-end
}

# The administrator's terminal refuses messages (mesg n): the journal says
# so, and the terminal shows nothing (host, marker wall-refused).
sc_wall_refused() {
	chmod g-w "$ADMIN_TTY"
	mark wall-refused
	trigger_M7
	check "writing memory.move_charge_at_immigrate: M7 reported" wait_report M7
	check "the journal says the administrator's terminal refused messages" \
		wait_journal "refused" 20
	sleep 2
	mark wall-refused-end
	chmod g+w "$ADMIN_TTY"
}

# The test module (built against Debian's linux-headers of this kernel)
# prints the seed patch's WARN_ONCE from "mm/memcontrol.c"
# mem_cgroup_create(), in a process called libvirtd; then the S2 text.
sc_s1_module() {
	if trigger_module s1; then ok "insmod cgfb_test.ko and trigger s1"; else not_ok "insmod cgfb_test.ko and trigger s1"; fi
	dmesg | grep -A 3 -- '------------\[ cut here \]' | show 4
	check "S1 reported" wait_report S1
	r=$(reports_of S1 | head -n 1)
	check "the S1 report comes from a WARN block" grep -q '"warn_block":true' "$r"
	check "its kernel file is mm/memcontrol.c" grep -q '"kernel_file":"mm/memcontrol.c"' "$r"
	check "its kernel line is the patch's (3109)" grep -q '"kernel_line":3109' "$r"
	check "its function is mem_cgroup_create" grep -q '"function":"mem_cgroup_create"' "$r"
	check "its process (comm) is libvirtd" grep -q '"comm":"libvirtd"' "$r"
	# The WARN's own "Tainted:" line is printed before the kernel adds W:
	# the report must carry the flags that line shows (G, and O and E for
	# this unsigned out-of-tree module), whatever they are.
	taint=$(dmesg | sed -n 's/.*Comm: libvirtd Tainted: \([A-Z][A-Z ]*[A-Z]\) .*/\1/p' | head -n 1 | tr -d ' ')
	check "the report's taint is the WARN line's (${taint:-none printed})" \
		sh -c '[ -n "$1" ] && grep -q "\"taint\":\"$1\"" "$2"' _ "$taint" "$r"
	trigger_module s2
	check "S2 (pr_info with comm and pid) reported" wait_report S2
	check "the S2 report names libvirtd" grep -q '"comm":"libvirtd"' "$(reports_of S2 | head -n 1)"
}

# kill -9 of the watcher between two warnings, then systemd's restart: the
# first is not reported again, the second is not missed.
sc_kill9() {
	trigger_M1b
	check "M1b reported (before the kill)" wait_report M1b
	pid=$(watcher_pid)
	restarts=$(systemctl show -p NRestarts --value cgroup-feedback.service)
	systemctl kill -s KILL cgroup-feedback.service
	check "the watcher is gone after SIGKILL" wait_for 10 sh -c '! kill -0 "$1" 2>/dev/null' _ "$pid"
	trigger_C4
	check "the kernel printed the C4 warning while no watcher ran" \
		sh -c '[ "$(systemctl show -p MainPID --value cgroup-feedback.service)" = 0 ] &&
			dmesg | grep -q "option changes via remount are deprecated"'
	c4_printed || dmesg | tail -n 3 | show 3
	check "systemd restarted the watcher (Restart=on-failure)" \
		wait_for 60 sh -c '[ "$(systemctl show -p NRestarts --value cgroup-feedback.service)" -gt "$1" ] &&
			systemctl is-active -q cgroup-feedback.service' _ "$restarts"
	check "C4, printed while it was down, reported after the restart" wait_report C4
	sleep 3
	for id in M9b M8 M7 S1 S2 M1b C4; do
		check "still one report for $id" [ "$(count_of "$id")" -eq 1 ]
	done
}

# The ring buffer overruns while the watcher is stopped: the restarted
# watcher says which records were lost, reads what survived and goes on.
sc_overrun() {
	systemctl stop cgroup-feedback.service
	trigger_module flood=4000
	# Not "the first line is a filler": journald's own "/dev/kmsg buffer
	# overrun" notices land between the fillers, and under load one of them
	# may be the oldest record left.
	check "the flood overwrote the oldest records (the scenario's marker and the first filler are gone)" \
		sh -c 'dmesg >/run/dmesg-flood.txt && ! grep -q "== scenario overrun" /run/dmesg-flood.txt &&
			! grep -q "cgfb_test: filler 1 of 4000 " /run/dmesg-flood.txt &&
			grep -q "cgfb_test: filler 4000 of 4000 " /run/dmesg-flood.txt'
	trigger_module p2
	systemctl start cgroup-feedback.service
	check "the watcher says which records were overwritten while nobody watched" \
		wait_journal "were overwritten while nobody watched"
	wjournal | grep overwritten | show 2
	check "P2, printed after the flood, reported" wait_report P2
	trigger_module g1
	check "it keeps working: a new message (G1) reported" wait_report G1
	check "the watcher is active" watcher_active
	for id in M9b M8 M7 S1 M1b C4 P2 G1; do
		check "still one report for $id" [ "$(count_of "$id")" -eq 1 ]
	done
}

collector_get() {
	curl -s -o /dev/null -w '%{http_code}' \
		-H "Authorization: Bearer $(head -n 1 /etc/cgroup-feedback-server/admin-token)" \
		"http://127.0.0.1:8080/api/v1/reports/$1"
}

# The packaged configuration names no collector: submit has nowhere to
# send. The administrator names the packaged collector (on this machine)
# as the endpoint; then submit --yes sends to it, a second report that
# could not be sent is sent by the flush service, and withdraw deletes the
# first again. The packaged configuration is put back after.
CONF=/etc/cgroup-feedback/cgroup-feedback.conf
sc_delivery() {
	printf 'The test builds a flat hierarchy on purpose.\n' >/run/use-case.txt
	id=$(id_of M8)
	cgroup-feedback submit "$id" --yes --use-case-file /run/use-case.txt >"$OUT/submit0.txt" 2>&1
	check "no collector configured: submit --yes sends nothing, says so, the report stays pending" \
		sh -c '[ "$1" -eq 2 ] && grep -q "no collector is configured" "$2" && [ "$3" = pending ]' \
		_ $? "$OUT/submit0.txt" "$(state_of "$id")"
	cp "$CONF" /run/cgroup-feedback.conf.packaged
	printf 'endpoint = http://127.0.0.1:8080/api/v1/reports\n' >>"$CONF"
	cgroup-feedback status >"$OUT/status-collector.txt" 2>&1
	check "with the packaged collector named, status says a yes sends to it" \
		sh -c 'tr "\n" " " <"$1" | tr -s " " | grep -q "where a yes goes: A yes sends the report over the network to the collector at http://127.0.0.1:8080/api/v1/reports"' \
		_ "$OUT/status-collector.txt"
	cgroup-feedback submit "$id" --yes --use-case-file /run/use-case.txt >"$OUT/submit.txt" 2>&1
	check "submit --yes sends the M8 report to the packaged collector" [ $? -eq 0 ]
	show <"$OUT/submit.txt" 3
	rid=$(sed -n 's/.*stored it as \([^ ]*\) .*/\1/p' "$OUT/submit.txt")
	check "its state is sent" [ "$(state_of "$id")" = sent ]
	check "the collector has it (admin API: 200)" [ "$(collector_get "$rid")" = 200 ]

	id2=$(id_of M7)
	systemctl stop cgroup-feedback-server.service
	cgroup-feedback submit "$id2" --yes --use-case-file /run/use-case.txt >"$OUT/submit2.txt" 2>&1
	check "with the collector down, submit fails and leaves it for flush" \
		sh -c '[ "$(cgroup-feedback list --json | grep "\"id\":\"$1\"" | grep -c "\"state\":\"consented\"")" = 1 ]' _ "$id2"
	systemctl start cgroup-feedback-server.service
	wait_for 20 sh -c 'curl -s -o /dev/null http://127.0.0.1:8080/api/v1/summary'
	# The retry is due 30 to 60 s later: the clock goes forward instead.
	date -s "@$(($(date +%s) + 180))" >/dev/null
	systemctl start cgroup-feedback-flush.service
	check "cgroup-feedback-flush.service (the timer's unit) sent it" [ "$(state_of "$id2")" = sent ]
	journalctl -b -q -o cat -u cgroup-feedback-flush.service | show 4
	check "the collector has the second report" [ "$(collector_get "$id2")" = 200 ]

	cgroup-feedback withdraw "$id" >"$OUT/withdraw.txt" 2>&1
	check "withdraw of the first report" [ $? -eq 0 ]
	check "its state is withdrawn" [ "$(state_of "$id")" = withdrawn ]
	check "the collector no longer has it (404)" [ "$(collector_get "$rid")" = 404 ]
	cp /run/cgroup-feedback.conf.packaged "$CONF" && rm -f /run/cgroup-feedback.conf.packaged
}

sc_before_reboot() {
	n_reports >/var/lib/cgfb-test/n-reports
	id_of M9b >/var/lib/cgfb-test/m9b-id
	cgroup-feedback status >"$OUT/status-boot1.txt" 2>&1
	cgroup-feedback list >"$OUT/list-boot1.txt" 2>&1
	note "$(cat /var/lib/cgfb-test/n-reports) reports before the reboot"
	mark reboot
}

# --- the second boot ---------------------------------------------------------------

# The banner is back at boot while reports wait (the host checks that the
# administrator's login after marker "reboot" showed it).
sc_after_reboot() {
	check "the watcher is active after the reboot" wait_for 60 watcher_active
	check "the login banner is back" test -e /run/motd.d/cgroup-feedback.motd
	check "the banner is readable by the administrator (not root)" \
		setpriv --reuid=admin --regid=admin --init-groups cat /run/motd.d/cgroup-feedback.motd
	cat /run/motd.d/cgroup-feedback.motd >"$OUT/banner-2.txt" 2>&1
	check "the administrator logged in again after the reboot" \
		wait_for 60 sh -c 'who | grep -q "^admin *ttyS2"'
	mark after-reboot
}

# M9b is printed again at this boot: the same report counts it.
sc_repeat_at_boot() {
	check "the watcher saw M9b again in this boot" wait_journal "detected M9b"
	sleep 3
	check "still one report for M9b" [ "$(count_of M9b)" -eq 1 ]
	check "the report is the one of the first boot" [ "$(id_of M9b)" = "$(cat /var/lib/cgfb-test/m9b-id)" ]
	check "no new report at all" [ "$(n_reports)" -eq "$(cat /var/lib/cgfb-test/n-reports)" ]
	check "the journal says the boot was counted on that report" \
		wait_journal "M9b again (kernel series [0-9.]*): counted on report $(cat /var/lib/cgfb-test/m9b-id)" 20
	cgroup-feedback list --json >"$OUT/list-boot2.json" 2>&1
	check "the M9b report counts 2 boots (list --json)" \
		sh -c 'grep "\"id\":\"$1\"" "$2" | grep -q "\"boots\":2"' _ "$(cat /var/lib/cgfb-test/m9b-id)" "$OUT/list-boot2.json"
	check "the report's bytes say nothing of it (local bookkeeping, never sent)" \
		sh -c '! grep -q boots "$1"' _ "$(reports_of M9b | head -n 1)"
	check "no second prompt for M9b in the journal" \
		sh -c '! journalctl -b -q -o cat -u cgroup-feedback.service | grep -q "asked for your use case (M9b"'
	cgroup-feedback status >"$OUT/status-boot2.txt" 2>&1
	check "status shows the repeat (2 boots)" grep -q 'M9b.*2 boots' "$OUT/status-boot2.txt"
	show <"$OUT/status-boot2.txt" 20
}

# The administrator does what the login banner says: the host
# (tests/system/admin.py) types the banner's command as printed after the
# reboot ("sudo cgroup-feedback review": every pending report in turn) and
# keeps each for later. Here: sudo ran exactly that, review ended, and every
# report is still pending.
n_pending() { cgroup-feedback list --json | grep -c '"state":"pending"'; }
banner_reviewed() {
	journalctl -b -q -o cat _COMM=sudo | grep -q "COMMAND=[^ ]*/cgroup-feedback review\$" &&
		! pgrep -f "[c]group-feedback review"
}
sc_review_from_banner() {
	before=$(n_pending)
	mark banner-review
	check "the administrator ran the login banner's command (sudo's log: cgroup-feedback review)" \
		wait_for 600 banner_reviewed
	journalctl -b -q -o cat _COMM=sudo | show 2
	check "every report is still pending ($before): nothing was sent" [ "$(n_pending)" -eq "$before" ]
	echo "$before" >"$OUT/pending-before-banner-review"
	mark banner-review-end
}

# check --report on the installed package: swapaccount=0 on this kernel
# command line is what M9b asks about; the report is a new one (source
# check, beside the kernel's M9b report), pending, and review shows it as
# found by check. review gets a terminal from script(1), cat for a pager (the
# bytes shown before the question), and ^D at its first
# question, which keeps the report for later.
sc_check_report() {
	before=$(n_pending)
	timeout 120 cgroup-feedback check --report >"$OUT/check-report.txt" 2>&1
	check "check --report: exit 1 (the findings), one new report" \
		sh -c '[ "$1" -eq 1 ] && grep -q "^--report: 1 new report, 0 counted on earlier ones$" "$2"' _ $? "$OUT/check-report.txt"
	id=$(sed -n 's/^M9b: report \([0-9a-f-]*\) written, waiting for review: .*/\1/p' "$OUT/check-report.txt")
	check "... for M9b (swapaccount=0), pending" \
		sh -c '[ -n "$1" ] && [ "$2" -eq "$3" ]' _ "$id" "$(n_pending)" "$((before + 1))"
	check "... its detection: source check, no message" \
		grep -q '"source":"check"' "/var/lib/cgroup-feedback/reports/$id.json"
	# ^D at the first question is a closed terminal there: keep for later.
	printf '\004' | PAGER=cat timeout 60 script -qec "cgroup-feedback review $id" "$OUT/check-review.txt" >/dev/null 2>&1
	check "review shows it as found by check, not printed by the kernel; it stays pending" \
		sh -c 'grep -q "cgroup-feedback check found on this machine what the kernel asks about with this message (M9b)" "$1" &&
		       cgroup-feedback list | grep -q "^$2  pending"' _ "$OUT/check-review.txt" "$id"
	grep -v '^$' "$OUT/check-review.txt" | head -n 6 | show 6
}

# Purge keeps its promises: with one report sent (M7, delivered by the
# flush service in the first boot; M8 was withdrawn there), apt-get purge -y
# of the client, unattended, lists it and keeps its deletion token where it
# says, root's only; the command that file gives withdraws the report from
# the collector, still installed. Then the collector's purge: nothing of
# either package is left but that file.
sc_purge() {
	id=$(id_of M7)
	n_sent=$(cgroup-feedback list --json | grep -c '"state":"sent"')
	check "before the purge, one report can be withdrawn: M7's, sent" \
		sh -c '[ -n "$1" ] && [ "$2" = sent ] && [ "$3" = 1 ]' _ "$id" "$(state_of "$id")" "$n_sent"
	tsha=$(sed -n 's/.*"token_sha256":"\([0-9a-f]*\)".*/\1/p' "$SPOOL/$id.json")
	apt-get purge -y -q -o Dpkg::Use-Pty=0 cgroup-feedback </dev/null >"$OUT/purge.log" 2>&1
	check "apt-get purge -y cgroup-feedback (input closed: nothing asked)" [ $? -eq 0 ]
	kept=$(ls /var/backups/cgroup-feedback-withdraw-tokens.* 2>/dev/null)
	check "one file kept: /var/backups/cgroup-feedback-withdraw-tokens.DATE" \
		sh -c 'echo "$1" | grep -qx "/var/backups/cgroup-feedback-withdraw-tokens\.[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]"' _ "$kept"
	check "the purge names the report, where it went, and that file" \
		sh -c 'grep -q "1 report sent from this machine can still be withdrawn" "$3" &&
		       grep -q "$1 (sent to http://127.0.0.1:8080/api/v1/reports)" "$3" && grep -q "$2" "$3"' \
		_ "$id" "$kept" "$OUT/purge.log"
	grep '^cgroup-feedback:' "$OUT/purge.log" | show 8
	check "so does the journal" \
		sh -c 'journalctl -b -q -o cat -t cgroup-feedback | grep -q "purge: 1 report .* kept in $1"' _ "$kept"
	check "the file is root's only (0600 root root)" [ "$(stat -c '%a %U %G' "$kept" 2>/dev/null)" = "600 root root" ]
	lines=$(grep -v '^#' "$kept" 2>/dev/null)
	set -- $lines
	check "it holds that report alone: its id, its collector, and the token whose SHA-256 the report carries" \
		sh -c '[ $# = 6 ] && [ "$4" = "$1" ] && [ "$5" = http://127.0.0.1:8080/api/v1/reports ] &&
		       [ "$(printf %s "$6" | sha256sum | cut -c1-64)" = "$2" ] && [ -n "$3" ] && [ "$3" = "$4 $5 $6" ]' \
		_ "$id" "$tsha" "$lines" "$@"
	check "the spool is gone" [ ! -e /var/lib/cgroup-feedback ]
	cp "$kept" "$OUT/kept-tokens.txt"
	# What the file says to run, as the administrator pastes it.
	sh -c "$(sed -n 's|^#   \(awk .*\)$|\1|p' "$kept")" >"$OUT/withdraw-kept.txt" 2>&1
	check "the command in that file withdraws the report from the collector (200)" grep -qx "$id 200" "$OUT/withdraw-kept.txt"
	show <"$OUT/withdraw-kept.txt" 3
	check "the collector no longer has it (404)" [ "$(collector_get "$id")" = 404 ]

	apt-get purge -y -q -o Dpkg::Use-Pty=0 cgroup-feedback-server </dev/null >>"$OUT/purge.log" 2>&1
	check "apt-get purge -y cgroup-feedback-server" [ $? -eq 0 ]
	left=$(find / -xdev \( -path /cgfb-test -o -path /proc -o -path /var/lib/dpkg -o -path /var/cache/apt \) -prune -o \
		-name '*cgroup-feedback*' -print 2>/dev/null)
	check "no file or directory named cgroup-feedback is left but the kept tokens" [ "$left" = "$kept" ]
	[ "$left" = "$kept" ] || echo "$left" | show 10
	check "no file in /run is left (banner, its link, the runtime directory)" \
		sh -c '! ls -A /run/motd.d 2>/dev/null | grep -q cgroup-feedback && [ ! -e /run/cgroup-feedback ]'
	check "systemd knows no cgroup-feedback unit" \
		sh -c '! systemctl list-units --all --no-legend "cgroup-feedback*" | grep -q . &&
			! systemctl list-unit-files --no-legend "cgroup-feedback*" | grep -q .'
	check "no process of the service users is left" \
		sh -c '! pgrep -u _cgroup-feedback && ! pgrep -u _cgroup-feedback-server'
	check "no file anywhere belongs to the service users" \
		sh -c '[ -z "$(find / -xdev \( -user _cgroup-feedback -o -user _cgroup-feedback-server \) -print 2>/dev/null)" ]'
}
