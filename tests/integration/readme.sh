#!/bin/sh
# README.md: every command it prints runs as printed. Each line of its sh
# blocks is taken (the comment after the command dropped) and either run
# here, with the build's programs first in PATH, a scratch spool
# ($CGFB_STATE_DIR) with a report in it for the commands that name one
# (ID), and its own loopback (a network namespace, so that the collector's
# 127.0.0.1:8080 is free); or, for what cannot run in CI, its make target
# looked up, with the script that tests it named. A command passes when its
# options are taken (no usage error) and its exit status is one its man page
# gives; the collector block runs in order, as an administrator pastes it.
# Also: the README's shape (at most 300 lines, the sections in order, check
# and the demo within the first 80 lines, no sudo).
. tests/lib.sh

README=README.md
BIN=$T_TMP/bin
# The commands run in a directory of their own: export and withdraw write
# their e-mails into the current one.
mkdir -p "$BIN" "$T_TMP/state" "$T_TMP/run" "$T_TMP/cwd"
for p in cgroup-feedback cgroup-feedback-server; do
	ln -s "$PWD/$BUILD/$p" "$BIN/$p"
done

# --- its shape -----------------------------------------------------------------
check "README.md has at most 300 lines" [ "$(wc -l < "$README")" -le 300 ]
check "it opens with exactly the two commands" sh -c \
	'sed -n "3,6p" "$1" | grep -c "^make deps && make \(run\|check\) " | grep -qx 2 &&
	 sed -n 3p "$1" | grep -qx "\`\`\`sh" && sed -n 6p "$1" | grep -qx "\`\`\`"' _ "$README"
check "its sections in the order the issue gives" sh -c 'grep "^## " "$1" | tr "\n" "|" | grep -qx \
	"## Try it (the demo)|## Install, and where reports go|## Before an upgrade: \`check\`|## Old logs: \`scan\`|## Daily commands|## Configuration|## Running a collector|## Developing|## Documentation|"' _ "$README"
check "check and the demo within the first 80 lines" sh -c \
	'head -n 80 "$1" | grep -q "^make demo " && head -n 80 "$1" | grep -q "^cgroup-feedback check --target "' _ "$README"
check "no printed command assumes sudo" sh -c '! grep -n "sudo " "$1" | grep -v "admin-group"' _ "$README"
check "every docs/ file it names exists" sh -c 'for f in $(grep -o "docs/[A-Za-z0-9_./-]*[A-Za-z0-9]" "$1" | sort -u); do
	[ -e "$f" ] || { echo "missing: $f"; exit 1; }; done' _ "$README"

# --- its commands ------------------------------------------------------------------
# The lines of the sh blocks, comments after a command dropped.
awk '/^```sh$/ { on = 1; next } /^```$/ { on = 0; next } on' "$README" |
	sed 's/[[:space:]]\{2,\}#.*$//; s/^#.*$//; s/[[:space:]]*$//' | grep -v '^$' > "$T_TMP/commands"
check "the README prints commands ($(wc -l < "$T_TMP/commands"))" [ -s "$T_TMP/commands" ]

# A make target must exist (make -n: what would run, nothing built).
target_exists() {
	for t in $(printf '%s\n' "$1" | tr '&' '\n' | sed -n 's/^[[:space:]]*make[[:space:]]*//p'); do
		[ -z "$t" ] && t=all
		make -n -s "$t" > /dev/null 2>&1 || { echo "no make target $t"; return 1; }
	done
}
USAGE='unknown option|unknown command|takes no argument|^Usage: |requires an argument|is not kernel=|invalid option'
# runs CMD STATUSES: CMD with the build's programs, in the scratch spool;
# its status one of STATUSES and no usage error.
runs() {
	(cd "$T_TMP/cwd" && env PATH="$BIN:$PATH" CGFB_STATE_DIR="$T_TMP/state" HOME="$T_TMP" \
		sh -c "$1" < /dev/null > "$T_TMP/out" 2> "$T_TMP/err")
	st=$?
	if grep -Eq "$USAGE" "$T_TMP/err"; then
		cat "$T_TMP/err"
		return 1
	fi
	case " $2 " in *" $st "*) return 0 ;; esac
	echo "exit $st, not one of $2"
	cat "$T_TMP/err"
	return 1
}
# A report the commands naming ID act on: a message of a recorded log.
env PATH="$BIN:$PATH" CGFB_STATE_DIR="$T_TMP/state" \
	cgroup-feedback scan --report --other-machine "$DATA/logs/fedora-6.15.kmsg" > "$T_TMP/scan.out" 2>&1
