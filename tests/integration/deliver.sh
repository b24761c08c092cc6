#!/bin/sh
# Consent and delivery: submit, show, withdraw, flush, export, decline,
# against a collector double that misbehaves on purpose, over real HTTP and
# HTTPS on loopback. Nothing may leave without --yes, and what leaves must be
# exactly what `show` printed.
. tests/lib.sh
. tests/client/lib.sh

ST=$T_TMP/state
CONF=$T_TMP/conf
mkdir -p "$ST"
# The timeouts scale: under valgrind on a loaded machine a TLS handshake
# alone can take longer than 3 s, and the client would report a timeout
# where the test wants the certificate's error.
TIMEOUT=$(scaled 3)
printf 'motd-path = %s/motd/cgroup-feedback.motd\nnotify = log\ntimeout = %s\nconnect-timeout = %s\n' \
	"$T_TMP" "$TIMEOUT" "$(scaled 2)" > "$CONF"
cfb() { "$CGFB" --config "$CONF" "$@"; }
# cfb_native: cfb as the build's own program (CGFB_NATIVE, tests/lib.sh),
# for a run whose path in the sender another run here takes under valgrind
# (each use names it); natively and under ASan+UBSan it is cfb.
cfb_native() { "$CGFB_NATIVE" --config "$CONF" "$@"; }
new_report() { $PY tests/client/pending_report.py "$ST" "${1:-M8}" "${2:-$$}"; }
state_of() { sed -n 's/.*"state":"\([a-z]*\)".*/\1/p' "$ST/reports/$1.state" 2>/dev/null | head -1; }
state_of_in() { sed -n 's/.*"state":"\([a-z]*\)".*/\1/p' "$1/reports/$2.state" 2>/dev/null | head -1; }
field() { $PY -c "import json,sys; print(json.load(open('$ST/reports/$1.state'))['$2'])"; }

# double SCRIPT [tls]: a fresh double in its own directory $D.
double() {
	stop_double
	D=$T_TMP/double.$$.$(date +%s%N)
	if [ "${2:-}" = tls ]; then
		start_double "$D" "$1" "$T_TMP/pki/server.crt" "$T_TMP/pki/server.key"
	else
		start_double "$D" "$1"
	fi
	PORT=$(cat "$D/port")
}
requests() { [ -f "$D/requests.log" ] && wc -l < "$D/requests.log" || echo 0; }
trap 'stop_double; t_cleanup' EXIT
echo "We run one KVM guest per cgroup under libvirt; siblings must stay isolated." > "$T_TMP/uc"

# --- nothing without --yes -------------------------------------------------
double ok
id=$(new_report M8 1)
cfb submit --state-dir "$ST" --endpoint "$URL" "$id" 2>"$T_TMP/err"
check "submit without --yes fails" [ $? -eq 2 ]
check "submit without --yes says why" grep -q -- '--yes' "$T_TMP/err"
check "submit without --yes sends nothing" [ "$(requests)" -eq 0 ]
check "report still pending" [ ! -f "$ST/reports/$id.state" ]
cfb status --state-dir "$ST" > "$T_TMP/out"
check "status names the pending report" grep -q "waiting for review.*$id" "$T_TMP/out"

# --- answers are to the entry's own questions --------------------------------
cfb submit --state-dir "$ST" --endpoint "$URL" --yes --use-case-file "$T_TMP/uc" \
	--answer sofware=cron "$id" > /dev/null 2>"$T_TMP/err"
check "an unknown answer key is refused" [ $? -eq 2 ]
check "...naming the report's valid keys" \
	grep -q -- "--answer sofware: report $id (M8) asks no such question; its answer keys are software, why_flat, reorganisation" "$T_TMP/err"
check "...nothing sent, still pending, nothing saved" \
	sh -c "[ \"\$(cat '$D/requests.log' 2>/dev/null | wc -l)\" -eq 0 ] && [ ! -f '$ST/reports/$id.state' ] && [ ! -f '$ST/reports/$id.draft' ]"
