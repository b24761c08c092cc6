#!/bin/sh
# The e-mail form for machines without network: parsed by Python's email
# package (default policy, no defects), the right headers, the JSON inside
# byte-identical to `show ID`; mbox appends; sending through sendmail and
# through SMTP with STARTTLS required.
. tests/lib.sh

PY=/usr/bin/python3
ST=$T_TMP/state
CONF=$T_TMP/conf
mkdir -p "$ST"
printf 'motd-path = %s/motd\nnotify = log\ntimeout = 5\n' "$T_TMP" > "$CONF"
cfb() { "$CGFB" --config "$CONF" "$@"; }
new_report() { $PY tests/client/pending_report.py "$ST" "$1" "$2"; }
printf 'Grüße aus Köln: one KVM guest per cgroup, since 2013 — "legacy" on purpose.\n' > "$T_TMP/uc"

id=$(new_report M8 m1)
cfb export --yes --state-dir "$ST" --email --use-case-file "$T_TMP/uc" -o "$T_TMP/m8.eml" "$id" > /dev/null
check "export -o writes the message" [ -s "$T_TMP/m8.eml" ]
cfb show --state-dir "$ST" --raw "$id" > "$T_TMP/shown"
check "Python's email package: no defects, right headers, JSON == show" $PY - "$T_TMP/m8.eml" "$T_TMP/shown" "$id" <<'EOP'
import email, email.policy, hashlib, sys
raw = open(sys.argv[1], "rb").read()
msg = email.message_from_bytes(raw, policy=email.policy.default)
assert not msg.defects, msg.defects
for part in msg.walk():
    assert not part.defects, part.defects
assert msg["To"] == "linux-mm@kvack.org", msg["To"]
assert msg["Subject"].startswith("[cgroup-feedback] ") and "(6.1.0-13-amd64)" in msg["Subject"], msg["Subject"]
for h in ("From", "Date", "Message-ID", "MIME-Version"):
    assert msg[h], h
assert msg.get_content_type() == "text/plain" and msg.get_content_charset() == "utf-8"
assert msg["Content-Transfer-Encoding"] == "quoted-printable", msg["Content-Transfer-Encoding"]
assert not msg.is_multipart()
body = msg.get_content()
assert "Grüße aus Köln" in body
j = body.split("-----BEGIN CGROUP-FEEDBACK REPORT-----\n")[1].split("\n-----END CGROUP-FEEDBACK REPORT-----")[0]
j = j.replace("\n", "").encode()
assert j == open(sys.argv[2], "rb").read(), "JSON differs from show"
assert msg["X-Cgroup-Feedback-Report-Id"] == sys.argv[3]
# Exactly, as a program reading the header would: a fold after the colon
# reads as a leading space (default policy) or newline (compat32).
assert msg["X-Cgroup-Feedback-SHA256"] == hashlib.sha256(j).hexdigest(), repr(msg["X-Cgroup-Feedback-SHA256"])
old = email.message_from_bytes(raw, policy=email.policy.compat32)
assert old["X-Cgroup-Feedback-SHA256"] == hashlib.sha256(j).hexdigest(), repr(old["X-Cgroup-Feedback-SHA256"])
# The hash header is the one line over 78 columns: it cannot fold.
long = [l for l in raw.split(b"\n") if len(l) >= 80]
assert long == [b"X-Cgroup-Feedback-SHA256: " + hashlib.sha256(j).hexdigest().encode()], long
EOP

id=$(new_report C1 m2)
cfb export --yes --state-dir "$ST" -o "$T_TMP/c1.eml" "$id" > /dev/null 2> "$T_TMP/err"
check "pure ASCII goes out 7bit" grep -q '^Content-Transfer-Encoding: 7bit$' "$T_TMP/c1.eml"
check "a cgroup core message also goes to cgroups@" grep -q '^To: linux-mm@kvack.org, cgroups@vger.kernel.org$' "$T_TMP/c1.eml"
check "without mail-from, export says the From: line is a placeholder to fill in" \
	grep -q "Its From: line is a placeholder (cgroup-feedback@localhost): put your address there" "$T_TMP/err"

