#!/bin/sh
# cgroup-feedback-server import reads every report a mailbox holds, whatever
# the mail path did to it, and says which messages it could not import and
# why, with a non-zero exit (issue 15, defect 7). The fixtures are made now
# from genreport.py reports in the collector's own e-mail form (export.mbox),
# re-encoded: base64, quoted-printable, CR line ends, two reports in one
# message, a BEGIN marker lost, a damaged base64 body, a message with none.
. tests/lib.sh
. tests/server/lib.sh

R=$T_TMP/reports
gen "$R" 12 15 7
# The collector that makes the fixtures is the build's own program under
# valgrind (SERVER_NATIVE, tests/lib.sh): this script's subject is the
# import, which runs under valgrind below; the start, the posts, the
# mbox export and the stop are server-api.sh's server a's path, under
# valgrind in valgrind/server-api and valgrind/pg/server-api.
SERVER_VG=$SERVER
SERVER=$SERVER_NATIVE
start_server src --rate 0 || { not_ok "server starts"; finish; exit 1; }
for n in $(seq 0 11); do post "$R/$n.json" > /dev/null; done
expect_eq "export of 12 reports: 200" "$(admin /api/v1/export.mbox)" 200
mv "$T_TMP/body" "$T_TMP/all.mbox"
stop_server
SERVER=$SERVER_VG

S=$T_TMP/shapes
python3 - "$T_TMP/all.mbox" "$S" <<'PY'
import base64, os, quopri, sys
# The messages as the collector wrote them, separator lines dropped and the
# mboxrd quoting kept (each is written back into an mbox).
raw = open(sys.argv[1], "rb").read()
msgs = [m.split(b"\n", 1)[1] for m in raw.split(b"\n\nFrom cgroup-feedback@localhost ")]
assert len(msgs) == 12, len(msgs)
def rid(m):
    return m.split(b"X-Cgroup-Feedback-Report-Id: ", 1)[1].split(b"\n", 1)[0].decode()
def expect(name, idx):
    open(os.path.join(out, name + ".ids"), "w").write(" ".join(sorted(rid(msgs[i]) for i in idx)))
out = sys.argv[2]
os.makedirs(out)
def split(raw):
    h, b = raw.split(b"\n\n", 1)
    return [l for l in h.split(b"\n") if not l.lower().startswith(b"content-transfer-encoding:")], b
def with_cte(raw, cte, body):
    h, _ = split(raw)
    return b"\n".join(h + [b"Content-Transfer-Encoding: " + cte]) + b"\n\n" + body
def b64(raw):
    return with_cte(raw, b"base64", base64.encodebytes(split(raw)[1]))
def qp(raw):
    return with_cte(raw, b"quoted-printable", quopri.encodestring(split(raw)[1]))
def mbox(name, parts):
    with open(os.path.join(out, name), "wb") as f:
        for p in parts:
            f.write(b"From someone@example.org Thu Jan  1 00:00:00 2026\n" + p.rstrip(b"\n") + b"\n\n")
begin = b"-----BEGIN CGROUP-FEEDBACK REPORT-----\n"
noreport = b"From: a@example.org\nSubject: re: thanks\nMessage-ID: <plain@example.org>\n\nNo report here.\n"
# Shapes that must import: 0-1 base64, 2 quoted-printable, 3+4 in one message, 5-6 CR only.
mbox("b64.mbox", [b64(msgs[0]), b64(msgs[1]).replace(b"\n", b"\r\n")])
mbox("qp.mbox", [qp(msgs[2]), noreport])
mbox("two.mbox", [msgs[3] + b"\n" + msgs[4]])
open(os.path.join(out, "cr.mbox"), "wb").write(
    (b"From x Thu Jan  1 00:00:00 2026\n" + msgs[5] + b"\nFrom x Thu Jan  1 00:00:00 2026\n" + msgs[6]).replace(b"\n", b"\r"))
open(os.path.join(out, "cr.eml"), "wb").write(msgs[7].replace(b"\n", b"\r"))
# Shapes that cannot: 8 lost its BEGIN line, 9 a damaged base64 body, 10 two
# reports of which the second was changed in transit; 11 is fine beside them.
bad9 = b64(msgs[9])
i = bad9.index(b"\n\n") + 40
for name, idx in (("b64", (0, 1)), ("qp", (2,)), ("two", (3, 4)), ("cr", (5, 6, 7)), ("bad", (10, 11))):
    expect(name, idx)
