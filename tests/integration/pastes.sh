#!/bin/sh
# Kernel messages as reports from the field carry them (issue 16): quoted in
# an e-mail, re-wrapped at 72 or 80 columns, indented, time stamps stripped,
# WARN blocks without their "[ cut here ]" or "---[ end trace" lines, and
# combinations. Each file of tests/data/pastes/ (written by
# tests/tools/mkpastes.py from the catalog's texts) must be classified as the
# catalog entry it is, as expected.tsv says; not as the safety net G1, and
# two complete records never as one.
# Then look-alikes in the same shapes (tests/data/negative/ made into
# pastes) must still give nothing.
# shellcheck shell=sh
. tests/lib.sh

if [ ! -x "$CGFB" ]; then
	not_ok "binary $CGFB exists (run make first)"
	exit 1
fi

D=tests/data/pastes
# One scan per file, hundreds of them: under valgrind they run natively, and
# valgrind watches the one scan of all the files at once below (the same
# parser over the same bytes).
SCAN=$CGFB
under_valgrind && SCAN=$PWD/$BUILD/cgroup-feedback

# Each paste scanned on its own (scan --json, its output, errors and exit
# status kept per row); then one python3 judges every row against
# expected.tsv: exactly the ids listed (in order), the first detection with
# the fields listed, exit 0. A TAP line per file, its evidence under it.
mkdir -p "$T_TMP/p"
: > "$T_TMP/each"
n=0
while IFS='	' read -r file ids fields note; do
	case $file in '#'*|'') continue ;; esac
	n=$((n + 1))
	"$SCAN" scan --json "$D/$file" > "$T_TMP/p/$n.out" 2> "$T_TMP/p/$n.err"
	echo $? > "$T_TMP/p/$n.rc"
	cat "$T_TMP/p/$n.out" >> "$T_TMP/each"
done < "$D/expected.tsv"
python3 - "$D" "$T_TMP/p" "$T_N" > "$T_TMP/classified" <<'PY'
import json, os, sys
d, p, t = sys.argv[1], sys.argv[2], int(sys.argv[3])
n = 0
for line in open(os.path.join(d, "expected.tsv"), encoding="utf-8"):
    if line.startswith("#") or not line.strip():
        continue
    file, ids, fields, note = line.rstrip("\n").split("\t")
    n += 1
    t += 1
    why = []
    if not os.path.isfile(os.path.join(d, file)):
        why.append("the file does not exist")
    else:
        dets = [json.loads(l) for l in open(os.path.join(p, "%d.out" % n))]
        got = [x["id"] for x in dets]
        rc = int(open(os.path.join(p, "%d.rc" % n)).read())
        if got != ids.split(","):
            why.append("ids: want %s, got %s" % (ids.split(","), got))
        elif fields != "-":
            for nv in fields.split(" "):
                k, v = nv.split("=", 1)
                if dets[0]["fields"].get(k) != v:
                    why.append("field %s: want %r, got %r" % (k, v, dets[0]["fields"].get(k)))
        if not why and rc != 0:
            why.append("exit status %d" % rc)
        if why:
            why += ["stderr: " + l.rstrip("\n") for l in open(os.path.join(p, "%d.err" % n))]
    print("%s %d - %s (%s)" % ("not ok" if why else "ok", t, file, note))
    for w in why:
        print("#   " + w)
PY
cat "$T_TMP/classified"
T_N=$((T_N + n))
T_FAILED=$((T_FAILED + $(grep -c '^not ok ' "$T_TMP/classified")))

# Every data file is in expected.tsv: a file nobody checks proves nothing.
files=$(find "$D" -name '*.txt' | wc -l)
check "every paste file is in expected.tsv ($files files, $n rows)" [ "$files" -eq "$n" ]
check "the data covers every shape (at least 300 files)" [ "$n" -ge 300 ]
# All the files in one scan, in expected.tsv's order: each file is its own
# log, so the detections are those of one scan per file, in that order.
# shellcheck disable=SC2046
"$CGFB" scan --json $(grep -v "^#" "$D/expected.tsv" | cut -f1 | sed "s|^|$D/|") > "$T_TMP/all" 2> "$T_TMP/err"
check "one scan of every paste gives what one scan per paste gave ($(wc -l < "$T_TMP/each") detections)" \
	python3 -c 'import json, sys
