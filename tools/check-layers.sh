#!/bin/sh
# The layering rule of docs/ARCHITECTURE.md, checked on the source text:
#
#   - client/ is a pipeline of stages, in this order; a file of one stage
#     includes only its own stage, earlier stages and lib/ (include/cgfb/);
#   - each program has a room of its own (watch/, reporter/, cli/) whose
#     files include only their room, the stages the program is allowed and
#     lib/: the watcher (CAP_SYSLOG) only base, config, log and detect;
#     no program includes another's room;
#   - a client include names its stage ("detect/detect.h", never "detect.h"),
#     so that the rule can be read off the line;
#   - only deliver/ includes libcurl;
#   - a header of the project is included with quotes and by name (an
#     angle-bracket or macro include would slip past this check; so would a
#     prototype written out by hand, which tools/check-symbols.sh catches on
#     the objects);
#   - lib/, include/ and the collector (server-stub/) include no client stage;
#   - the collector is layered the same way, in the order of a request
#     read from the bottom up (SERVER_LAYERS): a file of server-stub/LAYER/
#     includes only its own layer, earlier layers (by "layer/file.h") and
#     lib/; the program's own files (main.c, options.c) sit above them all.
#
# Usage: tools/check-layers.sh [TOP]   (exit 0 clean, 1 with one line per
# violation, "file:line: why").
#        tools/check-layers.sh --allowed client/FOLDER | server-stub/LAYER
# prints the folders a file there may include, one a line: the build
# compiles each folder with an include tree of exactly these (Makefile,
# $(BUILD)/inc/), so a forbidden include fails to compile as well.
set -eu

STAGES="base config log detect privacy snapshot readiness report consent deliver"
SERVER_LAYERS="conf store ingest http api"
# Each program's room and the stages it may use (lib/ always).
ROOMS="watch:base,config,log,detect
reporter:base,config,log,detect,privacy,snapshot,report,consent
cli:base,config,log,detect,privacy,snapshot,readiness,report,consent,deliver"

# A folder and those before it in an order.
upto() {
	case " $2 " in *" $1 "*) ;; *) return 1 ;; esac
	for f in $2; do
		echo "$f"
		[ "$f" = "$1" ] && return 0
	done
}

if [ "${1:-}" = --allowed ]; then
	case ${2:-} in
	client/*)
		f=${2#client/}
		upto "$f" "$STAGES" && exit 0
		room=$(echo "$ROOMS" | sed -n "s/^$f://p")
		[ -n "$room" ] || { echo "$2: not a stage or room of $0" >&2; exit 2; }
		echo "$f"; echo "$room" | tr ',' '\n' ;;
	server-stub/*)
		upto "${2#server-stub/}" "$SERVER_LAYERS" && exit 0
		echo "$2: not a layer of $0" >&2; exit 2 ;;
	*)	echo "usage: $0 --allowed client/FOLDER|server-stub/LAYER" >&2; exit 2 ;;
	esac
	exit 0
fi

TOP=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$TOP"

# The stages and rooms are exactly the folders of client/: a new folder
# must be placed before it can be used.
for d in client/*/; do
	d=${d#client/}; d=${d%/}
	case " $STAGES $(echo "$ROOMS" | cut -d: -f1 | tr '\n' ' ') " in
	*" $d "*) ;;
	*) echo "client/$d: a folder that is neither a stage nor a program of tools/check-layers.sh"; bad=1 ;;
	esac
done
for d in server-stub/*/; do
	d=${d#server-stub/}; d=${d%/}
	case " $SERVER_LAYERS dashboard " in
	*" $d "*) ;;
	*) echo "server-stub/$d: a folder that is not a layer of tools/check-layers.sh"; bad=1 ;;
	esac
done

# shellcheck disable=SC2046
awk -v stages="$STAGES" -v rooms="$ROOMS" -v slayers="$SERVER_LAYERS" -v bad="${bad:-0}" '
BEGIN {
	n = split(stages, s, " ")
	for (i = 1; i <= n; i++) rank[s[i]] = i
	n = split(slayers, sl, " ")
	for (i = 1; i <= n; i++) srank[sl[i]] = i
	m = split(rooms, r, "\n")
	for (i = 1; i <= m; i++) {
		split(r[i], kv, ":")
		room[kv[1]] = 1
		k = split(kv[2], al, ",")
		for (j = 1; j <= k; j++) allowed[kv[1], al[j]] = 1
	}
}
function fail(why) {
	printf "%s:%d: %s\n", FILENAME, FNR, why
	bad = 1
}
FNR == 1 {
	split(FILENAME, part, "/")
	side = part[1]
	me = (side == "client") ? part[2] : ""
	# The collector: its layer, or "" for its own files at the top.
	slayer = (side == "server-stub" && (part[2] in srank)) ? part[2] : ""
}
/^[ \t]*#[ \t]*include[ \t]*</ {
	if ($0 ~ /<curl\// && me != "deliver")
		fail("libcurl is included outside client/deliver/")
	line = $0
	sub(/^[^<]*</, "", line); sub(/>.*$/, "", line)
	split(line, ip, "/")
	if (line ~ /\// && (ip[1] == "cgfb" || ip[1] in rank || ip[1] in room))
		fail("<" line "> names a header of this project with angle brackets: quote it, so that this check reads it")
	next
}
/^[ \t]*#[ \t]*include[ \t]*[A-Za-z_]/ {
	fail("an include through a macro cannot be checked: name the header")
	next
}
/^[ \t]*#[ \t]*include[ \t]*"/ {
	line = $0
	sub(/^[^"]*"/, "", line); sub(/".*$/, "", line)
	split(line, ip, "/")
	top = (line ~ /\//) ? ip[1] : ""
	if (side == "client") {
		if (top == "cgfb")
			next
		if (!(top in rank) && !(top in room)) {
			fail("\"" line "\" does not name its stage (stage/file.h or cgfb/file.h)")
			next
		}
		if (top == me)
			next
		if (me in room) {
			if (top in room)
				fail("the program " me "/ includes the program " top "/ (\"" line "\")")
			else if (!((me, top) in allowed))
				fail("the program " me "/ may not use the stage " top "/ (\"" line "\")")
		} else if (top in room) {
			fail("the stage " me "/ includes the program " top "/ (\"" line "\")")
		} else if (rank[top] > rank[me]) {
			fail(me "/ includes the later stage " top "/ (\"" line "\")")
		}
	} else if (top in rank || top in room) {
		fail(side "/ includes the client stage " top "/ (\"" line "\")")
	} else if (side == "server-stub" && top != "cgfb") {
		if (top == "") {
			if (slayer != "")
				fail("\"" line "\" does not name its layer (layer/file.h), or is the program'"'"'s own header, which no layer may include")
		} else if (!(top in srank)) {
			fail("\"" line "\" names no layer of the collector")
		} else if (slayer != "" && srank[top] > srank[slayer]) {
			fail("the collector'"'"'s " slayer "/ includes the later layer " top "/ (\"" line "\")")
		}
	}
}
END { exit bad }
' $(find client lib include server-stub -name '*.[ch]' | sort)
