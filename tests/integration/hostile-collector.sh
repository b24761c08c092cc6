#!/bin/sh
# A hostile collector over real TLS (certificates made here with openssl):
# garbage, a 201 without a receipt, 500, 429 with Retry-After, a stall after
# the headers, a reset mid-body, a certificate for another name, an expired
# one, and redirects to a listener that records whatever reaches it. Each
# time submit (and flush) must fail clearly with a non-zero exit, keep the
# report consented for later with its retry recorded, and nothing may
# reach the redirect target.
. tests/lib.sh
. tests/client/lib.sh

ST=$T_TMP/state
CONF=$T_TMP/conf
PKI=$T_TMP/pki
mkdir -p "$ST" "$PKI"
HPIDS=
trap 'for p in $HPIDS; do kill $p 2>/dev/null; done; t_cleanup' EXIT

(cd "$PKI" &&
 openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 -subj /CN=test-ca &&
 openssl req -newkey rsa:2048 -nodes -keyout s.key -out s.csr -subj /CN=127.0.0.1 &&
 printf 'subjectAltName=IP:127.0.0.1\n' > ext.good &&
 printf 'subjectAltName=DNS:collector.example.org\n' > ext.other &&
 openssl x509 -req -in s.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
	-extfile ext.good -out good.crt &&
 openssl x509 -req -in s.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
	-extfile ext.other -out other.crt &&
 openssl x509 -req -in s.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days -1 \
	-extfile ext.good -out expired.crt) > "$T_TMP/openssl.log" 2>&1
if [ ! -s "$PKI/expired.crt" ]; then
	skip "hostile collector" "openssl could not make the certificates"
	finish
	exit
fi
# Short timeouts keep the stall bounded; the ceiling below is far above them.
# They scale under valgrind, where a TLS handshake on a loaded machine
# alone can outlast 3 s (and garbage would be reported as a timeout).
printf 'motd-path = %s/motd\nnotify = log\ntimeout = %s\nconnect-timeout = %s\nca-file = %s/ca.crt\n' \
	"$T_TMP" "$(scaled 3)" "$(scaled 2)" "$PKI" > "$CONF"
cfb() { timeout "$(scaled 60)" "$CGFB" --config "$CONF" "$@"; }
new_report() { $PY tests/client/pending_report.py "$ST" M8 "$1"; }
field() { $PY -c "import json; print(json.load(open('$ST/reports/$1.state'))['$2'])" 2>/dev/null; }
due_now() {
	$PY -c "
import json; p = '$ST/reports/$1.state'; s = json.load(open(p)); s['next_attempt'] = 0
json.dump(s, open(p, 'w'))"
}

# hostile DIR SCRIPT CERT [LOCATION]: a double in DIR; sets HURL.
hostile() {
	mkdir -p "$1"
	$PY tests/client/hostile_collector.py --port-file "$1/port" --dir "$1" --script "$2" \
		--lifetime 300 ${3:+--tls "$PKI/$3.crt" "$PKI/s.key"} ${4:+--location "$4"} &
	HPIDS="$HPIDS $!"
	wait_file "$1/port" || echo "# the double in $1 did not start"
	HURL=http${3:+s}://127.0.0.1:$(cat "$1/port")/api/v1/reports
}
requests() { [ -f "$1/requests.log" ] && wc -l < "$1/requests.log" || echo 0; }

# The redirect target: plain http, records all that reaches it.
hostile "$T_TMP/target" record ""
TARGET=$HURL

