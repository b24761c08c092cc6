#!/usr/bin/env python3
"""The administrator at the guest's terminal (ttyS2), for tests/system/run.sh.

  admin.py SOCKET LOG RESULT PASSWORD SECONDS

Listens on the unix socket SOCKET, which qemu connects ttyS2 to (a socket
chardev), and writes everything the terminal shows to LOG, as a file chardev
would. When the wall message for M8 arrives after the guest's marker
"@@MARK wall-M8@@", it does what the message asks of a person: types the
command the message printed, exactly as printed, sudo's password at sudo's
prompt, and answers `cgroup-feedback review` as an administrator would
(answers, a use case, keep for later: with the packaged configuration,
which names no collector, review offers the e-mail for the list and keep,
and sends nothing over the network). Then
it types the command keep for later printed ("... review ID starts from
it"), checks that the answers typed are shown again, keeps them (Enter) and
keeps the report for later once more. After each, it asks the shell for the
command's exit status.

RESULT gets "command: <typed>", "rc: N", "command2: <typed>", "rc2: N", or
"error: <the step that failed>".
Every wait is bounded; the whole run ends after SECONDS or when qemu closes
the socket. Exit status 0 unless the socket never connected.
"""
import re
import select
import socket
import sys
import time

WALL_MARK = b"@@MARK wall-M8@@"
HINT = re.compile(rb"\nM8: [^\r\n]*\r*\nReview it \(nothing is sent without your yes\): ([^\r\n]*)\r*\n")
# less's prompt, alone on the last line, drawn in standout or not; after a
# line that filled the terminal's width less draws it after " \b" instead
# of a line feed.
LESS_PROMPT = re.compile(rb"[\r\n\x08](\x1b\[[0-9;?]*[A-Za-z]|\r)*(:|\(END\))(\x1b\[[0-9;?]*[A-Za-z])*[ ]*$")
# The administrator's shell's prompt (bash: user@host:dir$ ).
SHELL_PROMPT = re.compile(rb"admin@[^\s:]+:[^\s]*\$ ")
STEP_SECONDS = 180
# answer_all's answer comes after this much silence behind a prompt: a
# prompt is the end of review's output until it is answered, and a guest
# slow to print what follows one would only find its answer waiting
# (typed ahead, read by its next read).
QUIET = 0.5

# (what review shows, what the administrator types); <PAGER> is the pager.
# The end of every review here: keep for later. The packaged configuration
# names no collector: no bytes for one, no question about sending; the
# e-mail for the list or keep (run.sh checks that nothing else was offered).
KEEP_FOR_LATER = [
    (rb"Now: \[e\]-mail it to linux-mm@kvack\.org[^\n]*\[k\]eep for later[^\n]*\[k\] ", b"k"),
]
# The first review: answers and a use case. The guest's kernel (6.1)
# refuses the write of 0 to memory.use_hierarchy that prints M8, so no
# group is flat, no reorganisation is shown, and review does not ask about
# one (it says the kernel refused the write instead).
REVIEW = [
    (rb"What the kernel did with the write: the kernel refused the write", None),
    (rb"Which software creates[^\n]*\n> ", b"our own batch scheduler"),
    (rb"Why must these sibling[^\n]*\n> ", b""),
    (rb"Describe your use case", b"Each batch job gets its own memory limit."),
    (rb"memory limit\.\r*\n", b""),
    # The guest's memory cgroup "job" (guest/lib.sh) is a name the report
    # shows only as a token: the secret check asks about each such finding
    # on its own, and the administrator keeps the words.
    (rb"", "<KEEP_FINDINGS>"),
] + KEEP_FOR_LATER
FINDING = re.compile(rb"\n  ([^\r\n]*)\r*\n(?:[^\n]*\n)*?[^\n]*the rest\? \[r\] ")
# Again from keep for later's hint: what was typed is there; Enter keeps it.
REVIEW_AGAIN = [
    (rb"Which software creates[^\n]*\n  \(your answer so far: our own batch scheduler\)\r*\n> ", b""),
    (rb"Why must these sibling[^\n]*\n> ", b""),
    (rb"\| Each batch job gets its own memory limit\.\r*\n[^\n]*remove it\.\r*\n", b""),
] + KEEP_FOR_LATER
KEPT = re.compile(rb"Kept for later with what you typed; nothing was sent\. ([^\r\n]*) starts from it\.")
PASSWORD = re.compile(rb"\[sudo\] password for admin:")


