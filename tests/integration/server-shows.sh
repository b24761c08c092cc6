#!/bin/sh
# What the collector shows (issue 30): use cases behind a burst of reports
# without one, text that attacks the reader (C1 controls, bidi controls)
# refused like ESC, created and consent times out of range refused, a
# 2,048-character answer whole in the digest and the mbox. Both stores.
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
	case $name in consent_null|created_feb*) continue ;; esac
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

stop_server
finish
