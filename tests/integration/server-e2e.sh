#!/bin/sh
# The real client against the real collector over loopback, HTTP and HTTPS,
# with a fresh database each: `cgroup-feedback review` and `submit` store the
# report the client showed, byte for byte, with the receipt the client
# checks, and what review said the collector publishes is what its digest
# and summary show;
# `withdraw` deletes it with the deletion token; `export` writes the e-mail
# that `cgroup-feedback-server import` merges, deduplicated with HTTP.
. tests/lib.sh
. tests/server/lib.sh

client_spool
stored_bytes() { admin "/api/v1/reports/$1" >/dev/null && cat "$T_TMP/body"; }
# Under valgrind a run that takes again a path another run here takes
# under it is the build's own program (CGFB_NATIVE, SERVER_NATIVE,
# tests/lib.sh), each saying which run covers it: show --raw (the first,
# after the review), the second export of a new M3 report and its import
# (the first export's and import's), the second scan --report (the first's).
cfb_native() { "$CGFB_NATIVE" --config "$CONF" "$@"; }

start_server e2e --rate 0 || { not_ok "server starts"; finish; exit 1; }
DB=$DIR/db.sqlite
EP=$URL/api/v1/reports

# --- review over HTTP: what it says before the yes is what the collector shows ----
# review to a collector the configuration names; then its digest (written
# for the public list) quotes the use case and answers under the catalog
# id and the start of the report id, as review said, and nothing else of
# the report; the public summary shows none of it (one install: counts
# suppressed).
printf 'endpoint = %s\n' "$EP" | cat "$CONF" - > "$T_TMP/conf.ep"
id=$(new_report M8 101)
TAB=$(printf '\t')
python3 tests/client/drive_review.py "$T_TMP/review.log" -- "$CGFB" --config "$T_TMP/conf.ep" \
	review --state-dir "$ST" "$id" <<EOS
Which software creates${TAB}libvirt
Why must these sibling${TAB}
Would the reorganisation${TAB}yes
Describe your use case${TAB}$(cat "$T_TMP/uc")
siblings must not share reclaim\\.${TAB}
Send this report to http${TAB}y
EOS
expect_eq "cgroup-feedback review, yes, to the collector exits 0" "$?" 0
expect_eq "one row stored" "$(rows "$DB")" 1
admin "/api/v1/digest" > /dev/null
cp "$T_TMP/body" "$T_TMP/digest"
req GET /api/v1/summary > /dev/null
cp "$T_TMP/body" "$T_TMP/summary"
check "review said before the yes what the collector's digest and summary show of the report" \
	python3 - "$T_TMP/review.log" "$T_TMP/digest" "$T_TMP/summary" "$ST/reports/$id.json" <<'EOP'
import json, re, sys
said = " ".join(open(sys.argv[1], encoding="utf-8").read().split())
digest = open(sys.argv[2], encoding="utf-8").read()
summary = open(sys.argv[3], encoding="utf-8").read()
report = json.load(open(sys.argv[4]))
rid, uc = report["report_id"], report["use_case"]
i, j = said.rfind("will be PUBLISHED"), said.find("Send this report to")
text = said[i:j]
assert ("the collector's digest, written for the public linux-mm mailing list, quotes them "
        "word for word under the message's id (M8) and the start of the report id (%s)"
        % rid[:8]) in text, text
assert "only counted, in its public summary and its digest" in text, text
# The digest's entry for the report: its catalog id and 8 characters of
# its id, each answer under its question's label, the use case.
cases = digest.split("Use cases, newest first\n\n")[1]
entry = cases.split("- M8 (report %s)\n" % rid[:8])[1].split("\n\n")[0]
flat = " ".join(entry.split())
for v in uc["answers"].values():
    assert ": " + v in flat, (v, entry)
assert " ".join(uc["text"].split()) in flat, entry
# Nothing else of the report in either: not the rest of its id, its
# kernel, its tokens, its pseudonym, its deletion hash.
others = [rid[8:], report["system"]["kernel"]["release"], report["consent"]["install"],
          report["deletion"]["token_sha256"]]
others += re.findall(r'"(h:[0-9a-f]{12})"', open(sys.argv[4]).read())
for s in others:
    assert s not in digest and s not in summary, s
# The public summary is counts: neither the use case nor an answer.
for s in [uc["text"][:30]] + [v for v in uc["answers"].values() if len(v) > 3]:
    assert s not in summary, s
