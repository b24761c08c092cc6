#!/bin/sh
# The layering rule of docs/ARCHITECTURE.md, checked on the source text:
#
#   - client/ is a pipeline of stages, in this order; a file of one stage
#     includes only its own stage, earlier stages and lib/ (include/cgfb/);
#   - a client include names its stage ("detect/detect.h", never "detect.h"),
#     so that the rule can be read off the line;
#   - only deliver/ includes libcurl;
#   - lib/, include/ and the collector (server-stub/) include no client stage.
#
# Usage: tools/check-layers.sh [TOP]   (exit 0 clean, 1 with one line per
# violation, "file:line: why").
set -eu
TOP=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$TOP"

STAGES="config log detect privacy snapshot report consent deliver cli"

# The stages are exactly the folders of client/: a new folder must be
# placed in the order before it can be used.
for d in client/*/; do
	d=${d#client/}; d=${d%/}
	case " $STAGES " in
	*" $d "*) ;;
	*) echo "client/$d: a folder that is not a stage of tools/check-layers.sh"; bad=1 ;;
	esac
done

# shellcheck disable=SC2046
awk -v stages="$STAGES" -v bad="${bad:-0}" '
BEGIN {
	n = split(stages, s, " ")
	for (i = 1; i <= n; i++) rank[s[i]] = i
}
function fail(why) {
	printf "%s:%d: %s\n", FILENAME, FNR, why
	bad = 1
}
FNR == 1 {
	split(FILENAME, part, "/")
	side = part[1]
	me = (side == "client") ? part[2] : ""
}
/^[ \t]*#[ \t]*include[ \t]*</ {
	if ($0 ~ /<curl\// && me != "deliver")
		fail("libcurl is included outside client/deliver/")
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
		if (!(top in rank)) {
			fail("\"" line "\" does not name its stage (stage/file.h or cgfb/file.h)")
			next
		}
		if (rank[top] > rank[me])
			fail(me "/ includes the later stage " top "/ (\"" line "\")")
	} else if (top in rank) {
		fail(side "/ includes the client stage " top "/ (\"" line "\")")
	}
}
END { exit bad }
' $(find client lib include server-stub -name '*.[ch]' | sort)