id2=$(new_report M3 m3)
cfb export --yes --state-dir "$ST" --mbox "$T_TMP/out.mbox" "$id" > /dev/null
cfb export --yes --state-dir "$ST" --mbox "$T_TMP/out.mbox" "$id2" > /dev/null
check "--mbox appends: two messages, each with its report" $PY -c "
import mailbox
ids = [m['X-Cgroup-Feedback-Report-Id'] for m in mailbox.mbox('$T_TMP/out.mbox')]
assert ids == ['$id', '$id2'], ids
"
# A file someone else made first is not written through: refused as it
# is, replaced by a new file of ours (0600, by rename) with --force.
echo planted > "$T_TMP/theirs.eml"
chmod 0644 "$T_TMP/theirs.eml"
chown nobody "$T_TMP/theirs.eml" 2>/dev/null
ino=$(stat -c %i "$T_TMP/theirs.eml")
cfb export --yes --state-dir "$ST" -o "$T_TMP/theirs.eml" "$id2" > /dev/null 2> "$T_TMP/err"
check "export -o onto an existing file: refused, saying --force" \
	sh -c '[ "$1" -ne 0 ] && grep -q "theirs.eml exists.*--force replaces it" "$2"' _ "$?" "$T_TMP/err"
check "...and the file is as it was" sh -c '[ "$(cat "$1")" = planted ]' _ "$T_TMP/theirs.eml"
cfb export --yes --state-dir "$ST" --force -o "$T_TMP/theirs.eml" "$id2" > /dev/null 2> "$T_TMP/err"
check "export --force replaces it with a new file (another inode, 0600, ours)" \
	sh -c 'grep -q "^Message-ID: " "$1" && [ "$(stat -c "%i %a %u" "$1")" = "$(stat -c %i "$1" |
		grep -vx "$2") 600 $(id -u)" ]' _ "$T_TMP/theirs.eml" "$ino"
ln -s "$T_TMP/theirs.eml" "$T_TMP/link.eml"
cfb export --yes --state-dir "$ST" -o "$T_TMP/link.eml" "$id2" > /dev/null 2>&1
check "export -o onto a symbolic link: refused" [ $? -ne 0 ]
check "export - writes to standard output" sh -c "'$CGFB' --config '$CONF' export --yes --state-dir '$ST' -o - '$id2' | grep -q '^Message-ID: '"

# export asks as review does (the bytes, the e-mail, what the list
# publishes) or takes --yes: the list publishes the whole message for good.
TAB=$(printf '\t')
state_of() { sed -n 's/.*"state":"\([a-z]*\)".*/\1/p' "$ST/reports/$1.state" 2>/dev/null | head -1; }
id=$(new_report M8 m8)
# Natively under valgrind: the path of the yes below up to its question.
"$CGFB_NATIVE" --config "$CONF" export --state-dir "$ST" -o "$T_TMP/asked.eml" "$id" \
	> /dev/null 2>"$T_TMP/err" < /dev/null
check "export without --yes and without a terminal: refused, saying --yes; nothing written or recorded" \
	sh -c '[ "$1" -eq 2 ] && grep -q "it asks first on a terminal, or takes --yes" "$2" &&
		[ ! -e "$3" ] && [ ! -e "$4" ]' _ $? "$T_TMP/err" "$T_TMP/asked.eml" "$ST/reports/$id.state"
# The no: the same paths as the yes below but its answer (natively under
# valgrind: the yes runs there).
$PY tests/client/drive_review.py "$T_TMP/asked-no.log" -- "$CGFB_NATIVE" --config "$CONF" \
	export --state-dir "$ST" -o "$T_TMP/asked.eml" "$id" <<EOS
Write this e-mail for linux-mm@kvack.org to ${TAB}
EOS
check "export on a terminal, no (Enter): exit 0, nothing written or recorded, said" \
	sh -c '[ "$1" -eq 0 ] && [ ! -e "$2" ] && [ ! -e "$3" ] && grep -q "no e-mail was written or sent, and no consent recorded" "$4"' \
	_ $? "$T_TMP/asked.eml" "$ST/reports/$id.state" "$T_TMP/asked-no.log"
$PY tests/client/drive_review.py "$T_TMP/asked.log" -- "$CGFB" --config "$CONF" \
	export --state-dir "$ST" --use-case-file "$T_TMP/uc" -o "$T_TMP/asked.eml" "$id" <<EOS
