#!/usr/bin/env python3
"""What review or export showed before the yes to an e-mail, against the
e-mail that left (a file written, or what sendmail got):

  mail_shown.py TRANSCRIPT MESSAGE

- the e-mail shown ("The e-mail, exactly as it will be written:") is the
  message, byte for byte, up to its report block, and the bytes shown just
  before it (size and SHA-256) are that block's;
- the text before the question says what leaves, and each thing it says is
  in the message: the whole e-mail public on the public lists among its
  To: (or, for other recipients, read by whoever reads them), the snapshot,
  the use case and answers, this install's pseudonym, the From: line as
  the message has it, and that it cannot be withdrawn.

Exit status 0, or an assertion naming what differs.
"""
import email
import email.policy
import hashlib
import json
import re
import sys

BEGIN = "-----BEGIN CGROUP-FEEDBACK REPORT-----"
END = "-----END CGROUP-FEEDBACK REPORT-----"
PUBLIC = {"linux-mm@kvack.org", "cgroups@vger.kernel.org"}


def main():
    log = open(sys.argv[1], encoding="utf-8", errors="replace").read().replace("\r\n", "\n")
    raw = open(sys.argv[2], "rb").read().decode("utf-8")
    head = "The e-mail, exactly as it will be written:\n\n"
    at = log.rindex(head)
    shown, rest = log[at + len(head):].split("\n  " + BEGIN + "\n", 1)
    lines = shown.split("\n")
    assert all(l.startswith("  ") for l in lines), [l for l in lines if not l.startswith("  ")][:3]
    assert "\n".join(l[2:] for l in lines) + "\n" == raw[:raw.index(BEGIN)], \
        "the e-mail shown is not the e-mail up to its report block"
    # The bytes shown before it are the block's.
    msg = email.message_from_string(raw, policy=email.policy.default)
    # The block as the message carries it (a use case that is not ASCII
    # makes the body quoted-printable).
    content = msg.get_content()
    block = content[content.index(BEGIN) + len(BEGIN) + 1:content.index("\n" + END)]
    body = block.replace("\n", "").encode()
    sizes = re.findall(r"These (\d+) bytes \(SHA-256 ([0-9a-f]{64})\)", log[:at])
    assert sizes and sizes[-1] == (str(len(body)), hashlib.sha256(body).hexdigest()), sizes[-1:]
    assert raw.endswith(END + "\n"), "something follows the report block"
    # The text between the e-mail shown and the question, as one line.
    after = rest.split(END + "\n", 1)[1]
    question = re.search(r"^.*\? \[(?:y/N|n)\] ", after, re.M)
    assert question, "no question after the e-mail shown"
    text = " ".join(after[:question.start()].split())
    report = json.loads(body)
    to = [a.strip() for a in msg["To"].split(",")]
    public = [a for a in to if a in PUBLIC]
    if public:
        assert "the whole e-mail is PUBLIC" in text, text
        assert "public mailing list%s %s," % ("s" if len(public) > 1 else "", ", ".join(public)) \
            in text, (public, text)
        assert "It cannot be withdrawn from the archives" in text, text
    else:
        assert "The whole e-mail goes to %s, which is not one of the public lists" % ", ".join(to) \
            in text, text
        assert "Once sent, it cannot be taken back." in text, text
    frm = msg["From"]
    assert "From: line it is sent with (%s)" % frm in text or \
        (frm == "cgroup-feedback <cgroup-feedback@localhost>" and
         "From: line it is sent with (for now the placeholder %s)" % frm in text), (frm, text)
    # What the text names as published is what the message carries.
    assert "snapshot of this machine" in text and report["topology"]["hierarchies"] and \
        report["system"]["kernel"]["release"] in raw, "no snapshot in the message"
    assert "the use case, the answers" in text
    uc = report["use_case"]
    if uc["text"]:
        assert uc["text"].split("\n")[0][:40] in msg.get_content(), "the use case is not in the text"
    for v in uc["answers"].values():
        assert v[:40] in msg.get_content(), "an answer is not in the text"
    if public:
        assert "this install's pseudonym for mail" in text and report["consent"]["install"], text
    assert report["consent"]["endpoint"] in ("mailto:" + ",".join(to), "mail"), report["consent"]


if __name__ == "__main__":
    main()
