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
st=$(out "$CGFB" --state-dir "$ST" list --jsno)
if [ "$st" = 2 ] && grep -q "list: unknown option '--jsno'; did you mean '--json'?" "$T_TMP/out"; then
	ok "an unknown option: did you mean, among the command's own"; else not_ok "--jsno: $st $(cat "$T_TMP/out")"; fi
st=$(out "$CGFB" --stat-dir "$ST" list)
if [ "$st" = 2 ] && grep -qx "cgroup-feedback: unknown option '--stat-dir'; did you mean '--state-dir'?" "$T_TMP/out"; then
	ok "an unknown global option: the program's one name and did you mean"; else not_ok "--stat-dir: $st $(cat "$T_TMP/out")"; fi
st=$(out "$CGFB" snapshot --jsn)
if [ "$st" = 2 ] && grep -q "snapshot: unknown option '--jsn'; did you mean '--json'?" "$T_TMP/out"; then
	ok "snapshot's options: did you mean too"; else not_ok "snapshot --jsn: $st $(cat "$T_TMP/out")"; fi
printf 'endpont = http://127.0.0.1:9/api/v1/reports\n' > "$T_TMP/typo.conf"
st=$(out "$CGFB" --config "$T_TMP/typo.conf" --state-dir "$ST" list)
if [ "$st" = 2 ] && grep -q "typo.conf:1: unknown setting 'endpont'; did you mean 'endpoint'?" "$T_TMP/out"; then
	ok "an unknown configuration key: did you mean"; else not_ok "endpont: $st $(cat "$T_TMP/out")"; fi
st=$(out "$CGFB" help list)
if [ "$st" = 0 ] && grep -q "^Usage: cgroup-feedback list" "$T_TMP/out"; then
	ok "help COMMAND is COMMAND --help"; else not_ok "help list: $st $(cat "$T_TMP/out")"; fi
st=$(out "$CGFB" version)
if [ "$st" = 0 ] && [ "$(cat "$T_TMP/out")" = "$("$CGFB" --version)" ]; then
	ok "version is --version"; else not_ok "version: $st $(cat "$T_TMP/out")"; fi
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
# binary for "cgroup-feedback"): paste_hint (tests/lib.sh) on what the
# last command printed.
run_hint() { paste_hint "$1" "$T_TMP/out" "$2"; }
out "$CGFB" --state-dir "$ST" show ffff > /dev/null
run_hint 's/.*(see \([^ ]*cgroup-feedback [^)]*\)).*/\1/p' "the unknown-prefix hint"
check "...and it names the state directory" grep -q -- "--state-dir $ST list" "$T_TMP/out"
out "$CGFB" --state-dir "$ST" status > /dev/null
check "status's hint names the state directory" grep -q -- "cgroup-feedback --state-dir $ST review $id" "$T_TMP/out"
# review needs a terminal: run the hint with show in its place, same words.
run_hint "s/.*waiting for review: \([^ ]*cgroup-feedback .*\) review \($id\)\$/\1 show \2/p" \
	"status's review hint (its directory and id, with show)"
# A directory that needs quoting is quoted.
SP="$T_TMP/with space"
mkdir -p "$SP"
id2=$($PY tests/client/pending_report.py "$SP" M8 naming2)
out "$CGFB" --state-dir "$SP" status > /dev/null
run_hint "s/.*waiting for review: \([^ ]*cgroup-feedback .*\) review \($id2\)\$/\1 show \2/p" \
	"a state directory with a space, quoted in the hint"
out "$CGFB" --state-dir "$SP" submit "$id2" > /dev/null
check "submit without --yes hints review with the directory" grep -q -- "--state-dir '$SP' review $id2" "$T_TMP/out"
run_hint "s/.*(or review it: \([^ ]*cgroup-feedback .*\) review \($id2\))\$/\1 show \2/p" \
	"submit without --yes: its review hint (with show)"
out "$CGFB" --state-dir "$ST" show > /dev/null
run_hint 's/.*which report? give its id (see \([^ ]*cgroup-feedback [^)]*\)).*/\1/p' "show without an id: its list hint"
out "$CGFB" --state-dir "$ST" show not-an-id > /dev/null
run_hint 's/.*is not a report id (see \([^ ]*cgroup-feedback [^)]*\)).*/\1/p' "a word that is not an id: its list hint"

