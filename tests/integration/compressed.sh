#!/bin/sh
# scan where the logs really are: rotated and compressed files, told by
# their bytes and made by Debian's own gzip, xz, zstd, bzip2 and lz4; the
# rotated set in one call; damage, truncation, false names and binary
# input each said clearly; colours of dmesg --color=always; and memory
# that stays bounded whatever the input's size (the shipped build).
. tests/lib.sh

LOGS=$DATA/logs
# detections FILE...: "line id occurrence" per detection, the file names
# left out.
detections() {
	"$CGFB" scan --json "$@" 2>/dev/null |
		python3 -c 'import json,sys
for l in sys.stdin:
    d = json.loads(l); print(d["source"].rsplit(":", 1)[1], d["id"], d["occurrence"])'
}

# Every hand-written log of tests/data/logs, in every format: the same
# detections, at the same lines, as the plain file.
for log in "$LOGS"/*; do
	case $log in *.expect) continue ;; esac
	base=$(basename "$log")
	want=$(detections "$log")
	for z in "gzip -c" "xz -c" "zstd -q -c" "bzip2 -c" "lz4 -q -c"; do
		$z "$log" > "$T_TMP/$base.z"
		got=$(detections "$T_TMP/$base.z")
		check "$base through ${z%% *}: the plain file's $(echo "$want" | grep -c .) detections, line for line" \
			[ -n "$want" -a "$got" = "$want" ]
	done
done

# The rotated set as logrotate leaves it, one call: each detection names
# its file and line; the summary on stderr names each file's compression.
R=$T_TMP/rotated
mkdir -p "$R"
K=$LOGS/ubuntu-18.04-kern.log
cp "$K" "$R/kern.log"
cp "$K" "$R/kern.log.1"
gzip -c "$K" > "$R/kern.log.2.gz"
xz -c "$K" > "$R/kern.log.3.xz"
zstd -q -c "$K" > "$R/kern.log.4.zst"
bzip2 -c "$K" > "$R/kern.log.5.bz2"
"$CGFB" scan "$R"/kern.log* > "$T_TMP/rot.out" 2> "$T_TMP/rot.err"
check "the rotated set in one call: exit 0" [ $? -eq 0 ]
for f in kern.log kern.log.1 kern.log.2.gz kern.log.3.xz kern.log.4.zst kern.log.5.bz2; do
	check "... $f: its detections named by file and line" grep -q "^$R/$f:14: C1 " "$T_TMP/rot.out"
done
check "... stderr says how each was compressed" grep -q "kern.log.3.xz: 21 lines read (syslog, xz compressed), 2 catalog messages" "$T_TMP/rot.err"

# A name says nothing: text named .gz is text, gzip named .log is gzip.
cp "$K" "$T_TMP/plain.gz"
gzip -c "$K" > "$T_TMP/packed.log"
check "text named .gz is read as text" sh -c '"$1" scan "$2" 2>&1 >/dev/null | grep -q "(syslog), 2 catalog"' _ "$CGFB" "$T_TMP/plain.gz"
check "gzip named .log is decompressed" sh -c '"$1" scan "$2" 2>&1 >/dev/null | grep -q "(syslog, gzip compressed), 2 catalog"' _ "$CGFB" "$T_TMP/packed.log"

# Two gzip members (logrotate with delaycompress, then cat): one log.
head -n 12 "$K" | gzip -c > "$T_TMP/two.gz"
tail -n +13 "$K" | gzip -c >> "$T_TMP/two.gz"
check "two gzip members: the detections of the whole log, at its lines" \
	[ "$(detections "$T_TMP/two.gz")" = "$(detections "$K")" ]

# Truncated: what came before the cut is reported, the cut is said, exit 2.
python3 - "$T_TMP/long.log" <<'EOF'
import sys
with open(sys.argv[1], "w") as f:
    f.write('<4>[    1.000000] cgroup: "memory" requires setting use_hierarchy to 1 on the root\n')
    for i in range(200000):
        f.write("<6>[%8d.%06d] eth0: ordinary line %d, nothing to see\n" % (2 + i // 1000, i % 1000, i))
    f.write('<4>[ 9999.000000] cgroup: "memory" requires setting use_hierarchy to 1 on the root\n')
EOF
gzip -1 -c "$T_TMP/long.log" > "$T_TMP/long.gz"
head -c $(( $(wc -c < "$T_TMP/long.gz") * 6 / 10 )) "$T_TMP/long.gz" > "$T_TMP/cut.gz"
"$CGFB" scan "$T_TMP/cut.gz" > "$T_TMP/cut.out" 2> "$T_TMP/cut.err"
check "a truncated gzip file: exit 2" [ $? -eq 2 ]
check "... the detection before the cut kept" grep -q "cut.gz:1: C2 " "$T_TMP/cut.out"
check "... the one after it not invented" [ "$(grep -c ': C2 ' "$T_TMP/cut.out")" -eq 1 ]
check "... the cut said, with how far the scan got" \
	grep -q "cut.gz: the gzip data ends inside a stream after [0-9]* compressed bytes (a truncated file?); [0-9]* lines before it were scanned" "$T_TMP/cut.err"
check "... never \"no catalog message\"" sh -c '! grep -q "no catalog message" "$1"' _ "$T_TMP/cut.err"

# A file that claims a format it is not: damage, said, exit 2.
printf '\375\067\172\130\132\000 this is no xz stream at all\n' > "$T_TMP/fake.xz"
"$CGFB" scan "$T_TMP/fake.xz" > /dev/null 2> "$T_TMP/fake.err"
check "xz's magic before garbage: exit 2" [ $? -eq 2 ]
check "... said as damaged xz data" grep -q "fake.xz: the xz data is damaged" "$T_TMP/fake.err"

# Binary of no known format, and a journal file: refused, never "nothing".
head -c 65536 /dev/urandom > "$T_TMP/random.bin"
"$CGFB" scan "$T_TMP/random.bin" > /dev/null 2> "$T_TMP/bin.err"
check "binary input: exit 2" [ $? -eq 2 ]
check "... refused as binary" grep -q "random.bin: binary, not a text log (nor gzip, xz, zstd, bzip2 or lz4 compressed text): cannot tell whether the kernel printed a catalog message" "$T_TMP/bin.err"
check "... never \"no catalog message\"" sh -c '! grep -q "no catalog message" "$1"' _ "$T_TMP/bin.err"
printf 'LPKSHHRH\000\000\000\000\001\000\000\000' > "$T_TMP/system.journal"
"$CGFB" scan "$T_TMP/system.journal" > /dev/null 2> "$T_TMP/jf.err"
check "a journal file given as a log: exit 2, pointing at --journal-file" \
	grep -q "system.journal: a systemd journal file, not a text log: scan it with --journal-file" "$T_TMP/jf.err"

# dmesg --color=always, as util-linux writes it: the same detections as
# without colour (before, every one was G1 with U+FFFD).
printf '<4>[   12.345678] cgroup: "memory" requires setting use_hierarchy to 1 on the root\n<6>[   13.0] eth0: link up\n' > "$T_TMP/raw"
if dmesg --color=always -F "$T_TMP/raw" > "$T_TMP/colour.dmesg" 2>/dev/null &&
	grep -q "$(printf '\033')\[" "$T_TMP/colour.dmesg"; then
	dmesg -F "$T_TMP/raw" > "$T_TMP/plain.dmesg"
	check "dmesg --color=always: the detections of the plain output" \
		[ "$(detections "$T_TMP/colour.dmesg")" = "$(detections "$T_TMP/plain.dmesg")" ]
	check "... C2 found, not G1" sh -c '"$1" scan "$2" | grep -q ": C2 "' _ "$CGFB" "$T_TMP/colour.dmesg"
else
	skip "dmesg --color=always" "this util-linux dmesg cannot read a file with -F"
fi

# Memory: peak RSS under 32 MiB on a log four times that, plain, gzip and
# through a pipe. Measured on the shipped build; ASan's shadow memory and
# quarantine would be counted in the RSS of build-san's binaries.
case $BUILD in
*san*)	skip "memory bound" "measured on the normal build, not under ASan" ;;
*)
	python3 - "$T_TMP/big.log" <<'EOF'
import sys
line = "<6>[%8d.000000] eth0: an ordinary line of an ordinary boot, padded to look like one\n"
with open(sys.argv[1], "w") as f:
    f.write('<4>[    1.000000] cgroup: "memory" requires setting use_hierarchy to 1 on the root\n')
    f.writelines(line % i for i in range(1600000))
EOF
	gzip -1 -c "$T_TMP/big.log" > "$T_TMP/big.gz"
	# rss CMD...: the command's peak RSS in KiB, its exit status after it.
	rss() {
		python3 -c 'import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, rc)' "$@"
	}
	size=$(( $(wc -c < "$T_TMP/big.log") >> 20 ))
	set -- $(rss "$CGFB" scan "$T_TMP/big.log")
	check "a ${size} MiB log: found, peak RSS $(( $1 / 1024 )) MiB < 32 MiB" [ "$2" -eq 0 -a "$1" -lt 32768 ]
	set -- $(rss "$CGFB" scan "$T_TMP/big.gz")
	check "the same, gzip compressed: peak RSS $(( $1 / 1024 )) MiB < 32 MiB" [ "$2" -eq 0 -a "$1" -lt 32768 ]
	set -- $(rss sh -c 'cat "$1" | "$2" scan -' _ "$T_TMP/big.log" "$CGFB")
	check "the same through a pipe: peak RSS $(( $1 / 1024 )) MiB < 32 MiB" [ "$2" -eq 0 -a "$1" -lt 32768 ]
	;;
esac

finish