check "catalog --json lists each entry's questions and answer keys, as data/catalog.json has them" $PY - "$CGFB" <<'EOP'
import json, subprocess, sys
cat = json.load(open("data/catalog.json"))
sets = cat["question_sets"]
out = subprocess.run([sys.argv[1], "--catalog", "data/catalog.json", "catalog", "--json"],
                     capture_output=True, text=True, check=True).stdout
got = {e["id"]: e["questions"] for e in map(json.loads, out.splitlines())}
assert set(got) == {e["id"] for e in cat["entries"]}, set(got)
for e in cat["entries"]:
    assert got[e["id"]] == sets[e["questions"]], (e["id"], got[e["id"]])
EOP
check "catalog names the answer keys too" sh -c "'$CGFB' catalog | grep -A3 '^M8 ' | grep -q 'answer keys: software, why_flat, reorganisation'"

# --- the happy path ----------------------------------------------------------
cfb submit --state-dir "$ST" --endpoint "$URL" --yes --use-case-file "$T_TMP/uc" \
	--answer software=libvirt --answer reorganisation=no "$id" > "$T_TMP/out" 2>"$T_TMP/err"
check "submit --yes exits 0" [ $? -eq 0 ]
check "one POST reached the collector" [ "$(requests)" -eq 1 ]
check "state is sent" [ "$(state_of "$id")" = sent ]
cfb show --state-dir "$ST" --raw "$id" > "$T_TMP/shown"
check "show --raw prints exactly the bytes that were sent" cmp -s "$T_TMP/shown" "$D/last-body"
cfb show --state-dir "$ST" "$id" > "$T_TMP/shown-text"
check "show prints them and ends with a newline, even into a file" \
	sh -c "{ cat '$D/last-body'; echo; } | cmp -s - '$T_TMP/shown-text'"
check "receipt hash kept" [ "$(field "$id" receipt | grep -o "$(sha256sum < "$D/last-body" | cut -c1-64)")" != "" ]
check "sent report validates against the schema" $PY -c "
import json, jsonschema
s = json.load(open('docs/report.schema.json'))
r = json.load(open('$D/last-body'))
jsonschema.Draft202012Validator(s).validate(r)
assert r['use_case']['answers'] == {'software': 'libvirt', 'reorganisation': 'no'}, r['use_case']
assert r['consent']['endpoint'] == '$URL'
"
check "POST is JSON with our User-Agent" grep -q '"Content-Type": "application/json".*"User-Agent": "cgroup-feedback/\|"User-Agent": "cgroup-feedback/.*"Content-Type": "application/json"' "$D/requests.log"
check "the deletion token never leaves with the report" sh -c "! grep -q '$(field "$id" deletion_token)' '$D/last-body'"

# --- withdraw ----------------------------------------------------------------
cfb withdraw --state-dir "$ST" "$id" > "$T_TMP/out" 2>&1
check "withdraw exits 0" [ $? -eq 0 ]
check "withdraw sent a DELETE for the report" grep -q "^DELETE /api/v1/reports/$id " "$D/requests.log"
check "the DELETE carries the token whose hash is in the report" $PY -c "
import hashlib, json
tok = json.load(open('$ST/reports/$id.state'))['deletion_token']
rep = json.load(open('$D/last-body'))
assert hashlib.sha256(tok.encode()).hexdigest() == rep['deletion']['token_sha256']
line = [l for l in open('$D/requests.log') if l.startswith('DELETE')][-1]
hdr = json.loads(line.split(' ', 3)[3])
assert hdr['Authorization'] == 'Bearer ' + tok, hdr
"
check "state is withdrawn" [ "$(state_of "$id")" = withdrawn ]

