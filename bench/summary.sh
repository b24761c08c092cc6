#!/bin/sh
# The public summary's recomputation as the store grows (issue 30): a
# SQLite collector of SUMMARY_REPORTS reports (1,000,000: 500 posted over
# HTTP, the rest copies made by SQLite, as tests/integration/
# server-pg-migrate.sh makes its store). The collector counts reports as
# they come and go (store/tally_sql.h: a trigger logs each one, a fold
# counts what was logged), and a summary of all reports reads the counts,
# a row per key. It computes one summary before it listens, after folding
# what is pending, so the time until it listens is measured, three times:
#   first  the 1,000,000 reports SQLite wrote behind its back, all pending
#          (what an upgrade to schema 4 does once);
#   day    a day of SUMMARY_DAY (10,000) new reports pending: the steady
#          state, as every recomputation folds what came since the last;
#   idle   nothing pending: the summary from the counts alone.
# The peer is measured on the same file in the same run, warm as well: one
# full scan of the reports table by python's sqlite3 (every row read once,
# the least any recomputation from the rows costs, and what the summary
# cost before: 9.30 s, 5.4x the scan). Fails when the day's start does not
# finish within the collector's read deadline (STORE_READ_MS, 15 s), or
# when, with six full digests running at once for 20 s, the summary
# recomputed every second is not recomputed at least 10 times or takes a
# second once.
set -eu
BUILD=${BUILD:-build}
SERVER=${SERVER:-$PWD/$BUILD/cgroup-feedback-server}
N=${SUMMARY_REPORTS:-1000000}
DAY=${SUMMARY_DAY:-10000}
DEADLINE=15
DIR=$(mktemp -d "${TMPDIR:-/tmp}/cgfb-bench-summary.XXXXXX")
PID=""
trap '[ -z "$PID" ] || kill -9 "$PID" 2>/dev/null || true; rm -rf "$DIR"' EXIT
[ -x "$SERVER" ] || { echo "bench/summary.sh: build $SERVER first" >&2; exit 2; }

# start: the collector on $DIR/db.sqlite; seconds until it listens in $DIR/took.
start() {
	rm -f "$DIR/port"
	t0=$(date +%s.%N)
	"$SERVER" --listen 127.0.0.1:0 --database "$DIR/db.sqlite" --port-file "$DIR/port" \
		--rate 0 --read-rate 0 --summary-interval 86400 --quiet ${EXTRA:-} > /dev/null 2>>"$DIR/log" &
	PID=$!
	i=0
	while [ ! -s "$DIR/port" ]; do
		i=$((i + 1))
		[ $i -lt 6000 ] || { echo "bench/summary.sh: the collector did not start" >&2; exit 1; }
		sleep 0.01
	done
	echo "$(date +%s.%N) - $t0" | bc > "$DIR/took"
}
stop() { kill -TERM "$PID"; wait "$PID" || true; PID=""; }

python3 tests/server/genreport.py --dir "$DIR/r" --count 500 --seed 31 --systems 9 > /dev/null
start
python3 tests/server/load.py 127.0.0.1 "$(cat "$DIR/port")" "$DIR/r" 0 500 4 "$DIR/ids" > /dev/null
stop
python3 - "$DIR/db.sqlite" "$N" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = int(sys.argv[2])
cols = [r[1] for r in db.execute("PRAGMA table_info(reports)") if r[1] not in ("seq", "id", "install")]
have = db.execute("SELECT count(*) FROM reports").fetchone()[0]
# Copies of the posted reports under new ids, each round of copies from
# installs of its own (about 18,000 installs at 1,000,000 reports: the
# summary counts installs and at most 3 reports of each).
db.execute("""INSERT INTO reports (id, install, %s)
  SELECT r.id || '-' || k.value, substr(r.install, 1, 24) || printf('%%08x', k.value), %s FROM
  (WITH RECURSIVE c(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM c WHERE value < ? / ? + 1)
   SELECT value FROM c) k CROSS JOIN reports r ORDER BY k.value, r.seq LIMIT ?"""
           % (", ".join(cols), ", ".join("r." + c for c in cols)), (n, have, n - have))