class Terminal:
    def __init__(self, conn, log, deadline):
        self.conn, self.log, self.deadline = conn, log, deadline
        self.out = b""
        self.open = True

    def read(self, timeout):
        """What arrives within timeout; False when nothing did."""
        if not self.open:
            return False
        t = max(0.0, min(timeout, self.deadline - time.time()))
        r, _, _ = select.select([self.conn], [], [], t)
        if not r:
            return False
        data = self.conn.recv(65536)
        if not data:
            self.open = False
            return False
        self.log.write(data)
        self.log.flush()
        self.out += data
        return True

    def expect(self, rx, pos, seconds=STEP_SECONDS):
        """The match of rx in the output after pos, or None in time."""
        end = min(self.deadline, time.time() + seconds)
        while True:
            m = rx.search(self.out, pos)
            if m:
                return m
            if time.time() > end or not self.open:
                return None
            self.read(end - time.time())

    def type(self, text):
        # The line discipline turns CR into NL, as when a person presses Enter.
        time.sleep(0.3)
        self.conn.sendall(text + b"\r")


def pager(term, pos):
    """Through less (or none): q at its prompt, until review asks to send."""
    send = re.compile(rb"Send this report to|Write this report as an e-mail|\[s\]end this e-mail")
    end = time.time() + STEP_SECONDS
    answered_at = -1
    while time.time() < end and term.open:
        if send.search(term.out, pos):
            return pos
        # Once per prompt: a slow guest may show nothing new for a while.
        if not term.read(1.5) and len(term.out) != answered_at and \
                LESS_PROMPT.search(term.out[-200:]):
            time.sleep(0.3)
            term.conn.sendall(b"q")
            answered_at = len(term.out)
    return None


def run(term, result, n, command, steps, password):
    """Types command, sudo's password if asked, then answers steps; the
    match of keep for later's line, or an error string."""
    result.write("command%s: %s\n" % (n, command.decode(errors="replace")))
    result.flush()
    pos = len(term.out)
    term.type(command)
    first = re.compile(PASSWORD.pattern + b"|" + steps[0][0])
    m = term.expect(first, pos)
    if not m:
        return None, "no password prompt nor %r" % steps[0][0]
    if PASSWORD.match(m.group(0)):
        term.type(password)
        pos = m.end()
    for i, (rx, answer) in enumerate(steps):
        if answer == "<KEEP_FINDINGS>":
            # Each question of the secret check, until the next step's prompt.
            nxt = re.compile(steps[i + 1][0])
            while True:
                m = term.expect(re.compile(FINDING.pattern + b"|" + nxt.pattern), pos)
                if not m or not m.group(0).endswith(b"the rest? [r] "):
                    break
                result.write("finding%s: %s\n" % (n, m.group(1).decode(errors="replace")))
                term.type(b"k")
                pos = m.end()
            continue
        m = term.expect(re.compile(rx), pos)
        if not m:
            return None, "no prompt matching %r" % rx
        pos = m.end()
        if answer is None:          # only to be seen, nothing to type
            continue
        if answer == "<PAGER>":
            if pager(term, pos) is None:
                return None, "no pager end or send prompt after %r" % rx
        else:
            term.type(answer)
    kept = term.expect(KEPT, pos)
    if not kept:
        return None, "no 'Kept for later' line"
    # The shell's prompt again (the guest may write a marker behind it).
    if not term.expect(SHELL_PROMPT, kept.end(), 60):
        return None, "no shell prompt after review"
    return kept, exit_status(term, result, n)


def exit_status(term, result, n):
    """Asks the shell for the status of what was typed: "rcN: S" in
    result, or an error string."""
    pos = len(term.out)
    term.type(b"echo @@RC=$?@@")
    m = term.expect(re.compile(rb"@@RC=([0-9]+)@@"), pos, 60)
    if not m:
        return "no exit status"
    result.write("rc%s: %s\n" % (n, m.group(1).decode()))
    result.flush()
    return None