# --- failures: retried with backoff, kept across restarts -----------------------
double fail500,ok
id=$(new_report M8 2)
cfb submit --state-dir "$ST" --endpoint "$URL" --yes "$id" 2>"$T_TMP/err"
check "500: submit reports failure" [ $? -eq 2 ]
check "500: the server's error is shown" grep -q 'HTTP 500: database is on fire' "$T_TMP/err"
check "500: consented, one attempt, retry scheduled" $PY -c "
import json, time
s = json.load(open('$ST/reports/$id.state'))
assert s['state'] == 'consented' and s['attempts'] == 1, s
assert time.time() + 20 < s['next_attempt'] < time.time() + 70, s
"
cfb flush --state-dir "$ST" > "$T_TMP/out"
check "flush before the retry time sends nothing" [ "$(requests)" -eq 1 ]
# Time passes (the state file is what a restarted flush reads).
$PY -c "
import json; p = '$ST/reports/$id.state'; s = json.load(open(p)); s['next_attempt'] = 0
json.dump(s, open(p, 'w'))"
cfb flush --state-dir "$ST" > "$T_TMP/out"
check "flush after the retry time sends it" [ "$(state_of "$id")" = sent ]
check "flush says so" grep -q 'flush: 1 sent, 0 failed' "$T_TMP/out"
check "attempts kept across runs" [ "$(field "$id" attempts)" = 2 ]

double fail503,ok
id=$(new_report M8 503)
cfb submit --state-dir "$ST" --endpoint "$URL" --yes "$id" 2>/dev/null
check "503: retried no sooner than its Retry-After" $PY -c "
import json, time
s = json.load(open('$ST/reports/$id.state'))
assert s['state'] == 'consented' and s['next_attempt'] >= time.time() + 110, s
"

double busy429
id=$(new_report M8 3)
# 429 takes the 503's branch (client/deliver/submit.c's perform: 429 or
# 5xx with a Retry-After), which the run above takes under valgrind.
cfb_native submit --state-dir "$ST" --endpoint "$URL" --yes "$id" 2>/dev/null
check "429: Retry-After is honoured" $PY -c "
import json, time
s = json.load(open('$ST/reports/$id.state'))
assert s['next_attempt'] >= time.time() + 3500, s
"

for mode in badhash conflict redirect; do
	double $mode
	id=$(new_report M8 "1$mode")
	cfb submit --state-dir "$ST" --endpoint "$URL" --yes "$id" 2>"$T_TMP/err"
	rc=$?
	check "$mode: submit fails" [ $rc -eq 2 ]
	check "$mode: not marked sent" [ "$(state_of "$id")" = consented ]
	check "$mode: not retried automatically" [ "$(field "$id" next_attempt)" = -1 ]
	check "$mode: exactly one request" [ "$(requests)" -eq 1 ]
done
# The redirect's Location held user information and a query: named without.
check "redirect: the error names where, without the Location's password or query" \
	sh -c "grep -q 'redirected to http://127.0.0.1:9/elsewhere;' '$T_TMP/err' &&
	! grep -q -e Pl4nted -e mover: '$T_TMP/err' '$ST/reports/$id.state'"
double huge
id=$(new_report M8 4)
cfb submit --state-dir "$ST" --endpoint "$URL" --yes "$id" 2>"$T_TMP/err"
check "huge answer: refused" grep -q 'too large' "$T_TMP/err"
# The hung server has the shortest timeout there is (1 s): the client
# gives up on a timeout however long it is, and the double hangs for 30 s,
# longer than the bound below even under valgrind. (With the scaled 3 s of
# the other runs this one run waited 12 s under valgrind.)
double hang
id=$(new_report M8 5)
sed 's/^timeout = .*/timeout = 1/' "$CONF" > "$T_TMP/conf.hang"
t0=$(date +%s)
"$CGFB" --config "$T_TMP/conf.hang" submit --state-dir "$ST" --endpoint "$URL" --yes "$id" 2>"$T_TMP/err"
check "hung server: gives up after the timeout" [ $(($(date +%s) - t0)) -lt $((1 + $(scaled 7))) ]
check "hung server: retry scheduled" [ "$(field "$id" next_attempt)" -gt 0 ]
stop_double
id=$(new_report M8 6)
# A refused connection takes the hung server's branch (perform: a curl
# error that is no configuration's, transient), run above under valgrind.
cfb_native submit --state-dir "$ST" --endpoint "$URL" --yes "$id" 2>"$T_TMP/err"
check "dead server: connection refused is reported" grep -qi 'connect' "$T_TMP/err"
check "dead server: retry scheduled" [ "$(field "$id" next_attempt)" -gt 0 ]

