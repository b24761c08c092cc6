#!/bin/sh
# cgroup-feedback-server migrate --from SQLITE --to POSTGRESQL (issue 17):
# a SQLite collector of MIGRATE_REPORTS reports (100,000: 500 posted over
# HTTP, one of them withdrawn, the rest copies made with SQLite directly as
# in server-export.sh) moved to a real PostgreSQL started by the test.
# Checked independently of the command's own verification: every row's
# columns and order, the SHA-256 of every body computed by each database,
# and a collector on the destination that serves the migrated reports,
# answers a resent one with its original receipt, deletes one with the
# token its sender kept, and refuses a withdrawn one. Then the same 499
# reports on either store give the same answers: the list (filtered, and
# page by page), the digest, the export byte for byte, the summary.
CGFB_TEST_STORE=pg
. tests/lib.sh
. tests/server/lib.sh

N=${MIGRATE_REPORTS:-100000}
case $BUILD in *san*) N=${MIGRATE_REPORTS:-10000} ;; esac
# Under valgrind the 100,000 go through the program itself (twenty times
# faster); valgrind checks the same code on the 499-report store at the end.
MIGRATE=$SERVER
under_valgrind && MIGRATE=$PWD/$BUILD/cgroup-feedback-server
R=$T_TMP/reports
# Every 50th a finding of cgroup-feedback check: its origin comes along.
python3 "$GEN" --dir "$R" --count 500 --seed 31 --systems 9 --from-check 50
SRC=$T_TMP/src.sqlite

# --- the source: a SQLite collector ------------------------------------------------------------
# on_sqlite COMMAND...: COMMAND with the helpers of tests/server/lib.sh on SQLite.
on_sqlite() { _was=$STORE; STORE=sqlite; "$@"; _rc=$?; STORE=$_was; return $_rc; }
on_sqlite start_server src --rate 0 --summary-interval 3600 || { not_ok "server starts"; finish; exit 1; }
python3 tests/server/load.py 127.0.0.1 "$PORT" "$R" 0 500 4 "$T_TMP/ids" > /dev/null
expect_eq "500 reports posted to the SQLite collector" "$(wc -l < "$T_TMP/ids")" 500
id3=$(sed -n 's/^3\t\([^\t]*\).*/\1/p' "$R/index.tsv")
id4=$(sed -n 's/^4\t\([^\t]*\).*/\1/p' "$R/index.tsv")
expect_eq "one withdrawn" "$(req DELETE "/api/v1/reports/$id3" -H "X-Deletion-Token: $(cat "$R/3.token")")" 200
stop_server
cp "$DIR/db.sqlite" "$SRC"
cp "$DIR/db.sqlite" "$T_TMP/small.sqlite"
on_sqlite sql "$SRC" "insert into reports (id, sha256, body, received_at, via, token_sha256,
	install, catalog_id, kernel_series, distribution, cgroup_mode, software, verdict,
	reorganisation, month, use_case, origin)
	select r.id || '-' || k.value, sha256, body, received_at, 'mail', token_sha256, install,
	catalog_id, kernel_series, distribution, cgroup_mode, software, verdict, reorganisation,
	month, use_case, origin
	from (with recursive c(value) as (select 1 union all select value + 1 from c
	      where value < $N / 499 + 1) select value from c) k cross join reports r
	order by k.value, r.seq limit $N - (select count(*) from reports)" > /dev/null
expect_eq "$N reports in the source" "$(on_sqlite rows "$SRC")" "$N"
expect_eq "...findings of check among them" \
	"$(on_sqlite sql "$SRC" "select count(*) > 0 from reports where origin = 'check'")" 1

# --- migrate ----------------------------------------------------------------------------------------
DST=$(store_db "$T_TMP/dst.sqlite")
start=$(date +%s)
"$MIGRATE" migrate --from "$SRC" --to "$DST" > "$T_TMP/out" 2> "$T_TMP/err"
expect_eq "migrate exits 0" "$?" 0
echo "# migrate of $N reports: $(($(date +%s) - start)) s"
expect_eq "...and counts what it copied and verified" "$(cat "$T_TMP/out")" \
	"migrate: $N reports: $N copied, 0 already there, 0 conflicting; 1 withdrawn ids; $N verified (bytes, hash, receipt), 0 not"
expect_eq "without PGPASSFILE (the URI has no password): refused, exit 2" \
	"$(PGPASSFILE=/nonexistent "$SERVER" migrate --from "$SRC" --to "$DST" 2>/dev/null; echo $?)" 2