# fault NAME SCRIPT CERT PATTERN RETRY: submit against SCRIPT's first mode.
# RETRY is "backoff" (a next attempt in the future) or "never" (waits for
# an administrator). PATTERN is what the message must say.
fault() {
	fname=$1 script=$2 cert=$3 pattern=$4 retry=$5
	D=$T_TMP/d.$fname
	hostile "$D" "$script" "$cert" "$TARGET/stolen"
	id=$(new_report "$fname")
	cfb submit --state-dir "$ST" --endpoint "$HURL" --yes "$id" > "$T_TMP/out" 2>"$T_TMP/err"
	rc=$?
	check "$fname: submit exits 2 (not killed by the ceiling)" [ $rc -eq 2 ]
	check "$fname: the message says what happened ($(head -c 160 "$T_TMP/err"))" \
		grep -qi -- "sending failed: .*$pattern" "$T_TMP/err"
	[ $rc -eq 2 ] || sed 's/^/#   /' "$T_TMP/err"
	check "$fname: the report is kept, consented, not sent" [ "$(field "$id" state)" = consented ]
	check "$fname: no receipt recorded" [ -z "$(field "$id" receipt)" ]
	# The command the message names for the retry, as printed.
	HINT=$(sed -n 's/.*it will be retried by \([^ ]*cgroup-feedback .*\)$/\1/p' "$T_TMP/err" | head -n 1)
	case $retry in
	backoff)
		check "$fname: the message names the command that retries it ($HINT)" \
			sh -c 'case $1 in */cgroup-feedback" --config $3 --state-dir $2 flush") exit 0 ;; *) exit 1 ;; esac' \
			_ "$HINT" "$ST" "$CONF"
		check "$fname: a retry is scheduled" $PY -c "
import json, time
s = json.load(open('$ST/reports/$id.state'))
assert s['attempts'] == 1 and s['next_attempt'] > time.time(), s"
		cfb status --state-dir "$ST" > "$T_TMP/status"
		check "$fname: status shows the failed attempt and the next one" \
			grep -q "attempt 1 failed.*next" "$T_TMP/status" ;;
	never)
		check "$fname: not retried automatically" [ "$(field "$id" next_attempt)" = -1 ]
		cfb status --state-dir "$ST" > "$T_TMP/status"
		check "$fname: status says it waits for an administrator" \
			grep -q "not retried: " "$T_TMP/status" ;;
	esac
	cfb list --state-dir "$ST" > "$T_TMP/list" 2>&1
	check "$fname: list still lists it" grep -q "$id" "$T_TMP/list"
}

# flush_fails NAME: the same fault again, through flush.
flush_fails() {
	due_now "$id"
	cfb flush --state-dir "$ST" > "$T_TMP/out" 2>"$T_TMP/err"
	check "$1: flush exits 2" [ $? -eq 2 ]
	check "$1: flush counts the failure" grep -q 'flush: 0 sent, 1 failed' "$T_TMP/out"
	check "$1: flush names the report" grep -q "$id: sending failed" "$T_TMP/err"
	check "$1: still consented after flush" [ "$(field "$id" state)" = consented ]
	check "$1: attempts counted" [ "$(field "$id" attempts)" = 2 ]
}

# recovers NAME: the double answers well now; a due flush sends it, once.
# The flush is the command the first failure named, pasted as printed.
recovers() {
	due_now "$id"
	eval "$(echo "$HINT" | sed 's|^cgroup-feedback|cfb|')" > "$T_TMP/out" 2>"$T_TMP/err"
	check "$1: when the collector behaves, flush sends it" [ "$(field "$id" state)" = sent ]
	check "$1: with the collector's receipt" [ -n "$(field "$id" receipt)" ]
	cfb flush --state-dir "$ST" > /dev/null 2>&1
	check "$1: and never again" [ "$(grep -c POST "$D/requests.log")" -eq "$2" ]
}

fault garbage garbage,garbage,ok good 'no valid receipt' backoff
flush_fails garbage
recovers garbage 3
fault noreceipt noreceipt,ok good 'no valid receipt' backoff
recovers noreceipt 2
fault partial partial good 'no valid receipt' backoff
# Never recovered: withdrawn, so that its retry (due sooner than the later
# faults take under valgrind) is not in the next flush's count.
cfb withdraw --state-dir "$ST" "$id" > /dev/null 2>&1
fault fail500 fail500,ok good 'HTTP 500: database is on fire' backoff
recovers fail500 2
fault busy429 busy429 good 'HTTP 429: slow down' backoff
check "busy429: Retry-After is honoured" $PY -c "
import json, time
s = json.load(open('$ST/reports/$id.state'))
assert s['next_attempt'] >= time.time() + 890, s"
fault stall stall,stall,ok good 'timed out' backoff
flush_fails stall
recovers stall 3
fault reset reset,ok good 'receiv\|partial\|reset' backoff
recovers reset 2
fault wrongname ok other 'certificate.*\(name\|match\)\|\(name\|match\).*certificate' backoff
check "wrongname: nothing was posted" [ "$(requests "$D")" -eq 0 ]
fault expired ok expired 'certificate.*expired\|expired.*certificate' backoff
check "expired: nothing was posted" [ "$(requests "$D")" -eq 0 ]
for code in 301 302 303 307 308; do
	fault redirect$code redirect$code good "HTTP $code" never
	check "redirect$code: the message names where it was sent" grep -q "$TARGET/stolen" "$T_TMP/err"
	cfb submit --state-dir "$ST" --endpoint "$HURL" --yes "$id" > /dev/null 2>&1
	check "redirect$code: submitting again fails again" [ $? -eq 2 ]
