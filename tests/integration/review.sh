#!/bin/sh
# The interactive review, on a real pseudo-terminal: questions, use case,
# redaction of private data, the exact bytes, and the [y/N] that defaults to no.
. tests/lib.sh
. tests/client/lib.sh

ST=$T_TMP/state
CONF=$T_TMP/conf
mkdir -p "$ST"
start_double "$T_TMP" ok
trap 'stop_double; [ -n "${CGFB_KEEP_TMP:-}" ] || rm -rf "$T_TMP"' EXIT
printf 'endpoint = %s\nmotd-path = %s/motd/cgroup-feedback.motd\nnotify = log, motd\n' \
	"$URL" "$T_TMP" > "$CONF"
new_report() { $PY tests/client/pending_report.py "$ST" "${1:-M8}" "$2"; }
state_of() { sed -n 's/.*"state":"\([a-z]*\)".*/\1/p' "$ST/reports/$1.state" 2>/dev/null | head -1; }
drive() {  # drive NAME ID < script
	$PY tests/client/drive_review.py "$T_TMP/$1.log" -- \
		"$CGFB" --config "$CONF" review --state-dir "$ST" --output "$T_TMP/$1.eml" $2
}
HOST=$(hostname)

# 1: answer everything, leak secrets, accept the redaction, say yes.
id=$(new_report M8 r1)
TAB=$(printf '\t')
drive send "$id" <<EOS
Which software creates${TAB}libvirt via our own tool
Why must these sibling${TAB}each VM gets its own budget
Would the reorganisation${TAB}no: the parent holds the qemu helpers
Describe your use case${TAB}Ask ops@acme-corp.example or log in to 10.1.2.3 as admin.
10.1.2.3 as admin${TAB}
Replace these with${TAB}
Send this report to http${TAB}y
EOS
check "review: exit 0" [ $? -eq 0 ]
check "review: the message and its meaning are shown" sh -c "grep -q 'Non-hierarchical mode is deprecated' '$T_TMP/send.log' && grep -q 'behaviour WOULD change' '$T_TMP/send.log' && grep -q 'Suggested reorganisation' '$T_TMP/send.log'"
check "review: sent" [ "$(state_of "$id")" = sent ]
check "review: the e-mail address was named" grep -q 'e-mail address: ops@acme-corp.example' "$T_TMP/send.log"
check "review: neither secret left the machine" sh -c "! grep -q -e 'ops@acme' -e '10.1.2.3' '$T_TMP/last-body'"
check "review: the redaction markers did" grep -q '\[redacted e-mail address\]' "$T_TMP/last-body"
check "review: before the yes, it says the use case will be published on the public list" \
	$PY -c "
log = open('$T_TMP/send.log', encoding='utf-8', errors='replace').read()
i, j = log.rfind('will be PUBLISHED'), log.find('Send this report to')
assert 0 <= i < j and 'public linux-mm mailing list' in log[i:j], (i, j)
"
check "review: docs/PRIVACY.md says the same" grep -q 'public linux-mm mailing list' docs/PRIVACY.md
check "review: the answers went with it" $PY -c "
import json
r = json.load(open('$T_TMP/last-body'))
a = r['use_case']['answers']
assert a == {'software': 'libvirt via our own tool', 'why_flat': 'each VM gets its own budget',
             'reorganisation': 'no: the parent holds the qemu helpers'}, a
"
check "review: the bytes shown are the bytes sent" $PY -c "
log = open('$T_TMP/send.log', 'rb').read().replace(b'\r\n', b'\n')
assert open('$T_TMP/last-body', 'rb').read() in log
"
check "review: the receipt is shown" grep -q 'Sent. The collector stored it' "$T_TMP/send.log"
check "review: the size and SHA-256 shown before the yes are the body's, the receipt's and the spool's" $PY - "$T_TMP/send.log" "$T_TMP/last-body" "$ST/reports/$id.state" <<'EOP'
import hashlib, json, re, sys
log = open(sys.argv[1], encoding="utf-8", errors="replace").read()
body = open(sys.argv[2], "rb").read()
shown = re.findall(r"These (\d+) bytes \(SHA-256 ([0-9a-f]{64})\)", log[:log.find("Send this report to")])
receipt = re.findall(r"Sent\. The collector stored it as \S+ \(SHA-256 ([0-9a-f]{64})\)", log)
state = json.load(open(sys.argv[3]))
sha = hashlib.sha256(body).hexdigest()
assert shown == [(str(len(body)), sha)], (shown, len(body), sha)
assert receipt == [sha], receipt
assert state["sha256"] == sha and state["receipt"]["sha256"] == sha, state
EOP

# 2: Enter at the [y/N] means no; then keep for later.
id=$(new_report M3 r2)
drive keep "$id" <<EOS
What do you use this setting for${TAB}reserving memory for the database
Which software${TAB}
Would the cgroup v2${TAB}
Describe your use case${TAB}
Send this report to${TAB}
Then: \\[e\\]xport${TAB}
EOS
check "Enter at [y/N]: nothing sent" [ "$(grep -c "$id" "$T_TMP/requests.log")" -eq 0 ]
check "keep: still pending" [ ! -f "$ST/reports/$id.state" ]
check "keep: the login banner lists it" grep -q 'M3' "$T_TMP/motd/cgroup-feedback.motd"