EOP
cfb show --state-dir "$ST" --raw "$id" > "$T_TMP/shown"
stored_bytes "$id" > "$T_TMP/stored"
check "the collector stored exactly the bytes the client showed" cmp -s "$T_TMP/shown" "$T_TMP/stored"
check "the client kept the collector's receipt (the stored SHA-256)" \
	grep -q "$(sha256sum < "$T_TMP/stored" | cut -c1-64)" "$ST/reports/$id.state"
req GET /api/v1/summary >/dev/null
expect_eq "a single install stays suppressed in the public summary" "$(json 'j["total"]["suppressed"]')" True
admin "/api/v1/reports?limit=5" >/dev/null
expect_eq "the admin list carries the use case" "$(json 'j["reports"][0]["use_case"].strip()')" "$(cat "$T_TMP/uc")"
expect_eq "...and the answer to the reorganisation question" "$(json 'j["reports"][0]["reorganisation"]')" yes

# A second submission of the same report (say, after a lost answer) is no duplicate.
expect_eq "the same bytes again: 200, not stored twice" "$(post "$T_TMP/shown")" 200
expect_eq "still one row" "$(rows "$DB")" 1

# --- withdraw: DELETE with the token only the client has -------------------------
cfb withdraw --state-dir "$ST" "$id" > "$T_TMP/out" 2>&1
expect_eq "cgroup-feedback withdraw exits 0" "$?" 0
expect_eq "the report is gone from the collector" "$(admin "/api/v1/reports/$id")" 404
expect_eq "no rows left" "$(rows "$DB")" 0
expect_eq "a late copy of the withdrawn report is refused: 410" "$(post "$T_TMP/shown")" 410

# --- export + import: the offline path ------------------------------------------------
id2=$(new_report M3 102)
cfb export --yes --state-dir "$ST" --use-case-file "$T_TMP/uc" --output "$T_TMP/r.eml" "$id2" > /dev/null 2>&1
expect_eq "cgroup-feedback export exits 0" "$?" 0
out=$("$SERVER" --database "$(store_db "$DB")" import "$T_TMP/r.eml" 2>&1)
expect_eq "the exported e-mail imports into the live collector" "$(echo "$out" | tail -n 1)" \
	"import: 1 imported, 0 already stored, 0 withdrawn, 0 without a report, 0 failed"
cfb_native show --state-dir "$ST" --raw "$id2" > "$T_TMP/shown2"
stored_bytes "$id2" > "$T_TMP/stored2"
check "the imported report is the exported one, byte for byte" cmp -s "$T_TMP/shown2" "$T_TMP/stored2"
expect_eq "the same report over HTTP afterwards: 200 (deduplicated)" "$(post "$T_TMP/shown2")" 200
out=$("$SERVER" --database "$(store_db "$DB")" import "$T_TMP/r.eml" 2>&1)
expect_eq "importing it again: already stored" "$(echo "$out" | tail -n 1)" \
	"import: 0 imported, 1 already stored, 0 withdrawn, 0 without a report, 0 failed"
# A mailed report is withdrawn from the collector that imported it: the
# client kept its deletion token (issue 27).
cfb withdraw --state-dir "$ST" --endpoint "$EP" "$id2" > "$T_TMP/out" 2>&1
expect_eq "withdraw of the exported, imported report exits 0" "$?" 0
expect_eq "...its imported copy is gone from the collector" "$(admin "/api/v1/reports/$id2")" 404
check "...and the client says so" grep -q "sent by e-mail; the copy imported into" "$T_TMP/out"
# With no collector that answers the withdrawal is an e-mail too, which the
# maintainers' import carries out; a forged one (another token) is refused.
id5=$(new_report M3 105)
cfb_native export --yes --state-dir "$ST" --use-case-file "$T_TMP/uc" --output "$T_TMP/r5.eml" "$id5" > /dev/null 2>&1
"$SERVER_NATIVE" --database "$(store_db "$DB")" import "$T_TMP/r5.eml" > /dev/null 2>&1
expect_eq "another exported report imported" "$(admin "/api/v1/reports/$id5")" 200
cfb withdraw --state-dir "$ST" --endpoint http://127.0.0.1:1/api/v1/reports \
	--output "$T_TMP/w5.eml" "$id5" > "$T_TMP/out" 2>&1
