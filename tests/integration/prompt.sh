#!/bin/sh
# From kernel message to the administrator: watch writes a report for a new
# detection on a real cgroupfs-shaped fixture, tells the administrator (log
# line, login banner, notify command) once per boot, and with --prompt runs
# the review right in the terminal; the report it wrote is what gets sent.
. tests/lib.sh
. tests/client/lib.sh

ST=$T_TMP/state
KMSG=$T_TMP/kmsg
BOOT=$T_TMP/boot_id
CONF=$T_TMP/conf
$PY tests/data/cgroupfs/mkfixture.py tests/data/cgroupfs/flat-affected.desc "$T_TMP/fx" > /dev/null
echo 0b0e0000-1111-4222-8333-444455556666 > "$BOOT"
# This machine's log (the running kernel's banner): the report carries this
# machine's facts and the fixture's tree. A banner of another kernel would
# make it another machine's log (docs/PRIVACY.md; journal.sh).
printf '%s\n' \
	"6,1,100,-;Linux version $(uname -r) (geeko@buildhost) #1 SMP" \
	'4,2,5000,-;Non-hierarchical mode is deprecated. Please report your usecase to linux-mm@kvack.org if you depend on this functionality.' \
	'6,3,6000,-;eth0: link up' > "$KMSG"
start_double "$T_TMP" ok
trap 'stop_double; t_cleanup' EXIT
cat > "$CONF" <<EOC
endpoint = $URL
motd-path = $T_TMP/motd.d/cgroup-feedback.motd
notify = log, motd, command
notify-command = echo "\$CGFB_REPORT_ID \$CGFB_CATALOG_ID" >> $T_TMP/hook.out
EOC
watch() {
	"$CGFB" --config "$CONF" watch --once --kmsg "$KMSG" --state-dir "$ST" \
		--boot-id-file "$BOOT" --cgroup-root "$T_TMP/fx/root" --mountinfo "$T_TMP/fx/mountinfo" "$@"
}

# The packaged unit's UMask=0077: the banner must still be readable by the
# administrators pam_motd reads it for.
(umask 077; watch) > "$T_TMP/out" 2>"$T_TMP/err"
check "watch exits 0" [ $? -eq 0 ]
id=$(ls "$ST/reports" | sed -n 's/\.json$//p')
check "one report written" [ "$(echo "$id" | wc -w)" -eq 1 ]
check "the report validates against the schema" $PY -c "
import json, jsonschema
jsonschema.Draft202012Validator(json.load(open('docs/report.schema.json'))).validate(
    json.load(open('$ST/reports/$id.json')))
"
check "it shows the flat hierarchy of the fixture" grep -q '"verdict":"affected"' "$ST/reports/$id.json"
check "log line names the report and the command" grep -q "the kernel asked for your use case (M8.*review $id" "$T_TMP/err"
check "login banner lists M8" grep -q 'M8' "$T_TMP/motd.d/cgroup-feedback.motd"
check "the banner is 0644 under umask 077 ($(stat -c %a "$T_TMP/motd.d/cgroup-feedback.motd"))" \
	[ "$(stat -c %a "$T_TMP/motd.d/cgroup-feedback.motd")" = 644 ]
wait_file "$T_TMP/hook.out"
check "notify command ran with the report id" grep -qx "$id M8" "$T_TMP/hook.out"
watch > /dev/null 2>&1
scaled_sleep 0.3
check "restart: no second report" [ "$(ls "$ST/reports" | grep -c json)" -eq 1 ]
check "restart: nobody told twice" [ "$(wc -l < "$T_TMP/hook.out")" -eq 1 ]
# A reboot empties /run: the watcher's start puts the banner back while the
# report waits, though nothing new was detected.
rm -f "$T_TMP/motd.d/cgroup-feedback.motd"
(umask 077; watch) > /dev/null 2>&1
check "a start with a report pending rebuilds the banner" grep -q 'M8' "$T_TMP/motd.d/cgroup-feedback.motd"
check "restart with the banner rebuilt: nobody told twice" [ "$(wc -l < "$T_TMP/hook.out")" -eq 1 ]