Write this e-mail for linux-mm@kvack.org to ${TAB}y
EOS
check "export on a terminal, yes: exit 0, written, consented for the mail channel" \
	sh -c '[ "$1" -eq 0 ] && [ -s "$2" ] && [ "$3" = consented ]' _ $? "$T_TMP/asked.eml" "$(state_of "$id")"
check "export on a terminal: what it showed and said before the yes is the e-mail written" \
	$PY tests/client/mail_shown.py "$T_TMP/asked.log" "$T_TMP/asked.eml"

# sendmail -t -oi
cat > "$T_TMP/sendmail" <<EOS
#!/bin/sh
echo "\$*" > "$T_TMP/sendmail.args"
cat > "$T_TMP/sendmail.msg"
EOS
chmod +x "$T_TMP/sendmail"
id=$(new_report M8 m4)
cfb export --yes --state-dir "$ST" --send "$id" 2>"$T_TMP/err"
check "--send without mail-from: refused" grep -q 'needs mail-from' "$T_TMP/err"
printf 'mail-from = Ops Team <ops@example.org>\nsendmail = %s/sendmail\n' "$T_TMP" >> "$CONF"
cfb export --yes --state-dir "$ST" --send "$id" > /dev/null
check "--send through sendmail -f (mail-from's address, not login@host) -t -oi" \
	grep -qx -- '-f ops@example.org -t -oi' "$T_TMP/sendmail.args"
check "sendmail got the message with our From:" grep -q '^From: Ops Team <ops@example.org>' "$T_TMP/sendmail.msg"

# No collector here (no endpoint), a sender and a sendmail configured:
# review says a yes hands the e-mail to that mail system, and offers it.
rm -f "$T_TMP/sendmail.msg"
id=$(new_report M8 m9)
$PY tests/client/drive_review.py "$T_TMP/review-mta.log" -- "$CGFB" --config "$CONF" \
	review --state-dir "$ST" "$id" <<EOS
Which software creates${TAB}libvirt
Why must these sibling${TAB}
Would the reorganisation${TAB}
Describe your use case${TAB}One KVM guest per memory cgroup.
per memory cgroup\\.${TAB}
\\[e\\]-mail it to linux-mm@kvack.org${TAB}e
\\[s\\]end this e-mail for linux-mm@kvack.org through the local mail system${TAB}s
EOS
check "review, no collector, a mail system configured: exit 0, handed to it, consented for mail" \
	sh -c '[ "$1" -eq 0 ] && tr -d "\r" < "$3" | grep -q "^Handed to the local mail system ($2) for linux-mm@kvack.org\.$" &&
		[ -s "$4" ] && [ "$5" = consented ]' _ $? "$T_TMP/sendmail" "$T_TMP/review-mta.log" \
	"$T_TMP/sendmail.msg" "$(state_of "$id")"
check "... it said so before the first question: a yes hands it to that mail system, from mail-from" \
	$PY - "$T_TMP/review-mta.log" "$T_TMP/sendmail" <<'EOP'
import sys
log = " ".join(open(sys.argv[1], encoding="utf-8").read().split())
said = ("Where a yes at the end goes: No collector is configured (endpoint), so a yes makes the "
        "report an e-mail for linux-mm@kvack.org from Ops Team <ops@example.org> and hands it to "
        "the local mail system (%s), or writes it to a file for you to send." % sys.argv[2])
assert 0 <= log.find(said) < log.find("Which software creates"), log[:1500]
assert "Send this report to" not in log and "http://" not in log
EOP
check "... what it showed and said before the yes is the e-mail sendmail got" \
	$PY tests/client/mail_shown.py "$T_TMP/review-mta.log" "$T_TMP/sendmail.msg"

# SMTP with STARTTLS
mkdir -p "$T_TMP/pki"
(cd "$T_TMP/pki" &&
 openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 -subj /CN=test-ca 2>/dev/null &&
 openssl req -newkey rsa:2048 -nodes -keyout s.key -out s.csr -subj /CN=127.0.0.1 2>/dev/null &&
 printf 'subjectAltName=IP:127.0.0.1\n' > ext &&
 openssl x509 -req -in s.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out s.crt -days 2 -extfile ext 2>/dev/null)