expect_eq "withdraw with no collector answering exits 0" "$?" 0
check "...and says the withdrawal is an e-mail to send" grep -q "withdrawal is an e-mail too" "$T_TMP/out"
# One import (each costs a process start, slow under valgrind): a forged
# copy (another token) first, which fails, then the real one.
sed 's/^\(X-Cgroup-Feedback-Deletion-Token: \).*/\1forged/' "$T_TMP/w5.eml" > "$T_TMP/w5x.eml"
expect_eq "...imported after a forged copy: the forged one fails, the real one withdraws" \
	"$("$SERVER" --database "$(store_db "$DB")" import "$T_TMP/w5x.eml" "$T_TMP/w5.eml" 2>&1 | tail -n 1)" \
	"import: 0 imported, 0 already stored, 1 withdrawn, 0 without a report, 1 failed"
expect_eq "...the report is gone" "$(admin "/api/v1/reports/$id5")" 404
# --- one report, one way: exported, then a submit refused --------------------------
# Its id in the e-mail (archived in public under its sender's name) would
# find the collector's row, and that row's pseudonym every other report of
# the machine there (docs/PRIVACY.md); the maintainers' import of the
# e-mail stores it, as the only copy.
id4=$(new_report M8 104)
cfb export --yes --state-dir "$ST" --use-case-file "$T_TMP/uc" --answer software=libvirt \
	--output "$T_TMP/r4.eml" "$id4" > /dev/null 2>&1
expect_eq "export of a new report exits 0" "$?" 0
cfb submit --state-dir "$ST" --endpoint "$EP" --yes "$id4" > "$T_TMP/out" 2>&1
expect_eq "the same report submitted afterwards: refused (exit 2)" "$?" 2
check "...each report goes one way, said" grep -q "each report goes one way" "$T_TMP/out"
expect_eq "...the collector never saw it" "$(admin "/api/v1/reports/$id4")" 404
before=$(rows "$DB")
out=$("$SERVER" --database "$(store_db "$DB")" import "$T_TMP/r4.eml" 2>&1)
expect_eq "importing its e-mail stores it" "$(echo "$out" | tail -n 1)" \
	"import: 1 imported, 0 already stored, 0 withdrawn, 0 without a report, 0 failed"
expect_eq "...one row more" "$(rows "$DB")" "$((before + 1))"
# A different report under the same id is still a conflict, never merged.
python3 - "$T_TMP/r4.eml" "$T_TMP/r4x.eml" <<'PY'
import hashlib, re, sys
raw = open(sys.argv[1], encoding="utf-8").read()
begin, end = "-----BEGIN CGROUP-FEEDBACK REPORT-----\n", "\n-----END CGROUP-FEEDBACK REPORT-----"
i, j = raw.index(begin) + len(begin), raw.index(end)
body = raw[i:j].replace("\n", "")
body = body.replace('"software":"libvirt"', '"software":"lxc"', 1)
sha = hashlib.sha256(body.encode()).hexdigest()
lines = "\n".join(body[k:k + 76] for k in range(0, len(body), 76))
out = re.sub(r"X-Cgroup-Feedback-SHA256: [0-9a-f]{64}", "X-Cgroup-Feedback-SHA256: " + sha, raw[:i]) + lines + raw[j:]
open(sys.argv[2], "w", encoding="utf-8").write(out)
PY
out=$("$SERVER" --database "$(store_db "$DB")" import "$T_TMP/r4x.eml" 2>&1)
expect_eq "another report under the same id is not merged: it fails" "$(echo "$out" | tail -n 1)" \
	"import: 0 imported, 0 already stored, 0 withdrawn, 0 without a report, 1 failed"

admin /api/v1/export.mbox >/dev/null
check "the collector's mbox export carries the same report" python3 -c 'import mailbox, sys
box = mailbox.mbox(sys.argv[1])
sys.exit(sorted(m["X-Cgroup-Feedback-Report-Id"] for m in box) != sorted(sys.argv[2:]))' "$T_TMP/body" "$id4"

# --- a report the client wrote itself: its id is bound to its deletion token,
# and submit proves it with the token (issue 30, report-id squatting) --------------------
SB=$T_TMP/bound-state
echo "[    1.000000] Non-hierarchical mode is deprecated. Please report your usecase to linux-mm@kvack.org if you depend on this functionality." > "$T_TMP/m8.log"
cfb scan --report --state-dir "$SB" --mountinfo /dev/null "$T_TMP/m8.log" > "$T_TMP/out" 2>&1
idb=$(sed -n 's/^M8: report \([0-9a-f-]*\) written.*/\1/p' "$T_TMP/out")
cfb submit --state-dir "$SB" --endpoint "$EP" --yes --use-case-file "$T_TMP/uc" "$idb" \
	> "$T_TMP/out" 2>&1
