#!/bin/sh
# Acceptance: "scan --json reports the right id for every catalog entry in
# every supported format, with comm extracted wherever the log names the
# process".
#
# tests/data/messages.tsv lists every catalog message variant. Each one is
# rendered (in $T_TMP) into every log format the scanner reads: /dev/kmsg
# records (plain, with caller= and device properties), dmesg with every time
# stamp style (-T, -H, --reltime, -r, -x, none, caller ids), syslog files
# (RFC 3164 and RFC 3339), journalctl -k short / short-precise / short-iso /
# short-iso-precise / short-monotonic and journalctl -o export. WARN_ONCE
# messages are also wrapped in a WARN block of every kernel era (2.6.32 and
# RHEL 6, SUSE 3.0 and 3.4, 3.10 (message after the banner), 5.x, 6.13+ with
# UID:, arm64 and 6.19 (message before the banner, as __warn_printk prints
# it). One TAP line per (variant x era x format) compares ids, fields, level,
# seq/usec, line numbers and text with the expectation.
#
# Then the hand-written whole logs in tests/data/logs/*: each LOG has a
# LOG.expect listing "id comm" per detection in order ("-" for no comm).
# shellcheck shell=sh
. tests/lib.sh

if [ ! -x "$CGFB" ]; then
	not_ok "binary $CGFB exists (run make first)"
	finish
	exit 1
fi

if ! python3 tests/tools/logformats.py "$CGFB" "$DATA" "$T_TMP"; then
	not_ok "tests/tools/logformats.py ran"
	finish
	exit 1
fi

while IFS='	' read -r verdict name; do
	case $verdict in
	PASS) ok "$name" ;;
	FAIL) not_ok "$name" ;;
	'#') printf '#   %s\n' "$name" ;;
	esac
done < "$T_TMP/results"

finish
