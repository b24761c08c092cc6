#!/bin/sh
# Paths another user can swap (issue 39), as root meets them, the races
# made deterministic by slowing root's step with strace's fault injection
# (no hook in the product): while root's mkdir/mkdirat sleeps 300 ms before
# returning, the other user (uid 65534, setpriv) swaps what root just made
# for a link. Root must follow no such link: the state directory made in
# the service user's directory, the banner's directory made in another
# user's, and check --prometheus in Debian's textfile layout (the parent is
# the prometheus account's); and a FIFO planted at the temporary name root
# used to pick (.NAME.tmp.PID) must not hang it.
# shellcheck shell=sh
. tests/lib.sh

if [ "$(id -u)" -ne 0 ]; then
	skip "hostile paths" "another user's directory needs root to make"
	finish
	exit
fi
# The other user reaches its own directories in here.
chmod 0711 "$T_TMP"
AS_OTHER="setpriv --reuid=65534 --regid=65534 --clear-groups"
# slowed CMD...: CMD with every mkdir and mkdirat 300 ms longer.
slowed() {
	timeout "$(scaled 30)" strace -f -o /dev/null -e trace=mkdir,mkdirat \
		-e inject=mkdir,mkdirat:delay_exit=300000 "$@"
}
# swap_when_made DIR TARGET: in the background, as the other user, DIR
# (once root made it) renamed away and replaced by a link to TARGET.
swap_when_made() {
	$AS_OTHER sh -c 'i=0
		while [ ! -d "$1" ] && [ $i -lt 1000 ]; do sleep 0.005; i=$((i + 1)); done
		mv "$1" "$1.moved" && ln -s "$2" "$1"' _ "$1" "$2" &
	swapper=$!
}

# --- the state directory, made by root in the service user's directory ----
mkdir -m 0755 "$T_TMP/svc"
chown 65534:65534 "$T_TMP/svc"
echo "root's own" > "$T_TMP/victim"
chmod 0600 "$T_TMP/victim"
swap_when_made "$T_TMP/svc/state" "$T_TMP/victim"
slowed "$CGFB" --state-dir "$T_TMP/svc/state" snapshot > "$T_TMP/sd.out" 2>&1
wait "$swapper"
check "the state directory swapped for a link while root made it: the link was planted" \
	[ -L "$T_TMP/svc/state" ]
check "... and root gave the other user nothing through it (its target still root's)" \
	sh -c '[ "$(stat -c %u "$1")" = 0 ] && [ "$(cat "$1")" = "root'"'"'s own" ]' _ "$T_TMP/victim"

# --- the banner's directory, made by root in another user's directory ------
ST=$T_TMP/st
mkdir -m 0700 "$ST"
A=$(python3 tests/client/pending_report.py "$ST" M8 a)
B=$(python3 tests/client/pending_report.py "$ST" M3 b)
python3 tests/client/pending_report.py "$ST" C1 c > /dev/null
mkdir -m 0755 "$T_TMP/home"
chown 65534:65534 "$T_TMP/home"
mkdir -m 0700 "$T_TMP/rootdir"
printf 'motd-path = %s\n' "$T_TMP/home/motd/banner.motd" > "$T_TMP/conf"
swap_when_made "$T_TMP/home/motd" "$T_TMP/rootdir"
slowed "$CGFB" --config "$T_TMP/conf" --state-dir "$ST" decline "$A" > "$T_TMP/motd.out" 2>&1
wait "$swapper"
check "the banner's directory swapped for a link while root made it: the link was planted" \
	[ -L "$T_TMP/home/motd" ]
check "... and root neither gave the link's target away nor wrote the banner there" \
	sh -c '[ "$(stat -c %u "$1")" = 0 ] && [ -z "$(ls -A "$1")" ]' _ "$T_TMP/rootdir"
check "... saying why" grep -q "login banner .*banner.motd: Too many levels of symbolic links" \
	"$T_TMP/motd.out"

# --- a FIFO at the temporary name root used to pick -------------------------
# sh's $$ is the PID the command gets by exec: the old name exactly.
printf 'motd-path = %s\n' "$T_TMP/banner/banner.motd" > "$T_TMP/conf2"
timeout "$(scaled 10)" sh -c 'mkfifo "$1/reports/.$2.state.tmp.$$" && exec "$3" --config "$4" --state-dir "$1" decline "$2"' \
	_ "$ST" "$B" "$CGFB" "$T_TMP/conf2" > "$T_TMP/fifo.out" 2>&1
check "a FIFO at decline's old temporary name: decline finishes (exit 0), not hangs" [ $? -eq 0 ]
check "... and the banner it writes names the report left" grep -q C1 "$T_TMP/banner/banner.motd"
mkdir -m 0755 "$T_TMP/textfile"
timeout "$(scaled 10)" sh -c 'mkfifo "$1/.cg.prom.tmp.$$" && exec "$2" check --prometheus "$1/cg.prom"' \
	_ "$T_TMP/textfile" "$CGFB" > "$T_TMP/fifo2.out" 2>&1
check "a FIFO at check --prometheus's old temporary name: the file is written, no hang" \
	[ -s "$T_TMP/textfile/cg.prom" ]

# --- check --prometheus in Debian 12's layout -------------------------------
# prometheus-node-exporter: /var/lib/prometheus is the prometheus account's
# (its postinst), /var/lib/prometheus/node-exporter root's 0755 (the
# package's files): a root job's file there is written, root's.
P=$T_TMP/prometheus
mkdir -m 0755 "$P" "$P/node-exporter"
chown 65534:65534 "$P"
"$CGFB" check --prometheus "$P/node-exporter/cg.prom" > /dev/null 2>&1
check "check --prometheus in Debian's layout: written, root's, 0644" \
	sh -c '[ "$(stat -c "%u %a" "$1")" = "0 644" ]' _ "$P/node-exporter/cg.prom"
# The prometheus account swaps node-exporter for a link: nothing written there.
mkdir -m 0755 "$T_TMP/elsewhere"
$AS_OTHER sh -c 'mv "$1/node-exporter" "$1/old" && ln -s "$2" "$1/node-exporter"' _ "$P" "$T_TMP/elsewhere"
"$CGFB" check --prometheus "$P/node-exporter/cg.prom" > /dev/null 2> "$T_TMP/prom.err"
check "... its directory swapped for a link by the parent's owner: nothing written through it, said" \
	sh -c '[ -z "$(ls -A "$1")" ] && grep -q "symbolic link another user could change" "$2"' \
	_ "$T_TMP/elsewhere" "$T_TMP/prom.err"
# ... or for a directory of its own: refused, nothing written in it.
$AS_OTHER sh -c 'rm "$1/node-exporter" && mkdir "$1/node-exporter"' _ "$P"
"$CGFB" check --prometheus "$P/node-exporter/cg.prom" > /dev/null 2> "$T_TMP/prom2.err"
check "... or for a directory of its own: refused, nothing written in it, said" \
	sh -c '[ -z "$(ls -A "$1")" ] && grep -q "belongs to another user or others may write it" "$2"' \
	_ "$P/node-exporter" "$T_TMP/prom2.err"
finish
