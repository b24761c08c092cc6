#!/bin/sh
# kill -9 any command at any point: every report stays readable and in a
# valid state (atomic replace everywhere). A bounded loop over the commands
# that write the spool, killed after a random few milliseconds.
. tests/lib.sh
. tests/client/lib.sh

ST=$T_TMP/state
CONF=$T_TMP/conf
KMSG=$T_TMP/kmsg
mkdir -p "$ST"
$PY tests/data/cgroupfs/mkfixture.py tests/data/cgroupfs/flat-affected.desc "$T_TMP/fx" > /dev/null
start_double "$T_TMP" ok
trap 'stop_double; t_cleanup' EXIT
printf 'endpoint = %s\nmotd-path = %s/motd\nnotify = log, motd\n' "$URL" "$T_TMP" > "$CONF"
echo "A use case." > "$T_TMP/uc"
for n in 1 2 3 4 5 6; do $PY tests/client/pending_report.py "$ST" M8 "k$n" > /dev/null; done

# The spool must always be whole: canonical reports valid against the
# schema, state files that parse, nothing quarantined.
valid() {
	$PY - "$ST/reports" <<'EOP'
import json, os, sys, jsonschema
d = sys.argv[1]
v = jsonschema.Draft202012Validator(json.load(open("docs/report.schema.json")))
for f in os.listdir(d):
    p = os.path.join(d, f)
    if f == "quarantine":
        assert not os.listdir(p), "quarantined: %s" % os.listdir(p)
        continue
    if f.startswith("."):
        continue       # a temporary the kill left: never read, harmless
    data = open(p, "rb").read()
    if f.endswith(".json"):
        o = json.loads(data)
        assert json.dumps(o, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode() == data, f
        v.validate(o)
    elif f.endswith(".state"):
        s = json.loads(data)
        assert s["state"] in ("pending", "declined", "consented", "sent", "withdrawn"), f
    elif f.endswith(".draft"):
        assert isinstance(json.loads(data), dict), f   # whole: written atomically
    elif f.endswith(".seen"):
        s = json.loads(data)
        assert s["boots"] >= 1 and s["first_seen"] <= s["last_seen"], f
    else:
        raise AssertionError("stray file " + f)
EOP
}

# The rounds run the program itself even under valgrind: a kill within 40 ms
# would always land in valgrind's start-up, before the program wrote
# anything, and the killed process's leak check never runs.
KILLED=$CGFB
if under_valgrind; then
	KILLED=$PWD/$BUILD/cgroup-feedback
	skip "valgrind over the killed commands" "kill -9 by design: they run without valgrind"
fi
bad=0
lost=0
prev=6
rounds=30
r=0
while [ $r -lt $rounds ]; do
	r=$((r + 1))
	ids=$(ls "$ST/reports" | sed -n 's/\.json$//p')
	id=$(echo "$ids" | sed -n "$((r % 6 + 1))p")
	printf '4,%d,1000,-;Non-hierarchical mode is deprecated. Please report your usecase to linux-mm@kvack.org if you depend on this functionality.\n' "$r" > "$KMSG"
	echo "0b0e0000-1111-4222-8333-$(printf '%012d' $r)" > "$T_TMP/boot"
	case $((r % 6)) in
	0) set -- submit --state-dir "$ST" --yes --use-case-file "$T_TMP/uc" "$id" ;;
	1) set -- flush --state-dir "$ST" ;;
	2) set -- decline --state-dir "$ST" "$id" ;;
	3) set -- export --yes --state-dir "$ST" -o "$T_TMP/x.eml" "$id" ;;
	4) set -- watch --once --kmsg "$KMSG" --state-dir "$ST" --boot-id-file "$T_TMP/boot" \
		--cgroup-root "$T_TMP/fx/root" --mountinfo "$T_TMP/fx/mountinfo" ;;
	5) set -- withdraw --state-dir "$ST" "$id" ;;
	esac
	"$KILLED" --config "$CONF" "$@" > /dev/null 2>&1 &
	pid=$!
	# 0-39 ms: before, during and after the writes.
	sleep "0.0$(( (r * 7919) % 40 ))"
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	if ! valid > "$T_TMP/why" 2>&1; then
		bad=$((bad + 1))
		echo "# round $r ($1): $(tail -1 "$T_TMP/why")"
	fi
	now=$(ls "$ST/reports" | grep -c '\.json$')
	[ "$now" -lt "$prev" ] && lost=$((lost + 1))
	prev=$now
	# Put a few reports back to pending so later rounds have work.
	[ $((r % 5)) -eq 0 ] && rm -f "$ST"/reports/*.state
done
check "$rounds kill -9 rounds: every report readable and valid" [ $bad -eq 0 ]
"$CGFB" --config "$CONF" list --state-dir "$ST" > "$T_TMP/list" 2>"$T_TMP/err"
check "list works afterwards" [ $? -eq 0 ]
check "no report was ever lost" [ $lost -eq 0 ]
check "list shows every report" [ "$(grep -c -- '-4' "$T_TMP/list")" -eq "$prev" ]
finish