ID=$(sed -n 's/^M7: report \([0-9a-f-]*\) written.*/\1/p' "$T_TMP/scan.out" | head -n 1)
check "a pending report for the commands that name ID" [ -n "$ID" ]

while IFS= read -r cmd; do
	c=$(printf '%s\n' "$cmd" | sed "s/\bID\b/$ID/g")
	case $c in
	"make deps && make run" | "make deps && make check")
		check "README: '$cmd': its targets exist (CI runs the second; make-run.sh the first)" target_exists "$c" ;;
	"make demo" | "cgroup-feedback demo")
		check "README: '$cmd': runs until Ctrl-C (make-run.sh runs it)" \
			sh -c '[ "$1" != "make demo" ] || make -n -s demo > /dev/null' _ "$c" ;;
	make*)
		check "README: '$cmd': its target exists" target_exists "$c" ;;
	"cgroup-feedback review"*)
		# Interactive: without a terminal it says so (review.sh drives it).
		check "README: '$cmd' is taken (exit 0 or 2 without a terminal)" runs "$c" "0 2" ;;
	"cgroup-feedback scan"*)
		check "README: '$cmd' is taken (exit 0, 1 or 2 as grep)" runs "$c" "0 1 2" ;;
	"cgroup-feedback check"*)
		check "README: '$cmd' is taken (exit 0, 1 or 2)" runs "$c" "0 1 2" ;;
	"cgroup-feedback status"* | "cgroup-feedback withdraw"*)
		check "README: '$cmd' is taken (exit 0, 1 or 2)" runs "$c" "0 1 2" ;;
	cgroup-feedback\ *)
		check "README: '$cmd' runs (exit 0)" runs "$c" "0" ;;
	*) echo "$cmd" >> "$T_TMP/collector" ;;
	esac
done < "$T_TMP/commands"

# The collector block, as pasted in order, in a scratch directory whose
# build/ is this build, on a loopback of its own.
check "README: the collector's block is its commands" \
	grep -q '^build/cgroup-feedback-server --database reports.sqlite --admin-token-file admin-token &$' "$T_TMP/collector"
ln -s "$PWD/$BUILD" "$T_TMP/run/build"
if ! unshare --net true 2> /dev/null; then
	skip "README: the collector's block, pasted in order" "no network namespace here (unshare --net)"
else
	{
		echo 'ip link set lo up'
		echo 'set -e'
		grep -v '^make$' "$T_TMP/collector" | sed 's/&$/\& pid=$!/; s/^curl /sleep_until_up; curl -fsS /'
		echo 'kill $pid'
	} > "$T_TMP/paste.sh"
	(cd "$T_TMP/run" && unshare --net sh -c '
		sleep_until_up() {
			i=0
			while [ $i -lt 100 ] && ! curl -s -o /dev/null http://127.0.0.1:8080/api/v1/summary; do
				sleep 0.1; i=$((i + 1))
			done
		}
		. ./../paste.sh' > "$T_TMP/paste.out" 2> "$T_TMP/paste.err")
	check "README: the collector's block, pasted in order: each command succeeds" [ $? -eq 0 ]
	check "... the summary answers and the digest is the list's text" \
		sh -c 'grep -q "^{\"min_installs\":5," "$1" && grep -q "^cgroup-feedback digest: the last 30 days" "$1"' _ "$T_TMP/paste.out"
fi
check "nothing the commands wrote is left in the checkout" sh -c '! ls cgroup-feedback-*.eml 2> /dev/null | grep -q .'
check "... it went to their own directory (export's e-mail, withdraw's)" sh -c 'ls "$1"/cgroup-feedback-*.eml > /dev/null' _ "$T_TMP/cwd"
finish
