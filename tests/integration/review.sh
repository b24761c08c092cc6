#!/bin/sh
# The interactive review, on a real pseudo-terminal: questions, use case,
# redaction of private data, the exact bytes, and the [y/N] that defaults to no.
. tests/lib.sh
. tests/client/lib.sh

ST=$T_TMP/state
CONF=$T_TMP/conf
mkdir -p "$ST"
start_double "$T_TMP" ok
trap 'stop_double; t_cleanup' EXIT
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
(?s)>>ops@acme-corp.example<<.*\\[r\\]eplace it${TAB}
(?s)>>10.1.2.3<<.*\\[r\\]eplace it${TAB}
Send this report to http${TAB}y
EOS
check "review: exit 0" [ $? -eq 0 ]
check "review: the message and its meaning are shown" sh -c "grep -q 'Non-hierarchical mode is deprecated' '$T_TMP/send.log' && grep -q 'behaviour WOULD change' '$T_TMP/send.log' && grep -q 'Suggested reorganisation' '$T_TMP/send.log'"
check "review: sent" [ "$(state_of "$id")" = sent ]
check "review: the e-mail address was named" grep -q 'e-mail address: ops@acme-corp.example' "$T_TMP/send.log"
check "review: neither secret left the machine" sh -c "! grep -q -e 'ops@acme' -e '10.1.2.3' '$T_TMP/last-body'"
check "review: the redaction markers did" grep -q '\[redacted e-mail address\]' "$T_TMP/last-body"
check "review: before the yes, it says the use case will be published on the public list, and with what" \
	$PY - "$T_TMP/send.log" "$id" <<'EOP'
import sys
log = " ".join(open(sys.argv[1], encoding="utf-8", errors="replace").read().split())
i, j = log.rfind("will be PUBLISHED"), log.find("Send this report to")
said = log[i:j]
assert 0 <= i < j and "public linux-mm mailing list" in said, (i, j)
# What the collector's digest prints with a use case (server-e2e.sh
# compares it with a real collector's digest).
assert "under the message's id (M8) and the start of the report id (%s)" % sys.argv[2][:8] in said, said
EOP
check "review: docs/PRIVACY.md says the same" grep -q 'public linux-mm mailing list' docs/PRIVACY.md
check "review: the answers went with it" $PY -c "
import json
r = json.load(open('$T_TMP/last-body'))
a = r['use_case']['answers']
assert a == {'software': 'libvirt via our own tool', 'why_flat': 'each VM gets its own budget',
             'reorganisation': 'no: the parent holds the qemu helpers'}, a
