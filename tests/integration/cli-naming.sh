#!/bin/sh
# Naming things on the command line (issue 13): the state directory the
# same way everywhere (global --state-dir before the command, the
# command's own after it, $CGFB_STATE_DIR), read-only commands that create
# nothing and name a directory that is missing, report ids by a unique
# prefix, "did you mean", a missing id and extra arguments said as such,
# and hints that work when pasted.
. tests/lib.sh
PY=python3
ST=$T_TMP/state
mkdir -p "$ST"
id=$($PY tests/client/pending_report.py "$ST" M8 naming1)

expect_eq() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: got '$2', want '$3'"; fi; }
# out NAME CMD...: run CMD, stdout+stderr to $T_TMP/out, exit status printed.
out() { "$@" > "$T_TMP/out" 2>&1; echo $?; }

# --- the state directory, named three ways ----------------------------------------
expect_list() {
	if [ "$1" = 0 ] && grep -q "$id" "$T_TMP/out"; then ok "$2"; else
		not_ok "$2: exit $1: $(head -c 300 "$T_TMP/out")"; fi
}
expect_list "$(out "$CGFB" --state-dir "$ST" list)" "global --state-dir before the command"
expect_list "$(out "$CGFB" list --state-dir "$ST")" "the command's --state-dir after it"
expect_list "$(out env CGFB_STATE_DIR="$ST" "$CGFB" list)" "\$CGFB_STATE_DIR"
expect_list "$(out env CGFB_STATE_DIR="$T_TMP/nowhere" "$CGFB" --state-dir "$ST" list)" \
	"the global option wins over the environment"
expect_list "$(out "$CGFB" --state-dir "$T_TMP/nowhere" list --state-dir "$ST")" \
	"the command's option wins over the global one"
expect_list "$(out env CGFB_STATE_DIR="$ST" "$CGFB" status)" "status with \$CGFB_STATE_DIR"

# --- read-only commands create nothing; a missing directory is an error -----------
for cmd in list status review flush "show $id"; do
	# shellcheck disable=SC2086
	st=$(out "$CGFB" --state-dir "$T_TMP/typo" $cmd)
	if [ "$st" != 0 ] && grep -q "state directory $T_TMP/typo does not exist" "$T_TMP/out" &&
		[ ! -e "$T_TMP/typo" ]; then
		ok "$cmd on a missing state directory: an error naming it, nothing created"
	else
		not_ok "$cmd on a missing state directory: exit $st, $(head -c 200 "$T_TMP/out"), $(ls -d "$T_TMP/typo" 2>&1)"
	fi
done
mkdir -p "$T_TMP/empty"
expect_eq "list on a state directory without reports/: exit 0" "$(out "$CGFB" --state-dir "$T_TMP/empty" list)" 0
check "...and reports/ is not created" test ! -e "$T_TMP/empty/reports"

# --- report ids by prefix, as git does ----------------------------------------------
"$CGFB" --state-dir "$ST" show "$id" > "$T_TMP/full" 2>&1
expect_eq "show by an 8-character prefix: exit 0" "$(out "$CGFB" --state-dir "$ST" show "$(echo "$id" | cut -c1-8)")" 0
check "...the same bytes as by the whole id" cmp -s "$T_TMP/out" "$T_TMP/full"
# A second report whose id shares the first six characters.
twin=$(echo "$id" | cut -c1-6)$(echo "$id" | cut -c7-8 | tr '0-9a-f' '1-9a-f0')$(echo "$id" | cut -c9-)
$PY - "$ST/reports/$id.json" "$ST/reports/$twin.json" "$twin" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["report_id"] = sys.argv[3]
open(sys.argv[2], "w").write(json.dumps(r, sort_keys=True, separators=(",", ":"), ensure_ascii=False))
PY
expect_list "$(out "$CGFB" --state-dir "$ST" list)" "the twin report is listed"
check "...both of them" grep -q "$twin" "$T_TMP/out"
st=$(out "$CGFB" --state-dir "$ST" show "$(echo "$id" | cut -c1-6)")
if [ "$st" != 0 ] && grep -q "names more than one report" "$T_TMP/out" && grep -q "$twin" "$T_TMP/out"; then
	ok "an ambiguous prefix is refused, naming the candidates"
else
	not_ok "ambiguous prefix: exit $st: $(cat "$T_TMP/out")"