"$CGFB" --config "$CONF" submit --state-dir "$ST" --yes --answer software=libvirt "$id" > /dev/null
check "the watcher's report can be sent" grep -q '"state":"sent"' "$ST/reports/$id.state"
check "what arrived is the watcher's report plus the consent" $PY -c "
import json
got = json.load(open('$T_TMP/last-body'))
assert got['detection']['catalog_id'] == 'M8' and got['use_case']['answers']['software'] == 'libvirt'
"
check "the banner is gone when nothing is pending" [ ! -f "$T_TMP/motd.d/cgroup-feedback.motd" ]

# A new boot prints M8 again, on the same kernel series: the report was
# sent, nothing the maintainers would read differently changed, so the
# boot is counted on it and nobody is asked again (report/repeat.h).
echo 0b0e0000-1111-4222-8333-777777777777 > "$BOOT"
watch > /dev/null 2>"$T_TMP/err.repeat"
check "a repeat after sending: no new report" [ "$(ls "$ST/reports" | grep -c json)" -eq 1 ]
check "...nobody told again" [ "$(wc -l < "$T_TMP/hook.out")" -eq 1 ]
check "...the journal says it was counted on the sent report" \
	grep -q "M8 again (kernel series .*): counted on report $id; no new report" "$T_TMP/err.repeat"
"$CGFB" --config "$CONF" list --state-dir "$ST" > "$T_TMP/list"
check "list shows the report seen at 2 boots" grep -q "^$id .* 2 boots" "$T_TMP/list"
"$CGFB" --config "$CONF" status --state-dir "$ST" > "$T_TMP/status"
check "status says it was seen again and not asked" \
	grep -q "M8 $id: sent; seen again since (2 boots, kernel [0-9.]*), no new report" "$T_TMP/status"

# --prompt: in another spool, M8 is new; the review starts in the terminal.
ST=$T_TMP/state2
TAB=$(printf '\t')
$PY tests/client/drive_review.py "$T_TMP/prompt.log" -- "$CGFB" --config "$CONF" watch --once \
	--prompt --kmsg "$KMSG" --state-dir "$ST" --boot-id-file "$BOOT" \
	--cgroup-root "$T_TMP/fx/root" --mountinfo "$T_TMP/fx/mountinfo" <<EOS
Which software creates${TAB}our batch scheduler
Why must these sibling${TAB}
Would the reorganisation${TAB}yes
Describe your use case${TAB}
Send this report to${TAB}y
EOS
check "--prompt: the review ran and exited 0" [ $? -eq 0 ]
check "--prompt: the new report was sent" [ "$(cat "$ST"/reports/*.state | grep -c '"state":"sent"')" -eq 1 ]
check "--prompt: with the answers typed" grep -q 'our batch scheduler' "$T_TMP/last-body"

# --prompt for a message the administrator silenced (review's "never"): the
# report is written, nobody is asked. The report writer says so to the
# watcher (its id then " silenced"): the watcher reads no spool itself.
ST=$T_TMP/state3
mkdir -p "$ST" && chmod 0700 "$ST" && echo M8 > "$ST/silenced"
$PY tests/client/drive_review.py "$T_TMP/prompt3.log" -- "$CGFB" --config "$CONF" watch --once \
	--prompt --kmsg "$KMSG" --state-dir "$ST" --boot-id-file "$BOOT" \
	--cgroup-root "$T_TMP/fx/root" --mountinfo "$T_TMP/fx/mountinfo" < /dev/null
check "--prompt, M8 silenced: exit 0" [ $? -eq 0 ]
check "--prompt, M8 silenced: the report is written" [ "$(ls "$ST/reports" | grep -c json)" -eq 1 ]
check "--prompt, M8 silenced: no review was started" sh -c '! grep -q "Which software" "$1"' _ "$T_TMP/prompt3.log"
finish