# After the reboot: the login banner's command, and every report it walks.
BANNER_MARK = b"@@MARK banner-review@@"
REBOOT_MARK = b"@@MARK reboot@@"
BANNER = re.compile(rb"Review what would be sent \(nothing leaves without your yes\):\r*\n +([^\r\n]*)\r*\n")
# What review waits at, as the end of what the terminal shows, and the
# answer: Enter (no answer, no use case, no to sending), q for less, k
# (keep for later; and keep, should a secret-looking string be asked about).
WAITS = [
    (re.compile(rb"\[sudo\] password for admin: ?$"), None),
    (LESS_PROMPT, b"q"),
    (re.compile(rb"\[y/N\] $"), b"\r"),
    (re.compile(rb"the rest\? \[r\] $"), b"k\r"),
    (re.compile(rb"\[k\] $"), b"k\r"),
    (re.compile(rb"\n> $"), b"\r"),
    (re.compile(rb"(\$EDITOR\):|remove it\.)\r*\n$"), b"\r"),
]



def answer_all(term, password, pos):
    """Answers whatever review asks until the shell's prompt is back."""
    end = min(term.deadline, time.time() + 900)
    answered_at = pos
    while time.time() < end and term.open:
        # Done: the shell's prompt after the last report's end (the guest
        # may write its marker behind it at once: not only at the end).
        last = max(term.out.rfind(b"Kept for later"), term.out.rfind(b"Nothing is waiting"))
        if last >= pos and SHELL_PROMPT.search(term.out, last) and \
                term.out.find(b"== cgroup-feedback: report ", last) < 0:
            return None
        # Answered once the output has ended in a prompt and stayed quiet
        # for QUIET seconds: every WAITS pattern is anchored at the end of
        # what was shown, the last thing review prints before it reads.
        # (It waited 1.5 s of silence and 0.3 s more before each answer:
        # some 35 prompts after the reboot made that a minute of the test.)
        if term.read(QUIET):
            continue
        # Once per prompt: nothing new arrived since the last answer.
        if len(term.out) == answered_at:
            continue
        tail = term.out[-300:]
        for rx, answer in WAITS:
            if rx.search(tail):
                term.conn.sendall(answer if answer is not None else password + b"\r")
                answered_at = len(term.out)
                break
    return "review did not end (the last thing shown: %r)" % term.out[-120:]


def banner_review(term, result, password):
    mark = term.expect(re.compile(re.escape(BANNER_MARK)), 0, int(term.deadline - time.time()))
    if not mark:
        return "no marker banner-review"
    reboot = term.out.find(REBOOT_MARK)
    banner = BANNER.search(term.out, reboot if reboot >= 0 else 0, mark.start())
    if not banner:
        return "no login banner after the reboot"
    command = banner.group(1)
    result.write("command3: %s\n" % command.decode(errors="replace"))
    result.flush()
    pos = len(term.out)
    term.type(command)
    err = answer_all(term, password, pos)
    if err:
        return err
    shown = term.out[pos:]
    result.write("reports: %d kept: %d\n" % (shown.count(b"== cgroup-feedback: report "),
                                             shown.count(b"Kept for later with what you typed")))
    return exit_status(term, result, "3")


def administrator(term, result, password, seconds):
    mark = term.expect(re.compile(re.escape(WALL_MARK)), 0, seconds)
    hint = mark and term.expect(HINT, mark.end())
    if not hint:
        return "no wall message for M8 on the terminal"
    kept, err = run(term, result, "", hint.group(1), REVIEW, password)
    if err:
        return err
    _, err = run(term, result, "2", kept.group(1), REVIEW_AGAIN, password)
    if err:
        return err
    return banner_review(term, result, password)


def main():
    path, log_path, result_path, password, seconds = sys.argv[1:6]
    deadline = time.time() + int(seconds)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)
    srv.settimeout(120)
    try:
        conn, _ = srv.accept()
    except socket.timeout:
        sys.stderr.write("admin.py: qemu never connected to %s\n" % path)
        return 1
    srv.close()
    with open(log_path, "wb") as log, open(result_path, "w") as result:
        term = Terminal(conn, log, deadline)
        err = administrator(term, result, password.encode(), int(seconds))
        if err:
            result.write("error: %s\n" % err)
        result.flush()
        # The rest of what the terminal shows, until qemu exits.
        while term.open and time.time() < deadline:
            term.read(deadline - time.time())
    return 0


if __name__ == "__main__":
    sys.exit(main())