strip = lambda f: [{k: v for k, v in json.loads(l).items() if k != "source"} for l in open(f)]
a, b = strip(sys.argv[1]), strip(sys.argv[2])
sys.exit(not a or a != b)' "$T_TMP/all" "$T_TMP/each"

# nothing NAME FILE: scan reports nothing, exits 1, says nothing on stdout.
nothing() {
	"$SCAN" scan --json "$2" > "$T_TMP/out" 2> "$T_TMP/err"
	rc=$?
	if [ "$rc" -eq 1 ] && [ ! -s "$T_TMP/out" ]; then
		ok "$1"
	else
		not_ok "$1"
		echo "#   exit status $rc (want 1); output:"
		sed 's/^/#     /' "$T_TMP/out" | cut -c1-200
	fi
}

# The negative fixtures in paste shapes. Only text formats: a kmsg or journal
# file is not pasted. Time stamps are stripped as "[ 1.2] " and as syslog's
# "<date> <host> kernel: ", which leaves the record text.
for f in tests/data/negative/*.dmesg tests/data/negative/x1.syslog; do
	b=$(basename "$f")
	nostamp="$T_TMP/$b.nostamp"
	sed -e 's/^\[[^]]*\] *//' -e 's/^[A-Z][a-z][a-z] [ 0-9][0-9] [0-9:]* [^ ]* kernel: //' "$f" \
		> "$nostamp"
	sed 's/^/> /' "$f" > "$T_TMP/q"; nothing "negative $b quoted" "$T_TMP/q"
	sed 's/^/>> /' "$f" > "$T_TMP/q2"; nothing "negative $b quoted twice" "$T_TMP/q2"
	sed 's/^/\t/' "$f" > "$T_TMP/t"; nothing "negative $b indented" "$T_TMP/t"
	nothing "negative $b time stamps stripped" "$nostamp"
	for w in 72 80; do
		fold -s -w "$w" "$f" > "$T_TMP/w"; nothing "negative $b re-wrapped at $w" "$T_TMP/w"
		fold -w "$w" "$f" > "$T_TMP/c"; nothing "negative $b cut at $w" "$T_TMP/c"
		fold -s -w "$w" "$nostamp" | sed 's/^/> /' > "$T_TMP/nq"
		nothing "negative $b without time stamps, re-wrapped at $w, quoted" "$T_TMP/nq"
	done
done

# Look-alikes that a join could make into a message if it joined too much:
# the head of a catalog text followed by a line of other words; a blank
# line inside a catalog text (two paragraphs are not one record).
cat > "$T_TMP/heads" <<'EOF2'
> soft_limit_in_bytes is deprecated and will be removed. Please report
> bugs to your distribution, not upstream.
> kmem.limit_in_bytes is deprecated and will be removed.
> It has been replaced by memory.max in cgroup v2.
> Per memcg swappiness does not exist in cgroup v2. See memory.reclaim
> or the cgroup-v2 documentation.
> Creating hierarchies with use_hierarchy==0 (flat hierarchy) is
> considered harmful by some.
EOF2
nothing "heads of catalog texts with other tails" "$T_TMP/heads"
printf '%s\n\n%s\n' 'The swapaccount= commandline option is deprecated. Please report your usecase to' \
	'the vendor if you depend on this functionality.' > "$T_TMP/para"
nothing "a catalog text split by a blank line is not joined" "$T_TMP/para"

# A stream is read in pieces of 1 MiB: a record re-wrapped across the end
# of a piece is still joined (the join waits for the next piece), in a pipe
# as in a mapped file. Filler without time stamps makes the log a paste.
python3 - "$T_TMP/big" <<'PY'
import sys
CHUNK = 1 << 20
head = "> soft_limit_in_bytes is deprecated and will be removed. Please report\n"
tail = "> your usecase to linux-mm@kvack.org if you depend on this functionality.\n"
with open(sys.argv[1], "w") as f:
    n = 0
    for off in (CHUNK, 2 * CHUNK):
        while n + 20 < off - len(head) // 2:
            line = "> filler %9d\n" % n
            f.write(line)
            n += len(line)
        # The break between head and tail lands past the end of the piece.
        f.write(head)
        f.write(tail)
        n += len(head) + len(tail)