# --- where reports may go ------------------------------------------------------
id=$(new_report M8 7)
cfb submit --state-dir "$ST" --endpoint http://192.0.2.1/api/v1/reports --yes "$id" 2>"$T_TMP/err"
check "plain http off loopback: refused" grep -q 'plain http is only for a collector on this machine' "$T_TMP/err"
check "plain http off loopback: still pending" [ ! -f "$ST/reports/$id.state" ]
id=$(new_report M8 8)
cfb submit --state-dir "$ST" --endpoint https://jdoe:s3cret@127.0.0.1:1/api/v1/reports --yes "$id" 2>"$T_TMP/err"
check "an endpoint with user information: refused" grep -q "user information" "$T_TMP/err"
check "an endpoint with user information: nothing recorded" sh -c '! grep -rq s3cret "$1"' _ "$ST"

mkdir -p "$T_TMP/pki"
(cd "$T_TMP/pki" &&
 openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 -subj /CN=test-ca 2>/dev/null &&
 openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj /CN=127.0.0.1 2>/dev/null &&
 printf 'subjectAltName=IP:127.0.0.1,DNS:collector.test\n' > ext &&
 openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt -days 2 -extfile ext 2>/dev/null &&
 openssl x509 -in server.crt -pubkey -noout > server.pub &&
 openssl req -newkey rsa:2048 -nodes -keyout other.key -out other.csr -subj /CN=other 2>/dev/null &&
 openssl pkey -in other.key -pubout -out other.pub 2>/dev/null)
double ok tls
TURL=https://127.0.0.1:$PORT/api/v1/reports
id=$(new_report M8 8)
cfb submit --state-dir "$ST" --endpoint "$TURL" --yes "$id" 2>"$T_TMP/err"
check "https with an unknown CA: refused" [ "$(state_of "$id")" = consented ]
check "https with an unknown CA: says why ($(head -c 200 "$T_TMP/err"))" grep -qi 'certificate' "$T_TMP/err"
printf 'ca-file = %s/pki/ca.crt\npinned-public-key = %s/pki/other.pub\n' "$T_TMP" "$T_TMP" >> "$CONF"
$PY -c "
import json; p = '$ST/reports/$id.state'; s = json.load(open(p)); s['next_attempt'] = 0
json.dump(s, open(p, 'w'))"
cfb flush --state-dir "$ST" > /dev/null 2>"$T_TMP/err"
check "https with a wrong pinned key: refused" [ "$(state_of "$id")" = consented ]
sed -i "s|other.pub|server.pub|" "$CONF"
$PY -c "
import json; p = '$ST/reports/$id.state'; s = json.load(open(p)); s['next_attempt'] = 0
json.dump(s, open(p, 'w'))"
cfb flush --state-dir "$ST" > /dev/null 2>"$T_TMP/err"
check "https with our CA and the right pin: sent" [ "$(state_of "$id")" = sent ]

# --- a proxy: for https, from the config and the environment; never to loopback --
# collector.test is this double to the proxy alone: the client, which does
# not resolve an https endpoint's name behind a proxy, reaches it only so.
$PY tests/client/proxy_double.py --port-file "$T_TMP/pport" --log "$T_TMP/proxy.log" --lifetime 60 \
	--map collector.test=127.0.0.1 &
