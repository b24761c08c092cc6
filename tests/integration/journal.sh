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
# The machine the entries are stamped with, as journald stamps each: this
# one's, unless MID is set to another's.
THIS_MID=$(cat /etc/machine-id 2>/dev/null)
MID=$THIS_MID
# entry BOOT MONO TRANSPORT TEXT: one entry of journalctl -o export.
entry() {
	t=$((t + 1000000))
	printf '__REALTIME_TIMESTAMP=%s\n__MONOTONIC_TIMESTAMP=%s\n_BOOT_ID=%s\n_TRANSPORT=%s\n' \
		"$t" "$2" "$1" "$3"
	[ -z "$MID" ] || printf '_MACHINE_ID=%s\n' "$MID"
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

# The watcher fills what the ring buffer lost from the journal: started
# late in a boot (the ring's oldest record is no longer the first), and
# overrun in the middle of a burst (EPIPE). The journal is read by the
# report writer; the watcher links no journal code.
. tests/data/cgroupfs/lib.sh
FX=$T_TMP/flat
fixture flat-affected "$FX" || not_ok "fixture flat-affected builds"
BOOTID=aaaaaaaa-aaaa-4aaa-baaa-aaaaaaaaaaaa
JB=aaaaaaaaaaaa4aaabaaaaaaaaaaaaaaa
echo "$BOOTID" > "$T_TMP/boot_id"
{
	entry $JB 1000000 kernel 'Linux version 6.1.0-28-amd64 (debian-kernel@lists.debian.org)'
	entry $JB 2500000 kernel "$M8"           # during boot: long gone from the ring
	entry $JB 2600000 syslog "$M7"           # userspace: never
	entry $JB 12000000 kernel "$M7"          # lost in a burst, between seq 4 and 20
	entry $JB 30000000 kernel "$M8"          # read from the ring as well: not twice
} > "$T_TMP/gap.export"
mkdir -p "$T_TMP/gj"
"$REMOTE" --output="$T_TMP/gj/system.journal" "$T_TMP/gap.export" > /dev/null 2>&1
# /dev/kmsg as the watcher finds it: records 0-99 overwritten, then 100-104
# (9-13 s), then 120-121 (the burst lost 105-119), the last one M8 at 30 s.
# On a FIFO, which stands for the live ring buffer (a regular file is a
# recording, whose gaps are no loss: watch.sh); held open for writing, so
# that --once reads it to its end.
K=$T_TMP/kmsg
: > "$K"
for i in 0 1 2 3 4; do
	printf '6,%d,%d,-;eth0: ordinary record %d\n' $((100 + i)) $((9000000 + i * 1000)) $i >> "$K"
done
printf '6,120,%d,-;eth0: after the burst\n' 20000000 >> "$K"
printf '4,121,%d,-;%s\n' 30000000 "$M8" >> "$K"
mkfifo "$T_TMP/ring"
# ring ARGS...: the watcher on the FIFO with K written into it.
ring() {
	exec 3<>"$T_TMP/ring"
	cat "$K" >&3
	"$@"
	set -- $?
	exec 3>&-
	return "$1"
}
ring "$CGFB" watch --once --json --kmsg "$T_TMP/ring" --state-dir "$T_TMP/wstate" --boot-id-file "$T_TMP/boot_id" \
	--journal-dir "$T_TMP/gj" --cgroup-root "$FX/root" --mountinfo "$FX/mountinfo" \
	> "$T_TMP/wout" 2> "$T_TMP/werr"
check "watch with records lost from the ring: exit 0" [ $? -eq 0 ]
check "... the boot's M8 and the burst's M7 found in the journal, named by boot and seqnum" [ "$(python3 -c '
import json, sys
print(" ".join("%s:%d:%s" % (d["id"], d["occurrence"], d["source"].rsplit(":", 1)[0])
               for d in map(json.loads, open(sys.argv[1]))))
' "$T_TMP/wout")" = "M8:1:journal:$JB M7:1:journal:$JB" ]
check "... the ring's own M8 counted as the boot's second, not reported again" \
	grep -q '"M8":2' "$T_TMP/wstate/watch.state"
check "... the start of the boot said, with what the journal gave" \
	grep -q "kernel log records 0 to 99 were overwritten while nobody watched; 2 kernel records of that time found in the journal" "$T_TMP/werr"
check "... the burst said, with what the journal gave" \
	grep -q "kernel log records 105 to 119 were overwritten before they could be read; 1 kernel record of that time found in the journal" "$T_TMP/werr"
n=$(ls "$T_TMP/wstate/reports" | grep -c '\.json$')
check "... a report for each new message (M8, M7)" [ "$n" -eq 2 ]
check "... whose detection says it came from the journal" sh -c \
	'grep -l "\"source\":\"journal\"" "$1"/reports/*.json | grep -c . | grep -qx 2' _ "$T_TMP/wstate"
check "... valid reports" sh -c 'for r in "$1"/reports/*.json; do "$2" "$r" > /dev/null || exit 1; done' \
	_ "$T_TMP/wstate" "$PWD/$BUILD/tests/tools/validate-report"
# Without a journal: said, and the watcher goes on.
ring "$CGFB" watch --once --json --kmsg "$T_TMP/ring" --state-dir "$T_TMP/wstate2" --boot-id-file "$T_TMP/boot_id" \
	--journal-dir "$T_TMP/empty" --cgroup-root "$FX/root" --mountinfo "$FX/mountinfo" \
	> "$T_TMP/wout2" 2> "$T_TMP/werr2"
check "no journal to fill from: exit 0, the ring's own M8 still found" [ $? -eq 0 ] 
check "... and the loss said, pointing at the saved logs" \
	grep -q "records 0 to 99 were overwritten while nobody watched and are not in a journal" "$T_TMP/werr2"

# scan --report: what past boots printed becomes pending reports, as the
# watcher would have made them: M8 of boots 1 and 3 one report seen at two
# boots, M7 one; the journal named as the source; a second scan adds
# nothing; the review command it prints works (show in review's place).
RS=$T_TMP/rstate
printf 'motd-path = %s/motd\nnotify = log\n' "$T_TMP" > "$T_TMP/rconf"
"$CGFB" --config "$T_TMP/rconf" scan --report --state-dir "$RS" --journal-dir "$T_TMP/j" \
	--cgroup-root "$FX/root" --mountinfo "$FX/mountinfo" > "$T_TMP/rout" 2> "$T_TMP/rerr"
check "scan --report of three boots: exit 0" [ $? -eq 0 ]
check "... two reports (M8, M7), each from the journal, valid" python3 - "$RS" "$PWD/$BUILD/tests/tools/validate-report" <<'EOP'
import glob, json, subprocess, sys
reps = [json.load(open(f)) for f in sorted(glob.glob(sys.argv[1] + "/reports/*.json"))]
assert sorted(r["detection"]["catalog_id"] for r in reps) == ["M7", "M8"], reps
assert all(r["detection"]["source"] == "journal" for r in reps)
for f in glob.glob(sys.argv[1] + "/reports/*.json"):
    subprocess.run([sys.argv[2], f], check=True, stdout=subprocess.DEVNULL)
EOP
check "... M8's report seen at two boots" python3 - "$RS" <<'EOP'
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/reports/*.json"):
    if json.load(open(f))["detection"]["catalog_id"] == "M8":
        seen = json.load(open(f[:-5] + ".seen"))
        assert seen["boots"] == 2, seen
EOP
check "... each said, the second M8 as reported before" sh -c \
	'grep -q "^M8: report .* written, waiting for review" "$1" && grep -q "^M8: reported before: report" "$1" && grep -q "^M7: report .* written" "$1"' _ "$T_TMP/rout"
paste_hint 's/^M7: report .* written, waiting for review: \([^ ]*cgroup-feedback .*\) review \([0-9a-f-]*\)$/\1 show \2/p' \
	"$T_TMP/rout" "scan --report's review command (show in review's place)"
"$CGFB" --config "$T_TMP/rconf" scan --report --state-dir "$RS" --journal-dir "$T_TMP/j" \
	--cgroup-root "$FX/root" --mountinfo "$FX/mountinfo" > "$T_TMP/rout" 2> "$T_TMP/rerr"
check "... scanned again: no new report, no boot counted twice" sh -c \
	'[ "$(ls "$1"/reports/*.json | wc -l)" -eq 2 ] && grep -q "0 new reports, 3 counted on earlier ones" "$2" && grep -q "\"boots\":2" "$1"/reports/*.seen' \
	_ "$RS" "$T_TMP/rerr"
"$CGFB" scan --state-dir "$RS" --journal-dir "$T_TMP/j" > /dev/null 2> "$T_TMP/rerr"
check "--state-dir without --report: refused" sh -c '[ $1 -eq 2 ] && grep -q "go with --report" "$2"' _ $? "$T_TMP/rerr"

# A report is about the machine that printed the message (issue 38). Another
# machine's journal (a copy: its _MACHINE_ID is not this one's), its boot on
# another kernel with its command line, and M8: a report of its own, with
# that machine's facts as its log shows them and nothing of this machine's
# (exactly the system below, no topology though a tree is given), its boot
# counted on it; this machine's M8 report keeps its two boots.
B4=4444444444444444a444444444444444
MID=0123456789abcdef0123456789abcdef
{
	entry $B4 1000000 kernel 'Linux version 5.10.0-32-amd64 (debian-kernel@lists.debian.org) (gcc-10 (Debian 10.2.1-6) 10.2.1 20210110) #1 SMP Debian 5.10.223-1 (2024-08-10)'
	entry $B4 1100000 kernel 'Command line: BOOT_IMAGE=/vmlinuz-5.10.0-32-amd64 root=/dev/mapper/db01--vg-root ro cgroup_no_v1=memory,blkio systemd.unified_cgroup_hierarchy=0 acme.site=db01'
	entry $B4 4000000 kernel "$M8"
} > "$T_TMP/other.export"
MID=$THIS_MID
mkdir -p "$T_TMP/oj"
"$REMOTE" --output="$T_TMP/oj/system.journal" "$T_TMP/other.export" > /dev/null 2>&1
"$CGFB" --config "$T_TMP/rconf" scan --report --state-dir "$RS" --journal-dir "$T_TMP/oj" \
	--cgroup-root "$FX/root" --mountinfo "$FX/mountinfo" > "$T_TMP/rout" 2> "$T_TMP/rerr"
check "another machine's journal: a report of its own (exit 0, 1 new, none counted on this machine's)" \
	sh -c '[ $1 -eq 0 ] && grep -q -- "--report: 1 new report, 0 counted" "$2" && [ "$(ls "$3"/reports/*.json | wc -l)" -eq 3 ]' \
	_ $? "$T_TMP/rerr" "$RS"
check "... its machine's facts as its log shows them, nothing of this machine's; valid" \
	python3 - "$RS" "$PWD/$BUILD/tests/tools/validate-report" "$(uname -r)" <<'EOP'
import glob, json, subprocess, sys
new = [(f, json.load(open(f))) for f in glob.glob(sys.argv[1] + "/reports/*.json")]
new = [(f, r) for f, r in new if "facts" in r["system"]]
assert len(new) == 1, new
f, r = new[0]
want = {"facts": "log",
        "kernel": {"release": "5.10.0-32-amd64", "series": "5.10", "arch": "x86_64"},
        "distribution": {"id": "unknown", "version_id": ""},
        "cpus": "unknown", "numa_nodes": 0, "memory": "unknown", "virtualization": "unknown",
        "cgroup_mode": "unknown", "init": "unknown",
        "cmdline": {"cgroup_no_v1": "memory,blkio", "systemd.unified_cgroup_hierarchy": "0"}}
assert r["system"] == want, r["system"]
assert r["topology"]["hierarchies"] == [] and r["analysis"] == {"flat_subtrees": [], "knob_users": []}, r
assert sys.argv[3] not in json.dumps(r), "this machine's kernel in it"
assert r["detection"]["catalog_id"] == "M8" and r["detection"]["source"] == "journal"
subprocess.run([sys.argv[2], f], check=True, stdout=subprocess.DEVNULL)
EOP
check "... its boot counted on it, and this machine's M8 report still at two boots" \
	python3 - "$RS" "4444444444444444a444444444444444" <<'EOP'
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/reports/*.json"):
    r = json.load(open(f))
    if r["detection"]["catalog_id"] != "M8":
        continue
    seen = json.load(open(f[:-5] + ".seen"))
    if "facts" in r["system"]:
        assert seen["boots"] == 1 and seen["last_boot"].replace("-", "") == sys.argv[2], seen
    else:
        assert seen["boots"] == 2, seen
EOP

# The same for a saved text log: a boot on another kernel than this
# machine's (its "Linux version" line), its command line, and M7.
{
	printf '[    0.000000] Linux version 4.19.0-27-amd64 (debian-kernel@lists.debian.org) (gcc version 8.3.0 (Debian 8.3.0-6)) #1 SMP Debian 4.19.316-1 (2024-06-25)\n'
	printf '[    0.000000] Command line: BOOT_IMAGE=/boot/vmlinuz-4.19.0-27-amd64 root=UUID=0b1c2d3e ro swapaccount=1 cgroup_enable=memory\n'
	printf '[   42.123456] %s\n' "$M7"
} > "$T_TMP/other-kern.log"
RT=$T_TMP/tstate
"$CGFB" --config "$T_TMP/rconf" scan --report --state-dir "$RT" --cgroup-root "$FX/root" \
	--mountinfo "$FX/mountinfo" "$T_TMP/other-kern.log" > "$T_TMP/tout" 2> "$T_TMP/terr"
check "a saved log that another kernel printed: its report carries that boot's facts, nothing of this machine's" \
	python3 - "$RT" "$PWD/$BUILD/tests/tools/validate-report" "$(uname -r)" <<'EOP'
import glob, json, subprocess, sys
files = glob.glob(sys.argv[1] + "/reports/*.json")
assert len(files) == 1, files
r = json.load(open(files[0]))
want = {"facts": "log",
        "kernel": {"release": "4.19.0-N-amd64", "series": "4.19", "arch": "x86_64"},
        "distribution": {"id": "unknown", "version_id": ""},
        "cpus": "unknown", "numa_nodes": 0, "memory": "unknown", "virtualization": "unknown",
        "cgroup_mode": "unknown", "init": "unknown",
        "cmdline": {"swapaccount": "1", "cgroup_enable": "memory"}}
assert r["system"] == want, r["system"]
assert r["topology"]["hierarchies"] == [], r["topology"]
assert sys.argv[3] not in json.dumps(r), "this machine's kernel in it"
subprocess.run([sys.argv[2], files[0]], check=True, stdout=subprocess.DEVNULL)
EOP

# A locally rebuilt kernel in a distribution's shape (Debian never published
# ABI 1337): the report and the e-mail's Subject carry 6.1.0-N-amd64, not
# the number that would single the machine out (PRIVACY.md, kernel release).
sed 's/4\.19\.0-27-amd64/6.1.0-1337-amd64/g' "$T_TMP/other-kern.log" > "$T_TMP/rebuilt-kern.log"
RR=$T_TMP/kstate
# Natively under valgrind (CGFB_NATIVE, tests/lib.sh): this scan --report
# and its report writer take the path of the saved log's run just above
# (another kernel's log, an unvouched Debian ABI made N by
# report/release.c's one branch: 4.19.0-27 there, 6.1.0-1337 here), and
# the export --email the path of the break's export below, both under
# valgrind there; what is checked here is the text they write.
"$CGFB_NATIVE" --config "$T_TMP/rconf" scan --report --state-dir "$RR" --cgroup-root "$FX/root" \
	--mountinfo "$FX/mountinfo" "$T_TMP/rebuilt-kern.log" > /dev/null 2>&1
rid=$(basename "$(ls "$RR"/reports/*.json | head -n 1)" .json)
printf 'One database per cgroup.\n' > "$T_TMP/ruc"
"$CGFB_NATIVE" --config "$T_TMP/rconf" export --yes --state-dir "$RR" --email --use-case-file "$T_TMP/ruc" \
	-o "$T_TMP/rebuilt.eml" "$rid" > /dev/null 2>&1
check "a rebuilt kernel's invented ABI: report and Subject say 6.1.0-N-amd64, 1337 nowhere" \
	python3 - "$RR/reports/$rid.json" "$T_TMP/rebuilt.eml" <<'EOP'
import email, email.policy, json, re, sys
r = json.load(open(sys.argv[1]))
assert r["system"]["kernel"]["release"] == "6.1.0-N-amd64", r["system"]["kernel"]
raw = open(sys.argv[2], "rb").read()
msg = email.message_from_bytes(raw, policy=email.policy.default)
assert "(6.1.0-N-amd64)" in msg["Subject"], msg["Subject"]
# As a number of its own: 1337 may also turn up inside a hash or an id.
abi = re.compile(r"(?<![0-9a-f])1337(?![0-9a-f])")
assert not abi.search(raw.decode("utf-8", "replace")) and not abi.search(json.dumps(r)), \
    "the invented ABI is in it"
EOP

# A syslog file proves no "kernel:" line the kernel's (logger -t kernel
# writes the same): scan shows it as not proven, scan --report makes no
# report of it (exit 2, said), and does with --trust-file.
printf 'Aug 10 18:00:07 host sshd[7]: Accepted publickey\nAug 10 18:00:08 host kernel: %s\n' \
	"$M8" > "$T_TMP/forged-syslog"
"$CGFB" scan --json "$T_TMP/forged-syslog" > "$T_TMP/fjson" 2>/dev/null
check "a syslog file's kernel: line: found, kernel_proven false" python3 -c '
import json, sys
d = [json.loads(l) for l in open(sys.argv[1])]
sys.exit(not (len(d) == 1 and d[0]["id"] == "M8" and d[0]["kernel_proven"] is False))' "$T_TMP/fjson"
RF=$T_TMP/fstate
"$CGFB" --config "$T_TMP/rconf" scan --report --state-dir "$RF" --cgroup-root "$FX/root" \
	--mountinfo "$FX/mountinfo" "$T_TMP/forged-syslog" > "$T_TMP/fout" 2> "$T_TMP/ferr"
check "scan --report of it: exit 2, no report" sh -c '[ $1 -eq 2 ] && ! ls "$2"/reports/*.json 2>/dev/null' \
	_ $? "$RF"
check "... said, with what to do" grep -q "1 catalog message not reported: a syslog file cannot prove.*--trust-file" "$T_TMP/ferr"
check "... the text output says not proven" grep -q "not proven the kernel's" "$T_TMP/fout"
"$CGFB" --config "$T_TMP/rconf" scan --report --trust-file --state-dir "$RF" --cgroup-root "$FX/root" \
	--mountinfo "$FX/mountinfo" "$T_TMP/forged-syslog" > "$T_TMP/fout" 2> "$T_TMP/ferr"
check "... with --trust-file: exit 0, one report" sh -c '[ $1 -eq 0 ] && [ $(ls "$2"/reports/*.json | wc -l) -eq 1 ]' \
	_ $? "$RF"

# The sound of the break (issue 42, part 2): the kernel refusing a v1
# mount, in a dmesg log, becomes a pending report like any other, and its
# e-mail carries the break's own questions, answered.
printf '[    0.000000] Linux version 6.12.48+deb13-amd64 (debian-kernel@lists.debian.org)\n[   12.345678] cgroup: Unknown subsys name '"'"'memory'"'"'\n' \
	> "$T_TMP/break.log"
RB=$T_TMP/bstate
"$CGFB" --config "$T_TMP/rconf" scan --report --state-dir "$RB" --cgroup-root "$FX/root" \
	--mountinfo "$FX/mountinfo" "$T_TMP/break.log" > /dev/null 2>&1
bid=$(basename "$(ls "$RB"/reports/*.json 2>/dev/null | head -n 1)" .json)
printf 'A 2019 appliance image mounts the v1 memory hierarchy from fstab.\n' > "$T_TMP/buc"
"$CGFB" --config "$T_TMP/rconf" export --yes --state-dir "$RB" --email --use-case-file "$T_TMP/buc" \
	--answer went_back='yes, 6.1 kept' -o "$T_TMP/break.eml" "$bid" > /dev/null 2>&1
check "a break (B1) in a dmesg log: a report, exported with its own questions answered" \
	python3 - "$RB/reports/$bid.json" "$T_TMP/break.eml" <<'EOP'
import email, email.policy, json, sys
r = json.load(open(sys.argv[1]))
assert r["detection"]["catalog_id"] == "B1" and r["detection"]["fields"]["controller"] == "memory", r["detection"]
msg = email.message_from_bytes(open(sys.argv[2], "rb").read(), policy=email.policy.default)
body = msg.get_body(("plain",)).get_content()
assert "went_back: yes, 6.1 kept" in body, body
assert "A 2019 appliance image mounts the v1 memory hierarchy" in body, body
EOP

finish