# --- hints name the configuration and the program as it ran ------------------------
# A configuration matters to the pasted command: its endpoint is one that
# status prints. config_matters NAME: the last pasted hint (paste_hint's
# $cmd, with status in review's place) printed this configuration's
# endpoint, and the same words without their --config print another, so a
# hint that dropped --config would be caught.
EP=http://127.0.0.1:9/cli-naming-config
printf 'endpoint = %s\n' "$EP" > "$T_TMP/epconf"
config_matters() {
	check "$1: the pasted command used the configuration ($EP)" grep -q "^endpoint: $EP\$" "$T_TMP/hint.out"
	bare=$(echo "$cmd" | sed 's/ --config [^ ]*//')
	check "$1: ...which it names: without its --config the command does something else" \
		sh -c '[ "$1" != "$2" ] || exit 1; (cd / && eval "$1") > "$3" 2>&1; ! grep -q "^endpoint: $4\$" "$3"' \
		_ "$bare" "$cmd" "$T_TMP/bare.out" "$EP"
}
# status_hint NAME: status's review hint in $T_TMP/out, with status for
# review, pasted; then config_matters.
status_hint() {
	run_hint "s/.*waiting for review: \([^ ]*cgroup-feedback .*\) review \($id\)\$/\1 status/p" "$1"
	config_matters "$1"
}
out "$CGFB" --config "$T_TMP/epconf" --state-dir "$ST" status > /dev/null
check "--config F: status's hint names F" grep -q -- "--config $T_TMP/epconf --state-dir $ST review $id" "$T_TMP/out"
status_hint "--config F: status's hint"
out env CGFB_CONFIG="$T_TMP/epconf" "$CGFB" --state-dir "$ST" status > /dev/null
check "\$CGFB_CONFIG selects the configuration" grep -q "^endpoint: $EP\$" "$T_TMP/out"
status_hint "CGFB_CONFIG=F: status's hint"
out env CGFB_CONFIG="$T_TMP/nowhere.conf" "$CGFB" --config "$T_TMP/epconf" --state-dir "$ST" status > /dev/null
check "--config wins over \$CGFB_CONFIG" grep -q "^endpoint: $EP\$" "$T_TMP/out"
out "$CGFB" --state-dir "$ST" status --config "$T_TMP/epconf" > /dev/null
check "--config after the command" grep -q "^endpoint: $EP\$" "$T_TMP/out"
status_hint "--config after the command: status's hint"
out "$CGFB" --config "$T_TMP/nowhere.conf" --state-dir "$ST" status --config "$T_TMP/epconf" > /dev/null
check "--config after the command wins over the global one" grep -q "^endpoint: $EP\$" "$T_TMP/out"
# A relative path is printed absolute: the hint is pasted elsewhere (/).
st=$(cd "$T_TMP" && out "$CGFB" --config epconf --state-dir "$ST" status)
check "a relative --config is named by its absolute path" \
	grep -q -- " --config $T_TMP/epconf --state-dir $ST review $id" "$T_TMP/out"
status_hint "a relative --config: status's hint"
out "$CGFB" --config "$T_TMP/epconf" --state-dir "$ST" show > /dev/null
run_hint 's/.*which report? give its id (see \([^ ]*cgroup-feedback [^)]*\)).*/\1/p' \
	"--config F: show without an id: its list hint"
check "...which names F" grep -q -- "--config $T_TMP/epconf --state-dir $ST list" "$T_TMP/out"
# The build tree's program, not an installed one: the hint names it by its
# absolute path, however it was run (here by a relative one).
if under_valgrind; then
	want=$(dirname "$(dirname "$CGFB")")/cgroup-feedback/cgroup-feedback
else
	want=$(readlink -f "$CGFB")
fi
out "$CGFB" --state-dir "$ST" status > /dev/null
check "a build tree's hint names its program by path ($want)" \
	grep -q -- "waiting for review: $want --state-dir $ST review $id" "$T_TMP/out"
if ! under_valgrind && [ "${CGFB#"$PWD/"}" != "$CGFB" ]; then
	out "./${CGFB#"$PWD/"}" --state-dir "$ST" status > /dev/null
	check "...run by a relative path, still its absolute one" \
		grep -q -- "waiting for review: $want --state-dir $ST review $id" "$T_TMP/out"
	run_hint "s/.*waiting for review: \([^ ]*cgroup-feedback .*\) review \($id\)\$/\1 show \2/p" \
		"a build tree's status hint, pasted in /"
fi

# --- a configuration file is checked whole -----------------------------------------
# Three mistakes, three lines naming file and line, one run; nothing done.
printf 'endpoint = "https://x.example/r"\ntimeout = 30\nnotify = log, pigeon\nmax-attempts = lots\n' \
	> "$T_TMP/bad.conf"
"$CGFB" --config "$T_TMP/bad.conf" --state-dir "$ST" list > "$T_TMP/out" 2>&1
check "a configuration with three errors fails" [ $? -ne 0 ]
check "...and names all three, each on its own line with its line number" sh -c '
	grep -q "bad.conf:1: endpoint: .*quotes" "$1" && grep -q "bad.conf:3: notify: unknown channel" "$1" &&
	grep -q "bad.conf:4: max-attempts: .lots." "$1" && [ "$(grep -c "bad.conf:" "$1")" -eq 3 ]' _ "$T_TMP/out"

# --- scan says what it read ----------------------------------------------------------
# "Found nothing" is told apart from "read nothing", on standard error.
printf '[    1.000000] eth0: link up\n[    2.000000] eth1: link up\n' > "$T_TMP/quiet.log"
: > "$T_TMP/empty.log"
"$CGFB" scan "$T_TMP/quiet.log" "$T_TMP/empty.log" > "$T_TMP/out" 2> "$T_TMP/err"
check "scan of logs without a message exits 1" [ $? -eq 1 ]
check "...says how much of each it read and that nothing was found" sh -c '
	grep -q "quiet.log: 2 lines read (dmesg), no catalog message in them" "$1" &&
	grep -q "empty.log: 0 lines read (.*), no catalog message" "$1"' _ "$T_TMP/err"