PPID_=$!
i=0
while [ ! -s "$T_TMP/pport" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
PROXY=http://127.0.0.1:$(cat "$T_TMP/pport")
PURL=https://collector.test:$PORT/api/v1/reports
cp "$CONF" "$T_TMP/conf.proxy"
echo "proxy = $PROXY" >> "$T_TMP/conf.proxy"
id=$(new_report M8 px1)
"$CGFB" --config "$T_TMP/conf.proxy" submit --state-dir "$ST" --endpoint "$PURL" --yes "$id" > /dev/null
check "proxy from the config: sent" [ "$(state_of "$id")" = sent ]
check "proxy from the config: through it, a TLS tunnel" grep -q "^CONNECT collector.test:$PORT$" "$T_TMP/proxy.log"
id=$(new_report M8 px2)
https_proxy=$PROXY cfb submit --state-dir "$ST" --endpoint "$PURL" --yes "$id" > /dev/null
check "proxy from https_proxy: sent through it" [ "$(grep -c "^CONNECT collector.test" "$T_TMP/proxy.log")" -eq 2 ]
# A loopback collector is reached directly whatever names a proxy: plain
# http to it is allowed only because its bytes stay on this machine.
id=$(new_report M8 px3)
http_proxy=$PROXY https_proxy=$PROXY all_proxy=$PROXY \
	"$CGFB" --config "$T_TMP/conf.proxy" submit --state-dir "$ST" --endpoint "$TURL" --yes "$id" > /dev/null
check "a loopback collector with every proxy set: sent directly" \
	sh -c '[ "$1" = sent ] && [ "$(wc -l < "$2")" -eq 2 ]' _ "$(state_of "$id")" "$T_TMP/proxy.log"
kill $PPID_ 2>/dev/null
sed -i '/^ca-file\|^pinned/d' "$CONF"

# --use-case-file - reads standard input.
double ok
id=$(new_report M8 stdin)
echo "We pin one database per NUMA node." | cfb submit --state-dir "$ST" --endpoint "$URL" --yes \
	--use-case-file - "$id" > /dev/null 2>"$T_TMP/err"
check "--use-case-file -: the use case from standard input is sent" \
	sh -c '[ "$1" = sent ] && grep -q "We pin one database per NUMA node." "$2"' _ "$(state_of "$id")" "$D/last-body"

# Configuration errors are not retried, and say what to check: https:// to
# a collector without TLS (the double, plain HTTP), a path where no
# collector takes reports. Fixed, the same report is sent by its submit.
double ok
id=$(new_report M8 8b)
cfb submit --state-dir "$ST" --endpoint "https://127.0.0.1:$PORT/api/v1/reports" --yes "$id" 2>"$T_TMP/err"
check "https:// to a plain-HTTP collector: not retried" \
	sh -c '[ "$1" = consented ] && [ "$2" -lt 0 ]' _ "$(state_of "$id")" "$(field "$id" next_attempt)"
check "... says it is the configuration's, and what to check" \
	grep -q "wrong version number; a configuration error, not retried: is the endpoint https:// with TLS there" "$T_TMP/err"
cfb submit --state-dir "$ST" --endpoint "http://127.0.0.1:$PORT/api/v1/report" --yes "$id" 2>"$T_TMP/err"
check "a wrong path (404): not retried" [ "$(field "$id" next_attempt)" -lt 0 ]
check "... says no collector takes reports there, and the path it wants" \
	grep -q "HTTP 404: not_found; a configuration error, not retried: no collector takes reports at this URL (it ends in /api/v1/reports)" "$T_TMP/err"
cfb flush --state-dir "$ST" > /dev/null 2>&1
check "... flush does not try it again" [ "$(requests)" -eq 1 ]
paste_hint 's|.*after fixing the configuration, \([^ ]*cgroup-feedback .*\) sends it.*|\1 --endpoint '"$URL"'|p' \
	"$T_TMP/err" "a configuration error's hint (with the endpoint fixed)"
check "... which sent it" [ "$(state_of "$id")" = sent ]

# --- what the administrator wrote --------------------------------------------------
double ok
id=$(new_report M8 9)
printf 'Contact ops@acme-corp.example or ssh to 10.20.30.40 for details.\n' > "$T_TMP/uc2"
cfb submit --state-dir "$ST" --endpoint "$URL" --yes --use-case-file "$T_TMP/uc2" "$id" 2>"$T_TMP/err"
check "secrets in an unattended use case: refused" [ $? -eq 2 ]
check "secrets: each one named" sh -c "grep -q 'e-mail address' '$T_TMP/err' && grep -q 'IPv4 address' '$T_TMP/err'"
check "secrets: nothing sent" [ "$(requests)" -eq 0 ]
cfb submit --state-dir "$ST" --endpoint "$URL" --yes --redact --use-case-file "$T_TMP/uc2" "$id" \
	> /dev/null 2>"$T_TMP/err"
check "--redact: sent" [ "$(state_of "$id")" = sent ]
check "--redact: the secrets are not in the bytes" sh -c "! grep -q -e 'ops@acme' -e '10.20.30.40' '$D/last-body'"
check "--redact: replaced by markers" grep -q 'redacted e-mail address' "$D/last-body"

# A use case or an answer with a control character other than newline and tab
# (issue 15, defect 6): refused before anything is recorded, saying which byte.
double ok
id=$(new_report M8 9c)
# Under valgrind NUL and CR take every branch of the refusal (CR's adds
# the dos2unix hint); ESC and DEL take NUL's again, so they run natively
# (CGFB_NATIVE, tests/lib.sh), which saves valgrind's start-ups.
for c in 000 033 015 177; do
	printf "before\\${c}after<script>\n" > "$T_TMP/uc3"
	run=$CGFB
	case $c in 033 | 177) run=$CGFB_NATIVE ;; esac
	"$run" --config "$CONF" submit --state-dir "$ST" --endpoint "$URL" --yes --use-case-file "$T_TMP/uc3" "$id" \
		> /dev/null 2>"$T_TMP/err"
	check "use case file with byte (octal $c): refused" [ $? -eq 2 ]
	check "use case file with byte (octal $c): says which byte" grep -q 'byte 7 is the control character' "$T_TMP/err"
