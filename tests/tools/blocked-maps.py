#!/usr/bin/python3
"""blocked-maps.py CMD [ARG...] [\; CMD [ARG...]]...: the shared objects each
running CMD maps, after a line "== CMD ARG..." (one Python for all: its
start-up is most of the time).

CMD runs with its standard input a pipe that stays empty and its standard
output a pipe that is already full, so that it blocks in its first read of
its input or its first write of its output, whichever comes first: by then
it has loaded what it loads (a library opened at first use included). This
prints every shared object in /proc/PID/maps, one a line, then drains the
pipe, closes its input and lets it finish. A poll on the process's wait
channel (/proc/PID/wchan names the pipe), no sleep for a guessed time.

Exit 0, or 2 when CMD ended or did not block within 30 s (said on stderr).
"""
import os
import subprocess
import sys
import time


def full_pipe():
    r, w = os.pipe()
    os.set_blocking(w, False)
    try:
        while True:
            os.write(w, b"x" * 4096)
    except BlockingIOError:
        pass
    os.set_blocking(w, True)
    return r, w


def wchan(pid):
    try:
        with open("/proc/%d/wchan" % pid) as f:
            return f.read()
    except OSError:
        return ""


def maps(argv):
    in_r, in_w = os.pipe()
    out_r, out_w = full_pipe()
    proc = subprocess.Popen(argv, stdin=in_r, stdout=out_w)
    os.close(in_r)
    os.close(out_w)
    deadline = time.monotonic() + 30
    while "pipe" not in wchan(proc.pid):
        if proc.poll() is not None or time.monotonic() > deadline:
            print("blocked-maps: %s %s without blocking on a pipe" %
                  (" ".join(argv), "ended (status %s)" % proc.returncode
                   if proc.returncode is not None else "ran 30 s"), file=sys.stderr)
            proc.kill()
            proc.wait()
            return 2
        time.sleep(0.01)
    with open("/proc/%d/maps" % proc.pid) as f:
        objs = sorted({line.split()[5] for line in f
                       if len(line.split()) >= 6 and ".so" in line.split()[5]})
    print("== " + " ".join(argv))
    print("\n".join(objs), flush=True)
    os.close(in_w)
    while os.read(out_r, 65536):
        pass
    os.close(out_r)
    proc.wait()
    return 0


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    rc, argv = 0, []
    for a in sys.argv[1:] + [";"]:
        if a != ";":
            argv.append(a)
            continue
        if argv:
            rc = max(rc, maps(argv))
        argv = []
    return rc


if __name__ == "__main__":
    sys.exit(main())