# 3: export as e-mail from the review.
drive export "$id" <<EOS
What do you use${TAB}
Which software${TAB}
Would the cgroup v2${TAB}
Describe your use case${TAB}
Send this report to${TAB}n
Then: \\[e\\]xport${TAB}e
address for the From: line${TAB}Jane Admin <jane@example.org>
Write this report as an e-mail for linux-mm@kvack.org to${TAB}y
Wrote${TAB}
EOS
check "export from review: the e-mail is written" grep -q '^X-Cgroup-Feedback-Report-Id: '"$id" "$T_TMP/export.eml"
check "export from review: the From: typed at the prompt" grep -q '^From: Jane Admin <jane@example.org>' "$T_TMP/export.eml"
check "export from review: nothing sent over HTTP" [ "$(grep -c "$id" "$T_TMP/requests.log")" -eq 0 ]
check "export from review: the size and SHA-256 shown before its yes are the e-mail's and the spool's" $PY - "$T_TMP/export.log" "$T_TMP/export.eml" "$ST/reports/$id.state" <<'EOP'
import email, email.policy, hashlib, json, re, sys
log = open(sys.argv[1], encoding="utf-8", errors="replace").read()
msg = email.message_from_bytes(open(sys.argv[2], "rb").read(), policy=email.policy.default)
body = msg.get_content()
j = body.split("-----BEGIN CGROUP-FEEDBACK REPORT-----\n")[1].split("\n-----END")[0].replace("\n", "").encode()
shown = re.findall(r"These (\d+) bytes \(SHA-256 ([0-9a-f]{64})\)", log[:log.find("Write this report as an e-mail")])
sha = hashlib.sha256(j).hexdigest()
assert shown[-1] == (str(len(j)), sha), (shown, len(j), sha)
assert msg["X-Cgroup-Feedback-SHA256"] == sha, msg["X-Cgroup-Feedback-SHA256"]
assert json.load(open(sys.argv[3]))["sha256"] == sha
assert json.loads(j)["consent"]["endpoint"] == "mailto:linux-mm@kvack.org"
EOP

# 4: never ask about M8 again.
id=$(new_report M8 r4)
drive never "$id" <<EOS
Which software${TAB}
Why must${TAB}
Would the reorg${TAB}
Describe your use case${TAB}
Send this report to${TAB}n
Then: \\[e\\]xport${TAB}n
EOS
check "never: declined" [ "$(state_of "$id")" = declined ]
check "never: M8 silenced for good" grep -qx M8 "$ST/silenced"
check "nothing pending: the banner is gone" [ ! -f "$T_TMP/motd/cgroup-feedback.motd" ]

# 5: the terminal goes away in the middle: nothing is sent, nothing breaks.
id=$(new_report M8 r5)
drive eof "$id" <<EOS
Which software${TAB}<EOF>
EOS
check "EOF mid-review: nothing sent" [ "$(grep -c "$id" "$T_TMP/requests.log")" -eq 0 ]
check "EOF mid-review: still pending" [ ! -f "$ST/reports/$id.state" ]

# 6: a message no catalog entry describes (G1): shown in its shape, and the
# administrator's own wording replaces it, after the secret check.
id=$(new_report G1 r6)
drive g1 "$id" <<EOS
Type the message as you want it sent${TAB}memcg acme_v2 flag on 10.9.8.7 is deprecated, tell linux-mm@kvack.org
10.9.8.7 is deprecated${TAB}
What were you doing${TAB}starting the batch service
Describe your use case${TAB}
Replace these with${TAB}y
Send this report to http${TAB}y
EOS
check "G1: the shaped text is shown before anything is asked" \
	grep -q 'memcg _ _ _ deprecated, please tell linux-mm@kvack.org' "$T_TMP/g1.log"
check "G1: the administrator's wording was sent, the address redacted" $PY -c "
import json
m = json.load(open('$T_TMP/last-body'))['detection']['message']
assert m == 'memcg acme_v2 flag on [redacted IPv4 address] is deprecated, tell linux-mm@kvack.org', m
"
id=$(new_report G1 r7)
"$CGFB" --config "$CONF" submit --state-dir "$ST" --yes "$id" > /dev/null 2>&1
check "G1 unattended (submit --yes): only the shaped text leaves" $PY -c "
import json
m = json.load(open('$T_TMP/last-body'))['detection']['message']
assert m == 'memcg _ _ _ deprecated, please tell linux-mm@kvack.org', m
"

"$CGFB" --config "$CONF" review --state-dir "$ST" < /dev/null 2>"$T_TMP/err"
check "review without a terminal points to submit --yes" grep -q 'submit ID --yes' "$T_TMP/err"
finish
