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
check "the decoded newline is shown as \\x0a on the request's line" \
	grep -q '^cgroup-feedback-server: GET /x\\x0acgroup-feedback-server: POST /api/v1/reports 201 1234 1.0ms 404' "$DIR/log"
check "no ESC or CR byte reaches the log" sh -c '! grep -q "$(printf "\033")" "$1" && ! grep -q "$(printf "\r")" "$1"' _ "$DIR/log"
check "CR, ESC, a C1 control, a stray byte and a backslash are escaped" \
	sh -c 'grep -qF "GET /y\\x0d\\x1b[31mred\\x1b[0m 404" "$1" && grep -qF "GET /z\\xff\\xc2\\x9b\\x5cx0a 404" "$1"' _ "$DIR/log"
check "every log line is valid UTF-8" python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$DIR/log"
finish