check "...and prints nothing on standard output" [ ! -s "$T_TMP/out" ]
"$CGFB" scan --json tests/data/pastes/complete-then-g1-nostamp.txt > "$T_TMP/out" 2> "$T_TMP/err"
check "scan of a paste counts its messages on standard error" \
	grep -q "complete-then-g1-nostamp.txt: 2 lines read (dmesg, as a paste), $(wc -l < "$T_TMP/out") catalog messages" "$T_TMP/err"
"$CGFB" scan --kmsg /dev/null > "$T_TMP/out" 2> "$T_TMP/err"
check "a live scan that read no record says so" grep -q "/dev/null: 0 records read" "$T_TMP/err"

# --- the watcher's hints: its log line and the login banner ---------------------------
# A state directory with a space: the commands printed name it, quoted.
. tests/data/cgroupfs/lib.sh
WS="$T_TMP/watch state"
fixture flat-affected "$T_TMP/fx" || not_ok "fixture flat-affected builds"
M8='Non-hierarchical mode is deprecated. Please report your usecase to linux-mm@kvack.org if you depend on this functionality.'
printf '4,1,1017,-;%s\n' "$M8" > "$T_TMP/kmsg"
echo 11111111-2222-3333-4444-555555555555 > "$T_TMP/boot"
printf 'notify = log, motd\nmotd-path = %s/motd/cgroup-feedback.motd\nendpoint = %s\n' "$T_TMP" "$EP" \
	> "$T_TMP/wconf"
"$CGFB" --config "$T_TMP/wconf" --state-dir "$WS" watch --once --kmsg "$T_TMP/kmsg" \
	--boot-id-file "$T_TMP/boot" --cgroup-root "$T_TMP/fx/root" --mountinfo "$T_TMP/fx/mountinfo" \
	> /dev/null 2> "$T_TMP/out"
check "the watcher logged a review command naming its configuration and state directory" \
	grep -q "ready for review: $HINT_CLI_RE --config $T_TMP/wconf --state-dir '$WS' review " "$T_TMP/out"
# review needs a terminal: the same words with show, which a test can run.
run_hint "s/.*ready for review: \([^ ]*cgroup-feedback .*\) review \([0-9a-f-]*\)\$/\1 show \2/p" \
	"the watcher's log line (with show for review)"
run_hint "s/.*ready for review: \([^ ]*cgroup-feedback .*\) review \([0-9a-f-]*\)\$/\1 status/p" \
	"the watcher's log line (with status for review)"
config_matters "the watcher's log line"
cp "$T_TMP/motd/cgroup-feedback.motd" "$T_TMP/out"
check "the login banner names the configuration and the state directory" \
	grep -q "sudo $HINT_CLI_RE --config $T_TMP/wconf --state-dir '$WS' review" "$T_TMP/out"
run_hint "s/^ *sudo \([^ ]*cgroup-feedback .*\) review\$/\1 status/p" "the login banner (with status for review)"
config_matters "the login banner"

# --- run through sudo -------------------------------------------------------------------
# The person who typed sudo pastes the hints as they are: they start with
# sudo (as that person the spool is refused); the banner says it once.
SUDO_USER=admin "$CGFB" --state-dir "$ST" status > "$T_TMP/out" 2>&1
check "through sudo, status's hint starts with sudo" \
	grep -q -- "sudo $HINT_CLI_RE --state-dir $ST review $id" "$T_TMP/out"
"$CGFB" --state-dir "$ST" status > "$T_TMP/out" 2>&1
check "...and without sudo it does not" sh -c "grep -q -- 'cgroup-feedback --state-dir $ST review $id' \"\$1\" &&
	! grep -q 'sudo ' \"\$1\"" _ "$T_TMP/out"
# A command run through sudo that rewrites the banner (flush does, with
# nothing due): the banner's command has sudo once.
SUDO_USER=admin "$CGFB" --config "$T_TMP/wconf" --state-dir "$WS" flush > "$T_TMP/out" 2>&1
check "a banner written through sudo says sudo once" sh -c "grep -qx \"    sudo $HINT_CLI_RE --config $T_TMP/wconf --state-dir '\$2' review\" \"\$1\" &&
	! grep -q 'sudo sudo' \"\$1\"" _ "$T_TMP/motd/cgroup-feedback.motd" "$WS"

# --- words ------------------------------------------------------------------------------
idw=$($PY tests/client/pending_report.py "$ST" M8 words)
"$CGFB" --state-dir "$ST" withdraw "$idw" > "$T_TMP/out" 2>&1
check "withdraw of a report never sent says so" grep -q "$idw: was never sent" "$T_TMP/out"
"$CGFB" --state-dir "$ST" withdraw "$idw" > "$T_TMP/out" 2>&1
check "withdraw again says it was withdrawn already, not that it was never sent" \
	grep -q "$idw: was withdrawn already" "$T_TMP/out"

finish