"
check "review: the preview is readable, and is the same JSON as the bytes sent" $PY - "$T_TMP/send.log" "$T_TMP/last-body" <<'EOP'
import json, sys
log = open(sys.argv[1], encoding="utf-8").read().replace("\r\n", "\n")
body = open(sys.argv[2], "rb").read()
view = log[log.index("\n{\n", log.index("These ")) + 1:]
view = view[:view.index("\n}\n") + 3]
lines = view.split("\n")
# Sectioned and indented, not one 4 KB line.
assert len(lines) > 40 and max(len(l) for l in lines) < 200, (len(lines), max(len(l) for l in lines))
# The administrator's own words first, then the message, then the rest.
assert view.startswith('{\n  "use_case": ') and all(s in view for s in ('\n\n  "detection": ', '\n\n  "analysis": ', '\n\n  "system": ')), view[:400]
assert view.index('"use_case"') < view.index('"detection"') < view.index('"analysis"'), view[:400]
# The same JSON: written canonically it is exactly what the collector got.
canon = json.dumps(json.loads(view), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
assert canon == body, "the preview is not the JSON that was sent"
EOP
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

# 3: the packaged configuration, which names no collector: review says
# where a yes goes before anything is asked, never offers to send over the
# network, and offers the e-mail for the list and keep; the e-mail from
# review, shown whole and said to be public, is the file written.
PKGCONF=$T_TMP/packaged.conf
sed "s|^motd-path = .*|motd-path = $T_TMP/motd/cgroup-feedback.motd|" \
	packaging/conf/cgroup-feedback.conf > "$PKGCONF"
$PY tests/client/drive_review.py "$T_TMP/export.log" -- \
	"$CGFB" --config "$PKGCONF" review --state-dir "$ST" --output "$T_TMP/export.eml" "$id" <<EOS
What do you use${TAB}
Which software${TAB}
Would the cgroup v2${TAB}
Describe your use case${TAB}
Now: \\[e\\]-mail it to linux-mm@kvack.org \\(shown first, then asked\\), \\[k\\]eep for later${TAB}e
address for the From: line${TAB}Jane Admin <jane@example.org>
Write this report as an e-mail for linux-mm@kvack.org to${TAB}y
Wrote${TAB}
EOS
check "packaged configuration: review exits 0" [ $? -eq 0 ]
check "packaged configuration: no collector named, never an offer to send, no loopback address" \
	sh -c '! grep -q -e "Send this report to" -e "http://" -e "127\.0\.0\.1" -e "\[::1\]" -e "localhost:" "$1"' \
	_ "$T_TMP/export.log"
check "packaged configuration: before the first question, where a yes goes (the e-mail, to a file)" \
	$PY - "$T_TMP/export.log" <<'EOP'
import sys
log = " ".join(open(sys.argv[1], encoding="utf-8").read().split())
said = ("Where a yes at the end goes: No collector is configured (endpoint), so a yes writes the "
        "report as an e-mail for linux-mm@kvack.org to a file, for you to send; nothing goes "
        "over the network.")
assert 0 <= log.find(said) < log.find("What do you use"), log[:1500]
EOP
check "export from review: the e-mail is written" grep -q '^X-Cgroup-Feedback-Report-Id: '"$id" "$T_TMP/export.eml"
check "export from review: the From: typed at the prompt" grep -q '^From: Jane Admin <jane@example.org>' "$T_TMP/export.eml"
check "export from review: the whole e-mail shown, and what the list publishes said, before its yes are what was written" \
	$PY tests/client/mail_shown.py "$T_TMP/export.log" "$T_TMP/export.eml"
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
Then: \\[e\\]xport${TAB}v
Never ask about M8 again${TAB}y
EOS
check "never: declined" [ "$(state_of "$id")" = declined ]
check "never: M8 silenced for good" grep -qx M8 "$ST/silenced"
"$CGFB" --config "$CONF" status --state-dir "$ST" > "$T_TMP/status.out" 2>&1
check "never: status lists M8 as silenced, with the undo" \
	grep -q "never asked again (silenced): M8; to be asked again: $HINT_CLI_RE --config $CONF --state-dir $ST reopen M8" \
	"$T_TMP/status.out"
never_id=$id
"$CGFB" --config "$CONF" list --json --state-dir "$ST" > "$T_TMP/list.out" 2>&1
check "never: list --json marks its report silenced" \
	grep -q "\"id\":\"$id\".*\"silenced\":true" "$T_TMP/list.out"
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
\\[r\\]eplace it${TAB}r
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

# 7: drafts. What is typed is kept from the moment it is typed: keep for
# later, and the next review starts from it.
id=$(new_report M8 r8)
drive draft1 "$id" <<EOS
Which software creates${TAB}slurm via cgconfig
Why must these sibling${TAB}
Would the reorganisation${TAB}no
Describe your use case${TAB}Batch jobs share one parent budget.
parent budget\\.${TAB}
Send this report to http${TAB}
Then: \\[e\\]xport${TAB}k
EOS
check "draft: keep for later keeps it pending, nothing sent" \
	sh -c "[ ! -f '$ST/reports/$id.state' ] && ! grep -q '$id' '$T_TMP/requests.log'"
check "draft: before the yes it said the report had a use case (no warning)" \
	sh -c "! grep -q 'has no use case' '$T_TMP/draft1.log'"
check "draft: saved next to the report, mode 0600, with what was typed" $PY -c "
import json, os, stat
p = '$ST/reports/$id.draft'
assert stat.S_IMODE(os.stat(p).st_mode) == 0o600, oct(os.stat(p).st_mode)
d = json.load(open(p))
assert d['answers'] == {'software': 'slurm via cgconfig', 'reorganisation': 'no'}, d
assert d['use_case'] == 'Batch jobs share one parent budget.', d
"
check "draft: keep for later says how to come back" grep -q "review $id starts from it" "$T_TMP/draft1.log"
drive draft2 "$id" <<EOS
Which software creates${TAB}
Why must these sibling${TAB}because
Would the reorganisation${TAB}-
Describe your use case${TAB}
Send this report to http${TAB}y
EOS
check "draft: the second review shows the answers and use case kept" sh -c "
grep -q 'your answer so far: slurm via cgconfig' '$T_TMP/draft2.log' &&
grep -q 'your answer so far: no' '$T_TMP/draft2.log' &&
grep -q '| Batch jobs share one parent budget.' '$T_TMP/draft2.log'"
check "draft: Enter kept, a new answer added, - removed; all of it sent" $PY -c "
import json
r = json.load(open('$T_TMP/last-body'))
assert r['report_id'] == '$id'
assert r['use_case'] == {'text': 'Batch jobs share one parent budget.',
                         'answers': {'software': 'slurm via cgconfig', 'why_flat': 'because'}}, r['use_case']
"

# $EDITOR: an editor that exits non-zero was aborted (vim's :cq, as git
# takes it), and what it left in its file is not the use case; one that
# exits 0 gives its text. Each writes a line, then exits as told.
printf '#!/bin/sh\nprintf "%%s\\n" "Written in the editor, $ED_EXIT." > "$1"\nexit $ED_EXIT\n' \
	> "$T_TMP/editor"
chmod +x "$T_TMP/editor"
id=$(new_report M8 r8e)
for ex in 1 0; do
	ED_EXIT=$ex VISUAL="$T_TMP/editor" drive "editor$ex" "$id" <<EOS
Which software creates${TAB}
Why must these sibling${TAB}
Would the reorganisation${TAB}
Describe your use case${TAB}!e
Send this report to http${TAB}
Then: \\[e\\]xport${TAB}k
EOS
	cp "$ST/reports/$id.draft" "$T_TMP/editor$ex.draft" 2>/dev/null
done
check "\$EDITOR aborted (exit 1): nothing taken, said so" sh -c "
grep -q 'was aborted; nothing was taken from it' '$T_TMP/editor1.log' &&
! grep -q 'Written in the editor, 1' '$T_TMP/editor1.log'"
check "\$EDITOR: the aborted text is in no draft, the one saved (exit 0) is" $PY -c "
import json, os
p = '$T_TMP/editor1.draft'
assert not os.path.exists(p) or 'editor, 1' not in open(p).read(), open(p).read()
d = json.load(open('$T_TMP/editor0.draft'))
assert d['use_case'] == 'Written in the editor, 0.', d
"

# An empty use case is allowed, and said before the yes.
id=$(new_report M8 r9)
drive empty "$id" <<EOS
Which software creates${TAB}
Why must these sibling${TAB}
Would the reorganisation${TAB}
Describe your use case${TAB}
Send this report to http${TAB}
Then: \\[e\\]xport${TAB}k
EOS
check "empty use case: said before the yes" $PY -c "
log = open('$T_TMP/empty.log', encoding='utf-8', errors='replace').read()
i, j = log.find('This report has no use case'), log.find('Send this report to')
assert 0 <= i < j, (i, j)
"
"$CGFB" --config "$CONF" submit --state-dir "$ST" --yes "$id" > /dev/null 2>"$T_TMP/err"
check "empty use case: submit --yes says so too" grep -q "report $id has no use case" "$T_TMP/err"

# A secret shown and kept in the review is the administrator's choice: a
# later submit --yes sends it as written, without --redact.
id=$(new_report M8 r10)
drive kept "$id" <<EOS
Which software creates${TAB}
Why must these sibling${TAB}
Would the reorganisation${TAB}
Describe your use case${TAB}Questions to hpc-admins@uni.example, please.
example, please\\.${TAB}
\\[r\\]eplace it${TAB}k
Send this report to http${TAB}
Then: \\[e\\]xport${TAB}k
EOS
"$CGFB" --config "$CONF" submit --state-dir "$ST" --yes "$id" > /dev/null 2>"$T_TMP/err"
check "kept secret: submit --yes sends what the review showed and kept" \
	grep -q 'Questions to hpc-admins@uni.example, please.' "$T_TMP/last-body"
id=$(new_report M8 r11)
printf 'Questions to hpc-admins@uni.example, please.\n' > "$T_TMP/uc-secret"
"$CGFB" --config "$CONF" submit --state-dir "$ST" --yes --use-case-file "$T_TMP/uc-secret" "$id" \
	> /dev/null 2>"$T_TMP/err"
check "a secret nobody was shown is still refused without --redact" \
	sh -c "[ \"\$(grep -c '$id' '$T_TMP/requests.log')\" -eq 0 ] && grep -q 'refusing to send' '$T_TMP/err'"

# A draft left by a review that ended before its secret check (killed):
# submit checks it like any unattended text.
id=$(new_report M8 r14)
printf '{"use_case": "Ask ops@acme-corp.example", "answers": {"software": "libvirt"}}' \
	> "$ST/reports/$id.draft"
"$CGFB" --config "$CONF" submit --state-dir "$ST" --yes "$id" > /dev/null 2>"$T_TMP/err"
check "an unchecked draft: the secret in it is refused, named by its place, not its text" \
	sh -c "[ \"\$(grep -c '$id' '$T_TMP/requests.log')\" -eq 0 ] &&
	grep -q 'the use case, line 1, column 5 (byte 5, 21 bytes long): e-mail address found' '$T_TMP/err' &&
	! grep -q 'ops@acme' '$T_TMP/err'"
"$CGFB" --config "$CONF" submit --state-dir "$ST" --yes --redact "$id" > /dev/null 2>"$T_TMP/err"
check "an unchecked draft: --redact sends it redacted, with its answers" $PY -c "
import json
r = json.load(open('$T_TMP/last-body'))
assert r['report_id'] == '$id' and r['use_case'] == {
    'text': 'Ask [redacted e-mail address]', 'answers': {'software': 'libvirt'}}, r['use_case']
"

# One report, one way: exported with a use case, a submit afterwards is
# refused (its id in the public e-mail would find the collector's row, and
# that row's pseudonym every report of the machine there), nothing sent.
id=$(new_report M3 r12)
printf 'The database reserves its memory this way.\n' > "$T_TMP/uc-db"
"$CGFB" --config "$CONF" export --yes --state-dir "$ST" --use-case-file "$T_TMP/uc-db" \
	--answer purpose=reservation -o "$T_TMP/r12.eml" "$id" > "$T_TMP/r12.out" 2>&1
check "export --yes of a report not consented to before says it records consent for the mail channel" \
	grep -q "$id: consent recorded for the mail channel (mailto:linux-mm@kvack.org)" "$T_TMP/r12.out"
"$CGFB" --config "$CONF" submit --state-dir "$ST" --yes "$id" > /dev/null 2>"$T_TMP/r12.err"
check "export then submit: refused (exit 2), said, nothing sent, still consented for mail" \
	sh -c '[ "$1" = 2 ] && grep -q "each report goes one way" "$2" && ! grep -q "$3" "$4" &&
	grep -q "\"endpoint\":\"mailto:linux-mm@kvack.org\"" "$5"' _ "$?" "$T_TMP/r12.err" "$id" \
	"$T_TMP/requests.log" "$ST/reports/$id.state"

# Exported once without a use case, exported again with one: the second
# e-mail carries it.
id=$(new_report M3 r13)
"$CGFB" --config "$CONF" export --yes --state-dir "$ST" -o "$T_TMP/r13a.eml" "$id" > /dev/null 2>&1
"$CGFB" --config "$CONF" export --yes --state-dir "$ST" --use-case-file "$T_TMP/uc-db" \
	--answer purpose=reservation -o "$T_TMP/r13b.eml" "$id" > /dev/null 2>&1
check "a second export with a use case carries it" $PY - "$T_TMP/r13b.eml" <<'EOP'
import email, email.policy, sys
body = email.message_from_bytes(open(sys.argv[1], "rb").read(), policy=email.policy.default).get_content()
section = body.split("\nUse case\n")[1].split("\n\n")[0]
assert "The database reserves its memory this way." in section and "purpose: reservation" in section, section
EOP

# A pager that is not installed (less is not on a minimal Debian): the
# bytes are shown all the same, and they are the bytes sent.
id=$(new_report M8 r14)
DRIVE_PAGER=/nonexistent/less drive nopager "$id" <<EOS
Which software creates${TAB}
Why must these sibling${TAB}
Would the reorganisation${TAB}
Describe your use case${TAB}
Send this report to http${TAB}y
EOS
rc=$?
check "no pager: review still exits 0 and sends" sh -c "[ $rc -eq 0 ] && [ '$(state_of "$id")' = sent ]"
check "no pager: it says so, and the JSON shown is the body sent" $PY - "$T_TMP/nopager.log" "$T_TMP/last-body" <<'EOP'
import json, sys
log = open(sys.argv[1], encoding="utf-8").read().replace("\r\n", "\n")
assert '(The pager "/nonexistent/less" could not be run; the bytes are shown here.)' in log, log[-2000:]
shown = log.split("the bytes are shown here.)\n\n")[1].split("\n(")[0]
canon = json.dumps(json.loads(shown), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
assert canon == open(sys.argv[2], "rb").read(), "the JSON shown is not the body sent"
EOP

"$CGFB" --config "$CONF" review --state-dir "$ST" < /dev/null 2>"$T_TMP/err"
check "review without a terminal fails" [ $? -ne 0 ]
check "...and names the commands that work without one, for a waiting report" \
	grep -q "read the report with '$HINT_CLI_RE --config $CONF --state-dir $ST show [0-9a-f-]*', then send it as it is with '$HINT_CLI_RE --config $CONF --state-dir $ST submit [0-9a-f-]* --yes'" "$T_TMP/err"

# Ctrl-C at a question and at [y/N] ends the review with exit 130, says
# nothing was sent and how to go on, and keeps what was answered. (In the
# pager it is the pager's: review ignores it while one runs.)
id=$(new_report M8 intr)
drive intr1 "$id" <<EOS
Which software creates${TAB}our batch scheduler
Why must these sibling${TAB}<INTR>
EOS
rc=$?
check "Ctrl-C at a question: exit 130" [ $rc -eq 130 ]
check "... says nothing was sent, and the command that goes on" \
	grep -q "Interrupted: nothing was sent. What you answered so far is kept; $HINT_CLI_RE --config $CONF --state-dir $ST review $id goes on from there." "$T_TMP/intr1.log"
check "... the answer given before it is kept" grep -q "our batch scheduler" "$ST/reports/$id.draft"
drive intr2 "$id" <<EOS
Which software creates${TAB}
Why must these sibling${TAB}
Would the reorganisation${TAB}
Describe your use case${TAB}
Send this report to http${TAB}<INTR>
EOS
check "Ctrl-C at [y/N]: exit 130, nothing sent, the same words" \
	sh -c '[ $1 -eq 130 ] && [ "$(grep -c "$2" "$3")" -eq 0 ] && grep -q "Interrupted: nothing was sent" "$4"' \
	_ $? "$id" "$T_TMP/requests.log" "$T_TMP/intr2.log"
check "... the report still pending" [ "$(state_of "$id")" = "" ]
paste_hint 's/.*What you answered so far is kept; \([^ ]*cgroup-feedback .*\) review \([0-9a-f-]*\) goes on.*/\1 show \2/p' \
	"$T_TMP/intr2.log" "Ctrl-C's hint (show in review's place)"

# The commands review printed work when pasted as printed (they name this
# build's binary and this test's configuration): keep for later's way back (with show,
# as review wants a terminal), then the post-send withdraw, last, as it
# takes the first report back (paste_hint: tests/lib.sh).
paste_hint 's/.*Kept for later with what you typed; nothing was sent\. \([^ ]*cgroup-feedback .*\) review \([0-9a-f-]*\) starts.*/\1 show \2/p' \
	"$T_TMP/draft1.log" "keep for later's hint (show in review's place)"
paste_hint "s/.*read the report with '\\([^']*\\)'.*/\\1/p" "$T_TMP/err" "review without a terminal: its show"
paste_hint "s/.*send it as it is with '\\([^']*\\)'.*/\\1/p" "$T_TMP/err" "review without a terminal: its submit"
sent_id=$(tr -d '\r' < "$T_TMP/send.log" | sed -n 's/.*Withdraw it at any time: .* withdraw \([0-9a-f-]*\)$/\1/p')
paste_hint 's/.*Withdraw it at any time: \([^ ]*cgroup-feedback .*\)$/\1/p' "$T_TMP/send.log" \
	"the post-send hint"
check "...which withdrew that report at the collector" \
	grep -q "^DELETE /api/v1/reports/${sent_id:-none} " "$T_TMP/requests.log"

# When sending from review fails, its hint works too: a 503 leaves the
# report to flush, a refusal (409) to an administrator, who is sent to
# status. (The double's mode file sets every answer while it exists.)
# After the failed send review asks what then; Enter keeps the report as
# it is. Unanswered, the driver waited out its 20 s for each.
for mode in fail503 conflict; do
	echo "$mode" > "$T_TMP/mode"
	id=$(new_report M8 "f-$mode")
	drive "fail-$mode" "$id" <<EOS
Which software creates${TAB}libvirt
Why must these sibling${TAB}each VM gets its own budget
Would the reorganisation${TAB}no
Describe your use case${TAB}one budget per VM
one budget per VM${TAB}
Send this report to http${TAB}y
Then: \\[e\\]xport${TAB}
EOS
	check "a failed send ($mode): Enter at what then keeps it as it was, review exits 0" \
		sh -c '[ "$1" -eq 0 ] && grep -q "Kept as it was: you consented" "$2"' _ $? "$T_TMP/fail-$mode.log"
done
rm -f "$T_TMP/mode"
paste_hint 's/.*It will be tried again by \([^ ]*cgroup-feedback .*\)\.$/\1/p' "$T_TMP/fail-fail503.log" \
	"review's hint after a failure that is retried (503)"
# status exits 1 as it shows the refused report: it fails to send.
paste_hint 's/.*It will not be retried automatically; see \([^ ]*cgroup-feedback .*\)\.$/\1/p' \
	"$T_TMP/fail-conflict.log" "review's hint after a refusal (409)" 1

# Reviewed again and kept after a failed send: the report is consented and
# flush will send it, to where the consent said, which is no longer the
# configured endpoint here. Review says so, and how to send it now or stop it.
fid=$(ls -t "$ST"/reports/*.state | while read -r f; do
	grep -q '"state":"consented"' "$f" && grep -q '"next_attempt":[1-9]' "$f" && basename "$f" .state; done | head -n 1)
sed "s|^endpoint = .*|endpoint = http://127.0.0.1:9/api/v1/reports|" "$CONF" > "$T_TMP/conf.moved"
$PY tests/client/drive_review.py "$T_TMP/kept-consented.log" -- \
	"$CGFB" --config "$T_TMP/conf.moved" review --state-dir "$ST" "$fid" <<EOS
Which software creates${TAB}
Why must these sibling${TAB}
Would the reorganisation${TAB}
Describe your use case${TAB}
Send this report to http${TAB}n
Then: \\[e\\]xport${TAB}k
EOS
check "kept after a failed send: it says the report is consented and flush tries again" \
	grep -q "Kept as it was: you consented to sending it to $URL, and flush tries again" "$T_TMP/kept-consented.log"
check "... that the configured endpoint is another now" \
	grep -q "That is not the endpoint configured now (http://127.0.0.1:9/api/v1/reports)" "$T_TMP/kept-consented.log"
"$CGFB" --config "$T_TMP/conf.moved" status --state-dir "$ST" > "$T_TMP/status.moved" 2>&1
check "... status says so too, with the command that sends it to the configured one" \
	grep -q "consented for $URL, which is not the endpoint configured now; to send it there instead: $HINT_CLI_RE --config $T_TMP/conf.moved --state-dir $ST submit $fid --yes" "$T_TMP/status.moved"
paste_hint 's/.*Stop it: \([^ ]*cgroup-feedback .*\)\.$/\1/p' "$T_TMP/kept-consented.log" \
	"kept after a failed send: its stop"
check "... which withdrew it" [ "$(state_of "$fid")" = withdrawn ]

# Never and decline are undone by the command review printed: the report
# is pending again and its message announced again; reopen of a message
# (status's undo) only un-silences; with nothing to undo it says so.
paste_hint 's/.*To undo: \([^ ]*cgroup-feedback .*\)$/\1/p' "$T_TMP/never.log" "review's undo after never"
check "reopen after never: the report is pending again" [ "$(state_of "$never_id")" = pending ]
check "... and M8 is no longer silenced" sh -c '! grep -qx M8 "$1"' _ "$ST/silenced"
"$CGFB" --config "$CONF" status --state-dir "$ST" > "$T_TMP/status.out" 2>&1
check "... status lists nothing silenced" sh -c '! grep -q "silenced" "$1"' _ "$T_TMP/status.out"
"$CGFB" --config "$CONF" reopen --state-dir "$ST" "$never_id" > "$T_TMP/reopen.out" 2>&1
check "reopen again: nothing to undo, said, exit 0" \
	sh -c '[ $1 -eq 0 ] && grep -q "nothing to undo" "$2"' _ $? "$T_TMP/reopen.out"
"$CGFB" --config "$CONF" decline --state-dir "$ST" "$never_id" > /dev/null 2>&1
echo M8 >> "$ST/silenced"
"$CGFB" --config "$CONF" reopen --state-dir "$ST" M8 > "$T_TMP/reopen.out" 2>&1
check "reopen M8: only the never undone, the declined report stays declined" \
	sh -c '[ "$1" = declined ] && ! grep -qx M8 "$2"' _ "$(state_of "$never_id")" "$ST/silenced"
"$CGFB" --config "$CONF" reopen --state-dir "$ST" "$(echo "$never_id" | cut -c1-8)" > "$T_TMP/reopen.out" 2>&1
check "reopen of an id prefix after decline: pending again, and it says how to review it" \
	sh -c '[ "$1" = pending ] && grep -q "is pending again: .*cgroup-feedback .*--state-dir .* review $2" "$3"' \
	_ "$(state_of "$never_id")" "$never_id" "$T_TMP/reopen.out"
finish