db.commit()
assert db.execute("SELECT count(*) FROM reports").fetchone()[0] == n
PY
size=$(du -m "$DIR/db.sqlite" | cut -f1)
# The peer, warm: every row read once.
scan=$(python3 - "$DIR/db.sqlite" <<'PY'
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
db.execute("SELECT sum(length(body)) FROM reports").fetchone()
t = time.monotonic()
db.execute("SELECT count(*), sum(length(body)), count(DISTINCT install) FROM reports").fetchone()
print("%.2f" % (time.monotonic() - t))
PY
)
start
first=$(cat "$DIR/took")
stop
# A day of new reports, from installs already there (copies under new ids).
python3 - "$DIR/db.sqlite" "$DAY" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
cols = [r[1] for r in db.execute("PRAGMA table_info(reports)") if r[1] not in ("seq", "id")]
db.execute("INSERT INTO reports (id, %s) SELECT id || '-day', %s FROM reports ORDER BY seq LIMIT ?"
           % (", ".join(cols), ", ".join(cols)), (int(sys.argv[2]),))
db.commit()
assert db.execute("SELECT count(*) FROM tally_delta").fetchone()[0] == int(sys.argv[2])
PY
start
day=$(cat "$DIR/took")
code=$(curl -s -o "$DIR/summary.json" -w '%{http_code}' "http://127.0.0.1:$(cat "$DIR/port")/api/v1/summary")
stop
start
idle=$(cat "$DIR/took")
stop
# Six full digests at once, again and again (what issue 30 saw push the
# scan past its deadline at 200,000 reports), while the collector
# recomputes its summary every second: each recomputation must still
# finish, and none take a second (the collector logs those).
head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$DIR/admin"
EXTRA="--summary-interval 1 --read-rate 0 --admin-token-file $DIR/admin"
logged=$(wc -l < "$DIR/log")
start
python3 - "$(cat "$DIR/port")" "$(cat "$DIR/admin")" 20 > "$DIR/digests" <<'PY'
import http.client, sys, threading, time
port, token, secs = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
done, end = [], time.monotonic() + secs
def digests():
    while time.monotonic() < end:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        c.request("GET", "/api/v1/digest?days=3660", headers={"Authorization": "Bearer " + token})
        r = c.getresponse(); r.read(); done.append(r.status)
ts = [threading.Thread(target=digests) for _ in range(6)]
for t in ts: t.start()
stamps = set()
while time.monotonic() < end:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    c.request("GET", "/api/v1/summary"); r = c.getresponse()
    body = r.read().decode()
    if r.status == 200:
        stamps.add(body.split('"computed":"')[1][:20])
    time.sleep(0.5)
for t in ts: t.join()
print(len(done), sum(s == 200 for s in done), len(stamps))
PY
stop
read -r digests digests_ok stamps < "$DIR/digests"
slow=$(tail -n +"$((logged + 1))" "$DIR/log" |
	grep -c "public summary recomputed in\|public summary: not recomputed" || true)
reports=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["total"]["reports"])' "$DIR/summary.json")
pending=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from tally_delta").fetchone()[0])' "$DIR/db.sqlite")
printf 'public summary of %d reports (%d MB of SQLite): listening %.2f s after start with a day of %d new reports to count, %.2f s with none; one full scan of the table by sqlite3: %s s; ratio day/scan %.2fx; deadline %d s\n' \
	"$((N + DAY))" "$size" "$day" "$DAY" "$idle" "$scan" "$(echo "$day / $scan" | bc -l)" "$DEADLINE"
printf '   once, the first start after %d reports were written behind its back (an upgrade to schema 4): %.2f s; the summary answered %s and counts about %s reports, at most 3 of each install (noise of epsilon 1); %s deltas left\n' \
	"$N" "$first" "$code" "$reports" "$pending"
printf '   six full digests at once for 20 s (%s made, %s answered 200): %s distinct summaries computed meanwhile, %s recomputations of a second or more or failed\n' \
	"$digests" "$digests_ok" "$stamps" "$slow"
if [ "$code" != 200 ] || [ "$pending" != 0 ] || [ "$(echo "$day >= $DEADLINE" | bc)" = 1 ] ||
	[ "$slow" != 0 ] || [ "$stamps" -lt 10 ]; then
	echo "bench/summary.sh: the summary did not finish within its $DEADLINE s deadline" >&2
	exit 1
fi