done
cfb submit --state-dir "$ST" --endpoint "$URL" --yes --answer "software=a$(printf '\033')[2Jb" "$id" \
	> /dev/null 2>"$T_TMP/err"
check "an --answer with ESC: refused" [ $? -eq 2 ]
check "an --answer with ESC: says so" grep -q 'the control character 0x1b' "$T_TMP/err"
check "control characters: nothing sent" [ "$(requests)" -eq 0 ]
check "control characters: the report still waits for review" [ ! -f "$ST/reports/$id.state" ]

# --- only what was agreed to leaves ---------------------------------------------------
double fail500,ok
id=$(new_report M8 10)
# The 500's path of the first failure above, under valgrind there; the
# flush below is this part's own.
cfb_native submit --state-dir "$ST" --endpoint "$URL" --yes "$id" 2>/dev/null
sed -i 's/"cpus":"2-3"/"cpus":"4-7"/' "$ST/reports/$id.json"
$PY -c "
import json; p = '$ST/reports/$id.state'; s = json.load(open(p)); s['next_attempt'] = 0
json.dump(s, open(p, 'w'))"
cfb flush --state-dir "$ST" > /dev/null 2>&1
check "bytes changed after consent: not sent" [ "$(requests)" -eq 1 ]
check "bytes changed after consent: asks again" [ "$(state_of "$id")" = pending ]

# --- decline, consent = never, consent = auto ------------------------------------------
id=$(new_report M3 11)
cfb decline --state-dir "$ST" "$id"
check "decline: state declined" [ "$(state_of "$id")" = declined ]
cfb submit --state-dir "$ST" --endpoint "$URL" --yes "$id" 2>"$T_TMP/err"
check "a declined report cannot be submitted" grep -q 'is declined' "$T_TMP/err"
cp "$CONF" "$T_TMP/conf.never"
echo 'consent = never' >> "$T_TMP/conf.never"
id=$(new_report M8 12)
"$CGFB" --config "$T_TMP/conf.never" submit --state-dir "$ST" --endpoint "$URL" --yes "$id" 2>"$T_TMP/err"
check "consent = never: submit refused" grep -q 'consent = never' "$T_TMP/err"
double ok
cp "$CONF" "$T_TMP/conf.auto"
printf 'consent = auto\nuse-case-file = %s/uc\nendpoint = %s\n' "$T_TMP" "$URL" >> "$T_TMP/conf.auto"
"$CGFB" --config "$T_TMP/conf.auto" flush --state-dir "$ST" > "$T_TMP/out" 2>&1
check "consent = auto: flush consents and sends pending reports" [ "$(state_of "$id")" = sent ]
check "consent = auto: with the configured use case" grep -q 'siblings must stay isolated' "$D/last-body"

