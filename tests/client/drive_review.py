#!/usr/bin/env python3
"""Drive `cgroup-feedback review` on a real pseudo-terminal the way a person
would: wait for each prompt, type an answer. Every wait is bounded.

  drive_review.py TRANSCRIPT -- COMMAND... < SCRIPT

SCRIPT has one step per line, "EXPECT<TAB>ANSWER": wait until the output
contains EXPECT (a regular expression), then type ANSWER and Enter (an empty
ANSWER is just Enter; the word <EOF> closes the terminal's input, <INTR> types
Ctrl-C, which the terminal turns into SIGINT). The whole
transcript is written to TRANSCRIPT. Exit status: the command's, or 124 when a
prompt did not come within 30 seconds or the command did not exit within 20
seconds of the last step (said on standard error).
"""
import os
import pty
import re
import select
import signal
import sys
import time


def main():
    transcript = sys.argv[1]
    cmd = sys.argv[sys.argv.index("--") + 1:]
    steps = [l.rstrip("\n").split("\t", 1) for l in sys.stdin if l.strip()]
    pid, fd = pty.fork()
    if pid == 0:
        # As a shell starts it: Python ignores SIGPIPE, and an ignored
        # signal would stay ignored across exec.
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        os.environ["PAGER"] = os.environ.get("DRIVE_PAGER", "cat")
        os.environ["TERM"] = "dumb"
        os.execvp(cmd[0], cmd)
    out = b""
    pos = 0

    def read_some(deadline):
        nonlocal out
        r, _, _ = select.select([fd], [], [], max(0, deadline - time.time()))
        if not r:
            return False
        try:
            data = os.read(fd, 65536)
        except OSError:
            return False
        if not data:
            return False
        out += data
        return True

    status = None
    for expect, answer in [(s[0], s[1] if len(s) > 1 else "") for s in steps]:
        deadline = time.time() + 30
        rx = re.compile(expect.encode())
        while not rx.search(out, pos):
            if time.time() > deadline or not read_some(deadline):
                open(transcript, "wb").write(out)
                sys.stderr.write("no prompt matching %r\n" % expect)
                os.kill(pid, 9)
                return 124
        pos = rx.search(out, pos).end()
        if answer == "<EOF>":
            os.write(fd, b"\x04")
        elif answer == "<INTR>":
            os.write(fd, b"\x03")
        else:
            os.write(fd, answer.encode() + b"\r")
    deadline = time.time() + 20
    while time.time() < deadline:
        read_some(time.time() + 0.2)
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = os.waitstatus_to_exitcode(st)
            break
    while read_some(time.time() + 0.1):
        pass
    open(transcript, "wb").write(out)
    if status is None:
        # Most often a question the script does not answer: the end of
        # the transcript shows which.
        sys.stderr.write("no exit within 20 s of the last step; the transcript ends %r\n"
                         % out[-200:].decode("utf-8", "replace"))
        os.kill(pid, 9)
        return 124
    return status


if __name__ == "__main__":
    sys.exit(main())