done
# A collector's words that write to a terminal (issue 39): a receipt id
# that is no report id is no receipt; an error text, and a receipt id an
# older client kept in a .state, are shown escaped by submit, flush, list
# and status, text and JSON, never raw (the .state keeps '?' for a C0
# control, DEL or a byte that is not UTF-8: it stays JSON).
fault evilid evilid good 'no valid receipt' backoff
noraw "$T_TMP/err" "$T_TMP/status" "$T_TMP/list" > "$T_TMP/noraw.out"
check "evilid: nothing raw in what submit, status and list printed" [ $? -eq 0 ]
cfb withdraw --state-dir "$ST" "$id" > /dev/null 2>&1
fault evil500 evil500 good 'HTTP 500: ev' backoff
due_now "$id"
cfb flush --state-dir "$ST" > "$T_TMP/flush.out" 2> "$T_TMP/flush.err"
cfb status --json --state-dir "$ST" > "$T_TMP/status.json" 2>&1
cfb list --json --state-dir "$ST" > "$T_TMP/list.json" 2>&1
check "evil500: submit, flush, status and list show the error text escaped" \
	noraw --expect '[2J?\u009b?\u202e' "$T_TMP/err" "$T_TMP/status" "$T_TMP/list" \
	"$T_TMP/flush.out" "$T_TMP/flush.err"
check "evil500: status --json and list --json are strict UTF-8, the error escaped" \
	noraw --json --expect '[2J?\u009b?\u202e' "$T_TMP/status.json" "$T_TMP/list.json"
cfb withdraw --state-dir "$ST" "$id" > /dev/null 2>&1
# A redirect on withdraw would carry the deletion token elsewhere.
D=$T_TMP/d.withdraw
hostile "$D" ok,redirect307 good "$TARGET/stolen"
id=$(new_report withdraw)
cfb submit --state-dir "$ST" --endpoint "$HURL" --yes "$id" > /dev/null 2>&1
check "withdraw: sent first" [ "$(field "$id" state)" = sent ]
cfb withdraw --state-dir "$ST" "$id" > /dev/null 2>"$T_TMP/err"
check "withdraw redirected: exits 2" [ $? -eq 2 ]
check "withdraw redirected: says so" grep -q "withdrawing $id.*HTTP 307" "$T_TMP/err"
check "withdraw redirected: still sent (the collector still has it)" [ "$(field "$id" state)" = sent ]

check "the redirect target received nothing at all" [ "$(requests "$T_TMP/target")" -eq 0 ]
tok=$(field "$id" deletion_token)
check "no deletion token outside the collector's own log" sh -c \
	"! grep -rq -- '$tok' '$T_TMP/target' '$T_TMP/err' '$T_TMP/out'"
# A .state an older client wrote: the receipt id as a collector sent it.
$PY -c "
import json, sys; p = '$ST/reports/$id.state'; s = json.load(open(p))
s['receipt']['id'] = sys.argv[1]
open(p, 'wb').write(json.dumps(s, ensure_ascii=False).encode('utf-8', 'surrogateescape'))" "$HOSTILE"
cfb list --state-dir "$ST" > "$T_TMP/list" 2>&1
cfb list --json --state-dir "$ST" > "$T_TMP/list.json" 2>&1
check "a receipt id with terminal controls in an old .state: list shows it escaped (text, JSON)" \
	sh -c 'python3 tests/tools/noraw.py --hostile "$1" && python3 tests/tools/noraw.py --json --hostile "$2"' _ "$T_TMP/list" "$T_TMP/list.json"
finish
