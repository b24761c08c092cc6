#!/bin/sh
# GET /api/v1/export.mbox streams: 100,000 reports come out in bounded memory
# (issue 15, "scale": 357k reports made a 1.3 GB response built whole, 1.3 GB
# peak RSS). The test prints the server's peak RSS (VmHWM) before and after
# and fails if the export grew it by more than EXPORT_RSS_BOUND_MB (64 MB; a
# page of 64 reports is what the export holds, plus MHD's 64 KB buffer).
# The rows: 500 reports posted over HTTP, then copied under new ids with
# SQLite directly while the server is stopped (the export reads bodies and
# dates only), so that the set-up takes seconds, not minutes.
. tests/lib.sh
. tests/server/lib.sh

N=${EXPORT_REPORTS:-100000}
BOUND=${EXPORT_RSS_BOUND_MB:-64}
# ASan keeps what is freed in a quarantine of up to 256 MB, so peak RSS says
# nothing there: the sanitizer build streams a tenth and checks the content.
case $BUILD in *san*) N=${EXPORT_REPORTS:-10000} BOUND= ;; esac
# Under valgrind the peak RSS is valgrind's shadow memory as much as the
# server's, and each report costs some 20 times the CPU: a tenth again,
# checked for content and for valgrind's errors and leaks.
under_valgrind && N=${EXPORT_REPORTS:-10000} BOUND=
R=$T_TMP/reports
gen "$R" 500 21 7
start_server big --rate 0 --summary-interval 3600 || { not_ok "server starts"; finish; exit 1; }
python3 tests/server/load.py 127.0.0.1 "$PORT" "$R" 0 500 4 "$T_TMP/ids" > /dev/null
expect_eq "500 reports posted" "$(wc -l < "$T_TMP/ids")" 500
stop_server
if [ "$STORE" = pg ]; then
	# The same copies in one statement (the SELECT reads the rows as they
	# were before it).
	cols="sha256, body, received_at, via, token_sha256, install, catalog_id, kernel_series,
	      distribution, cgroup_mode, software, verdict, reorganisation, month, use_case"
	sql "$DIR/db.sqlite" "insert into reports (id, $cols)
		select r.id || '-' || k, $(echo "$cols" | sed 's/\([a-z_][a-z_0-9]*\)/r.\1/g')
		from generate_series(1, $N / 500 + 1) k cross join reports r
		order by k, r.seq limit $N - (select count(*) from reports)" >/dev/null
else
python3 - "$DIR/db.sqlite" "$N" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = int(sys.argv[2])
cols = [r[1] for r in db.execute("pragma table_info(reports)") if r[1] not in ("seq", "id")]
have = db.execute("select count(*) from reports").fetchone()[0]
k = 0
while have < n:
    k += 1
    take = min(500, n - have)
    db.execute("insert into reports (id, %s) select id || '-%d', %s from reports where seq <= ? order by seq"
               % (", ".join(cols), k, ", ".join(cols)), (take,))
    have += take
db.commit()
PY
fi
expect_eq "$N rows in the database" "$(rows "$DIR/db.sqlite")" "$N"