# Independent checks: each database says what it holds.
COLS="id, sha256, received_at, via, coalesce(token_sha256, 'NULL'), install, catalog_id,
	kernel_series, distribution, cgroup_mode, software, verdict, reorganisation, month,
	coalesce(use_case, 'NULL'), origin"
on_sqlite sql "$SRC" "select $COLS from reports order by seq" > "$T_TMP/src.rows"
sql "$T_TMP/dst.sqlite" "select $COLS from reports order by seq" > "$T_TMP/dst.rows"
check "every row, every column, in the same order" cmp -s "$T_TMP/src.rows" "$T_TMP/dst.rows"
expect_eq "...$N of them" "$(rows "$T_TMP/dst.sqlite")" "$N"
on_sqlite bodies "$SRC" > "$T_TMP/src.bodies"
bodies "$T_TMP/dst.sqlite" > "$T_TMP/dst.bodies"
check "the SHA-256 of every body, computed by each database, is the same" \
	cmp -s "$T_TMP/src.bodies" "$T_TMP/dst.bodies"
check "...and is the hash recorded in its receipt" \
	sh -c '! awk -F"|" "\$2 != \$3" "$1" | grep -q .' _ "$T_TMP/dst.bodies"
expect_eq "the withdrawn id came along, with the hash of the token it was withdrawn with" \
	"$(sql "$T_TMP/dst.sqlite" "select token_sha256 from withdrawn where id = '$id3'")" \
	"$(sha256sum < "$R/3.token" | cut -c1-64)"

# Run again: nothing new, all verified.
"$MIGRATE" migrate --from "$SRC" --to "$DST" > "$T_TMP/out" 2> "$T_TMP/err"
expect_eq "migrate again: exit 0, nothing copied twice" "$?:$(cat "$T_TMP/out")" \
	"0:migrate: $N reports: 0 copied, $N already there, 0 conflicting; 1 withdrawn ids; $N verified (bytes, hash, receipt), 0 not"
expect_eq "...still $N rows" "$(rows "$T_TMP/dst.sqlite")" "$N"

expect_eq "--to must be PostgreSQL: exit 2" \
	"$("$SERVER" migrate --from "$SRC" --to "$T_TMP/x.sqlite" 2>/dev/null; echo $?)" 2

# --- a collector on the destination serves the migrated reports ----------------------------------
SERVER_STORE=$T_TMP/dst.sqlite
start_server dst --rate 0 || { not_ok "server starts on the destination"; finish; exit 1; }
expect_eq "GET a migrated report: 200" "$(admin "/api/v1/reports/$id4")" 200
check "...the bytes that were sent" cmp -s "$T_TMP/body" "$R/4.json"
want=$(on_sqlite sql "$SRC" "select received_at from reports where id = '$id4'")
expect_eq "the same report sent again: 200" "$(post "$R/4.json")" 200
expect_eq "...with its original receipt" "$(json 'j["received_at"]')" "$want"
expect_eq "DELETE with the token its sender kept: 200" \
	"$(req DELETE "/api/v1/reports/$id4" -H "X-Deletion-Token: $(cat "$R/4.token")")" 200
expect_eq "a report withdrawn before the migration: 410" "$(post "$R/3.json")" 410
stop_server
expect_eq "SIGTERM: clean exit" "$?" 0

# --- the same reports, the same answers from either store --------------------------------------
# The 499-report store migrated (the program under test, valgrind's when it
# runs), then a collector on each: every read of the API must agree.
"$SERVER" migrate --from "$T_TMP/small.sqlite" --to "$(store_db "$T_TMP/small_dst.sqlite")" \
	> "$T_TMP/out" 2> "$T_TMP/err"
expect_eq "the 499-report store migrated: exit 0, all verified" "$?:$(cat "$T_TMP/out")" \
	"0:migrate: 499 reports: 499 copied, 0 already there, 0 conflicting; 1 withdrawn ids; 499 verified (bytes, hash, receipt), 0 not"
# A damaged copy is found by the verification (the same code as over the
# 100,000, on this store: 13 s less of the script).
idd=$(on_sqlite sql "$T_TMP/small.sqlite" "select id from reports order by seq limit 1 offset 5")
sql "$T_TMP/small_dst.sqlite" "update reports set body = body || '\\x20'::bytea where id = '$idd'"
"$SERVER" migrate --from "$T_TMP/small.sqlite" --to "$(store_db "$T_TMP/small_dst.sqlite")" \
	> "$T_TMP/out" 2> "$T_TMP/err"
