#!/bin/sh
# What the collector shows (issue 30): use cases behind a burst of reports
# without one, text that attacks the reader (C1 controls, bidi controls)
# refused like ESC, created and consent times out of range refused, a
# 2,048-character answer whole in the digest and the mbox. Findings of
# cgroup-feedback check --report (issue 25) counted apart from the kernel's
# warnings in the summary and the digest, and a database of schema 1
# migrated (its reports are the kernel's). Both stores.
. tests/lib.sh
. tests/server/lib.sh

R=$T_TMP/reports
V=$T_TMP/shows
gen "$R" 1 30
python3 tests/server/shows.py "$R/0.json" "$V"
start_server a --rate 0 || { not_ok "server starts"; finish; exit 1; }
DB=$DIR/db.sqlite

# --- what the schema refuses, with the field named, nothing stored -------------------
while IFS='	' read -r name field; do
	st=$(post "$V/$name.json")
	got=$(json 'j.get("field", "")' 2>/dev/null)
	if [ "$st" = 400 ] && [ "$got" = "$field" ]; then ok "refused: $name ($field)"
	else not_ok "refused: $name: status $st field '$got', want 400 $field"; fi
done < "$V/refused.tsv"
expect_eq "refused reports stored nothing" "$(rows "$DB")" 0
for name in created_leap created_eoy; do
	expect_eq "accepted: $name" "$(post "$V/$name.json")" 201
done

# --- use cases behind a burst without one ---------------------------------------------
bad=0
for f in uc-0 uc-1 uc-2 long unknown-0 unknown-1 unknown-2 unknown-3 unknown-4 unknown-5; do
	[ "$(post "$V/$f.json")" = 201 ] || bad=$((bad + 1))
done
i=0
while [ $i -lt 55 ]; do
	[ "$(post "$V/plain-$i.json")" = 201 ] || bad=$((bad + 1))
	i=$((i + 1))
done
expect_eq "65 reports stored, 55 of the newest without a use case" "$bad" 0
expect_eq "GET /api/v1/digest: 200" "$(admin /api/v1/digest)" 200
cp "$T_TMP/body" "$T_TMP/digest.txt"
for n in 0 1 2; do
	check "the digest lists use case $n behind 55 reports without one" \
		grep -q "visible use case $n" "$T_TMP/digest.txt"
done
expect_eq "the digest lists every use case of the period, no more" \
	"$(grep -c '^- [A-Za-z0-9]* (report ' "$T_TMP/digest.txt")" 4
st=$(admin '/api/v1/reports?use_case=1&limit=2')
expect_eq "GET /api/v1/reports?use_case=1: 200" "$st" 200
expect_eq "...the newest two with a use case, and a cursor" \
	"$(json '" ".join(str(r["use_case"] is not None) for r in j["reports"]) + " " + str(j["next_cursor"] is not None)')" \
	"True True True"
admin "/api/v1/reports?use_case=1&limit=20&cursor=$(json 'j["next_cursor"]')" >/dev/null
expect_eq "...the next page: the other two" \
	"$(json '" ".join(r["use_case"][:18] for r in j["reports"] if r["use_case"]) + " " + str(j["next_cursor"])')" \
	"visible use case 1 visible use case 0 None"
expect_eq "use_case=2: 400" "$(admin '/api/v1/reports?use_case=2')" 400
check "the dashboard asks for reports with a use case" \
	sh -c 'curl -sS "$1/app.js" | grep -q "use_case=1"' _ "$URL"

# --- a 2,048-character answer of multibyte characters ---------------------------------
check "digest: valid UTF-8, the long answer and use case whole" python3 -c '
import sys
t = open(sys.argv[1], "rb").read().decode("utf-8")
sys.exit(t.count("\u20ac") != 2 * 2047 or "\ufffd" in t)' "$T_TMP/digest.txt"
expect_eq "GET /api/v1/export.mbox: 200" "$(admin /api/v1/export.mbox)" 200
check "mbox: valid UTF-8, the long answer and use case whole" python3 -c '
import mailbox, sys
n = 0
for m in mailbox.mbox(sys.argv[1]):
    t = m.get_payload(decode=True).decode("utf-8")
    n += t.count("\u20ac")
