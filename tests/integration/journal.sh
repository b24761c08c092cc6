#!/bin/sh
# scan --journal-file / --journal-dir on a real journal: export text of
# three boots, written into a journal file by Debian's
# systemd-journal-remote, read back through sd-journal. Each boot's
# messages are found and named by their boot (once per boot, as the kernel
# prints them); userspace writing the same words is never a detection;
# what is no journal is said, exit 2.
. tests/lib.sh

REMOTE=/lib/systemd/systemd-journal-remote
B1=1111111111114111a111111111111111
B2=2222222222224222a222222222222222
B3=3333333333334333a333333333333333
M8='Non-hierarchical mode is deprecated. Please report your usecase to linux-mm@kvack.org if you depend on this functionality.'
M7='Cgroup memory moving (move_charge_at_immigrate) is deprecated. Please report your usecase to linux-mm@kvack.org if you depend on this functionality.'

t=1700000000000000
# entry BOOT MONO TRANSPORT TEXT: one entry of journalctl -o export.
entry() {
	t=$((t + 1000000))
	printf '__REALTIME_TIMESTAMP=%s\n__MONOTONIC_TIMESTAMP=%s\n_BOOT_ID=%s\n_TRANSPORT=%s\n' \
		"$t" "$2" "$1" "$3"
	[ "$3" = kernel ] && printf 'SYSLOG_FACILITY=0\nSYSLOG_IDENTIFIER=kernel\n'
	[ "$3" = kernel ] || printf 'SYSLOG_FACILITY=3\nSYSLOG_IDENTIFIER=mallory\n_HOSTNAME=db01.acme-corp.example\n'
	printf 'PRIORITY=4\nMESSAGE=%s\n\n' "$4"
}
{
	# Boot 1: M8 during boot, long before any watcher could start.
	entry $B1 1000000 kernel 'Linux version 6.1.0-28-amd64 (debian-kernel@lists.debian.org)'
	entry $B1 2500000 kernel "$M8"
	entry $B1 2600000 syslog "$M7"
	# Boot 2: nothing of the catalog, only userspace saying it.
	entry $B2 1000000 kernel 'Linux version 6.1.0-28-amd64 (debian-kernel@lists.debian.org)'
	entry $B2 3000000 stdout "$M8"
	# Boot 3: M8 again (its own boot: occurrence 1) and M7.
	entry $B3 1000000 kernel 'Linux version 6.1.0-29-amd64 (debian-kernel@lists.debian.org)'
	entry $B3 4000000 kernel "$M8"
	entry $B3 5000000 kernel "$M7"
} > "$T_TMP/in.export"
mkdir -p "$T_TMP/j"
if ! "$REMOTE" --output="$T_TMP/j/system.journal" "$T_TMP/in.export" > "$T_TMP/remote.log" 2>&1; then
	not_ok "systemd-journal-remote wrote the journal: $(tail -n 3 "$T_TMP/remote.log")"
	finish
	exit 1
fi

"$CGFB" scan --json --journal-file "$T_TMP/j/system.journal" > "$T_TMP/out" 2> "$T_TMP/err"
check "--journal-file: exit 0 (found)" [ $? -eq 0 ]
check "... each boot's messages, in order, once per boot" [ "$(python3 -c '
import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    print(d["boot"]["id"], d["id"], d["occurrence"], d["source"].split(":")[1] == d["boot"]["id"])
' "$T_TMP/out" | tr '\n' ' ')" = "$B1 M8 1 True $B3 M8 1 True $B3 M7 1 True " ]
check "... named by boot and the boot's first kernel record" \
	grep -q "\"boot\":{\"id\":\"$B1\",\"first_record\":\"2023-11-14T22:13:21Z\"}" "$T_TMP/out"
check "... userspace saying the same words is no detection" [ "$(grep -c . "$T_TMP/out")" -eq 3 ]
check "... the summary counts records and boots" \
	grep -q "system.journal: 6 kernel records of 3 boots read, 3 catalog messages" "$T_TMP/err"

"$CGFB" scan --journal-dir "$T_TMP/j" > "$T_TMP/out" 2> "$T_TMP/err"
check "--journal-dir: exit 0" [ $? -eq 0 ]
check "... a header per boot with a detection, for people" \
	[ "$(grep -c '^-- boot ' "$T_TMP/out")" -eq 2 ]
check "... each detection names journal:BOOT:SEQ" grep -q "^journal:$B3:[0-9]*: M7 " "$T_TMP/out"

# A journal and rotated text logs in one call.
printf '<4>[    2.500000] %s\n' "$M7" | gzip -c > "$T_TMP/kern.log.1.gz"
"$CGFB" scan --journal-dir "$T_TMP/j" "$T_TMP/kern.log.1.gz" > "$T_TMP/out" 2> /dev/null
check "the journal and a rotated log in one call" [ "$(grep -c ': M[78] ' "$T_TMP/out")" -eq 4 ]

# What is no journal.
"$CGFB" scan --journal-file "$T_TMP/in.export" > /dev/null 2> "$T_TMP/err"
check "export text given as a journal file: exit 2" [ $? -eq 2 ]
check "... saying so, with its name" grep -q "in.export: not a journal file" "$T_TMP/err"
mkdir -p "$T_TMP/empty"
"$CGFB" scan --journal-dir "$T_TMP/empty" > /dev/null 2> "$T_TMP/err"
check "an empty directory: exit 2, naming it" grep -q "empty: no journal file" "$T_TMP/err"
"$CGFB" scan --journal-dir "$T_TMP/j" --journal-file "$T_TMP/j/system.journal" > /dev/null 2> "$T_TMP/err"
check "--journal-dir and --journal-file together: refused" grep -q "one or the other" "$T_TMP/err"
# The journal of a boot with nothing: rc 1, said.
entry $B2 1000000 kernel 'Linux version 6.1.0-28-amd64' > "$T_TMP/quiet.export"
mkdir -p "$T_TMP/q"
"$REMOTE" --output="$T_TMP/q/quiet.journal" "$T_TMP/quiet.export" > /dev/null 2>&1
"$CGFB" scan --journal-dir "$T_TMP/q" > /dev/null 2> "$T_TMP/err"
check "a journal without a catalog message: exit 1" [ $? -eq 1 ]
check "... saying what it read" grep -q "1 kernel record of 1 boot read, 0 catalog messages" "$T_TMP/err"

finish