expect_eq "a body changed in the destination: exit 1" "$?" 1
check "...naming the report" grep -q "report $idd: not the same in the destination" "$T_TMP/err"
sql "$T_TMP/small_dst.sqlite" "update reports set body = substring(body from 1 for length(body) - 1) where id = '$idd'"
SERVER_STORE=
on_sqlite start_server same_sqlite --rate 0 --read-rate 0 --database "$T_TMP/small.sqlite" ||
	{ not_ok "server starts on SQLite"; finish; exit 1; }
SQ=$URL
SERVER_STORE=$T_TMP/small_dst.sqlite
start_server same_pg --rate 0 --read-rate 0 || { not_ok "server starts on PostgreSQL"; finish; exit 1; }
PGU=$URL
# both PATH FILTER: GET PATH (admin) from each; FILTER (a Python expression
# over the body as text t) of each answer must be equal and not empty.
both() {
	URL=$SQ; _a=$(admin "$1"); cp "$T_TMP/body" "$T_TMP/both.sqlite"
	URL=$PGU; _b=$(admin "$1"); cp "$T_TMP/body" "$T_TMP/both.pg"
	python3 -c 'import json, sys
def f(path):
    t = open(path, encoding="utf-8").read()
    return eval(sys.argv[1])
a, b = f(sys.argv[2]), f(sys.argv[3])
sys.exit(not a or a != b)' "$2" "$T_TMP/both.sqlite" "$T_TMP/both.pg" && [ "$_a:$_b" = 200:200 ]
}
no_cursor='json.dumps(dict(json.loads(t), next_cursor=None), sort_keys=True) if json.loads(t)["reports"] else ""'
check "the list, newest first, is the same" both '/api/v1/reports?limit=500' "$no_cursor"
cat1=$(sed -n 's/^10\t[^\t]*\t[^\t]*\t\([^\t]*\).*/\1/p' "$R/index.tsv")
check "...filtered by catalog id ($cat1)" both "/api/v1/reports?limit=500&catalog_id=$cat1" "$no_cursor"
# A kernel series and a distribution ("debian 12") as the store has them.
ks=$(on_sqlite sql "$T_TMP/small.sqlite" "select kernel_series from reports where seq = 10")
di=$(on_sqlite sql "$T_TMP/small.sqlite" "select distribution from reports where seq = 10")
check "...filtered by kernel series and distribution ($ks, $di)" \
	both "/api/v1/reports?limit=500&kernel_series=$ks&distribution=$(echo "$di" | sed 's/ /%20/g')" "$no_cursor"
since=$(on_sqlite sql "$T_TMP/small.sqlite" "select received_at from reports order by seq limit 1 offset 200")
check "...received since the 201st report" both "/api/v1/reports?limit=500&since=$since" "$no_cursor"
walk='" ".join(r["id"] for r in json.loads(t)["reports"])'
# One Python per store walks the pages (a curl and a Python per page took
# 40 s of the script's time for the 2 x 72 pages).
pages() {
	python3 -c 'import json, sys, urllib.request
base, token, ids, cursor = sys.argv[1], sys.argv[2], [], ""
while True:
    url = base + "/api/v1/reports?limit=7" + ("&cursor=" + cursor if cursor else "")
    req = urllib.request.Request(url, headers={"Authorization": "Bearer " + token})
    j = json.load(urllib.request.urlopen(req, timeout=20))
    ids += [r["id"] for r in j["reports"]]
    cursor = j["next_cursor"] or ""
    if not cursor:
        break
print(" ".join(ids))' "$1" "$ADMIN"
}
pages_equal() {
	pages "$SQ" > "$T_TMP/pages.sqlite" && pages "$PGU" > "$T_TMP/pages.pg" &&
		cmp -s "$T_TMP/pages.sqlite" "$T_TMP/pages.pg" && [ "$(wc -w < "$T_TMP/pages.sqlite")" = 499 ]
}
check "pages of 7 by cursor: the same 499 ids in the same order" pages_equal
check "the digest is the same text" both '/api/v1/digest?days=30' 't'
check "the export is the same mbox, byte for byte" both '/api/v1/export.mbox' 't'
for side in "$SQ" "$PGU"; do
	URL=$side
	fresh_summary > /dev/null
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1])); j.pop("computed")
print(json.dumps(j, sort_keys=True))' "$T_TMP/body" > "$T_TMP/summary.$(echo "$side" | tr -dc 0-9)"
done
check "the public summary is the same" sh -c 'cmp -s "$1" "$2" && grep -q "\"reports\": 499" "$1"' _ \
	"$T_TMP/summary.$(echo "$SQ" | tr -dc 0-9)" "$T_TMP/summary.$(echo "$PGU" | tr -dc 0-9)"

finish
