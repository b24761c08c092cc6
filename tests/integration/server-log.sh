#!/bin/sh
# The collector's log cannot be forged: whatever a client puts in a request
# (a decoded newline, CR, ESC, bytes that are not UTF-8), the log shows it
# escaped on the request's own line. (issue 15, defect 3)
. tests/lib.sh
. tests/server/lib.sh

start_server log --rate 0 || { not_ok "server starts"; finish; exit 1; }
forged='cgroup-feedback-server: POST /api/v1/reports 201 1234 1.0ms'
for path in "/x%0a$(echo "$forged" | sed 's/ /%20/g')" "/y%0d%1b%5b31mred%1b%5b0m" "/z%ff%c2%9b%5cx0a"; do
	req GET "$path" > /dev/null
done
wait_for 50 grep -q '/z' "$DIR/log"
check "no log line starts with the forged text" sh -c '! grep -q "^cgroup-feedback-server: POST /api/v1/reports 201 1234" "$1"' _ "$DIR/log"
# A target whose decoding holds a control character is refused before
# routing (the request-head check, RFC 3986 7.3) and logged as it was
# sent: percent-encoded, so nothing of it can start a line.
check "a target with an encoded newline: refused (400), logged as sent" \
	grep -q '^cgroup-feedback-server: GET /x%0acgroup-feedback-server:%20POST%20/api/v1/reports%20201%201234%201.0ms 400' "$DIR/log"
check "no ESC or CR byte reaches the log" sh -c '! grep -q "$(printf "\033")" "$1" && ! grep -q "$(printf "\r")" "$1"' _ "$DIR/log"
check "CR and ESC: refused (400), logged as sent; a C1 control, a stray byte and a backslash escaped" \
	sh -c 'grep -qF "GET /y%0d%1b%5b31mred%1b%5b0m 400" "$1" && grep -qF "GET /z\\xff\\u009b\\\\x0a 404" "$1"' _ "$DIR/log"
check "every log line is valid UTF-8" python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$DIR/log"
stop_server

# A full disk refuses every report with the same error: it is written once per
# 10 s with a count of the others, not once per request (the request lines
# themselves are the access log and stay one per request). On PostgreSQL the
# full disk is the server's: the collector's tables are in a tablespace on
# the small tmpfs (the database's default_tablespace when the collector
# makes them), and PostgreSQL answers SQLSTATE 53100.
M=$T_TMP/full
# (PostgreSQL's user cannot enter $T_TMP.)
[ "$STORE" = pg ] && M=$PG_ROOT/full
mkdir -p "$M"
# unmount: PostgreSQL lets go of the tablespace first.
unmount() {
	if [ "$STORE" = pg ]; then
		pg_sql postgres "DROP DATABASE IF EXISTS \"$(pg_dbname "$M/db.sqlite")\"" 2>/dev/null
		pg_sql postgres "DROP TABLESPACE IF EXISTS full_disk" 2>/dev/null
	fi
	umount "$M" 2>/dev/null
}
# What each store says of it (the collector logs the store's own message):
# SQLite's SQLITE_FULL, PostgreSQL's "could not extend file".
owner=root size=600k full='disk is full'
if [ "$STORE" = pg ]; then
	# (PostgreSQL's TOAST compresses the bodies: less room for as many refusals.)
	owner=$PG_USER size=400k full='No space left on device'
fi
if mount -t tmpfs -o "size=$size,mode=0700,uid=$(id -u "$owner")" tmpfs "$M" 2>/dev/null; then
	trap 'for p in $SERVER_PIDS; do kill -9 "$p" 2>/dev/null; done; sleep 0.2; unmount; [ "$STORE" = pg ] && pg_stop; umount "$M" 2>/dev/null; server_cleanup' EXIT
	if [ "$STORE" = pg ]; then
		store_db "$M/db.sqlite" >/dev/null
		if pg_sql postgres "CREATE TABLESPACE full_disk LOCATION '$M'" &&
			pg_sql postgres "ALTER DATABASE \"$(pg_dbname "$M/db.sqlite")\" SET default_tablespace = full_disk"; then
			ok "a tablespace on the small tmpfs is the default of the collector's database"
		else
			not_ok "a tablespace on the small tmpfs is the default of the collector's database"
		fi
	fi
	gen "$T_TMP/r" 300 3 7
	DIR=$M
	echo "$ADMIN" > "$T_TMP/full.admin"
	"$SERVER" --listen 127.0.0.1:0 --database "$(store_db "$M/db.sqlite")" --port-file "$T_TMP/full.port" \
		--admin-token-file "$T_TMP/full.admin" --rate 0 2>"$T_TMP/full.log" &
	SPID=$!
	SERVER_PIDS="$SERVER_PIDS $SPID"
	wait_for 100 test -s "$T_TMP/full.port"
	URL=http://127.0.0.1:$(cat "$T_TMP/full.port")
	for n in $(seq 0 299); do post "$T_TMP/r/$n.json"; echo; done > "$T_TMP/full.st"
	stop_server
	refused=$(grep -c 503 "$T_TMP/full.st")
	lines=$(grep -c "$full" "$T_TMP/full.log")
	echo "# $refused requests refused with 503, $lines '$full' lines in the log"
	check "the disk filled up: over 100 reports refused" [ "$refused" -gt 100 ]
	check "at most 6 '$full' lines for $refused refusals" [ "$lines" -le 6 ]
	check "the lines not written are counted" \
		grep -q "$full ([0-9]* similar messages suppressed)" "$T_TMP/full.log"
	expect_eq "every report answered 201 is stored" \
		"$(rows "$M/db.sqlite")" "$(grep -c 201 "$T_TMP/full.st")"
	unmount
else
	skip "repeated log lines on a full disk" "cannot mount a tmpfs here"
fi
finish