expect_eq "submit of a report the client wrote: exit 0" "$?" 0
stored_bytes "$idb" > "$T_TMP/storedb"
check "...stored, its id bound to its deletion hash (checked by genreport.py's own code)" \
	python3 -c 'import json, sys; sys.path.insert(0, "tests/server"); import genreport
r = json.load(open(sys.argv[1]))
sys.exit(r["report_id"] != sys.argv[2] or
         genreport.bound_id(r["report_id"], r["deletion"]["token_sha256"]) != r["report_id"])' \
	"$T_TMP/storedb" "$idb"
expect_eq "...the same bytes without the token: 403 (the submit carried the proof)" \
	"$(post "$T_TMP/storedb")" 403
tokb=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["deletion_token"])' \
	"$SB/reports/$idb.state")
check "...and the client printed no token" sh -c '[ ${#1} = 64 ] && ! grep -rqF "$1" "$2" "$3"' _ \
	"$tokb" "$T_TMP/out" "$DIR/log"
# Mailed, a bound report takes its id back from a squatter's copy sent first.
echo "[    1.000000] soft_limit_in_bytes is deprecated and will be removed. Please report your usecase to linux-mm@kvack.org if you depend on this functionality." > "$T_TMP/m3.log"
cfb_native scan --report --state-dir "$SB" --mountinfo /dev/null "$T_TMP/m3.log" > "$T_TMP/out" 2>&1
idm=$(sed -n 's/^M3: report \([0-9a-f-]*\) written.*/\1/p' "$T_TMP/out")
cfb export --yes --state-dir "$SB" --use-case-file "$T_TMP/uc" --output "$T_TMP/rb.eml" "$idm" > /dev/null 2>&1
python3 "$GEN" --dir "$T_TMP/squat" --count 1 --seed 90 --id "$idm"
expect_eq "a squatter's copy under the mailed report's id, sent first: 201" \
	"$(post "$T_TMP/squat/0.json")" 201
out=$("$SERVER" --database "$(store_db "$DB")" import "$T_TMP/rb.eml" 2>&1)
expect_eq "...the mailed bound report imported over it" "$(echo "$out" | tail -n 1)" \
	"import: 1 imported, 0 already stored, 0 withdrawn, 0 without a report, 0 failed"
cfb_native show --state-dir "$SB" --raw "$idm" > "$T_TMP/shownm"
check "...the collector now holds the client's bytes" sh -c 'cmp -s "$1" "$2"' _ \
	"$(stored_bytes "$idm" > "$T_TMP/storedm"; echo "$T_TMP/storedm")" "$T_TMP/shownm"
stop_server

# --- HTTPS with a CA made now ------------------------------------------------------------
C=$T_TMP/pki
make_pki "$C"
SCHEME=https start_server e2e-tls --rate 0 --tls-cert "$C/server.pem" --tls-key "$C/server.key"
DB=$DIR/db.sqlite
id3=$(new_report M8 103)
cfb submit --state-dir "$ST" --endpoint "$URL/api/v1/reports" --yes --use-case-file "$T_TMP/uc" \
	"$id3" > "$T_TMP/out" 2>&1
check "without the CA the client refuses the collector's certificate" [ "$(rows "$DB")" = 0 ]
printf 'ca-file = %s\n' "$C/ca.pem" >> "$CONF"
cfb flush --state-dir "$ST" > "$T_TMP/out" 2>&1
cfb submit --state-dir "$ST" --endpoint "$URL/api/v1/reports" --yes --use-case-file "$T_TMP/uc" \
	"$id3" >> "$T_TMP/out" 2>&1
expect_eq "with ca-file the report is delivered over HTTPS" "$(rows "$DB")" 1
cfb_native show --state-dir "$ST" --raw "$id3" > "$T_TMP/shown3"
SCHEME=https
check "...byte for byte" sh -c 'curl -sS --cacert "$1" -H "Authorization: Bearer $2" \
	"$3/api/v1/reports/$4" | cmp -s - "$5"' _ "$C/ca.pem" "$ADMIN" "$URL" "$id3" "$T_TMP/shown3"
cfb withdraw --state-dir "$ST" "$id3" > "$T_TMP/out" 2>&1
expect_eq "withdraw over HTTPS" "$(rows "$DB")" 0
stop_server

finish