smtp() {  # smtp DIR [--no-starttls]
	mkdir -p "$1"
	$PY tests/client/smtp_double.py --port-file "$1/port" --dir "$1" --cert "$T_TMP/pki/s.crt" \
		--key "$T_TMP/pki/s.key" --lifetime 30 $2 &
	i=0
	while [ ! -s "$1/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
}
smtp "$T_TMP/smtp"
SPID=$!
printf 'smtp-url = smtp://127.0.0.1:%s\nca-file = %s/pki/ca.crt\n' "$(cat "$T_TMP/smtp/port")" "$T_TMP" >> "$CONF"
id=$(new_report C1 m5)
cfb export --yes --state-dir "$ST" --send "$id" > /dev/null 2>"$T_TMP/err"
check "--send through SMTP: exit 0" [ $? -eq 0 ]
check "SMTP: STARTTLS was used" grep -qx 'TLS yes' "$T_TMP/smtp/msg-1.env"
check "SMTP: envelope from the bare mail-from address" grep -qx 'MAIL FROM:<ops@example.org>' "$T_TMP/smtp/msg-1.env"
check "SMTP: both lists are recipients" sh -c "grep -qx 'RCPT TO:<linux-mm@kvack.org>' '$T_TMP/smtp/msg-1.env' && grep -qx 'RCPT TO:<cgroups@vger.kernel.org>' '$T_TMP/smtp/msg-1.env'"
check "SMTP: the message is the report's" grep -q "X-Cgroup-Feedback-Report-Id: $id" "$T_TMP/smtp/msg-1.eml"
check "SMTP: EHLO names a constant, not this machine" grep -qx 'EHLO cgroup-feedback.invalid' "$T_TMP/smtp/msg-1.env"
# A host name planted in a UTS namespace of its own: neither the SMTP
# conversation nor any header of the mail may name it.
if [ "$(id -u)" -eq 0 ] && unshare -u true 2>/dev/null; then
	id=$(new_report M8 m7)
	# Natively under valgrind (CGFB_NATIVE, tests/lib.sh): the SMTP send
	# with STARTTLS just above took this path under valgrind (its EHLO
	# names the constant whatever the host name); what is checked here is
	# what reaches the wire, which needs no second memcheck run.
	unshare -u sh -c 'hostname acmedb01-planted.corp.example && "$@"' _ \
		"$CGFB_NATIVE" --config "$CONF" export --yes --state-dir "$ST" --send "$id" > /dev/null 2>"$T_TMP/err"
	check "SMTP from a host named acmedb01-planted: exit 0" [ $? -eq 0 ]
	check "SMTP: the planted host name is in no command and no header" \
		sh -c '! grep -rqi "acmedb01" "$1"/msg-2.env "$1"/msg-2.eml' _ "$T_TMP/smtp"
else
	skip "SMTP from a planted host name" "needs root and unshare -u"
	skip "SMTP: the planted host name is in no command and no header" "needs root and unshare -u"
fi
kill $SPID 2>/dev/null
smtp "$T_TMP/plain" --no-starttls
SPID=$!
# smtp-url may carry the server's login; a use case may carry what --redact
# replaces. The error of a refused send names neither.
sed -i "s|^smtp-url = .*|smtp-url = smtp://mailer:Pl4ntedSmtpPw@127.0.0.1:$(cat "$T_TMP/plain/port")|" "$CONF"
printf 'Ask planted-uc@acme-corp.example about it.\n' > "$T_TMP/uc-planted"
id=$(new_report M8 m6)
cfb export --yes --state-dir "$ST" --send --redact --use-case-file "$T_TMP/uc-planted" "$id" \
	> /dev/null 2>"$T_TMP/err"
check "SMTP without STARTTLS: refused" [ $? -eq 2 ]
check "SMTP without STARTTLS: nothing delivered" [ ! -f "$T_TMP/plain/msg-1.eml" ]
check "SMTP error: names the server without its password, the use case's finding by place" \
	sh -c "grep -q 'smtp://127.0.0.1:' '$T_TMP/err' && grep -q 'the use case, line 1, column 5' '$T_TMP/err'"
check "SMTP error: neither the planted password nor the planted address is printed" \
	sh -c "! grep -q -e Pl4ntedSmtpPw -e mailer: -e planted-uc '$T_TMP/err'"
kill $SPID 2>/dev/null
finish
