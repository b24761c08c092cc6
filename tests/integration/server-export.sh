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

# --- digests and exports at once over the largest reports (issue 41) -----------------------
# The newest 200 rows made as large as a report gets (a posted report with
# a use case of 2,000 and 29 answers of 2,048 four-byte characters, 250 KB),
# under a catalog id the catalog does not know (every answer printed), the
# only use cases of the period (the others' taken away). Each
# digest was built whole (1,000 such reports: 265 MB each, two at once over
# the packaged unit's MemoryMax=512M) and each export held a page of 64
# mails (+105 MB: quoted-printable makes each character 12 bytes). Now
# every large answer streams through a fixed buffer (api/pager.h) and at
# most API_HEAVY_MAX (2) heavy requests run at once, the others a 503 with
# Retry-After. 200 reports keep it to seconds and still take the old code
# far past the bound (two digests of 54 MB and two pages of 64 mails).
# Native build only: peak RSS means nothing under ASan or valgrind.
if [ -n "$BOUND" ]; then
stop_server
python3 - "$R/0.json" "$T_TMP/large.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["use_case"] = {"text": "\U0001F600" * 2000,
                 "answers": {"q%d" % i: "\U0001F600" * 2048 for i in range(10, 39)}}
b = json.dumps(r, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
assert len(b) <= 262144, len(b)
open(sys.argv[2], "wb").write(b)
PY
if [ "$STORE" = pg ]; then
	# The body through a psql variable: 250 KB is more than one argument
	# of a command may be (MAX_ARG_STRLEN, 128 KiB).
	{ printf '\\set body `cat %s`\n' "$T_TMP/large.json"
	  echo "update reports set catalog_id = 'X1', use_case = repeat('😀', 2000),
		body = convert_to(:'body', 'UTF8') where seq > (select max(seq) - 200 from reports);
		update reports set use_case = null where catalog_id != 'X1';"
	} | "$PG_BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -d "$(pg_uri "$(pg_dbname "$DIR/db.sqlite")")" \
		> /dev/null
else
	python3 - "$DIR/db.sqlite" "$T_TMP/large.json" <<'PY'
import sqlite3, sys
body = open(sys.argv[2], "rb").read()
db = sqlite3.connect(sys.argv[1])
db.execute("update reports set catalog_id = 'X1', use_case = ?, body = ? where seq > "
           "(select max(seq) - 200 from reports)", ("\U0001F600" * 2000, body))
db.execute("update reports set use_case = null where catalog_id != 'X1'")
db.commit()
PY
fi
start_server big --rate 0 --read-rate 0 --summary-interval 3600 || { not_ok "server restarts"; finish; exit 1; }
before=$(hwm)
start=$(date +%s)
pids=
for k in 1 2; do
	curl -sS -o "$T_TMP/digest$k" -D "$T_TMP/dh$k" -w '%{http_code}\n' --max-time 60 \
		-H "Authorization: Bearer $ADMIN" "$URL/api/v1/digest?days=1" > "$T_TMP/dst$k" &
	pids="$pids $!"
done
# Exports read for their first 20 MB and hang up: the whole of 100,000
# reports would be minutes, and a page of 64 mails of old is made before
# the first byte.
for k in 1 2; do
	(curl -sS -N -D "$T_TMP/xh$k" --max-time 60 -H "Authorization: Bearer $ADMIN" \
		"$URL/api/v1/export.mbox" 2>/dev/null | head -c 20000000 > /dev/null) &
	pids="$pids $!"
done
# shellcheck disable=SC2086
wait $pids
took=$(($(date +%s) - start))
after=$(hwm)
grew=$(((after - before) / 1024))
st=$(cat "$T_TMP/dst1" "$T_TMP/dst2" | tr '\n' ' ')
xs=$(sed -s -n '1s/^HTTP\/[0-9.]* \([0-9]*\).*/\1/p' "$T_TMP/xh1" "$T_TMP/xh2" | tr '\n' ' ')
echo "# two digests ($st) and two exports ($xs) at once over 200 reports of 250 KB in ${took} s;" \
	"server peak RSS (VmHWM) $((before / 1024)) MB before, $((after / 1024)) MB after (+$grew MB)"
check "...which grew the server's peak RSS by at most $BOUND MB (+$grew MB)" [ "$grew" -le "$BOUND" ]
n200=$(echo "$st $xs" | tr ' ' '\n' | grep -c '^200$')
n503=$(echo "$st $xs" | tr ' ' '\n' | grep -c '^503$')
check "...each answered 200 or 503, at least one 200 ($st$xs)" \
	sh -c '[ "$1" -eq 4 ] && [ "$2" -ge 1 ]' _ $((n200 + n503)) "$n200"
check "...each 503 says when to retry" sh -c 'for f; do
	grep -q "^HTTP/[0-9.]* 503" "$f" || continue; grep -qi "^Retry-After: 5" "$f" || exit 1; done' _ \
	"$T_TMP/dh1" "$T_TMP/dh2" "$T_TMP/xh1" "$T_TMP/xh2"
for k in 1 2; do
	[ "$(cat "$T_TMP/dst$k")" = 200 ] || continue
	check "...digest $k streamed whole: the 200 large use cases, each with its 29 answers" python3 -c '
import sys
t = open(sys.argv[1], encoding="utf-8").read()
sys.exit(not (t.count("- X1 (report ") == 200 and t.count("\n    q10:") == 200 and t.count("\n    q38:") == 200))' \
		"$T_TMP/digest$k"
	rm -f "$T_TMP/digest$k"
done
# The bound itself: two digests read slowly hold both slots; a third heavy
# request is a 503 at once, and once they hang up an export is a 200 again.
for k in 1 2; do
	curl -sS -o "$T_TMP/slow$k" --limit-rate 64k --max-time 60 \
		-H "Authorization: Bearer $ADMIN" "$URL/api/v1/digest?days=1" 2>/dev/null &
	eval "slow$k=\$!"
done
i=0
while { [ ! -s "$T_TMP/slow1" ] || [ ! -s "$T_TMP/slow2" ]; } && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
st=$(admin /api/v1/export.mbox)
expect_eq "a third heavy request while two run: 503" "$st" 503
check "...with Retry-After" grep -qi '^Retry-After: 5' "$T_TMP/headers"
kill "$slow1" "$slow2" 2>/dev/null
wait "$slow1" "$slow2" 2>/dev/null
# One byte of an export is enough to see its status.
heavy_ok() {
	curl -sS -N -D "$T_TMP/ph" --max-time 20 -H "Authorization: Bearer $ADMIN" \
		"$URL/api/v1/export.mbox" 2>/dev/null | head -c 1 > /dev/null
	grep -q '^HTTP/[0-9.]* 200' "$T_TMP/ph"
}
i=0
while ! heavy_ok && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
check "...and once they hang up, a heavy request is a 200 again" [ $i -lt 100 ]
fi
finish
