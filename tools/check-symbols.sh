#!/bin/sh
# The layering rule of docs/ARCHITECTURE.md, checked on what the compiler
# made, not on what the source says: which object references a symbol that
# which other object defines (nm). An include the text check cannot read
# (an angle-bracket or macro include, a prototype written out by hand) still
# leaves a reference here. The rule is the same as tools/check-layers.sh's,
# whose STAGES and ROOMS it reads:
#
#   - a client stage uses only its own stage, earlier stages and lib/;
#   - a program's room (watch/, reporter/, cli/) uses only itself, its
#     allowed stages and lib/, and no other room;
#   - lib/ uses no client object and no collector object; the collector
#     (server-stub/) uses no client object, and each of its layers only
#     itself and the layers before it (SERVER_LAYERS); its main.c all;
#   - no two objects reach each other (no cycle of files).
#
# Then, per program, every object the linker takes into it (from its main
# object, through references) is in a stage it is allowed: the watcher's
# closure holds nothing of privacy/, snapshot/, report/, consent/,
# deliver/ or cli/. A room may hold more than one program (cli/main.c,
# cgroup-feedback, and cli/main_send.c, cgroup-feedback-send): each
# main*.o is checked.
#
# And the programs of LEAN take in no object that calls a library they must
# not map (the symbols each library's .so defines, nm -D): the command that
# scans, checks and says the status starts without libcurl, ICU or the
# collector's libraries, whose commands are cgroup-feedback-send's
# (docs/ARCHITECTURE.md); tests/integration/status.sh reads the maps.
#
# Usage: tools/check-symbols.sh BUILD [TOP]   (exit 0 clean, 1 with a line
# per violation: "user.o -> definer.o (symbol): why"). TOP is the source
# tree (this one by default): objects of sources it no longer has are left
# out.
set -eu
BUILD=${1:-build}
TOP=${2:-$(cd "$(dirname "$0")/.." && pwd)}
RULE=$(dirname "$0")/check-layers.sh
STAGES=$(sed -n 's/^STAGES="\(.*\)"$/\1/p' "$RULE")
ROOMS=$(sed -n '/^ROOMS="/,/"$/p' "$RULE" | sed 's/^ROOMS="//; s/"$//')
SERVER_LAYERS=$(sed -n 's/^SERVER_LAYERS="\(.*\)"$/\1/p' "$RULE")
[ -n "$STAGES" ] && [ -n "$ROOMS" ] || { echo "check-symbols: no STAGES/ROOMS in check-layers.sh"; exit 2; }
# main object (under client/): the libraries (.so, as the linker names
# them) none of the objects it takes in may call.
LEAN="cli/main.o:libcurl.so libicuuc.so libicui18n.so libmicrohttpd.so libpq.so libsqlite3.so"