fi
st=$(out "$CGFB" --state-dir "$ST" show ffff)
if [ "$st" != 0 ] && grep -q "no report id starts with 'ffff'" "$T_TMP/out"; then
	ok "an unknown prefix: no report starts with it"
else
	not_ok "unknown prefix: exit $st: $(cat "$T_TMP/out")"
fi
st=$(out "$CGFB" --state-dir "$ST" show abc)
if [ "$st" != 0 ] && grep -q "is not a report id" "$T_TMP/out"; then
	ok "three characters are not a prefix"; else not_ok "3-char prefix: $st $(cat "$T_TMP/out")"; fi

# --- mistakes said as such ----------------------------------------------------------
st=$(out "$CGFB" lsit)
if [ "$st" != 0 ] && grep -q "did you mean 'list'" "$T_TMP/out"; then
	ok "an unknown command: did you mean"; else not_ok "lsit: $st $(cat "$T_TMP/out")"; fi
st=$(out "$CGFB" frobnicate)
if [ "$st" != 0 ] && grep -q "unknown command 'frobnicate' (try --help)" "$T_TMP/out"; then
	ok "an unknown command far from any: no suggestion"; else not_ok "frobnicate: $st $(cat "$T_TMP/out")"; fi
st=$(out "$CGFB" --state-dir "$ST" show)
if [ "$st" != 0 ] && grep -q "which report? give its id" "$T_TMP/out"; then
	ok "show without an id says the id is missing"; else not_ok "show: $st $(cat "$T_TMP/out")"; fi
st=$(out "$CGFB" --state-dir "$ST" show "$id" extra)
if [ "$st" != 0 ] && grep -q "'extra' is one argument too many" "$T_TMP/out"; then
	ok "show with an extra argument: refused"; else not_ok "show extra: $st $(cat "$T_TMP/out")"; fi
for cmd in list status flush; do
	st=$(out "$CGFB" --state-dir "$ST" $cmd extra)
	if [ "$st" != 0 ] && grep -q "takes no arguments; 'extra'" "$T_TMP/out"; then
		ok "$cmd with an argument: refused"; else not_ok "$cmd extra: $st $(cat "$T_TMP/out")"; fi
done
out "$CGFB" --state-dir "$ST" list > /dev/null
check "list's columns have distinct names" sh -c 'head -n 1 "$1" | tr -s " " "\n" | sort | uniq -d | grep -q . && exit 1 || exit 0' _ "$T_TMP/out"

# --- hints work when pasted --------------------------------------------------------
# Each hint that names a command is run as printed (with this build's
# binary for "cgroup-feedback").
run_hint() {
	h=$(sed -n "$1" "$T_TMP/out" | head -n 1)
	[ -n "$h" ] || { not_ok "$2: no hint in: $(cat "$T_TMP/out")"; return; }
	# shellcheck disable=SC2086
	cmd=$(echo "$h" | sed "s|^cgroup-feedback|$CGFB|")
	if eval "$cmd" > "$T_TMP/hint.out" 2>&1 </dev/null; then ok "$2: '$h' works"; else
		not_ok "$2: '$h' failed: $(head -c 300 "$T_TMP/hint.out")"; fi
}
out "$CGFB" --state-dir "$ST" show ffff > /dev/null
run_hint 's/.*(see \(cgroup-feedback [^)]*\)).*/\1/p' "the unknown-prefix hint"
check "...and it names the state directory" grep -q -- "--state-dir $ST list" "$T_TMP/out"
out "$CGFB" --state-dir "$ST" status > /dev/null
check "status's hint names the state directory" grep -q -- "cgroup-feedback --state-dir $ST review $id" "$T_TMP/out"
# review needs a terminal: run the hint with show in its place, same words.
run_hint "s/.*waiting for review: \(cgroup-feedback .*\) review \($id\)\$/\1 show \2/p" \
	"status's review hint (its directory and id, with show)"
# A directory that needs quoting is quoted.
SP="$T_TMP/with space"
mkdir -p "$SP"
id2=$($PY tests/client/pending_report.py "$SP" M8 naming2)
out "$CGFB" --state-dir "$SP" status > /dev/null
run_hint "s/.*waiting for review: \(cgroup-feedback .*\) review \($id2\)\$/\1 show \2/p" \
	"a state directory with a space, quoted in the hint"
out "$CGFB" --state-dir "$SP" submit "$id2" > /dev/null
check "submit without --yes hints review with the directory" grep -q -- "--state-dir '$SP' review $id2" "$T_TMP/out"

finish
