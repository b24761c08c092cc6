#!/bin/sh
# The dashboard in a real headless browser (Debian's chromium) against a
# server filled over HTTP — by the real client's submit, and by generated
# reports from 20 different system profiles so that groups reach the
# 5-install threshold: the page renders with the API's numbers (every
# group, count and suppression note, the latest use cases for the admin),
# under a strict Content-Security-Policy, and a screenshot is written.
. tests/lib.sh
. tests/server/lib.sh

# One file per store: the two runs of this script may run at once.
SHOT=${CGFB_DASHBOARD_SHOT:-$PWD/$BUILD/dashboard-$STORE.png}
R=$T_TMP/reports
gen "$R" 40 5 20
start_server dash --rate 0
for n in $(seq 0 39); do post "$R/$n.json" >/dev/null; done
ST=$T_TMP/state
printf 'notify = log\nmotd-path = %s/motd\ntimeout = 5\n' "$T_TMP" > "$T_TMP/conf"
for seed in 1 2 3 4 5 6; do
	id=$(python3 tests/client/pending_report.py "$ST" M8 "dash$seed")
	echo "Client $seed: the batch system puts every job in its own flat memory cgroup." > "$T_TMP/uc"
	"$CGFB" --config "$T_TMP/conf" submit --state-dir "$ST" --endpoint "$URL/api/v1/reports" \
		--yes --use-case-file "$T_TMP/uc" --answer reorganisation=unsure "$id" >/dev/null 2>&1 ||
		echo "# submit $id failed"
done
expect_eq "46 reports stored (6 by cgroup-feedback submit)" "$(rows "$DIR/db.sqlite")" 46

expect_eq "GET / serves the page" "$(req GET /)" 200
check "the page has a Content-Security-Policy without inline code" \
	has_header "^Content-Security-Policy: default-src 'none'; script-src 'self'; style-src 'self'"
check "the page is HTML" has_header "^Content-Type: text/html"
for a in /app.js /app.css; do
	expect_eq "GET $a" "$(req GET "$a")" 200
	check "$a is served under the same policy" has_header "^Content-Security-Policy:"
done
check "no external asset: no URL in page, script or style but the SVG namespace" \
	sh -c '! grep -ho "https\?://[^\"'\'' )]*" server-stub/dashboard/* | grep -v "^http://www.w3.org/2000/svg$" | grep -q .'

fresh_summary >/dev/null && cp "$T_TMP/body" "$T_TMP/summary.json"
admin '/api/v1/reports?use_case=1&limit=20' >/dev/null && cp "$T_TMP/body" "$T_TMP/latest.json"

for tool in chromium chromedriver; do
	if ! command -v $tool >/dev/null || ! /usr/bin/python3 -c 'import selenium' 2>/dev/null; then
		not_ok "chromium, chromedriver and python3-selenium are installed (make deps installs them)"
		finish
		exit 1
	fi
done
mkdir -p "$(dirname "$SHOT")" "$T_TMP/browser"
rm -f "$SHOT"
# A maintainer's visit: the page, the login form, a reload, a hostile page
# on another port, the logout, the old cookie again
# (tests/server/dash_login.py); timeout bounds the whole browser run.
timeout 120 /usr/bin/python3 tests/server/dash_login.py "$URL" "$ADMIN" "$T_TMP/chromium" \
	"$T_TMP/browser" 2>"$T_TMP/chromium.log"
expect_eq "the browser session ran" "$?" 0
while IFS= read -r line; do
	case $line in
	ok\ *) ok "browser: ${line#ok }" ;;
	*) not_ok "browser: ${line#fail }" ;;
	esac
done < "$T_TMP/browser/steps"
expect_eq "...every step of it" "$(grep -c '^ok ' "$T_TMP/browser/steps")" 11
# The <img> of the other port's page carried the session cookie (the same
# site to SameSite) without the page's origin: refused, no export ran.
check "another port's <img src=export.mbox> reached the collector and was refused (401)" \
	grep -q "GET /api/v1/export.mbox 401" "$DIR/log"
check "...no export ran" sh -c '! grep -q "GET /api/v1/export.mbox 200" "$1"' _ "$DIR/log"
cp "$T_TMP/browser/dom.html" "$T_TMP/dom.html" 2>/dev/null
cp "$T_TMP/browser/shot.png" "$SHOT" 2>/dev/null
check "the admin token is nowhere in the browser's profile (history, sessions, storage)" \
	sh -c '! grep -rqaF "$1" "$2"' _ "$ADMIN" "$T_TMP/chromium"
check "...which holds the page's history (the search can find what is there)" \
	sh -c 'grep -rqaF "$1/" "$2"' _ "$URL" "$T_TMP/chromium"
check "the page's numbers match the API" python3 tests/server/dom_check.py \
	"$T_TMP/dom.html" "$T_TMP/summary.json" "$T_TMP/latest.json"
check "a screenshot was written ($SHOT)" python3 -c 'import struct, sys
d = open(sys.argv[1], "rb").read()
w, h = struct.unpack(">II", d[16:24])
sys.exit(not (d[:8] == b"\x89PNG\r\n\x1a\n" and w >= 800 and h >= 800 and len(d) > 20000))' "$SHOT"
check "the browser saw no CSP violation" sh -c '! grep -qi "Content Security Policy" "$1"' _ \
	"$T_TMP/browser/console.log"
check "a use case holding markup is shown as text" grep -q "&lt;script&gt;alert" "$T_TMP/dom.html"
expect_eq "...and adds no element: the only script is app.js" "$(grep -o "<script" "$T_TMP/dom.html" | wc -l)" 1
check "...and no img element" sh -c '! grep -q "<img" "$1"' _ "$T_TMP/dom.html"
stop_server
finish