start_server big --rate 0 --summary-interval 3600 || { not_ok "server restarts"; finish; exit 1; }
hwm() { sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$SPID/status"; }
before=$(hwm)
start=$(date +%s)
st=$(curl -sS -o "$T_TMP/export.mbox" -w '%{http_code}' --max-time 150 \
	-H "Authorization: Bearer $ADMIN" "$URL/api/v1/export.mbox")
took=$(($(date +%s) - start))
after=$(hwm)
grew=$(((after - before) / 1024))
echo "# export of $N reports: $(($(stat -c %s "$T_TMP/export.mbox") / 1048576)) MB in ${took} s;" \
	"server peak RSS (VmHWM) $((before / 1024)) MB before, $((after / 1024)) MB after (+$grew MB)"
expect_eq "export.mbox: 200" "$st" 200
if [ -n "$BOUND" ]; then
	check "the export grew the server's peak RSS by at most $BOUND MB (+$grew MB)" [ "$grew" -le "$BOUND" ]
else
	skip "peak RSS bound" "ASan's quarantine or valgrind's shadow memory holds it"
fi
expect_eq "the mbox holds $N messages" "$(grep -c '^From cgroup-feedback@localhost ' "$T_TMP/export.mbox")" "$N"
expect_eq "and $N reports" "$(grep -c '^-----END CGROUP-FEEDBACK REPORT-----$' "$T_TMP/export.mbox")" "$N"
check "each of the 500 reports is in it once per copy (the mail's id is the body's)" python3 -c '
import collections, sys
c = collections.Counter(l.split(None, 1)[1].strip() for l in open(sys.argv[1], encoding="utf-8")
                        if l.startswith("X-Cgroup-Feedback-Report-Id:"))
posted = open(sys.argv[2]).read().split()
n = int(sys.argv[3])
sys.exit(set(c) != set(posted) or sum(c.values()) != n or max(c.values()) - min(c.values()) > 1)' \
	"$T_TMP/export.mbox" "$T_TMP/ids" "$N"
rm -f "$T_TMP/export.mbox"
check "the server still answers" [ "$(req GET /api/v1/summary)" = 200 ]

# --- the admin list over the largest reports (issue 30) ------------------------------------
# The newest 500 rows made as large as a report gets where the list shows
# it: 32 answers of 2,048 three-byte characters, under a catalog id the
# catalog does not know (so every answer is shown), 217 KB a body. A page
# of 500 of them peaked at 411 MB; the list now holds 8 MiB of stored
# reports an answer (next_cursor for the rest), 32 rows read at a time.
stop_server
if [ "$STORE" = pg ]; then
	sql "$DIR/db.sqlite" "update reports set catalog_id = 'X0', body = convert_to(
		'{\"use_case\":{\"text\":\"' || repeat('€', 8192) || '\",\"answers\":{' ||
		(select string_agg('\"q' || i || '\":\"' || repeat('€', 2048) || '\"', ',')
		 from generate_series(1, 32) i) || '}}}', 'UTF8')
		where seq > (select max(seq) - 500 from reports)" > /dev/null
else
	python3 - "$DIR/db.sqlite" <<'PY'
import json, sqlite3, sys
body = json.dumps({"use_case": {"text": "€" * 8192,
                                "answers": {"q%d" % i: "€" * 2048 for i in range(32)}}},
                  ensure_ascii=False).encode()
db = sqlite3.connect(sys.argv[1])
db.execute("update reports set catalog_id = 'X0', body = ? where seq > (select max(seq) - 500 "
           "from reports)", (body,))
db.commit()
PY
fi
start_server big --rate 0 --summary-interval 3600 || { not_ok "server restarts"; finish; exit 1; }
before=$(hwm)
st=$(admin '/api/v1/reports?limit=500')
after=$(hwm)
grew=$(((after - before) / 1024))
n=$(json 'len(j["reports"])')
echo "# the list of the largest reports: $n items, $(($(stat -c %s "$T_TMP/body") / 1048576)) MB;" \
	"server peak RSS (VmHWM) $((before / 1024)) MB before, $((after / 1024)) MB after (+$grew MB)"
expect_eq "GET /api/v1/reports?limit=500 over the largest reports: 200" "$st" 200
check "...fewer than 500 items ($n), each with its 32 answers, and a next_cursor" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
r = j["reports"]
sys.exit(not (0 < len(r) < 500 and j["next_cursor"] and all(len(x["answers"]) == 32 for x in r)))' \
	"$T_TMP/body"
if [ -n "$BOUND" ]; then
	check "...which grew the server's peak RSS by at most $BOUND MB (+$grew MB)" [ "$grew" -le "$BOUND" ]
else
	skip "peak RSS bound of the list" "ASan's quarantine or valgrind's shadow memory holds it"
fi
finish