objs=$(find "$BUILD/lib" "$BUILD/client" "$BUILD/server-stub" -name '*.o' 2>/dev/null | sort)
# Objects of files that no longer exist (a file moved away) are left in
# the build directory but in no program: only objects of current sources.
cur=""
for o in $objs; do
	src=${o#"$BUILD"/}
	src=${src%.o}.c
	[ -f "$TOP/$src" ] && cur="$cur $o"
done
[ -n "$cur" ] || { echo "check-symbols: no objects in $BUILD (build first)"; exit 2; }

# "MAIN LIB SYMBOL" for every symbol a library of LEAN defines.
LIBSYMS=$(mktemp)
trap 'rm -f "$LIBSYMS"' EXIT
echo "$LEAN" | while IFS=: read -r main libs; do
	for l in $libs; do
		so=$(${CC:-cc} -print-file-name="$l")
		[ -e "$so" ] || { echo "check-symbols: $l not found (its -dev package)" >&2; exit 2; }
		nm -D --defined-only "$so" | awk -v m="$main" -v l="${l%.so}" \
			'NF == 3 && $2 ~ /^[TDBRVWGiu]$/ { sub(/@.*/, "", $3); print m, l, $3 }'
	done
done > "$LIBSYMS"

# shellcheck disable=SC2086
nm -A $cur 2>/dev/null | awk -v build="$BUILD" -v stages="$STAGES" -v rooms="$ROOMS" \
	-v slayers="$SERVER_LAYERS" -v libsyms="$LIBSYMS" '
function where(o,    p, n) {
	p = substr(o, length(build) + 2)
	n = split(p, part, "/")
	if (part[1] == "client") return part[2]
	if (part[1] == "server-stub") return n > 2 ? "srv:" part[2] : "srv:"
	return part[1]          # lib
}
BEGIN {
	n = split(stages, s, " ")
	for (i = 1; i <= n; i++) rank[s[i]] = i
	n = split(slayers, sl, " ")
	for (i = 1; i <= n; i++) srank["srv:" sl[i]] = i
	m = split(rooms, r, "\n")
	for (i = 1; i <= m; i++) {
		split(r[i], kv, ":")
		room[kv[1]] = 1
		k = split(kv[2], al, ",")
		for (j = 1; j <= k; j++) allowed[kv[1], al[j]] = 1
	}
	while ((getline line < libsyms) > 0) {
		split(line, ls, " ")
		lean[build "/client/" ls[1]] = 1
		banned[build "/client/" ls[1], ls[3]] = ls[2]
	}
}
{
	c = index($0, ":")
	obj = substr($0, 1, c - 1)
	rest = substr($0, c + 1)
	k = split(rest, f, " ")
	if (k == 2 && f[1] == "U") { use[obj, f[2]] = 1; uses[obj] = uses[obj] " " f[2]; next }
	if (k == 3 && f[2] ~ /^[TDBRCVWG]$/) def[f[3]] = obj
}
function disp(x) {
	if (x == "srv:") return "server-stub/"
	return x ~ /^srv:/ ? "server-stub/" substr(x, 5) "/" : x "/"
}
function ok(a, b) {                 # may code in a use code in b?
	if (a == b) return 1
	if (b == "lib") return 1
	if (a == "lib") return 0
	if (a ~ /^srv:/ && b ~ /^srv:/)     # the collector: its layers
		return a == "srv:" || (b != "srv:" && srank[b] <= srank[a])
	if (a ~ /^srv:/ || b ~ /^srv:/) return 0
	if (a in room) return !(b in room) && ((a, b) in allowed)
	if (b in room) return 0
	return rank[b] < rank[a]
}
# closure(o): every object reachable from o through references, in seen[].
function closure(o,    todo, n, k, i, x, us) {
	n = 1; todo[1] = o
	while (n > 0) {
		x = todo[n--]
		if (x in seen) continue
		seen[x] = 1
		k = split(uses[x], us, " ")
		for (i = 1; i <= k; i++)
			if ((us[i] in def) && !(def[us[i]] in seen))
				todo[++n] = def[us[i]]
	}
}
END {
	bad = 0
	for (key in use) {
		split(key, ks, SUBSEP)
		o = ks[1]; sym = ks[2]
		if (!(sym in def)) continue
		d = def[sym]
		a = where(o); b = where(d)
		if (!ok(a, b)) {
			printf "%s -> %s (%s): %s may not use %s\n", o, d, sym, disp(a), disp(b)
			bad = 1
		}
	}
	# No two objects reach each other through their references: a cycle
	# is two files that are one concern, or a seam in the wrong place.
	for (o in uses) {
		delete seen
		closure(o)
		for (x in seen)
			reach[o, x] = 1
	}
	for (key in reach) {
		split(key, ks, SUBSEP)
		if (ks[1] < ks[2] && ((ks[2], ks[1]) in reach)) {
			printf "%s <-> %s: each reaches the other (a cycle)\n", ks[1], ks[2]
			bad = 1
		}
	}
	# Per program: what the linker takes in from its main object
	# (main.o, or main_NAME.o for a room of two programs).
	for (main in uses) {
		if (main !~ /\/main[a-z_]*\.o$/) continue
		r2 = where(main)
		if (!(r2 in room) || main !~ "^" build "/client/" r2 "/") continue
		delete seen
		closure(main)
		if (ENVIRON["CHECK_SYMBOLS_VERBOSE"] != "")
			for (o in seen) print "# " main ": " o
		for (o in seen) {
			a = where(o)
			if (a != r2 && a != "lib" && !((r2, a) in allowed)) {
				printf "%s: the program %s/ takes in %s (%s/)\n", main, r2, o, a
				bad = 1
			}
			if (!(main in lean)) continue
			k = split(uses[o], us, " ")
			for (i = 1; i <= k; i++)
				if (!(us[i] in def) && ((main, us[i]) in banned) &&
				    !((main, o, banned[main, us[i]]) in said)) {
					said[main, o, banned[main, us[i]]] = 1
					printf "%s: takes in %s, which calls %s (%s): that program must not map it\n",
						main, o, banned[main, us[i]], us[i]
					bad = 1
				}
		}
	}
	exit bad
}'
