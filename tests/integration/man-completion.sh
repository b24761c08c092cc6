#!/bin/sh
# Man pages and bash completion: lint clean, installed by `make install`,
# and in step with the programs' --help (every command and option the
# binaries accept is documented and completed).
. tests/lib.sh

MAN="docs/man/cgroup-feedback.8 docs/man/cgroup-feedback.conf.5 docs/man/cgroup-feedback-server.8"
COMP=packaging/bash-completion
SERVER=${SERVER:-$BUILD/cgroup-feedback-server}

# --- lint -------------------------------------------------------------------------
for m in $MAN; do
	if command -v mandoc >/dev/null 2>&1; then
		# -W warning: STYLE notes about Xr pages this machine lacks depend on
		# what is installed, not on the page.
		out=$(mandoc -T lint -W warning "$m" 2>&1)
		if [ -z "$out" ]; then ok "mandoc -T lint $m"; else not_ok "mandoc -T lint $m"; printf '%s\n' "$out" | sed 's/^/# /'; fi
	else
		skip "mandoc -T lint $m" "mandoc not installed (make deps)"
	fi
	out=$(groff -ww -z -mdoc "$m" 2>&1)
	if [ -z "$out" ]; then ok "groff -ww -z $m"; else not_ok "groff -ww -z $m"; printf '%s\n' "$out" | sed 's/^/# /'; fi
	sec=${m##*.}
	name=$(basename "$m" ".$sec")
	check "$m: .Dt matches its file name" grep -qix ".Dt $name $sec" "$m"
done

# --- installed ----------------------------------------------------------------------
make -s --no-print-directory install-packaging PREFIX=/usr DESTDIR="$T_TMP/root" BUILD="$BUILD" \
	>"$T_TMP/install.log" 2>&1
check "make install-packaging" [ $? -eq 0 ]
check "make install: cgroup-feedback.8" [ -f "$T_TMP/root/usr/share/man/man8/cgroup-feedback.8" ]
check "make install: cgroup-feedback-server.8" [ -f "$T_TMP/root/usr/share/man/man8/cgroup-feedback-server.8" ]
check "make install: cgroup-feedback.conf.5" [ -f "$T_TMP/root/usr/share/man/man5/cgroup-feedback.conf.5" ]
check "make install: bash completion" \
	[ -f "$T_TMP/root/usr/share/bash-completion/completions/cgroup-feedback" ]
check "make install: server bash completion" \
	[ -f "$T_TMP/root/usr/share/bash-completion/completions/cgroup-feedback-server" ]
check "make install: default config in /etc" [ -f "$T_TMP/root/etc/cgroup-feedback/cgroup-feedback.conf" ]
if command -v man >/dev/null 2>&1; then
	check "man finds the installed page" \
		sh -c 'MANPATH="$1" man -w cgroup-feedback.conf 2>/dev/null | grep -q "man5/cgroup-feedback.conf.5"' _ "$T_TMP/root/usr/share/man"
fi

# --- the man pages document what the binaries accept -----------------------------
# cmds BINARY: the commands its --help lists; opts BINARY [COMMAND]: the options.
cmds() { "$1" --help 2>&1 | awk '/^Commands:/ { on = 1; next } on && /^[^ ]/ { on = 0 } on && NF { print $1 }'; }
# Each --help is asked once and kept: the completion checks below ask again
# per bash-completion variant, and a program under valgrind (VALGRIND=1)
# takes a second to start.
opts() {
	_k=$T_TMP/opts.$(printf '%s_' "$@" | tr -c 'a-zA-Z0-9_\n-' _)
	[ -f "$_k" ] || "$@" --help 2>&1 | grep -o -- '--[a-z][a-z-]*' | sort -u > "$_k"
	cat "$_k"
}
COMMANDS=$(cmds "$CGFB")
check "cgroup-feedback --help lists commands" [ -n "$COMMANDS" ]
for c in $COMMANDS; do
	check "cgroup-feedback.8 documents command $c" grep -q "^\.It Cm $c\b" docs/man/cgroup-feedback.8
	for o in $(opts "$CGFB" "$c"); do
		check "cgroup-feedback.8 documents $c $o" grep -q "Fl -${o#--}\b" docs/man/cgroup-feedback.8
	done
done
for o in $("$CGFB" --help 2>&1 | sed -n '/^Global options:/,$p' | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	check "cgroup-feedback.8 documents global $o" grep -q "Fl -${o#--}\b" docs/man/cgroup-feedback.8
done
# The collector is part of the product: not built is a failure, not a skip.
check "the collector is built ($SERVER)" [ -x "$SERVER" ]
for o in $(opts "$SERVER"); do
	check "cgroup-feedback-server.8 documents $o" grep -q "Fl -${o#--}\b" docs/man/cgroup-feedback-server.8
done
# Every key the configuration parser knows (the program lists its own
# table) is in cgroup-feedback.conf(5).
keys=$("$CGFB" --dump-config-keys)
check "the program lists its configuration keys" [ "$(echo "$keys" | wc -w)" -ge 15 ]
for k in $keys; do
	check "cgroup-feedback.conf.5 documents $k" grep -q "^\.It Cm $k " docs/man/cgroup-feedback.conf.5
done

# --- bash completion ----------------------------------------------------------------
# complete_words LIB FILE WORDS...: the candidates for the last word ("" = a
# new word), sorted, one per line; LIB=1 loads bash-completion first. The
# binaries of this build come first in PATH, as installed ones would.
PATH=$(dirname "$CGFB"):$PATH
export PATH
complete_words() {
	bash --norc --noprofile -c '
		lib=$1 file=$2; shift 2
		if [ "$lib" = 1 ]; then . /usr/share/bash-completion/bash_completion; fi
		. "$file"
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		fn=$(complete -p "$1" | sed -n "s/.*-F \([^ ]*\) .*/\1/p")
		"$fn" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		[ ${#COMPREPLY[@]} -eq 0 ] || printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$@"
}
expect() {
	name=$1 want=$2; shift 2
	got=$(complete_words "$LIB" "$@" | tr '\n' ' ' | sed 's/ $//')
	if [ "$got" = "$want" ]; then ok "$name"; else not_ok "$name: got '$got', want '$want'"; fi
}
LIBS=0
[ -f /usr/share/bash-completion/bash_completion ] && LIBS="0 1"
for LIB in $LIBS; do
	w="(bash-completion $([ "$LIB" = 1 ] && echo loaded || echo absent))"
	F=$COMP/cgroup-feedback
	expect "commands starting with ca $w" "catalog" "$F" cgroup-feedback ca
	expect "global options --c $w" "--catalog --config" "$F" cgroup-feedback --c
	expect "watch --s $w" "--state-dir" "$F" cgroup-feedback watch --s
	expect "command after a global option $w" "watch withdraw" "$F" cgroup-feedback --catalog data/catalog.json w
	expect "--catalog completes files $w" "data/catalog.json" "$F" cgroup-feedback --catalog data/cat
	expect "--state-dir completes directories $w" "tests/data" "$F" cgroup-feedback watch --state-dir tests/da
	expect "--kmsg completes files $w" "tests/data/messages.tsv" "$F" cgroup-feedback watch --kmsg tests/data/mes
	expect "scan completes files $w" "tests/data/logs/opensuse-12.2.dmesg tests/data/logs/opensuse-12.2.dmesg.expect" \
		"$F" cgroup-feedback scan tests/data/logs/opensuse
	expect "catalog takes no file $w" "" "$F" cgroup-feedback catalog tests/da
	for c in $COMMANDS; do
		if complete_words "$LIB" "$F" cgroup-feedback "$c" | grep -qx "$c"; then
			ok "completes command $c $w"; else not_ok "completes command $c $w"; fi
		want=$( (opts "$CGFB" "$c"; echo --help) | sort -u | tr '\n' ' ')
		got=$(complete_words "$LIB" "$F" cgroup-feedback "$c" -- | tr '\n' ' ')
		if [ "$got" = "$want" ]; then ok "options of $c completed as in its --help $w"
		else not_ok "options of $c: completion '$got', --help '$want'"; fi
	done
	# Report ids come from the spool named by --state-dir.
	mkdir -p "$T_TMP/spool/reports"
	: > "$T_TMP/spool/reports/0f1e2d3c-aaaa-4bbb-8ccc-123456789abc.json"
	if echo "$COMMANDS" | grep -qx show; then
		expect "show completes report ids $w" "0f1e2d3c-aaaa-4bbb-8ccc-123456789abc" \
			"$F" cgroup-feedback show --state-dir "$T_TMP/spool" 0f
	fi
	S=$COMP/cgroup-feedback-server
	expect "server --t $w" "--tls-cert --tls-key --tls-priorities --to" "$S" cgroup-feedback-server --t
	expect "server import $w" "import" "$S" cgroup-feedback-server im
	expect "server import completes files $w" "data/catalog.json" "$S" cgroup-feedback-server import data/cat
	if [ -x "$SERVER" ]; then
		for o in $(opts "$SERVER"); do
			if complete_words "$LIB" "$S" cgroup-feedback-server -- | grep -qx -- "$o"; then
				ok "server completes $o $w"; else not_ok "server completes $o $w"; fi
		done
	fi
done

# --- docs/PRIVACY.md covers the report schema ----------------------------------
# Every property of a report and of its objects one level down (through
# $ref) is named in PRIVACY.md, so a new field cannot slip in undocumented.
if [ -f docs/PRIVACY.md ] && [ -f docs/report.schema.json ]; then
	python3 - docs/report.schema.json > "$T_TMP/schema-fields" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
defs = s.get("$defs", {})
def deref(n):
    while isinstance(n, dict) and "$ref" in n:
        n = defs.get(n["$ref"].split("/")[-1], {})
    for alt in n.get("anyOf", []) if isinstance(n, dict) else []:
        if isinstance(alt, dict) and (alt.get("type") == "object" or "$ref" in alt):
            return deref(alt)
    return n
for k, v in s["properties"].items():
    print(k)
    for k2 in deref(v).get("properties", {}):
        print(k2)
PY
	for f in $(sort -u "$T_TMP/schema-fields"); do
		check "PRIVACY.md names report field $f" grep -q "[\`.]$f\`" docs/PRIVACY.md
	done
fi

finish