# --- no collector configured (no endpoint: the default) -------------------------------
# Nothing is consented for HTTP to an address nobody runs: submit has
# nowhere to send and says what reaches the maintainers; consent = auto,
# which sends unattended, needs a collector; flush has nothing to try.
id=$(new_report M8 14)
n=$(requests)
cfb submit --state-dir "$ST" --yes --use-case-file "$T_TMP/uc" "$id" > /dev/null 2>"$T_TMP/err"
check "no collector configured: submit --yes refused (exit 2), nothing sent, still pending" \
	sh -c '[ "$1" -eq 2 ] && [ "$2" -eq "$3" ] && [ ! -f "$4" ]' _ $? "$(requests)" "$n" "$ST/reports/$id.state"
check "... saying so, and that the e-mail from review is what reaches the maintainers" \
	grep -q "no collector is configured (endpoint in the configuration, or --endpoint URL), so submit has nowhere to send report $id; what reaches the kernel maintainers is the e-mail: $HINT_CLI_RE --config $CONF --state-dir $ST review $id" "$T_TMP/err"
grep -v '^endpoint' "$T_TMP/conf.auto" > "$T_TMP/conf.auto-none"
# Natively under valgrind: the configuration's check runs there in
# test_config, and nothing after it.
"$CGFB_NATIVE" --config "$T_TMP/conf.auto-none" flush --state-dir "$ST" > /dev/null 2>"$T_TMP/err"
check "consent = auto without a collector: the configuration is refused, nothing consented or sent" \
	sh -c '[ "$1" -eq 2 ] && grep -q "consent = auto needs endpoint" "$2" && [ ! -f "$3" ] &&
		[ "$4" -eq "$5" ]' _ $? "$T_TMP/err" "$ST/reports/$id.state" "$(requests)" "$n"

# --- export for machines without network -------------------------------------------
id=$(new_report M8 13)
cfb export --yes --state-dir "$ST" --use-case-file "$T_TMP/uc" --output "$T_TMP/r.eml" "$id" > "$T_TMP/export.out"
check "export writes an e-mail" grep -q '^To: linux-mm@kvack.org' "$T_TMP/r.eml"
check "export: the size and SHA-256 it prints are the e-mail's header and the spool's" $PY -c "
import email, email.policy, hashlib, json, re
out = open('$T_TMP/export.out').read()
got = re.findall(r'the report: (\d+) bytes, SHA-256 ([0-9a-f]{64})', out)
j = open('$ST/reports/$id.json', 'rb').read()
sha = hashlib.sha256(j).hexdigest()
assert got == [(str(len(j)), sha)], (out, len(j), sha)
m = email.message_from_bytes(open('$T_TMP/r.eml', 'rb').read(), policy=email.policy.default)
assert m['X-Cgroup-Feedback-SHA256'] == sha
assert json.load(open('$ST/reports/$id.state'))['sha256'] == sha
"
check "export: the JSON in the mail is the report, byte for byte" $PY -c "
import hashlib, re
m = open('$T_TMP/r.eml', encoding='utf-8').read()
body = m.split('-----BEGIN CGROUP-FEEDBACK REPORT-----\n')[1].split('\n-----END CGROUP-FEEDBACK REPORT-----')[0]
j = body.replace('\n', '').encode()
assert j == open('$ST/reports/$id.json', 'rb').read()
import email, email.policy
# Exactly: a header folded after the colon reads as ' <hash>' (default
# policy) or '\\n <hash>' (compat32).
for pol in (email.policy.default, email.policy.compat32):
    h = str(email.message_from_string(m, policy=pol)['X-Cgroup-Feedback-SHA256'])
    assert h == hashlib.sha256(j).hexdigest(), repr(h)
assert max(len(l) for l in m.split('\n')) <= 998
"
check "export: consent says mailto" grep -q '"endpoint":"mailto:linux-mm@kvack.org"' "$ST/reports/$id.json"
check "export: not sent by flush" sh -c "'$CGFB' --config '$CONF' flush --state-dir '$ST' | grep -q '0 sent'"