PY
"$CGFB" scan --json "$T_TMP/big" > "$T_TMP/big.file"
cat "$T_TMP/big" | "$CGFB" scan --json - > "$T_TMP/big.pipe"
ids_file=$(python3 -c 'import json,sys; print(",".join(json.loads(l)["id"] for l in open(sys.argv[1])))' "$T_TMP/big.file")
ids_pipe=$(python3 -c 'import json,sys; print(",".join(json.loads(l)["id"] for l in open(sys.argv[1])))' "$T_TMP/big.pipe")
check "a wrapped record across a 1 MiB boundary, mapped file: M3,M3 (got $ids_file)" \
	[ "$ids_file" = "M3,M3" ]
check "the same through a pipe, read in pieces (got $ids_pipe)" [ "$ids_pipe" = "M3,M3" ]

# Privacy: a paste is an e-mail, with names, addresses and secrets around the
# kernel's lines and inside them (tests/data/pastes-privacy/planted.eml).
# What scan takes from it is one record per detection, never the prose
# around; and each detection, handed to the report writer as the watcher
# would hand it, gives a report with nothing planted in it: the catalog id,
# the catalog's wording, tokens and the closed vocabulary only.
. tests/data/cgroupfs/lib.sh
PLANTED="acme jdoe s3cret 4711 10.1.2.3 db01 wiki.corp"
P=tests/data/pastes-privacy/planted.eml
"$CGFB" scan --json "$P" > "$T_TMP/pdets"
check "the planted paste: C1, S2, S1, G1, G1" \
	[ "$(python3 -c 'import json,sys; print(",".join(json.loads(l)["id"] for l in open(sys.argv[1])))' "$T_TMP/pdets")" = "C1,S2,S1,G1,G1" ]
# Words only the prose holds: no detection's text has them.
prose=$(for s in wiki.corp s3cret "John Doe" "Hi team" runbook; do
	python3 -c 'import json,sys
for l in open(sys.argv[1]):
    if sys.argv[2].lower() in json.loads(l)["text"].lower():
        print(sys.argv[2]); break' "$T_TMP/pdets" "$s"; done)
check "no detection's text holds the prose around the records (found: $prose)" [ -z "$prose" ]
python3 - "$T_TMP/pdets" > "$T_TMP/handoffs" <<'PY'
import json, sys
hx = lambda s: s.encode().hex()
for l in open(sys.argv[1]):
    d = json.loads(l)
    print(json.dumps({"id": d["id"], "source": "file", "occurrence": d["occurrence"],
                      "level": d["level"], "in_warn_block": bool(d.get("warn_block")),
                      "text": hx(d["text"]), "fields": {k: hx(v) for k, v in d["fields"].items()}}))
PY
if fixture docker "$T_TMP/pfx"; then
	printf 'notify = log\n' > "$T_TMP/pconf"
	printf 'ID=debian\nVERSION_ID="12"\n' > "$T_TMP/pos"
	printf 'root=/dev/sda1 quiet\n' > "$T_TMP/pcmdline"
	mkdir -p "$T_TMP/pst"
	while read -r h; do
		echo "$h" | "$BUILD/cgroup-feedback-report" --config "$T_TMP/pconf" \
			--state-dir "$T_TMP/pst" --cgroup-root "$T_TMP/pfx/root" \
			--mountinfo "$T_TMP/pfx/mountinfo" --os-release "$T_TMP/pos" \
			--cmdline "$T_TMP/pcmdline" > /dev/null 2>> "$T_TMP/perr" ||
			not_ok "report writer refused a paste's detection: $(cut -c1-60 "$T_TMP/perr")"
	done < "$T_TMP/handoffs"
	n=$(ls "$T_TMP/pst/reports/"*.json 2>/dev/null | wc -l)
	check "a report per detection of the paste (5, got $n)" [ "$n" -eq 5 ]
	found=
	for s in $PLANTED; do
		# "4711" and "db01" turn up in random hex by chance (tests/lib.sh).
		without_random "$T_TMP/pst/reports/"*.json | grep -qiF -- "$s" && found="$found $s"
	done
	check "nothing planted in the paste reaches a report (found:$found)" [ -z "$found" ]
	"$BUILD/tests/tools/validate-report" "$T_TMP/pst/reports/"*.json > "$T_TMP/pvalid" 2>&1
	check "the reports are valid against the schema" [ $? -eq 0 ]
else
	not_ok "fixture docker"
fi

finish