mbox("bad.mbox", [noreport, msgs[8].replace(begin, b"", 1), bad9[:i] + b"!" + bad9[i + 1:],
                  msgs[10] + b"\n" + msgs[0].replace(b'{"analysis"', b'{"analysiz"', 1), msgs[11]])
PY
[ -f "$S/b64.mbox" ] || { not_ok "fixtures made"; finish; exit 1; }

imp() {  # imp DB FILE...: stdout+stderr in $T_TMP/out, exit status printed
	db=$1; shift
	"$SERVER" --database "$(store_db "$db")" import "$@" > "$T_TMP/out" 2>&1
	echo $?
}
ids() { sql "$1" "select id from reports order by id" | tr '\n' ' ' | sed 's/ $//'; }
want() { cat "$S/$1.ids"; }

expect_eq "base64 bodies (LF and CRLF): exit 0" "$(imp "$T_TMP/b64.db" "$S/b64.mbox")" 0
expect_eq "base64 bodies: both reports stored" "$(ids "$T_TMP/b64.db")" "$(want b64)"
expect_eq "quoted-printable beside a mail without a report: exit 0" "$(imp "$T_TMP/qp.db" "$S/qp.mbox")" 0
expect_eq "quoted-printable: stored" "$(ids "$T_TMP/qp.db")" "$(want qp)"
check "the mail without a report is named as skipped, with its Message-ID" \
	grep -q 'qp.mbox: message 2 <plain@example.org>: skipped: no report in it' "$T_TMP/out"
check "the summary counts it" grep -q '^import: 1 imported, 0 already stored, 0 withdrawn, 1 without a report, 0 failed$' "$T_TMP/out"
expect_eq "two reports in one message: exit 0" "$(imp "$T_TMP/two.db" "$S/two.mbox")" 0
expect_eq "two reports in one message: both stored" "$(ids "$T_TMP/two.db")" "$(want two)"
expect_eq "CR line ends, mbox and .eml: exit 0" "$(imp "$T_TMP/cr.db" "$S/cr.mbox" "$S/cr.eml")" 0
expect_eq "CR line ends: all three stored" "$(ids "$T_TMP/cr.db")" "$(want cr)"

expect_eq "a mailbox with damaged reports: exit 1" "$(imp "$T_TMP/bad.db" "$S/bad.mbox")" 1
expect_eq "what could be imported was: the good report beside a damaged one, and the fine one" \
	"$(ids "$T_TMP/bad.db")" "$(want bad)"
check "the summary counts 3 failed, 1 without a report" \
	grep -q '^import: 2 imported, 0 already stored, 0 withdrawn, 1 without a report, 3 failed$' "$T_TMP/out"
check "the lost BEGIN line: message 2 named with its Message-ID and the reason" \
	grep -q "bad.mbox: message 2 <[^>]*>: not imported: an X-Cgroup-Feedback-SHA256 header but no -----BEGIN" "$T_TMP/out"
check "the damaged base64 body: message 3 and the reason" \
	grep -q "bad.mbox: message 3 <[^>]*>: not imported: the base64 body is damaged" "$T_TMP/out"
check "the changed second report: message 4, report 2, a hash mismatch" \
	grep -q "bad.mbox: message 4 <[^>]*>: report 2 not imported: the report's SHA-256 is" "$T_TMP/out"
check "every line of the output is one message's or the summary" \
	sh -c '! grep -v -e "^cgroup-feedback-server: .*bad.mbox: message [0-9]" -e "^import: " -e "schema migrated" "$1"' _ "$T_TMP/out"

# A Message-ID cannot forge a line of the output.
printf 'From x Thu Jan  1 00:00:00 2026\nMessage-ID: <a\033[2Jb@x>\nX-Cgroup-Feedback-SHA256: %s\n\nno marker\n' \
	"$(printf '%064d' 0)" > "$T_TMP/esc.mbox"
expect_eq "a report header without a report: exit 1" "$(imp "$T_TMP/esc.db" "$T_TMP/esc.mbox")" 1
check "the Message-ID is escaped" grep -qF 'message 1 <a\x1b[2Jb@x>: not imported' "$T_TMP/out"
finish