# --- a spool with damage ------------------------------------------------------------------
printf 'garbage' > "$ST/reports/00000000-0000-4000-8000-000000000000.json"
echo hi > "$ST/reports/notes.txt"
cfb list --state-dir "$ST" > "$T_TMP/out" 2>"$T_TMP/err"
check "damaged spool: list still works" [ $? -eq 0 ]
check "damaged spool: corrupt report moved aside" [ -f "$ST/reports/quarantine/00000000-0000-4000-8000-000000000000.json" ]
check "damaged spool: foreign file moved aside" [ -f "$ST/reports/quarantine/notes.txt" ]
check "damaged spool: the reason is logged" grep -q 'corrupt report' "$T_TMP/err"
check "damaged spool: the good reports are all listed" [ "$(grep -c -- '-4' "$T_TMP/out")" -ge 12 ]
cfb show --state-dir "$ST" ../../etc/passwd 2>"$T_TMP/err"
check "show refuses a path for an id" grep -q 'is not a report id' "$T_TMP/err"

# --- a consent given under another report schema is asked for again ----------------
# flush finds the consent record naming another schema (as after an upgrade
# that changed it): the report goes back to pending, and the log line's
# command works when pasted (show in review's place: review wants a terminal).
S2=$T_TMP/state2
mkdir -p "$S2"
double fail500
id=$($PY tests/client/pending_report.py "$S2" M8 9)
# The 500's path again (the first failure above, under valgrind there).
cfb_native submit --state-dir "$S2" --endpoint "$URL" --yes "$id" 2>/dev/null
zeros=0000000000000000000000000000000000000000000000000000000000000000
sed -i "s/\"schema_sha256\":\"[0-9a-f]\{64\}\"/\"schema_sha256\":\"$zeros\"/" "$S2/reports/$id.json"
$PY -c "
import json; p = '$S2/reports/$id.state'; s = json.load(open(p)); s['next_attempt'] = 0
json.dump(s, open(p, 'w'))"
cfb flush --state-dir "$S2" > /dev/null 2>"$T_TMP/err"
check "another schema: flush sends nothing and asks for a new review" \
	sh -c 'grep -q "\"state\":\"pending\"" "$1" && grep -q "consented to under another report schema" "$2"' \
	_ "$S2/reports/$id.state" "$T_TMP/err"
paste_hint "s/.*review it again: \([^ ]*cgroup-feedback .*\) review \($id\)\$/\1 show \2/p" "$T_TMP/err" \
	"another schema: the hint"

# withdraw while flush sends the same report (the senders' lock,
# report/spool.h): the send finishes first, then the withdrawal finds the
# report sent and deletes it from the collector, never "never sent" while
# the send records it sent.
S3=$T_TMP/state3
mkdir -p "$S3"
double fail500
id=$($PY tests/client/pending_report.py "$S3" M8 10)
cfb_native submit --state-dir "$S3" --endpoint "$URL" --yes "$id" > /dev/null 2>&1
$PY -c "
import json; p = '$S3/reports/$id.state'; s = json.load(open(p)); s['next_attempt'] = 0
json.dump(s, open(p, 'w'))"
echo slowok > "$D/mode"
before=$(requests)
cfb_native flush --state-dir "$S3" > "$T_TMP/flush.out" 2>&1 &
fl=$!
i=0
until [ "$(requests)" -gt "$before" ] || [ $i -ge 300 ]; do sleep 0.05; i=$((i + 1)); done
cfb withdraw --state-dir "$S3" "$id" > "$T_TMP/wd.out" 2> "$T_TMP/wd.err"
wrc=$?
wait $fl
check "withdraw during flush's send: it waits, then deletes the sent report (exit $wrc: $(head -c 120 "$T_TMP/wd.out"))" \
	sh -c '[ $1 -eq 0 ] && grep -q "deleted from" "$2" && grep -q "^DELETE " "$3"' _ $wrc \
	"$T_TMP/wd.out" "$D/requests.log"
check "... and the spool says withdrawn, not sent" [ "$(state_of_in "$S3" "$id")" = withdrawn ]
finish