# the text as wrapped, and the report itself
sys.exit(n != 4 * 2047)' "$T_TMP/body"

# --- findings of cgroup-feedback check: counted apart from the kernel's warnings ------
bad=0
for f in check-0 check-1 check-2 check-3 check-4 check-5 check-m3; do
	[ "$(post "$V/$f.json")" = 201 ] || bad=$((bad + 1))
done
expect_eq "7 findings of check stored" "$bad" 0
expect_eq "...their origin recorded at ingest" \
	"$(sql "$DB" "select origin || ':' || count(*) from reports group by origin order by origin" | tr '\n' ' ')" \
	"check:7 kernel:67 "
expect_eq "GET /api/v1/summary: 200" "$(fresh_summary)" 200
cp "$T_TMP/body" "$T_TMP/summary.json"
expect_eq "summary: check_catalog_id counts V1 from 6 installs, M3's single one suppressed" \
	"$(json 'j["dimensions"]["check_catalog_id"]')" \
	"{'groups': [{'key': 'V1', 'reports': 6, 'installs': 6}], 'suppressed_groups': 1}"
expect_eq "...catalog_id the kernel's warnings only, and no catalog id the collector does not know" \
	"$(json '[g["key"] for g in j["dimensions"]["catalog_id"]["groups"]]')" "[]"
check "...nor the made-up software name of 6 forged installs" \
	sh -c '! grep -q "Zz9\|Buy-pills" "$1"' _ "$T_TMP/summary.json"
expect_eq "...the total says how many are check's" "$(json 'j["total"]')" \
	"{'reports': 74, 'installs': 14, 'suppressed': False, 'check': {'reports': 7, 'installs': 7, 'suppressed': False}}"
check "...and agrees with a recomputation from the reports" python3 tests/server/expect_summary.py \
	"$T_TMP/summary.json" "$V"/created_leap.json "$V"/created_eoy.json "$V"/uc-?.json \
	"$V"/long.json "$V"/unknown-?.json "$V"/plain-*.json "$V"/check-?.json "$V"/check-m3.json
expect_eq "GET /api/v1/digest: 200" "$(admin /api/v1/digest)" 200
cp "$T_TMP/body" "$T_TMP/digest.txt"
# section NAME: the digest's paragraph that starts with a line starting NAME.
section() {
	python3 -c 'import sys
for p in open(sys.argv[1], encoding="utf-8").read().split("\n\n"):
    if p.startswith(sys.argv[2]):
        print(p)' "$T_TMP/digest.txt" "$1"
}
expect_eq "digest: check's findings in a section of their own, with titles" "$(section Found)" \
"Found by cgroup-feedback check before an upgrade
(not printed by the kernel)
  6      reports,    6 installs: V1 - A cgroup v1 cpuset knob is
  deprecated
  and 1 smaller group not shown"
section "By kernel message" > "$T_TMP/kernel.txt"
check "...not among the kernel's messages" sh -c '! grep -q "V1\|M3" "$1"' _ "$T_TMP/kernel.txt"
check "the digest names no unknown catalog id or software" \
	sh -c '! grep -q "Zz9\|Buy-pills" "$1"' _ "$T_TMP/digest.txt"
check "...the total says how many" grep -qx "7 of them from at least 7 installs were found by" \
	"$T_TMP/digest.txt"
check "...every line within 72 columns" python3 -c 'import sys
sys.exit(any(len(l) > 72 for l in open(sys.argv[1], encoding="utf-8").read().split("\n")))' \
	"$T_TMP/digest.txt"
stop_server

# --- a database of schema version 1 (before the origin column, the
# withdrawal's token hash and the summary's counts) is migrated ------------------------
if [ "$STORE" = pg ]; then
	sql "$DB" "drop trigger reports_tally on reports; drop function cgfb_tally(); drop table tally_delta, tally, tally_groups, secrets; alter table reports drop column origin; alter table withdrawn drop column token_sha256; update cgfb_schema set version = 1"
else
	python3 -c 'import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for t in ("trigger reports_tally_in", "trigger reports_tally_out", "table tally_delta", "table tally", "table tally_groups", "table secrets"):
    db.execute("drop " + t)
db.execute("alter table reports drop column origin")
db.execute("alter table withdrawn drop column token_sha256"); db.execute("pragma user_version = 1")
db.commit()' "$DB"
fi
# Restarted with noise on, an epsilon so large that the noise is 0: the
# numbers are then the capped counts of both stores' group-bys, each
# install's reports counted at most 3 times (test_srv_summary has the noise).
start_server a --rate 0 --summary-epsilon 1000 || { not_ok "server starts on schema 1"; finish; exit 1; }
check "schema 1 migrated to 2" grep -q "database schema migrated to version 2" "$DIR/log"
check "...and to 3" grep -q "database schema migrated to version 3" "$DIR/log"
check "...and to 4" grep -q "database schema migrated to version 4" "$DIR/log"
check "...and to 5" grep -q "database schema migrated to version 5" "$DIR/log"
if [ "$STORE" = pg ]; then
	expect_eq "...recorded (cgfb_schema)" "$(sql "$DB" "select version from cgfb_schema")" 5
else
	expect_eq "...recorded (user_version)" "$(sql "$DB" "pragma user_version")" 5
fi
# Migration 4 logs the stored reports as deltas; the fold at start counts
# them, so the summary below (all reports) comes from the counts.
expect_eq "...its reports counted at start: no delta left, 74 in the counts" \
	"$(sql "$DB" "select (select count(*) from tally_delta) || ':' || (select reports from tally_groups where dim = 9)")" "0:74"
expect_eq "...its 74 reports are the kernel's" \
	"$(sql "$DB" "select origin || ':' || count(*) from reports group by origin")" "kernel:74"
expect_eq "a finding of check sent now: 201" "$(post "$V/check-late.json")" 201
expect_eq "...stored as check's" \
	"$(sql "$DB" "select origin from reports where id = '$(json 'j["id"]')'")" check
expect_eq "with noise on: GET /api/v1/summary: 200" "$(fresh_summary)" 200
check "...it states its epsilon, counts each install's reports at most 3 times, no unknown key" python3 -c '
import collections, json, sys
j = json.load(open(sys.argv[1]))
per = collections.Counter(json.load(open(f))["consent"]["install"] for f in sys.argv[2:])
want = {"reports": sum(min(n, 3) for n in per.values()), "installs": len(per)}
got = {k: j["total"][k] for k in want}
print("# total", got, "want", want)
sys.exit(not (j["epsilon"] == 1000 and got == want and sum(per.values()) > want["reports"]
              and "Zz9" not in json.dumps(j) and "Buy-pills" not in json.dumps(j)))' "$T_TMP/body" \
	"$V"/created_leap.json "$V"/created_eoy.json "$V"/uc-?.json "$V"/long.json "$V"/unknown-?.json \
	"$V"/plain-*.json "$V"/check-?.json "$V"/check-m3.json "$V"/check-late.json
stop_server

# --- the noise is the store's: an unchanged store, summed up again by a new
# process (a restart, or another collector on the same PostgreSQL), gives
# the same numbers; a key per process gave draws an observer averages. On
# PostgreSQL the shared copy is removed so that the new one recomputes.
no_computed() { python3 -c 'import json, sys
j = json.load(open(sys.argv[1])); j.pop("computed"); print(json.dumps(j, sort_keys=True))' "$T_TMP/body"; }
for n in 1 2; do
	[ "$STORE" = pg ] && sql "$DB" "delete from summary_snapshot" > /dev/null
	start_server a --rate 0 --summary-epsilon 0.5 || { not_ok "server starts ($n)"; finish; exit 1; }
	fresh_summary > /dev/null
	no_computed > "$T_TMP/noisy.$n"
	stop_server
done
check "an unchanged store, noise on: the same numbers from a new process" \
	sh -c 'test -s "$1" && cmp -s "$1" "$2"' _ "$T_TMP/noisy.1" "$T_TMP/noisy.2"
finish
